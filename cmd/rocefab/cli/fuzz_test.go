package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/schema"
)

// FuzzBuild is the property that lint agrees with build: for intents made
// from random topology parameters and random knobs (classes with or
// without a default class, lossless counts, ECN settings, tenants, naming
// patterns, reserves, shaping, watchdog, MTUs), whenever lint reports no
// error, `rocefab build` exits 0. Every condition a renderer or the build
// refuses must be a lint finding first. Any schema-valid intent must also
// compile or be reported, never panic.
//
//	go test -run xxx -fuzz FuzzBuild -fuzztime 5m -fuzzminimizetime 10s ./cmd/rocefab/cli
func FuzzBuild(f *testing.F) {
	f.Add(uint16(256), uint8(8), uint8(32), uint8(32), uint8(0), uint8(0), uint8(0), uint8(0), false, []byte{})
	f.Add(uint16(40), uint8(3), uint8(7), uint8(5), uint8(1), uint8(2), uint8(1), uint8(3), true, []byte{1, 3, 0, 3, 1, 0, 1, 2, 2, 1})
	f.Add(uint16(1), uint8(1), uint8(1), uint8(0), uint8(0), uint8(3), uint8(0), uint8(0), false, []byte{0})
	// Classes without a default class and nothing on priority 0: DSCPs
	// no class lists go to a priority no queue serves.
	// roce 3 lossless, cnp 6 strict, bulk 1 with no default: true.
	f.Add(uint16(3), uint8(1), uint8(31), uint8(32), uint8(0), uint8(0), uint8(0), uint8(2), false,
		[]byte{1, 2, 3, 1, 26, 0, 1, 1, 1, 51, 0, 6, 1, 48, 1, 0, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 51, 0})
	styles := []string{"rail-optimized", "clos"}
	plats := []struct{ platform, model string }{{"nvue", "SN5600"}, {"eos", "7060X6-64PE"}, {"sonic", "DS5000"}, {"nxos", "N9364D-GX2A"}}
	speeds := []string{"100G", "200G", "400G", "800G"}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, servers uint16, rails, down, up, style, plat, spineCount, speed uint8, super bool, knobs []byte) {
		// Keep fabrics small enough to build in a fraction of a second.
		s := int(servers)%64 + 1
		r := int(rails)%8 + 1
		p := plats[int(plat)%len(plats)]
		sp := speeds[int(speed)%len(speeds)]
		src := fmt.Sprintf(`name: "fuzz"
topology: {
	style: %q
	servers: %d
	rails: %d
	nic: speed: %q
	leaf: {platform: %q, model: %q, speed: %q, downlinks: %d, uplinks: %d}
	spine: {speed: %q, cable: "20m"%s}
`, styles[int(style)%2], s, r, sp, p.platform, p.model, sp, int(down)%64+1, int(up)%64, sp, countField(spineCount))
		if super {
			src += "\tsuperspine: {platform: \"eos\", model: \"7060X6-64PE\", speed: \"400G\"}\n"
		}
		src += "}\n" + knobIntent(knobs)
		path := filepath.Join(dir, "fabric.cue")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		in, ds, err := schema.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if in == nil {
			if len(ds) == 0 {
				t.Fatalf("no intent and no findings for\n%s", src)
			}
			return
		}
		fab, ds := compiler.Compile(in)
		if fab == nil && !ds.HasErrors() {
			t.Fatalf("no fabric and no error for\n%s", src)
		}
		if fab == nil || ds.HasErrors() {
			return
		}
		// Lint is clean: build must succeed, exactly as a user runs it.
		out := filepath.Join(t.TempDir(), "out")
		var stdout, stderr bytes.Buffer
		if code := Run([]string{"build", path, "-o", out, "--quiet"}, &stdout, &stderr); code != 0 {
			msg := stderr.String()
			if len(msg) > 2000 {
				msg = msg[:2000] + "..."
			}
			t.Fatalf("lint reports no error, but build exits %d:\n%s\nintent:\n%s", code, msg, src)
		}
	})
}

func countField(n uint8) string {
	if n%4 == 0 {
		return ""
	}
	return fmt.Sprintf(", count: %d", n%64)
}

// knobReader hands out small choices from the fuzzer's bytes; when they
// run out every choice is 0, the plainest one.
type knobReader struct{ b []byte }

func (k *knobReader) next(n int) int {
	if len(k.b) == 0 || n <= 1 {
		return 0
	}
	v := int(k.b[0]) % n
	k.b = k.b[1:]
	return v
}

