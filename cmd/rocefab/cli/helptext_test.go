package cli

import (
	"strings"
	"testing"
)

// TestPlanHelpTransports: plan's help describes every transport plan
// speaks (SSH included) and calls none of them unsupported.
func TestPlanHelpTransports(t *testing.T) {
	code, out, errOut := rocefab(t, t.TempDir(), "", "plan", "--help")
	if code != exitOK {
		t.Fatalf("plan --help: exit %d\n%s", code, errOut)
	}
	text := strings.Join(strings.Fields(out), " ")
	says(t, "plan --help", text, `transport "gnmi"`, `transport "ssh"`, `transport "dir"`)
	for _, stale := range []string{"does not speak yet (ssh", "not spoken yet"} {
		if strings.Contains(text, stale) {
			t.Errorf("plan --help says %q, and plan speaks SSH", stale)
		}
	}
}
