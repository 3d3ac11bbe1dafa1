package scheduler_test

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/placement"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/renderers/scheduler"
	"github.com/rocefab/rocefab/schema"
)

// BenchmarkHyperscale measures what the scheduler files add to a build of
// examples/hyperscale-100k (12,500 servers): deriving the placement view
// and rendering every file. The budget is 0.5 s. Besides wall time it
// reports the process's CPU time per operation (garbage collection
// included), which a loaded machine does not inflate.
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
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	n := 0
	var start time.Duration
	for b.Loop() {
		if n == 0 {
			start = cpu()
		}
		n++
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
	b.ReportMetric(float64(cpu()-start)/float64(n)/1e6, "cpu-ms/op")
}
