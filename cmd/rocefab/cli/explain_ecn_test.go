package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// explain DEVICE ecn prints, for each lossless class with ECN, what the
// DCQCN fluid model predicts at the fabric's loop RTT: the utilisation and
// mean queue, the marking the fixed point needs and the fixed point's
// phase margin, besides the thresholds and the loop RTT itself.
func TestExplainECNPredicts(t *testing.T) {
	src := filepath.Join(t.TempDir(), "fabric.cue")
	if err := os.WriteFile(src, []byte(`name: "x"
topology: {servers: 16, rails: 2}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	got := map[string]explained{}
	for _, v := range explainJSON(t, src, "leaf-r0-00") {
		got[v.Field] = v
	}
	for _, f := range []string{"ecn-loop-rtt", "ecn-min[roce]", "ecn-max[roce]", "ecn-utilisation[roce]", "ecn-queue[roce]",
		"ecn-marking-needed[roce]", "ecn-phase-margin[roce]"} {
		v, ok := got[f]
		if !ok {
			t.Errorf("explain leaf-r0-00 prints no %s", f)
			continue
		}
		if v.Formula == "" {
			t.Errorf("%s: no formula", f)
		}
	}
	if u := got["ecn-utilisation[roce]"]; u.Value < 90 || u.Unit != "%" {
		t.Errorf("ecn-utilisation[roce] = %d %s, want at least 90 %%", u.Value, u.Unit)
	}
	if pm := got["ecn-phase-margin[roce]"]; !strings.Contains(pm.Formula, "stable: the queue settles") {
		t.Errorf("ecn-phase-margin[roce]: %s, want the defaults stable on an SN5600 leaf", pm.Formula)
	}
}
