package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/schema"
)

// FuzzBuild builds intents from a handful of topology parameters, the ones
// that drive expansion, compiles them and renders one device of each role
// and platform: any schema-valid intent must compile or be reported, and
// every fabric that compiles without errors must render, never panic.
//
//	go test -run xxx -fuzz FuzzBuild -fuzztime 2m -fuzzminimizetime 10s ./cmd/rocefab/cli
func FuzzBuild(f *testing.F) {
	f.Add(uint16(256), uint8(8), uint8(32), uint8(32), uint8(0), uint8(0), uint8(0), uint8(0), false)
	f.Add(uint16(40), uint8(3), uint8(7), uint8(5), uint8(1), uint8(2), uint8(1), uint8(3), true)
	f.Add(uint16(1), uint8(1), uint8(1), uint8(0), uint8(0), uint8(3), uint8(0), uint8(0), false)
	styles := []string{"rail-optimized", "clos"}
	plats := []struct{ platform, model string }{{"nvue", "SN5600"}, {"eos", "7060X6-64PE"}, {"sonic", "DS5000"}, {"nxos", "N9364D-GX2A"}}
	speeds := []string{"100G", "200G", "400G", "800G"}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, servers uint16, rails, down, up, style, plat, spineCount, speed uint8, super bool) {
		// Keep fabrics small enough to compile in milliseconds.
		s := int(servers)%2000 + 1
		r := int(rails)%16 + 1
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
`, styles[int(style)%2], s, r, sp, p.platform, p.model, sp, int(down)%512+1, int(up)%512, sp, countField(spineCount))
		if super {
			src += "\tsuperspine: {platform: \"eos\", model: \"7060X6-64PE\", speed: \"400G\"}\n"
		}
		src += "}\n"
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
		seen := map[string]bool{}
		for _, d := range fab.Devices {
			key := string(d.Role) + "/" + d.Platform
			if seen[key] {
				continue
			}
			seen[key] = true
			if _, err := renderDevice(d, renderOptions{}); err != nil {
				t.Fatalf("%s does not render: %v\n%s", d.Name, err, src)
			}
		}
	})
}

func countField(n uint8) string {
	if n%4 == 0 {
		return ""
	}
	return fmt.Sprintf(", count: %d", n%64)
}
