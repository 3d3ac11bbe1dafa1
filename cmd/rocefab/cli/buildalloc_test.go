package cli

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/schema"
)

// countingSink counts what a build would write and keeps none of it, as
// the build's stage does.
type countingSink struct {
	mu    sync.Mutex
	bytes int64
}

func (s *countingSink) Device(r renderers.Rendered) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range r.Artifacts {
		s.bytes += int64(len(a.Content))
	}
	return nil
}

func (s *countingSink) Fabric([]renderers.Artifact) error { return nil }

func (*countingSink) DiscardsContent() {}

// TestBuildAllocatesLittleBeyondItsFiles renders the devices of a fabric
// with hyperscale-100k's kinds (SONiC leaves, NVUE spines, servers, and
// each switch's openconfig.json; eight rails, so that switches weigh as
// they do there) as a build does, a second time so that the shapes and
// buffers a build reuses are there, and holds what that allocates below
// the bytes written: it was 0.7 times them, against 2.2 times when written
// artifacts' buffers are not reused and more before the kept orders and
// layouts, garbage the collector ran for on a gigabyte of artifacts.
func TestBuildAllocatesLittleBeyondItsFiles(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector drops buffers put back into a sync.Pool: reuse cannot be measured")
	}
	p := filepath.Join(t.TempDir(), "fabric.cue")
	if err := os.WriteFile(p, []byte(strings.Replace(sonicLeafIntent, "rails:   1", "rails:   8", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	in, ds, err := schema.Load(p)
	if err != nil || in == nil || ds.HasErrors() {
		t.Fatalf("loading the intent: %v %v", err, ds)
	}
	fab, _ := compiler.Compile(in)
	reg := buildRegistry(renderOptions{openconfig: "compact"}, nil, in.Dir)
	reg.Fabric = nil // once per build, not per device
	render := func() (allocated, written int64) {
		var sink countingSink
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := renderers.RenderFabric(context.Background(), fab, fab.Devices, reg, renderers.Options{Workers: 1}, &sink); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return int64(after.TotalAlloc - before.TotalAlloc), sink.bytes
	}
	render()
	allocated, written := render()
	t.Logf("%d devices: %d B allocated for %d B written (%.2fx)", len(fab.Devices), allocated, written, float64(allocated)/float64(written))
	if allocated > written {
		t.Errorf("rendering %d devices allocated %d B for %d B of files, more than the files: written artifacts' buffers, kept orders or layouts are no longer reused", len(fab.Devices), allocated, written)
	}
}
