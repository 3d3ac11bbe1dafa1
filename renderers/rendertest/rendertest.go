// Package rendertest holds the golden-file helper every renderer test uses.
//
// Golden files are rewritten by running the tests with ROCEFAB_UPDATE=1 set
// (an environment variable rather than a flag, so that `go test ./...` works
// in every package); without it a difference fails the test with a unified
// diff.
package rendertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/schema"
)

// Update reports whether golden files should be rewritten. It reads the
// environment while the test runs, so the go test cache does not hide it.
func Update() bool { return os.Getenv("ROCEFAB_UPDATE") != "" }

// Golden compares got with the file at path (relative to the test's
// package directory), or rewrites the file when updating.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if Update() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file: %v (run with ROCEFAB_UPDATE=1 to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s is stale (run with ROCEFAB_UPDATE=1 to rewrite it):\n%s", path, diff.Diff(path, want, "got", got))
	}
}

// GoldenSection compares got with the part of the file at path between
// the lines begin and end (a generated section of a document written by
// hand around it), or rewrites that part when updating.
func GoldenSection(t testing.TB, path, begin, end string, got []byte) {
	t.Helper()
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(doc, []byte(begin)), bytes.Index(doc, []byte(end))
	if i < 0 || j < i+len(begin) {
		t.Fatalf("%s has no section between %q and %q", path, begin, end)
	}
	want := doc[i+len(begin) : j]
	if bytes.Equal(want, got) {
		return
	}
	if Update() {
		out := append(append(bytes.Clone(doc[:i+len(begin)]), got...), doc[j:]...)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the section after %q is stale (run with ROCEFAB_UPDATE=1 to rewrite it):\n%s", path, begin, diff.Diff(path, want, "got", got))
}

// RepoRoot returns the module's root directory (the one holding go.mod),
// found by walking up from the test's working directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Shared returns rel inside the shared/ directory that sits beside the
// project's checkout (the vendors' YANG and the independent validators),
// or skips the test with the reason when it is not there.
func Shared(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(filepath.Dir(RepoRoot(t)), "shared", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not beside the project: %v", p, err)
	}
	return p
}

// Devices returns the devices of f a renderer of platform takes: the
// switches of a switch platform, the servers of "linux".
func Devices(f *ir.Fabric, platform string) []*ir.Device {
	var out []*ir.Device
	for _, d := range f.Devices {
		if d.Platform == platform && (d.Switch != nil || d.Host != nil) {
			out = append(out, d)
		}
	}
	return out
}

// LinkSpeed is a leaf's port speed (its tier) with the speed of the NICs
// cabled to it, in Gb/s.
type LinkSpeed struct{ Tier, NIC int }

// LinkSpeeds returns each tier from 100G to 800G that a switch model with
// the given port counts (keyed by speed, as the catalog has them) runs,
// each with every NIC speed of that list at or below it: the fabrics a
// port-speed test renders for the model.
func LinkSpeeds(ports map[string]int) []LinkSpeed {
	speeds := []int{100, 200, 400, 800}
	var out []LinkSpeed
	for i, tier := range speeds {
		if ports[schema.FormatSpeed(tier)] == 0 {
			continue
		}
		for _, nic := range speeds[:i+1] {
			out = append(out, LinkSpeed{tier, nic})
		}
	}
	return out
}

// Contains fails t, without stopping it, for each of wants that text
// lacks, naming text by what; when any is missing it logs text once, so
// that the failure shows what was there instead.
func Contains(t testing.TB, what, text string, wants ...string) {
	t.Helper()
	missing := false
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q", what, w)
			missing = true
		}
	}
	if missing {
		t.Logf("%s:\n%s", what, text)
	}
}

// Diff returns d's desired state on platform p and the changes and
// remediation that make running into it, failing t when p cannot give
// them: the step every plan test takes after reading a running state.
func Diff(t testing.TB, p renderers.Platform, d *ir.Device, running renderers.State) (renderers.State, []renderers.Change, renderers.Remediation) {
	t.Helper()
	desired, err := p.Desired(d)
	if err != nil {
		t.Fatalf("Desired(%s): %v", d.Name, err)
	}
	changes, rem, err := p.Diff(d, running, desired)
	if err != nil {
		t.Fatalf("Diff(%s): %v", d.Name, err)
	}
	return desired, changes, rem
}

// ParseDiff reads a device's running state from the artifacts a target
// read back from it and returns the changes and remediation that make it
// d's desired state on p, failing t when p cannot: what plan does with a
// device's configuration once read.
func ParseDiff(t testing.TB, p renderers.Platform, d *ir.Device, arts []renderers.Artifact) ([]renderers.Change, renderers.Remediation) {
	t.Helper()
	running, err := p.Parse(d, arts)
	if err != nil {
		t.Fatalf("Parse(%s): %v", d.Name, err)
	}
	_, changes, rem := Diff(t, p, d, running)
	return changes, rem
}

// RenderOne renders d with r and checks that it yields exactly one
// artifact, <device>/<file> in format; it returns that artifact.
func RenderOne(t testing.TB, r renderers.Renderer, d *ir.Device, file string, format renderers.Format) renderers.Artifact {
	t.Helper()
	arts, err := r.Render(d)
	if err != nil {
		t.Fatalf("Render(%s): %v", d.Name, err)
	}
	if len(arts) != 1 {
		t.Fatalf("Render(%s): %d artifacts, want 1", d.Name, len(arts))
	}
	a := arts[0]
	if want := d.Name + "/" + file; a.Path != want || a.Format != format {
		t.Fatalf("artifact %q (%s), want %q (%s)", a.Path, a.Format, want, format)
	}
	return a
}

