package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/load"
	cuejson "cuelang.org/go/encoding/json"
	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/renderers/rendertest"
)

func repoRoot(t *testing.T) string { return rendertest.RepoRoot(t) }

// says fails t for each of wants that out, what the command named by what
// printed, does not contain.
func says(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("%s does not say %q:\n%s", what, want, out)
		}
	}
}

// buildQuiet builds src into a fresh directory with -q and args, failing
// t unless the build succeeds, and returns the directory.
func buildQuiet(t *testing.T, src string, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	if code := Run(append([]string{"build", src, "-o", out, "-q"}, args...), &stdout, &stderr); code != 0 {
		t.Fatalf("build %v: exit %d\n%s", args, code, stderr.String())
	}
	return out
}

// goldenDevices are the devices of each example whose artifacts are kept
// as golden files: one per role and platform, and the first server.
var goldenDevices = map[string][]string{
	"pod-2048":        {"leaf-r0-00", "spine-00", "gpu-0000"},
	"multitenant":     {"leaf-r0-00", "spine-00", "gpu-0000"},
	"hyperscale-100k": {"leaf-r0-000", "spine-0000", "superspine-000", "gpu-00000"},
	"mixed-fleet":     {"leaf-r0-00", "spine-00", "gpu-0000", "gpu-0016"},
}

// goldenOnly is the --only glob an example is built with for its golden
// files, where rendering all its devices would take long: in
// hyperscale-100k the first leaf of each rail, the first spine,
// superspine and server, and 134 more devices (the first of every ten
// servers of the first thousand and the like), whose files are not
// compared. The other examples are built whole.
var goldenOnly = map[string]string{"hyperscale-100k": "*-[0r]0*0"}

// TestExamplesGolden builds every example and compares SUMMARY.md, the
// tenants' environments, the Slurm topology files, the monitoring files,
// the chosen devices' artifacts and (for the smaller examples)
// inventory.json and the collectors' target lists with
// testdata/golden/<example>/.
// ROCEFAB_UPDATE=1 rewrites them.
func TestExamplesGolden(t *testing.T) {
	root := repoRoot(t)
	for example, devices := range goldenDevices {
		t.Run(example, func(t *testing.T) {
			t.Parallel()
			src := filepath.Join(root, "examples", example)
			// One build for every device kept: the example compiles once.
			// OpenConfig indented, as a reviewer reads it; the default
			// (compact) is the same JSON (TestOpenConfigCompactByDefault).
			args := []string{"--openconfig", "indented"}
			if only := goldenOnly[example]; only != "" {
				args = append(args, "--only", only)
			}
			out := buildQuiet(t, src, args...)
			for _, dev := range devices {
				// A server's host.sh runs the runtime: the same bytes for
				// every server, kept once by renderers/host's goldens.
				if err := os.Remove(filepath.Join(out, dev, "host.sh")); err != nil && !errors.Is(err, fs.ErrNotExist) {
					t.Fatal(err)
				}
				keep := []string{dev}
				if dev == devices[0] {
					// hosts/ (the runtime and unit, the same for every
					// fabric) is kept once, by renderers/host's goldens.
					keep = append(keep, "SUMMARY.md", "slurm")
					if example != "hyperscale-100k" {
						keep = append(keep, "inventory.json", "monitoring")
					} else {
						// The collector's targets (gnmic.yaml, the
						// servers' file_sd lists) list every device, a
						// megabyte here: the smaller examples keep their
						// form, this one the files of a fixed size.
						keep = append(keep, "monitoring/prometheus.yml", "monitoring/prometheus-rules.yml",
							"monitoring/node-exporter.args")
					}
				}
				for _, k := range keep {
					compareTree(t, filepath.Join(out, k), filepath.Join(root, "testdata", "golden", example, k))
				}
			}
			out = filepath.Join(t.TempDir(), "out")
			var stdout, stderr bytes.Buffer
			// A pattern that names no device is a mistake, not an empty build.
			if code := Run([]string{"build", src, "-o", out, "--only", "no-such-device", "-q"}, &stdout, &stderr); code != 2 ||
				!strings.Contains(stderr.String(), `--only "no-such-device" matches no device; closest: `) {
				t.Fatalf("build --only no-such-device: exit %d, want 2 naming the closest devices\n%s", code, stderr.String())
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("build --only no-such-device wrote %s", out)
			}
		})
	}
}

// compareTree compares a file, or every file below a directory, with its
// golden copy.
func compareTree(t *testing.T, got, golden string) {
	t.Helper()
	err := filepath.WalkDir(got, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, got)
		rendertest.Golden(t, golden+rel, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A golden file the build no longer writes is stale too.
	_ = filepath.WalkDir(golden, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if _, err := os.Stat(got + strings.TrimPrefix(p, golden)); err != nil {
			if rendertest.Update() {
				return os.Remove(p)
			}
			t.Errorf("%s is not written any more: remove it (ROCEFAB_UPDATE=1 does)", p)
		}
		return nil
	})
}

