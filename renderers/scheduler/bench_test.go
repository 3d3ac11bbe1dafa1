package scheduler_test

import (
	"path/filepath"
	"testing"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/placement"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/renderers/scheduler"
	"github.com/rocefab/rocefab/schema"
)

// BenchmarkHyperscale measures what the scheduler files add to a build of
// examples/hyperscale-100k (12,500 servers): deriving the placement view
// and rendering every file. The budget is 0.5 s.
func BenchmarkHyperscale(b *testing.B) {
	in, ds, err := schema.Load(filepath.Join(rendertest.RepoRoot(b), "examples", "hyperscale-100k"))
	if err != nil || in == nil {
		b.Fatalf("load: %v %v", err, ds)
	}
	fab, ds := compiler.Compile(in)
	if fab == nil || ds.HasErrors() {
		b.Fatalf("compile: %v", ds)
	}
	written := 0
	for b.Loop() {
		arts, err := scheduler.Render(placement.Of(fab))
		if err != nil {
			b.Fatal(err)
		}
		written = 0
		for _, a := range arts {
			written += len(a.Content)
		}
	}
	b.ReportMetric(float64(written), "file-bytes/op")
}
