package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/schema"
)

// benchIntent writes a rail-optimized intent of servers x rails with EOS
// leaves and NVUE spines and returns its path.
func benchIntent(b *testing.B, servers, rails int) string {
	b.Helper()
	p := filepath.Join(b.TempDir(), "fabric.cue")
	src := fmt.Sprintf(`name: "bench"
topology: {
	servers: %d
	rails:   %d
	leaf: {platform: "eos", model: "7060X6-64PE", downlinks: 32, uplinks: 32}
	spine: {platform: "nvue", model: "SN5600"}
}
`, servers, rails)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

func benchBuild(b *testing.B, args ...string) {
	b.Helper()
	if code := Run(append([]string{"build", "-q"}, args...), io.Discard, io.Discard); code != 0 {
		b.Fatalf("build %v: exit %d", args, code)
	}
}

// BenchmarkBuild1024GPU is a whole small build (128 servers x 8 rails,
// 176 devices), intent to files, fresh output each time.
func BenchmarkBuild1024GPU(b *testing.B) {
	intent := benchIntent(b, 128, 8)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		benchBuild(b, intent, "-o", filepath.Join(b.TempDir(), fmt.Sprint(i)))
	}
}

// BenchmarkRebuildUnchanged builds once, then again into the same
// directory with nothing changed: the manifest makes it a check, not a
// build.
func BenchmarkRebuildUnchanged(b *testing.B) {
	intent := benchIntent(b, 128, 8)
	out := filepath.Join(b.TempDir(), "out")
	benchBuild(b, intent, "-o", out)
	b.ReportAllocs()
	for b.Loop() {
		benchBuild(b, intent, "-o", out)
	}
}

// BenchmarkEOSLeaves renders 1,000 EOS leaves (4,000 servers x 8 rails,
// --only 'leaf-*'), the figure compared with other EOS generators.
func BenchmarkEOSLeaves(b *testing.B) {
	intent := benchIntent(b, 4000, 8)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		benchBuild(b, intent, "-o", filepath.Join(b.TempDir(), fmt.Sprint(i)), "--only", "leaf-*")
	}
}

// BenchmarkBuildHyperscale builds examples/hyperscale-100k whole, the
// design point: about a gigabyte in 22,017 files a build.
func BenchmarkBuildHyperscale(b *testing.B) {
	example, err := filepath.Abs("../../../examples/hyperscale-100k")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		benchBuild(b, example, "-o", filepath.Join(b.TempDir(), fmt.Sprint(i)))
	}
}

// sonicLeafIntent is a rail-optimized intent whose leaves are SONiC
// DS5000s with hyperscale-100k's port mix (64 downlinks at 3 m, 64 uplinks
// at 30 m, 400G breakouts of 800G cages), small enough to compile in a
// benchmark: the examples' other SONiC leaves need hyperscale-100k itself.
const sonicLeafIntent = `name: "bench-sonic"
topology: {
	servers: 64
	rails:   1
	nic: {speed: "400G", cable: "3m"}
	leaf: {platform: "sonic", model: "DS5000", downlinks: 64, uplinks: 64}
	spine: {platform: "nvue", model: "SN5600", speed: "400G", cable: "30m"}
}
`

// BenchmarkRenderDevice renders one device of each platform and role of
// the pod-2048 and multitenant examples, and a SONiC leaf, without
// writing, so that each renderer's time and allocations show on their own.
func BenchmarkRenderDevice(b *testing.B) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		b.Fatal(err)
	}
	sonicLeaf := filepath.Join(b.TempDir(), "fabric.cue")
	if err := os.WriteFile(sonicLeaf, []byte(sonicLeafIntent), 0o644); err != nil {
		b.Fatal(err)
	}
	seen := map[string]bool{}
	for _, example := range []string{filepath.Join(root, "examples", "pod-2048"), filepath.Join(root, "examples", "multitenant"), sonicLeaf} {
		in, ds, err := schema.Load(example)
		if err != nil || in == nil || ds.HasErrors() {
			b.Fatalf("loading %s: %v %v", example, err, ds)
		}
		fab, _ := compiler.Compile(in)
		for _, d := range fab.Devices {
			key := d.Platform + "-" + string(d.Role)
			if seen[key] {
				continue
			}
			seen[key] = true
			b.Run(key, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					benchRender(b, d)
				}
			})
		}
	}
}

func benchRender(b *testing.B, d *ir.Device) {
	b.Helper()
	if _, err := renderDevice(d, renderOptions{}); err != nil {
		b.Fatal(err)
	}
}