// TestOpenConfigCompactByDefault checks the --openconfig forms: compact by
// default and equal, as JSON, to the indented form; none writes no
// openconfig.json; anything else is exit 2.
func TestOpenConfigCompactByDefault(t *testing.T) {
	src := filepath.Join(repoRoot(t), "examples", "pod-2048")
	build := func(extra ...string) string {
		t.Helper()
		out := filepath.Join(t.TempDir(), "out")
		var stderr bytes.Buffer
		args := append([]string{"build", src, "-o", out, "--only", "leaf-r0-00", "-q"}, extra...)
		if code := Run(args, io.Discard, &stderr); code != 0 {
			t.Fatalf("build %v: exit %d\n%s", extra, code, stderr.String())
		}
		return out
	}
	compact, err := os.ReadFile(filepath.Join(build(), "leaf-r0-00", "openconfig.json"))
	if err != nil {
		t.Fatal(err)
	}
	indented, err := os.ReadFile(filepath.Join(build("--openconfig", "indented"), "leaf-r0-00", "openconfig.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := json.Compact(&want, indented); err != nil {
		t.Fatal(err)
	}
	want.WriteByte('\n')
	if !bytes.Equal(compact, want.Bytes()) {
		t.Errorf("default openconfig.json is not the indented form compacted")
	}
	if len(compact) > len(indented)*2/3 {
		t.Errorf("compact form is %d bytes, the indented %d: expected well under two thirds", len(compact), len(indented))
	}
	if _, err := os.Stat(filepath.Join(build("--openconfig", "none"), "leaf-r0-00", "openconfig.json")); err == nil {
		t.Errorf("--openconfig none wrote openconfig.json")
	}
	var stderr bytes.Buffer
	if code := Run([]string{"build", src, "-o", filepath.Join(t.TempDir(), "x"), "--openconfig", "pretty"}, io.Discard, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), "allowed are compact, indented, none") {
		t.Errorf("--openconfig pretty: exit %d, %s", code, stderr.String())
	}
}

// TestMain lets the test binary stand in for the rocefab command, so that
// example command lines run through a real shell (redirections, &&, <(...))
// without building a separate binary.
func TestMain(m *testing.M) {
	if os.Getenv("ROCEFAB_RUN_MAIN") == "1" {
		os.Exit(Main())
	}
	os.Exit(m.Run())
}

// exampleLine is one command line a user is shown, and where.
type exampleLine struct {
	where, line string
}

// helpExamples returns the command lines of every command's Example, and
// the indented command lines of its Long help.
func helpExamples() []exampleLine {
	var out []exampleLine
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, text := range []string{c.Example, c.Long} {
			for _, l := range strings.Split(text, "\n") {
				if !strings.HasPrefix(l, "  ") {
					continue
				}
				l = strings.TrimSpace(l)
				if strings.HasPrefix(l, "rocefab ") || strings.HasPrefix(l, "source <(rocefab ") {
					out = append(out, exampleLine{"rocefab " + c.Name() + " --help", l})
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(&bytes.Buffer{}, &bytes.Buffer{}))
	return out
}

// readmeExamples returns every line of README.md's ```sh blocks.
func readmeExamples(t *testing.T) []exampleLine {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []exampleLine
	in := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "```"):
			in = l == "```sh"
		case in && strings.TrimSpace(l) != "" && !strings.HasPrefix(strings.TrimSpace(l), "#"):
			out = append(out, exampleLine{fmt.Sprintf("README.md:%d", n), strings.TrimSpace(l)})
		}
	}
	return out
}

// notRun are the shown commands this test does not run, each with why.
var notRun = map[string]string{
	"go test ./...": "the test suite itself",
	// doctor reads counters scraped from a running fabric, and exits 2
	// when it finds something; testdata/script/doctor.txtar runs it.
	"rocefab doctor examples/pod-2048 --snapshot t0.prom --snapshot t1.prom --interval 30s": "reads the counters of a fabric of the reader's",
	"rocefab doctor . --snapshot window.prom --format json":                                 "reads the counters of a fabric of the reader's",
	"rocefab doctor examples/pod-2048 --prometheus http://prometheus:9090 --window 5m":      "reads the counters of a fabric of the reader's from its Prometheus",
	"rocefab doctor examples/pod-2048 --sample 30s --inventory inventory.json":              "reads the counters of a fabric of the reader's from its devices",
}

