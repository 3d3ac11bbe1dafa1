package ssh_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers/eos"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/targets"
)

// scaleDevices returns n EOS leaves: pod-2048's, cloned under new names
// when n is larger, each with the running configuration of its original.
func scaleDevices(t testing.TB, n int) ([]*ir.Device, map[string]string) {
	t.Helper()
	leaves := eosLeaves(t, 64)
	devs := make([]*ir.Device, 0, n)
	orig := map[string]string{}
	for i := range n {
		src := leaves[i%len(leaves)]
		d := *src
		if i >= len(leaves) {
			d.Name = fmt.Sprintf("%s-x%04d", src.Name, i)
		}
		devs = append(devs, &d)
		orig[d.Name] = src.Name
	}
	return devs, orig
}

// TestPlanScale plans N emulated EOS switches over SSH at --parallelism
// 64 and reports the time, and per device the cost of the SSH handshake
// and CLI opening against that of reading, parsing and diffing. It runs
// when ROCEFAB_SSH_SCALE names the device counts ("100,500").
func TestPlanScale(t *testing.T) {
	counts := os.Getenv("ROCEFAB_SSH_SCALE")
	if counts == "" {
		t.Skip("set ROCEFAB_SSH_SCALE=500 (or a list: 100,500) to plan that many emulated SSH devices")
	}
	var ns []int
	for _, f := range splitComma(counts) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			t.Fatalf("ROCEFAB_SSH_SCALE=%q: device counts, comma-separated", counts)
		}
		ns = append(ns, n)
	}
	for _, n := range ns {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			devs, orig := scaleDevices(t, n)
			w := newWorldRunning(t, devs, func(name string) string { return orig[name] })
			start := time.Now()
			p, err := targets.Make(context.Background(), targets.Request{Devices: devs, Target: w.target, Platforms: eosPlatform, Parallelism: 64, Timeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			s := p.Summary()
			if s.Change != n {
				t.Fatalf("plan: %s, want %d to change", s, n)
			}
			t.Logf("plan of %d SSH devices at parallelism 64 on %d CPUs: %s (%.1f ms per device)", n, runtime.NumCPU(), took.Round(time.Millisecond), float64(took.Microseconds())/1000/float64(n))
			if n >= 500 && took > 30*time.Second {
				t.Errorf("plan of %d devices took %s, more than 30s", n, took)
			}
		})
	}
	// One device, sequentially: where a device's time goes.
	devs, orig := scaleDevices(t, 1)
	w := newWorldRunning(t, devs, func(name string) string { return orig[name] })
	d := devs[0]
	const rounds = 20
	var handshake, read, parseDiff time.Duration
	for range rounds {
		s := time.Now()
		if err := w.target.Probe(context.Background(), d); err != nil {
			t.Fatal(err)
		}
		handshake += time.Since(s)
		s = time.Now()
		arts, err := w.target.Read(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		read += time.Since(s)
		s = time.Now()
		rendertest.ParseDiff(t, eos.Renderer{}, d, arts)
		parseDiff += time.Since(s)
	}
	t.Logf("per device, alone: SSH handshake, login and CLI opening %s; read (the same plus show running-config) %s; parse, desired and diff %s",
		(handshake / rounds).Round(10*time.Microsecond), (read / rounds).Round(10*time.Microsecond), (parseDiff / rounds).Round(10*time.Microsecond))
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

// newWorldRunning is newWorld where each device runs the example's
// configuration of the device from names.
func newWorldRunning(t testing.TB, devs []*ir.Device, from func(string) string) *world {
	t.Helper()
	cache := map[string][]byte{}
	return newWorldWith(t, devs, func(name string) []byte {
		src := from(name)
		if b, ok := cache[src]; ok {
			return b
		}
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", "pod-2048", "running", src, "eos.cfg"))
		if err != nil {
			t.Fatal(err)
		}
		cache[src] = b
		return b
	})
}
