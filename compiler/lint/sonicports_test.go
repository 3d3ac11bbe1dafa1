package lint

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
)

func TestSONiCPortGaps(t *testing.T) {
	f := irtest.Fabric()
	var got []diag.Diagnostic
	p := &Pass{Fabric: f, Analyzer: PlatformGap, Report: func(d diag.Diagnostic) { got = append(got, d) }}
	sonicPortGaps(p)
	// test-64 is no catalog model: one finding for its switches.
	if len(got) != 1 || !strings.Contains(got[0].Message, "test-64 has no SONiC port map") {
		t.Fatalf("findings %v", got)
	}
	// A DS5000 whose port is not one its SKU creates at 400G.
	d := f.Device("leaf-sonic")
	d.Model = "DS5000"
	for i := range d.Switch.Ports {
		d.Switch.Ports[i].SKU = &ir.SKUPort{SerDes: []int{1, 2, 3, 4}}
	}
	d.Switch.Ports[1].SKU = nil
	got = nil
	sonicPortGaps(p)
	if len(got) != 1 || got[0].Port != d.Switch.Ports[1].Name || !strings.Contains(got[0].Message, "SKU DS5000") {
		t.Fatalf("findings %v", got)
	}
}
