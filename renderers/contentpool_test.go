package renderers_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// pooledRenderer writes each device's file into a buffer of its pool and
// counts the distinct buffers it was given.
type pooledRenderer struct {
	pool    *renderers.ContentPool
	mu      *sync.Mutex
	buffers map[*byte]bool
}

func newPooledRenderer() pooledRenderer {
	return pooledRenderer{pool: &renderers.ContentPool{}, mu: &sync.Mutex{}, buffers: map[*byte]bool{}}
}

func pooledText(d *ir.Device) string { return strings.Repeat(d.Name+" ", 200) }

func (r pooledRenderer) Render(d *ir.Device) ([]renderers.Artifact, error) {
	b := append(r.pool.Get(0), pooledText(d)...)
	r.mu.Lock()
	r.buffers[unsafe.SliceData(b)] = true
	r.mu.Unlock()
	return []renderers.Artifact{r.pool.Artifact(d.Name+"/file", renderers.Text, b)}, nil
}

// keeper keeps every artifact as it is given, bytes included.
type keeper struct {
	mu   sync.Mutex
	arts []renderers.Artifact
}

func (k *keeper) Device(r renderers.Rendered) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.arts = append(k.arts, r.Artifacts...)
	return nil
}

func (k *keeper) Fabric([]renderers.Artifact) error { return nil }

// discarder copies each file's text and keeps no bytes of it.
type discarder struct{ collector }

func (*discarder) DiscardsContent() {}

// TestContentPoolReusesWrittenBuffers: a sink that keeps no content gets
// every device's own bytes while the renderer writes into a handful of
// buffers; a sink that keeps the artifacts gets buffers of their own,
// which no later device writes into; and a sink given desired states
// reuses nothing either.
func TestContentPoolReusesWrittenBuffers(t *testing.T) {
	f := fabricOf(200)
	check := func(what string, file func(name string) string) {
		t.Helper()
		for _, d := range f.Devices {
			if got := file(d.Name); got != pooledText(d) {
				t.Fatalf("%s: %s/file = %.40q..., want %.40q...", what, d.Name, got, pooledText(d))
			}
		}
	}

	r := newPooledRenderer()
	reg := renderers.Registry{Device: func(*ir.Device) []renderers.Renderer { return []renderers.Renderer{r} }}
	var d discarder
	if err := renderers.RenderFabric(context.Background(), f, f.Devices, reg, renderers.Options{Workers: 1}, &d); err != nil {
		t.Fatal(err)
	}
	check("discarded", func(name string) string { return d.files[name+"/file"] })
	// The collector may empty a sync.Pool between devices; a few fresh
	// buffers are fine, one per device is the regression. The contents
	// above are checked under the race detector too; the count is not.
	if !raceDetector && len(r.buffers) > len(f.Devices)/4 {
		t.Errorf("a sink that keeps no content: %d buffers for %d devices, want the written ones reused", len(r.buffers), len(f.Devices))
	}

	r = newPooledRenderer()
	reg = renderers.Registry{Device: func(*ir.Device) []renderers.Renderer { return []renderers.Renderer{r} }}
	var k keeper
	if err := renderers.RenderFabric(context.Background(), f, f.Devices, reg, renderers.Options{Workers: 2}, &k); err != nil {
		t.Fatal(err)
	}
	kept := map[string]string{}
	for _, a := range k.arts {
		kept[a.Path] = string(a.Content)
	}
	check("kept", func(name string) string { return kept[name+"/file"] })
	if len(r.buffers) != len(f.Devices) {
		t.Errorf("a sink that keeps artifacts: %d buffers for %d devices, want one each", len(r.buffers), len(f.Devices))
	}

	r = newPooledRenderer()
	reg = renderers.Registry{
		Device:  func(*ir.Device) []renderers.Renderer { return []renderers.Renderer{r} },
		Desired: func(*ir.Device) renderers.Platform { return statePlatform{} },
	}
	d = discarder{}
	if err := renderers.RenderFabric(context.Background(), f, f.Devices, reg, renderers.Options{Workers: 1}, &d); err != nil {
		t.Fatal(err)
	}
	if len(r.buffers) != len(f.Devices) {
		t.Errorf("a sink given desired states: %d buffers for %d devices, want one each", len(r.buffers), len(f.Devices))
	}
}
