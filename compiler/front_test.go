package compiler_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/schema"
)

// frontIntent is a rail-optimized pod of 8 servers on two rails of EOS
// leaves under NVUE spines.
const frontIntent = `name: "front"
hosts: nic: ports: ["eth1", "eth2"]
hosts: nccl: hca: ["mlx5_0", "mlx5_1"]
topology: {
	rails:   2
	servers: 8
	spine: {platform: "nvue", model: "SN5600"}
	leaf: {platform: "eos", model: "7060X6-64PE", downlinks: 4, uplinks: 4}
}
`

func writeIntent(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fabric.cue")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoad: the front half every command shares loads, tells the caller
// the intent before it compiles, compiles and selects.
func TestLoad(t *testing.T) {
	p := writeIntent(t, frontIntent)
	var loaded *schema.Intent
	f, err := compiler.Load(p, compiler.FrontOptions{Only: "leaf-*", Loaded: func(in *schema.Intent) { loaded = in }})
	if err != nil {
		t.Fatal(err)
	}
	if loaded == nil || loaded != f.Intent || !f.Parsed || f.Fabric == nil || f.Diags.HasErrors() {
		t.Fatalf("front %+v, loaded %v", f, loaded)
	}
	if len(f.Devices) != 4 || len(f.Fabric.Devices) != 13 {
		t.Errorf("--only leaf-*: %d of %d devices", len(f.Devices), len(f.Fabric.Devices))
	}
	for _, d := range f.Devices {
		if !strings.HasPrefix(d.Name, "leaf-") {
			t.Errorf("--only leaf-* selected %s", d.Name)
		}
	}
	all, err := compiler.Load(p, compiler.FrontOptions{})
	if err != nil || len(all.Devices) != len(all.Fabric.Devices) {
		t.Errorf("no --only: %d devices, %v", len(all.Devices), err)
	}
	none, err := compiler.Load(p, compiler.FrontOptions{Only: "lief-r0-00"})
	if err == nil || none == nil || !strings.Contains(err.Error(), `--only "lief-r0-00" matches no device; closest: leaf-r0-00`) {
		t.Errorf("a selection of nothing: %v", err)
	}
}

// TestLoadUnparsed: an intent that does not parse is said so, with where,
// and is neither handed to Loaded nor compiled.
func TestLoadUnparsed(t *testing.T) {
	p := writeIntent(t, "name: \"lab\"\ntopology: {\n")
	f, err := compiler.Load(p, compiler.FrontOptions{Loaded: func(*schema.Intent) { t.Error("an unparsed intent reached Loaded") }})
	if err != nil {
		t.Fatal(err)
	}
	if f.Parsed || f.Fabric != nil || len(f.Diags) == 0 {
		t.Errorf("unparsed intent: parsed %v, fabric %v, %d findings", f.Parsed, f.Fabric != nil, len(f.Diags))
	}
	if _, err := compiler.Load(filepath.Join(t.TempDir(), "nothing-here"), compiler.FrontOptions{}); err == nil {
		t.Error("a path that is not there loaded")
	}
}
