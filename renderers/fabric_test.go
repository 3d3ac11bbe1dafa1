package renderers_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// nameRenderer renders one file per device whose bytes depend only on the
// device; it fails for the devices in fail and panics for those in crash.
type nameRenderer struct {
	file        string
	fail, crash map[string]bool
}

func (r nameRenderer) Render(d *ir.Device) ([]renderers.Artifact, error) {
	if r.crash[d.Name] {
		var m map[string]int
		m[d.Name]++ // a renderer bug: writing to a nil map
	}
	if r.fail[d.Name] {
		return nil, fmt.Errorf("no %s for it", r.file)
	}
	return []renderers.Artifact{{Path: d.Name + "/" + r.file, Content: []byte(r.file + " of " + d.Name)}}, nil
}

// statePlatform is a platform whose desired state names the device.
type statePlatform struct{}

func (statePlatform) Desired(d *ir.Device) (renderers.State, error) {
	return renderers.Elements{{Path: "name", Value: d.Name}}, nil
}

func (statePlatform) Parse(*ir.Device, []renderers.Artifact) (renderers.State, error) {
	return renderers.Elements{}, nil
}

func (statePlatform) Diff(*ir.Device, renderers.State, renderers.State) ([]renderers.Change, renderers.Remediation, error) {
	return nil, renderers.Remediation{}, nil
}

// listRenderer renders one fabric-wide file listing the earlier ones.
type listRenderer struct{ path string }

func (r listRenderer) RenderFabric(f *ir.Fabric, earlier []renderers.Artifact) ([]renderers.Artifact, error) {
	var paths []string
	for _, a := range earlier {
		paths = append(paths, a.Path)
	}
	return []renderers.Artifact{{Path: r.path, Content: []byte(f.Name + ": " + strings.Join(paths, ","))}}, nil
}

// collector keeps what it is given; refuse names devices whose files it
// cannot write.
type collector struct {
	mu     sync.Mutex
	files  map[string]string
	states map[string]renderers.State
	wide   []renderers.Artifact
	refuse map[string]bool
}

