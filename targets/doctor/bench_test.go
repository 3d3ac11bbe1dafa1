package doctor_test

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rocefab/rocefab/targets/doctor"
	"github.com/rocefab/rocefab/targets/telemetry"
)

// BenchmarkDoctor100k reads two scrapes of every NIC and switch port of
// hyperscale-100k (100,000 GPUs) from files and diagnoses them, with one
// NIC that stops draining. It reports the heap the window and the
// diagnosis hold at the end (live-MB).
func BenchmarkDoctor100k(b *testing.B) {
	if testing.Short() {
		b.Skip("writes two snapshots of about a gigabyte")
	}
	fab := fabric(b, "hyperscale-100k")
	s := newScenario(fab)
	nic := nicOf(b, fab, "gpu-06000", 3)
	s.throughput(nic, 0.001, 0.6)
	s.pause(nic, 20000)
	dir := b.TempDir()
	files := []string{filepath.Join(dir, "t0.prom"), filepath.Join(dir, "t1.prom")}
	var ws [2]*bufio.Writer
	var fs [2]*os.File
	for i, name := range files {
		f, err := os.Create(name)
		if err != nil {
			b.Fatal(err)
		}
		fs[i], ws[i] = f, bufio.NewWriterSize(f, 1<<20)
	}
	s.write(ws[0], ws[1])
	series := len(s.rates)
	for i := range fs {
		if err := ws[i].Flush(); err != nil {
			b.Fatal(err)
		}
		fs[i].Close()
	}
	s = nil
	runtime.GC()
	b.ResetTimer()
	for range b.N {
		w := telemetry.NewWindow()
		for _, name := range files {
			f, err := os.Open(name)
			if err != nil {
				b.Fatal(err)
			}
			err = w.Read(f, name, 0)
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
		}
		rep := doctor.Diagnose(fab, w, doctor.DefaultOptions())
		if len(rep.Findings) != 1 || rep.Findings[0].Origin.Device != nic[0] {
			b.Fatalf("%d findings, want the NIC of %s", len(rep.Findings), nic[0])
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		b.ReportMetric(float64(m.HeapInuse)/(1<<20), "live-MB")
		b.ReportMetric(float64(series), "series")
		runtime.KeepAlive(rep)
	}
}
