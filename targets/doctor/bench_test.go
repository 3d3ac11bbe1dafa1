package doctor_test

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/targets/doctor"
	"github.com/rocefab/rocefab/targets/telemetry"
)

// BenchmarkDoctor100k reads two scrapes of every NIC and switch port of
// hyperscale-100k (100,000 GPUs) from files and diagnoses them, with one
// NIC that stops draining. It reports the heap held at the end (live-MB,
// with the compiled fabric) and the part the window and the diagnosis
// add (window-MB), and the CPU time taken (cpu-s/op) besides the wall
// time.
func BenchmarkDoctor100k(b *testing.B) {
	if testing.Short() {
		b.Skip("writes two snapshots of about a gigabyte")
	}
	fab := fabric(b, "hyperscale-100k")
	nic := nicOf(b, fab, "gpu-06000", 3)
	files := benchSnapshots(b, fab, nic)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for range b.N {
		cpu0 := cpuTime()
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
		cpu := cpuTime() - cpu0
		b.StopTimer()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		b.ReportMetric(float64(m.HeapInuse)/(1<<20), "live-MB")
		// The window and the diagnosis alone, without the compiled
		// fabric the caller already holds.
		b.ReportMetric(float64(m.HeapInuse-min(m.HeapInuse, before.HeapInuse))/(1<<20), "window-MB")
		// On a shared machine the wall time says more of the neighbours
		// than of doctor: the CPU time it took is reported too.
		b.ReportMetric(cpu.Seconds(), "cpu-s/op")
		b.ReportMetric(float64(rep.Rates), "series")
		runtime.KeepAlive(rep)
		runtime.KeepAlive(w)
		b.StartTimer()
	}
}

// benchSnapshots writes the benchmark's two scrapes, with the NIC nic
// not draining, into a temporary directory, or into $ROCEFAB_BENCH_DIR
// when it is set: there they are kept, and reused by the next run, so
// that `rocefab doctor` can be timed on the same files (README, Scale).
func benchSnapshots(b *testing.B, fab *ir.Fabric, nic [2]string) []string {
	dir := os.Getenv("ROCEFAB_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	files := []string{filepath.Join(dir, "doctor-100k-t0.prom"), filepath.Join(dir, "doctor-100k-t1.prom")}
	if _, err := os.Stat(files[1]); err == nil {
		return files
	}
	s := newScenario(fab)
	s.throughput(nic, 0.001, 0.6)
	s.pause(nic, 20000)
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
	for i := range fs {
		if err := ws[i].Flush(); err != nil {
			b.Fatal(err)
		}
		if err := fs[i].Close(); err != nil {
			b.Fatal(err)
		}
	}
	return files
}

// cpuTime is the process's CPU time, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