func (c *collector) Device(r renderers.Rendered) error {
	if c.refuse[r.Device.Name] {
		return errors.New("disk full")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.files == nil {
		c.files, c.states = map[string]string{}, map[string]renderers.State{}
	}
	for _, a := range r.Artifacts {
		if _, dup := c.files[a.Path]; dup {
			return fmt.Errorf("%s twice", a.Path)
		}
		c.files[a.Path] = string(a.Content)
	}
	if r.Desired != nil {
		c.states[r.Device.Name] = r.Desired
	}
	return nil
}

func (c *collector) Fabric(arts []renderers.Artifact) error {
	c.wide = append(c.wide, arts...)
	return nil
}

func fabricOf(n int) *ir.Fabric {
	f := &ir.Fabric{Name: "lab"}
	for i := range n {
		f.Devices = append(f.Devices, &ir.Device{Name: fmt.Sprintf("dev-%03d", i)})
	}
	return f
}

// TestRenderFabric: every device's artifacts and desired state reach the
// sink once, the same whatever the number of workers, and the fabric-wide
// renderers run in order, each seeing the files before it.
func TestRenderFabric(t *testing.T) {
	f := fabricOf(300)
	reg := renderers.Registry{
		Device: func(d *ir.Device) []renderers.Renderer {
			return []renderers.Renderer{nameRenderer{file: "a.cfg"}, nameRenderer{file: "b.json"}}
		},
		Desired: func(*ir.Device) renderers.Platform { return statePlatform{} },
		Fabric:  []renderers.FabricRenderer{listRenderer{"x/one"}, listRenderer{"two"}},
	}
	var first *collector
	for _, workers := range []int{1, 2, 7, 0} {
		var c collector
		var done atomic.Int64
		err := renderers.RenderFabric(context.Background(), f, f.Devices, reg, renderers.Options{Workers: workers, Progress: func() { done.Add(1) }}, &c)
		if err != nil {
			t.Fatalf("%d workers: %v", workers, err)
		}
		if len(c.files) != 2*len(f.Devices) || len(c.states) != len(f.Devices) || done.Load() != int64(len(f.Devices)) {
			t.Fatalf("%d workers: %d files, %d states, %d done for %d devices", workers, len(c.files), len(c.states), done.Load(), len(f.Devices))
		}
		if got := c.files["dev-123/b.json"]; got != "b.json of dev-123" {
			t.Errorf("dev-123/b.json = %q", got)
		}
		if es := c.states["dev-007"].Elements(); len(es) != 1 || es[0].Value != "dev-007" {
			t.Errorf("dev-007's desired state %v", es)
		}
		if len(c.wide) != 2 || c.wide[0].Path != "x/one" || string(c.wide[0].Content) != "lab: " || string(c.wide[1].Content) != "lab: x/one" {
			t.Errorf("fabric-wide files %+v", c.wide)
		}
		if first == nil {
			first = &c
		} else if !maps.Equal(first.files, c.files) {
			t.Errorf("%d workers render other files than 1", workers)
		}
	}
}

// TestRenderFabricErrors: a device that fails, panics, or whose files the
// sink refuses is named in the error, in device order; the others are
// still rendered, and no fabric-wide file is.
func TestRenderFabricErrors(t *testing.T) {
	f := fabricOf(50)
	reg := renderers.Registry{
		Device: func(d *ir.Device) []renderers.Renderer {
			return []renderers.Renderer{nameRenderer{file: "a.cfg", fail: map[string]bool{"dev-040": true, "dev-003": true}, crash: map[string]bool{"dev-020": true}}}
		},
		Fabric: []renderers.FabricRenderer{listRenderer{"wide"}},
	}
	c := collector{refuse: map[string]bool{"dev-010": true}}
	err := renderers.RenderFabric(context.Background(), f, f.Devices, reg, renderers.Options{Workers: 4}, &c)
	if err == nil {
		t.Fatal("no error")
	}
	var failed []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var de *renderers.DeviceError
		if !errors.As(e, &de) {
			t.Fatalf("%v is not a DeviceError", e)
		}
		failed = append(failed, de.Device)
	}
	if got := strings.Join(failed, " "); got != "dev-003 dev-010 dev-020 dev-040" {
		t.Errorf("failed devices %s, want dev-003 dev-010 dev-020 dev-040", got)
	}
	for _, want := range []string{"dev-003: no a.cfg for it", "dev-010: disk full", "dev-020: internal error (a bug: please report it): assignment to entry in nil map"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if len(c.files) != 46 || len(c.wide) != 0 {
		t.Errorf("%d device files and %d fabric-wide ones written, want 46 and 0", len(c.files), len(c.wide))
	}
}

// TestRenderFabricCancel: a cancelled context stops the rendering with an
// error saying so, and writes no fabric-wide file.
func TestRenderFabricCancel(t *testing.T) {
	f := fabricOf(100)
	ctx, cancel := context.WithCancel(context.Background())
	var rendered atomic.Int64
	reg := renderers.Registry{
		Device: func(d *ir.Device) []renderers.Renderer {
			switch n := rendered.Add(1); {
			case n == 5:
				cancel()
			case n > 5:
				// The worker that counted 5 may not have cancelled yet:
				// the devices after it are in flight once it has.
				<-ctx.Done()
			}
			return []renderers.Renderer{nameRenderer{file: "a.cfg"}}
		},
		Fabric: []renderers.FabricRenderer{listRenderer{"wide"}},
	}
	var c collector
	err := renderers.RenderFabric(ctx, f, f.Devices, reg, renderers.Options{Workers: 2}, &c)
	if err == nil || !strings.Contains(err.Error(), "interrupted") || !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want interrupted", err)
	}
	if len(c.files) == len(f.Devices) || len(c.wide) != 0 {
		t.Errorf("%d of %d devices and %d fabric-wide files written after the cancel", len(c.files), len(f.Devices), len(c.wide))
	}
}

// failingWide is a fabric-wide renderer that fails, or panics.
type failingWide struct{ panics bool }

func (r failingWide) RenderFabric(*ir.Fabric, []renderers.Artifact) ([]renderers.Artifact, error) {
	if r.panics {
		var m map[string]int
		m["x"]++
	}
	return nil, errors.New("scheduler files: no placement")
}

