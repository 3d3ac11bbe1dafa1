package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/renderers/rendertest"
)

func repoRoot(t *testing.T) string { return rendertest.RepoRoot(t) }

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
			for _, dev := range devices {
				out := filepath.Join(t.TempDir(), "out")
				var stdout, stderr bytes.Buffer
				// OpenConfig indented, as a reviewer reads it; the default
				// (compact) is the same JSON (TestOpenConfigCompactByDefault).
				if code := Run([]string{"build", src, "-o", out, "--only", dev, "-q", "--openconfig", "indented"}, &stdout, &stderr); code != 0 {
					t.Fatalf("build %s --only %s: exit %d\n%s", example, dev, code, stderr.String())
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
			out := filepath.Join(t.TempDir(), "out")
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