// TestExampleCommands runs every command line shown in a --help text or in
// README.md's shell blocks, in a fresh directory holding the repository's
// examples (and examples/pod-2048's intent as ./fabric.cue, for the lines
// that use PATH ".", and a fresh fabric without running configurations as
// ./lab), and fails on a non-zero exit. `go run ./cmd/rocefab`
// runs as rocefab; a line made of steps joined by && runs step by step,
// and a cue step runs cue when it is installed, or else its equivalent
// through the cuelang.org/go library (cueStep).
func TestExampleCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the examples")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	shim := fmt.Sprintf("#!/bin/sh\nROCEFAB_RUN_MAIN=1 exec '%s' \"$@\"\n", self)
	if err := os.WriteFile(filepath.Join(bin, "rocefab"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	root := repoRoot(t)
	lines := append(helpExamples(), readmeExamples(t)...)
	if len(lines) < 8 {
		t.Fatalf("only %d example lines found: the extraction is broken", len(lines))
	}
	for _, ex := range lines {
		t.Run(ex.line, func(t *testing.T) {
			if why, ok := notRun[ex.line]; ok {
				t.Skipf("%s: %s", ex.where, why)
			}
			dir := t.TempDir()
			if err := os.Symlink(filepath.Join(root, "examples"), filepath.Join(dir, "examples")); err != nil {
				t.Fatal(err)
			}
			intent, err := os.ReadFile(filepath.Join(root, "examples", "pod-2048", "fabric.cue"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "fabric.cue"), intent, 0o644); err != nil {
				t.Fatal(err)
			}
			// lab is a fresh fabric of the reader's, which runs nothing of
			// rocefab's yet (no lab/running/): apply configures it from
			// scratch through the directory target.
			if err := os.MkdirAll(filepath.Join(dir, "lab"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "lab", "fabric.cue"), []byte(labIntent), 0o644); err != nil {
				t.Fatal(err)
			}
			line := strings.ReplaceAll(ex.line, "go run ./cmd/rocefab", "rocefab")
			for _, step := range strings.Split(line, " && ") {
				if strings.HasPrefix(step, "cue ") {
					if _, err := exec.LookPath("cue"); err != nil {
						if err := cueStep(dir, step); err != nil {
							t.Fatalf("%s: %s: %v", ex.where, step, err)
						}
						continue
					}
				} else if !strings.HasPrefix(step, "rocefab ") && !strings.HasPrefix(step, "source <(rocefab ") {
					t.Fatalf("%s: %q is not a rocefab command: run it here or list it in notRun with why", ex.where, step)
				}
				cmd := exec.Command(bash, "-e", "-o", "pipefail", "-c", step)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s: %s: %v\n%s", ex.where, step, err, out)
				}
			}
		})
	}
}

var (
	cueExport = regexp.MustCompile(`^cue export (\S+\.cue) > (\S+\.json)$`)
	cueVet    = regexp.MustCompile(`^cue vet -d '([^']+)' (\S+\.cue) (\S+\.json)$`)
)

// cueStep does what the cue command line step does, with the library cue
// is built from (the version in go.mod): `cue export F.cue > F.json`
// writes the concrete value as JSON, and `cue vet -d EXPR S.cue D.json`
// unifies the data with the schema's EXPR and requires a concrete, valid
// result. Both forms were checked against the cue v0.17.1 binary: vet
// takes -d only with non-CUE data files, hence the export.
func cueStep(dir, step string) error {
	ctx := cuecontext.New()
	build := func(file string) (cue.Value, error) {
		insts := load.Instances([]string{file}, &load.Config{Dir: dir})
		v := ctx.BuildInstance(insts[0])
		return v, v.Err()
	}
	switch {
	case cueExport.MatchString(step):
		m := cueExport.FindStringSubmatch(step)
		v, err := build(m[1])
		if err != nil {
			return err
		}
		if err := v.Validate(cue.Concrete(true)); err != nil {
			return err
		}
		b, err := json.MarshalIndent(v, "", "    ")
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, m[2]), append(b, '\n'), 0o644)
	case cueVet.MatchString(step):
		m := cueVet.FindStringSubmatch(step)
		v, err := build(m[2])
		if err != nil {
			return err
		}
		schema := v.LookupPath(cue.ParsePath(m[1]))
		if !schema.Exists() {
			return fmt.Errorf("no %s in %s", m[1], m[2])
		}
		data, err := os.ReadFile(filepath.Join(dir, m[3]))
		if err != nil {
			return err
		}
		expr, err := cuejson.Extract(m[3], data)
		if err != nil {
			return err
		}
		return schema.Unify(ctx.BuildExpr(expr)).Validate(cue.Concrete(true))
	}
	return fmt.Errorf("no library equivalent of this cue command: add one or install cue")
}

// TestCueStepRejects makes sure the cue equivalent can fail: data that
// breaks the schema is refused, as cue vet refuses it.
func TestCueStepRejects(t *testing.T) {
	dir := t.TempDir()
	var schemaOut, stderr bytes.Buffer
	if code := Run([]string{"schema"}, &schemaOut, &stderr); code != 0 {
		t.Fatal(stderr.String())
	}
	if err := os.WriteFile(filepath.Join(dir, "schema.cue"), schemaOut.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"name": "lab", "topology": {"servers": "many"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cueStep(dir, "cue vet -d '#Fabric' schema.cue bad.json"); err == nil {
		t.Error("cue vet equivalent accepted topology.servers: \"many\"")
	}
	if err := os.WriteFile(filepath.Join(dir, "good.json"), []byte(`{"name": "lab", "topology": {"servers": 16}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cueStep(dir, "cue vet -d '#Fabric' schema.cue good.json"); err != nil {
		t.Errorf("cue vet equivalent refused a five-line intent: %v", err)
	}
}
