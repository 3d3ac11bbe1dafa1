package inventory_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers/inventory"
	"github.com/rocefab/rocefab/schema"
)

// compile compiles examples/<name>.
func compile(t *testing.T, name string) *ir.Fabric {
	t.Helper()
	in, ds, err := schema.Load(filepath.Join("..", "..", "examples", name))
	if err != nil || in == nil {
		t.Fatalf("load %s: %v %v", name, err, ds)
	}
	fab, ds := compiler.Compile(in)
	if fab == nil || ds.HasErrors() {
		t.Fatalf("compile %s: %v", name, ds)
	}
	return fab
}

// TestReadsBack: what the renderer writes, the schema's reader reads back
// as the same devices and links, and the schema's own types marshal each
// element to the same line.
func TestReadsBack(t *testing.T) {
	for _, ex := range []string{"pod-2048", "multitenant"} {
		t.Run(ex, func(t *testing.T) {
			fab := compile(t, ex)
			b, err := inventory.Render(fab)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), inventory.File)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			l, ds, err := schema.ReadDeviceList(p)
			if err != nil || ds.HasErrors() {
				t.Fatalf("reading it back: %v %v", err, ds)
			}
			if len(l.Devices) != len(fab.Devices) || len(l.Links) != len(fab.Links) {
				t.Fatalf("read back %d devices and %d links, rendered %d and %d", len(l.Devices), len(l.Links), len(fab.Devices), len(fab.Links))
			}
			lines := bytes.Split(b, []byte("\n"))
			for i, d := range l.Devices {
				want := fab.Devices[i]
				if d.Name != want.Name || d.Role != string(want.Role) || d.Platform != want.Platform || d.Model != want.Model {
					t.Errorf("device %d reads back as %+v, want %s", i, d, want.Name)
				}
				if (d.Rail == nil) != (want.Rail < 0) || d.Rail != nil && *d.Rail != want.Rail {
					t.Errorf("%s: rail %v, want %d", d.Name, d.Rail, want.Rail)
				}
				if (d.Pod == nil) != (want.Pod < 0) || d.Pod != nil && *d.Pod != want.Pod {
					t.Errorf("%s: pod %v, want %d", d.Name, d.Pod, want.Pod)
				}
				j, err := json.Marshal(d)
				if err != nil {
					t.Fatal(err)
				}
				if got := bytes.TrimSuffix(bytes.TrimPrefix(lines[1+i], []byte("  ")), []byte(",")); !bytes.Equal(got, j) {
					t.Errorf("device line %s, schema's form %s", got, j)
				}
			}
			for i, k := range l.Links {
				want := fab.Links[i]
				if k.A != want.A.String() || k.B != want.B.String() || k.SpeedGbps != want.SpeedGbps || k.CableM != want.CableM {
					t.Errorf("link %d reads back as %+v, want %+v", i, k, want)
				}
				if k.Speed != schema.FormatSpeed(want.SpeedGbps) || k.Cable != schema.FormatLength(want.CableM) {
					t.Errorf("link %d: speed %q cable %q, the schema writes %q %q", i, k.Speed, k.Cable,
						schema.FormatSpeed(want.SpeedGbps), schema.FormatLength(want.CableM))
				}
			}
		})
	}
}

// TestUnits: every speed and some cable lengths are written as the schema
// writes them.
func TestUnits(t *testing.T) {
	fab := &ir.Fabric{}
	speeds := []int{100, 200, 400, 800, 1600}
	cables := []float64{0.5, 1, 2.5, 3, 30, 100.25, 1000}
	for i, s := range speeds {
		fab.Links = append(fab.Links, &ir.Link{A: ir.Endpoint{Device: "a", Port: "p"}, B: ir.Endpoint{Device: "b", Port: "q"},
			SpeedGbps: s, CableM: cables[i%len(cables)]})
	}
	for i, c := range cables {
		fab.Links = append(fab.Links, &ir.Link{SpeedGbps: speeds[i%len(speeds)], CableM: c})
	}
	b, err := inventory.Render(fab)
	if err != nil {
		t.Fatal(err)
	}
	var l struct {
		Links []struct{ Speed, Cable string }
	}
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	for i, k := range fab.Links {
		if l.Links[i].Speed != schema.FormatSpeed(k.SpeedGbps) || l.Links[i].Cable != schema.FormatLength(k.CableM) {
			t.Errorf("%d G %g m: written %q %q, the schema's form %q %q", k.SpeedGbps, k.CableM, l.Links[i].Speed, l.Links[i].Cable,
				schema.FormatSpeed(k.SpeedGbps), schema.FormatLength(k.CableM))
		}
	}
}

// TestLinesAreMarshal: each line is what json.Marshal writes of the
// schema's element (schema.ListedDevice, schema.ListedLink), for names that need escaping too (an explicit inventory's
// names are checked, but the writer must not depend on it).
func TestLinesAreMarshal(t *testing.T) {
	names := []string{"leaf-00", `a"b`, `c\d`, "<&>", "é", "tab\t", "\xff", "x\u2028y"}
	fab := &ir.Fabric{}
	var want []any
	for i, n := range names {
		d := &ir.Device{Name: n, Role: ir.RoleLeaf, Platform: "eos", Model: n + "m", Rail: i - 1, Pod: 2 - i}
		fab.Devices = append(fab.Devices, d)
		w := schema.ListedDevice{Name: n, Role: "leaf", Platform: "eos", Model: n + "m"}
		if d.Rail >= 0 {
			w.Rail = &d.Rail
		}
		if d.Pod >= 0 {
			w.Pod = &d.Pod
		}
		want = append(want, w)
	}
	for i, n := range names {
		k := &ir.Link{A: ir.Endpoint{Device: n, Port: names[(i+1)%len(names)]}, B: ir.Endpoint{Device: "b", Port: n}, SpeedGbps: 400, CableM: 2.5}
		fab.Links = append(fab.Links, k)
		want = append(want, schema.ListedLink{A: k.A.String(), B: k.B.String(), Speed: "400G", Cable: "2.5m"})
	}
	b, err := inventory.Render(fab)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b) {
		t.Fatalf("not JSON:\n%s", b)
	}
	var lines [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if bytes.HasPrefix(l, []byte("  ")) {
			lines = append(lines, bytes.TrimSuffix(l[2:], []byte(",")))
		}
	}
	if len(lines) != len(want) {
		t.Fatalf("%d element lines, want %d:\n%s", len(lines), len(want), b)
	}
	for i, w := range want {
		j, err := json.Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(lines[i], j) {
			t.Errorf("line %d: %s, json.Marshal %s", i, lines[i], j)
		}
	}
}