// TestRenderFabricWideErrors: a fabric-wide renderer that fails or panics,
// rendered beside the devices, is the call's error once every device is
// rendered; nothing fabric-wide reaches the sink.
func TestRenderFabricWideErrors(t *testing.T) {
	for _, panics := range []bool{false, true} {
		f := fabricOf(20)
		reg := renderers.Registry{
			Device: func(d *ir.Device) []renderers.Renderer { return []renderers.Renderer{nameRenderer{file: "a.cfg"}} },
			Fabric: []renderers.FabricRenderer{listRenderer{"first"}, failingWide{panics: panics}, listRenderer{"last"}},
		}
		var c collector
		err := renderers.RenderFabric(context.Background(), f, f.Devices, reg, renderers.Options{Workers: 3}, &c)
		want := "scheduler files: no placement"
		if panics {
			want = "internal error (a bug: please report it)"
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("panics=%t: error %v, want one saying %q", panics, err, want)
		}
		if len(c.files) != 20 || len(c.wide) != 0 {
			t.Errorf("panics=%t: %d device files and %d fabric-wide ones, want 20 and 0", panics, len(c.files), len(c.wide))
		}
	}
}

// TestRenderFabricKindsFirst: with one worker, the first device of each
// kind is rendered before any second device of a kind, the others in
// order.
func TestRenderFabricKindsFirst(t *testing.T) {
	f := &ir.Fabric{Name: "lab"}
	for i, k := range []struct{ platform, model string }{{"eos", "a"}, {"eos", "a"}, {"nvue", "b"}, {"eos", "a"}, {"eos", "c"}, {"nvue", "b"}} {
		f.Devices = append(f.Devices, &ir.Device{Name: fmt.Sprintf("dev-%d", i), Platform: k.platform, Model: k.model, Role: ir.RoleLeaf})
	}
	var mu sync.Mutex
	var order []string
	reg := renderers.Registry{Device: func(d *ir.Device) []renderers.Renderer {
		mu.Lock()
		order = append(order, d.Name)
		mu.Unlock()
		return nil
	}}
	var c collector
	if err := renderers.RenderFabric(context.Background(), f, f.Devices, reg, renderers.Options{Workers: 1}, &c); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(order, " "), "dev-0 dev-2 dev-4 dev-1 dev-3 dev-5"; got != want {
		t.Errorf("rendered in order %s, want %s", got, want)
	}
}

// modelRenderer is a ModelRenderer that counts how it is asked.
type modelRenderer struct {
	statePlatform
	render, desired, both *atomic.Int64
}

func (r modelRenderer) Render(d *ir.Device) ([]renderers.Artifact, error) {
	r.render.Add(1)
	return nameRenderer{file: "m.cfg"}.Render(d)
}

func (r modelRenderer) Desired(d *ir.Device) (renderers.State, error) {
	r.desired.Add(1)
	return r.statePlatform.Desired(d)
}

func (r modelRenderer) RenderDesired(d *ir.Device) ([]renderers.Artifact, renderers.State, error) {
	r.both.Add(1)
	arts, _ := nameRenderer{file: "m.cfg"}.Render(d)
	s, _ := r.statePlatform.Desired(d)
	return arts, s, nil
}

// TestRenderFabricOneModel: a renderer that is also the device's platform
// builds its model once per device (RenderDesired), where Render and
// Desired would each build it; another platform's desired state is still
// asked of that platform.
func TestRenderFabricOneModel(t *testing.T) {
	f := fabricOf(20)
	for _, same := range []bool{true, false} {
		m := modelRenderer{render: new(atomic.Int64), desired: new(atomic.Int64), both: new(atomic.Int64)}
		reg := renderers.Registry{
			Device: func(*ir.Device) []renderers.Renderer { return []renderers.Renderer{nameRenderer{file: "a.cfg"}, m} },
			Desired: func(*ir.Device) renderers.Platform {
				if same {
					return m
				}
				return statePlatform{}
			},
		}
		var c collector
		if err := renderers.RenderFabric(context.Background(), f, f.Devices, reg, renderers.Options{Workers: 2}, &c); err != nil {
			t.Fatal(err)
		}
		n := int64(len(f.Devices))
		want := [3]int64{0, 0, n}
		if !same {
			want = [3]int64{n, 0, 0}
		}
		if got := [3]int64{m.render.Load(), m.desired.Load(), m.both.Load()}; got != want {
			t.Errorf("platform is the renderer = %v: Render, Desired, RenderDesired called %v times, want %v", same, got, want)
		}
		if len(c.files) != 2*len(f.Devices) || len(c.states) != len(f.Devices) || c.files["dev-003/m.cfg"] != "m.cfg of dev-003" {
			t.Errorf("platform is the renderer = %v: %d files, %d states", same, len(c.files), len(c.states))
		}
	}
}