// knobIntent writes the non-topology part of an intent from the knobs.
func knobIntent(b []byte) string {
	k := &knobReader{b: b}
	var w strings.Builder
	names := []string{"roce", "cnp", "bulk", "storage", "rdma2", "roce.v2"}
	sizes := []string{"150KB", "1500KB", "50KB", "3MB", "100cells", "2000cells", "0", "64KiB"}
	var classes []string
	if k.next(2) == 1 {
		n := k.next(5) + 1
		w.WriteString("classes: {\n")
		for i := range n {
			name := names[i]
			classes = append(classes, name)
			fmt.Fprintf(&w, "\t%q: {priority: %d", name, k.next(8))
			if nd := k.next(4); nd > 0 {
				var ds []string
				for range nd {
					ds = append(ds, fmt.Sprint(k.next(64)))
				}
				fmt.Fprintf(&w, ", dscp: [%s]", strings.Join(ds, ", "))
			}
			if k.next(3) == 0 {
				w.WriteString(", lossless: true")
			}
			if k.next(4) == 0 {
				w.WriteString(", cnp: true")
			}
			if k.next(3) == 0 {
				w.WriteString(", strict: true")
			}
			if k.next(4) == 0 {
				w.WriteString(", default: true")
			}
			if bw := k.next(102); bw > 0 {
				fmt.Fprintf(&w, ", bandwidth: %d", bw-1)
			}
			switch k.next(4) {
			case 1:
				w.WriteString(", ecn: {enabled: false}")
			case 2:
				fmt.Fprintf(&w, ", ecn: {min: %q, max: %q, probability: %d}", sizes[k.next(len(sizes))], sizes[k.next(len(sizes))], k.next(102))
			}
			w.WriteString("}\n")
		}
		w.WriteString("}\n")
	}
	if k.next(3) == 1 {
		w.WriteString("hosts: dcqcn: enabled: false\n")
	}
	switch k.next(4) {
	case 1:
		w.WriteString("naming: {server: \"srv{n}\", leaf: \"lf-{rail}-{n}\"}\n")
	case 2:
		w.WriteString("naming: {leaf: \"sw{n}\", spine: \"sw{n}\"}\n")
	case 3:
		w.WriteString("naming: {server: \"h{n}.{rail}\", spine: \"sp{pod}-{n}\"}\n")
	}
	if c := k.next(3); c > 0 && len(classes) > 0 {
		fmt.Fprintf(&w, "buffers: reserve: {%q: %d}\n", classes[k.next(len(classes))], k.next(101))
	} else if c == 2 {
		w.WriteString("buffers: headroom: \"64KB\"\n")
	}
	if k.next(3) == 1 {
		fmt.Fprintf(&w, "pfc: watchdog: {detect: %q, restore: %q, action: %q}\n",
			[]string{"200ms", "1ms", "10s", "0ms"}[k.next(4)], []string{"400ms", "1ms", "100s"}[k.next(3)], []string{"drop", "forward", "alert"}[k.next(3)])
	}
	if k.next(3) == 1 {
		fmt.Fprintf(&w, "mtu: {switch: %d, host: %d}\n", []int{9216, 1500, 9000}[k.next(3)], []int{4200, 1500, 9000}[k.next(3)])
	}
	if k.next(3) == 1 {
		fmt.Fprintf(&w, "routing: loadBalancing: %q\n", []string{"ecmp", "adaptive", "spray"}[k.next(3)])
	}
	if k.next(3) == 1 && len(classes) > 0 {
		fmt.Fprintf(&w, "hosts: shape: %q: {interface: \"eth0\", rate: %q}\n", classes[k.next(len(classes))], []string{"10Gbit", "1Tbit"}[k.next(2)])
	}
	if n := k.next(4); n > 0 {
		w.WriteString("tenants: {\n")
		for i := range n {
			class := "roce"
			if len(classes) > 0 {
				class = classes[k.next(len(classes))]
			}
			fmt.Fprintf(&w, "\t\"t%d\": {class: %q", i, class)
			switch k.next(3) {
			case 1:
				w.WriteString(", servers: \"gpu-[0000-0001]\"")
			case 2:
				w.WriteString(", servers: [\"gpu-0000\", \"srv00\"]")
			}
			if k.next(3) == 1 {
				fmt.Fprintf(&w, ", nccl: trafficClass: %d", k.next(256))
			}
			w.WriteString("}\n")
		}
		w.WriteString("}\n")
	}
	return w.String()
}
