package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildInventoryAddresses builds mixed-fleet with an access
// inventory: gnmic.yaml dials each switch at the inventory's address, with
// the inventory's port for a switch reached over gNMI whose address names
// none, and still names the target after the switch (doctor's source
// label); an inventory that does not load stops the build.
func TestBuildInventoryAddresses(t *testing.T) {
	dir := t.TempDir()
	inv := filepath.Join(dir, "inventory.cue")
	src := `platforms: {sonic: {transport: "gnmi", port: 8080}, nvue: {transport: "ssh"}}
address: {"*": "{name}.mgmt.example.net", "leaf-r0-00": "10.0.0.9:9339"}
`
	if err := os.WriteFile(inv, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ex := filepath.Join(repoRoot(t), "examples", "mixed-fleet")
	out := buildQuiet(t, ex, "--only", "spine-00", "--inventory", inv)
	b, err := os.ReadFile(filepath.Join(out, "monitoring", "gnmic.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  'leaf-r0-00':\n    address: '10.0.0.9:9339'\n",                    // the address's own port
		"  'spine-00':\n    address: 'spine-00.mgmt.example.net'\n",          // ssh: gnmic's default port
		"  'leaf-r1-00':\n    address: 'leaf-r1-00.mgmt.example.net:8080'\n", // gnmi: the inventory's port
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("gnmic.yaml lacks %q", want)
		}
	}
	bad := filepath.Join(dir, "bad.cue")
	if err := os.WriteFile(bad, []byte(`address: 3`), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"build", ex, "-o", filepath.Join(dir, "out2"), "--only", "spine-00", "-q", "--inventory", bad}, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "inventory") {
		t.Errorf("bad inventory: exit %d\n%s", code, stderr.String())
	}
}
