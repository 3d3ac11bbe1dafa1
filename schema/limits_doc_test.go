package schema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The limits users read in README.md and in the schema are the ones the
// loader applies.
func TestLimitsDocumented(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []struct{ name, text string }{{"README.md", string(readme)}, {"fabric.cue", FabricCUE}} {
		for _, n := range []string{sizeStr(MaxIntentBytes), thousands(MaxDeclarations), thousands(MaxTenants),
			thousands(MaxClasses), thousands(MaxFields), thousands(MaxListElements), thousands(MaxListedDevices), thousands(MaxListedLinks)} {
			if !strings.Contains(doc.text, n) {
				t.Errorf("%s does not give the limit %s", doc.name, n)
			}
		}
	}
	if !strings.Contains(string(readme), sizeStr(MaxDeviceListBytes)) {
		t.Errorf("README.md does not give the device list size limit %s", sizeStr(MaxDeviceListBytes))
	}
}
