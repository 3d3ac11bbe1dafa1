package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocefab/rocefab/schema"
)

// TestFabricWideEntriesAreReserved builds an example with servers,
// tenants and schedulers and checks that every top-level entry of the
// build that is not a device's directory is a name the schema reserves:
// no device of an explicit inventory can write into it.
func TestFabricWideEntriesAreReserved(t *testing.T) {
	src := filepath.Join(repoRoot(t), "examples", "multitenant")
	fab := compileIntent(t, src)
	devices := map[string]bool{}
	for _, d := range fab.Devices {
		devices[d.Name] = true
	}
	out := buildQuiet(t, src)
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	fabricWide := 0
	for _, e := range entries {
		if devices[e.Name()] {
			continue
		}
		fabricWide++
		if !schema.Reserved(e.Name()) {
			t.Errorf("the build writes %s, a name a device may have (schema.ReservedNames)", e.Name())
		}
	}
	if fabricWide < 5 {
		t.Errorf("%d fabric-wide entries: the example should give SUMMARY.md, inventory.json, hosts, tenants, slurm", fabricWide)
	}
}