// JSONPath follows a slash-separated path through decoded JSON. A segment
// "name[key=value]" picks the list entry whose key has that value, compared
// as text. A key value may hold slashes (interface names); the path is split
// only outside brackets.
func JSONPath(doc any, path string) (any, error) {
	cur := doc
	for _, seg := range splitPath(path) {
		name, sel, hasSel := strings.Cut(seg, "[")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%q: parent is %T, not an object", seg, cur)
		}
		if cur, ok = m[name]; !ok {
			return nil, fmt.Errorf("no member %q", name)
		}
		if !hasSel {
			continue
		}
		key, val, _ := strings.Cut(strings.TrimSuffix(sel, "]"), "=")
		list, ok := cur.([]any)
		if !ok {
			return nil, fmt.Errorf("%q: %T is not a list", name, cur)
		}
		found := false
		for _, e := range list {
			if em, ok := e.(map[string]any); ok && fmt.Sprint(em[key]) == val {
				cur, found = e, true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("no entry [%s] in %q", sel, name)
		}
	}
	return cur, nil
}

func splitPath(path string) []string {
	var segs []string
	depth, start := 0, 0
	for i, r := range path {
		switch r {
		case '[':
			depth++
		case ']':
			depth--
		case '/':
			if depth == 0 {
				segs = append(segs, path[start:i])
				start = i + 1
			}
		}
	}
	return append(segs, path[start:])
}

// OCValidator returns the independent OpenConfig validator
// (shared/tools/validate/oc-validate.sh) as a function that runs it on
// files and returns its exit code and output, or skips the test saying
// what is missing: the script, bash, python3 (it reads module names with
// it) or yanglint ($YANGLINT when set; Debian's libyang2-tools). A run
// that cannot start, or outlasts two minutes, fails the test.
func OCValidator(t testing.TB) func(files ...string) (code int, out string) {
	t.Helper()
	script := Shared(t, "tools/validate/oc-validate.sh")
	bash := LookPath(t, "bash", "runs oc-validate.sh")
	LookPath(t, "python3", "oc-validate.sh reads module names with it")
	if y := os.Getenv("YANGLINT"); y != "" {
		LookPath(t, y, "$YANGLINT")
	} else {
		LookPath(t, "yanglint", "install libyang2-tools")
	}
	return func(files ...string) (int, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, bash, append([]string{script}, files...)...).CombinedOutput()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return 0, string(out)
		case errors.As(err, &ee):
			return ee.ExitCode(), string(out)
		}
		t.Fatalf("oc-validate.sh: %v\n%s", err, out)
		return -1, ""
	}
}

// LookPath returns the path of an executable, or skips the test saying what
// it was needed for.
func LookPath(t testing.TB, name, why string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not found on PATH (%s): %v", name, why, err)
	}
	return p
}

// SwitchNames returns a setter for each name of a switch that an artifact
// writes out: the device, its first port's name and peer, peer port's
// peer port (the first port may have no peer port to replace), the class
// of queue, and its first headroom's port class. A name a hand-written
// intent could make end a line or reach a shell must be refused by every
// switch renderer, so each tests the same names.
func SwitchNames(peerPort, queue int) map[string]func(d *ir.Device, v string) {
	return map[string]func(d *ir.Device, v string){
		"device":    func(d *ir.Device, v string) { d.Name = v },
		"port":      func(d *ir.Device, v string) { d.Switch.Ports[0].Name = v },
		"peer":      func(d *ir.Device, v string) { d.Switch.Ports[0].Peer = v },
		"peer port": func(d *ir.Device, v string) { d.Switch.Ports[peerPort].PeerPort = v },
		"class":     func(d *ir.Device, v string) { d.Switch.QoS.Queues[queue].Class.Name = v },
		"headroom":  func(d *ir.Device, v string) { d.Switch.Headrooms[0].Name = v },
	}
}

// RefusesNames checks that r renders no artifact for the device fresh
// returns with any of bad set by any of names (SwitchNames, or some of
// them).
func RefusesNames(t testing.TB, r renderers.Renderer, fresh func() *ir.Device, bad []string, names map[string]func(d *ir.Device, v string)) {
	t.Helper()
	for what, set := range names {
		for _, v := range bad {
			d := fresh()
			set(d, v)
			if arts, err := r.Render(d); err == nil {
				t.Errorf("%s %q: rendered %d artifacts, want an error", what, v, len(arts))
			}
		}
	}
}

// Deterministic checks that render gives the same output for the device
// mk returns, rendered twice, and for a second device mk returns (new
// pointers, new maps): no map order or address may reach an artifact. It
// returns the output for the caller's checks of its form.
func Deterministic[T ~string | ~[]byte](t testing.TB, mk func() *ir.Device, render func(d *ir.Device) T) T {
	t.Helper()
	d := mk()
	a, b := render(d), render(d)
	if string(a) != string(b) {
		t.Errorf("%s: two renders differ", d.Name)
	}
	if c := render(mk()); string(a) != string(c) {
		t.Errorf("%s: renders of two equal models differ", d.Name)
	}
	return a
}
