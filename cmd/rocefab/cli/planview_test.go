package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/targets"
)

// createPlan is the plan of a fabric that runs nothing yet: n leaves and
// 4n servers to create, each with changes and a remediation of its own.
func createPlan(n int) *targets.Plan {
	p := &targets.Plan{Fabric: "big", Target: "directory running"}
	add := func(name string, role ir.Role, platform string, d renderers.Disruption) {
		var rem strings.Builder
		var cs []renderers.Change
		for i := range 4 {
			v := fmt.Sprintf("%s-port-%d", name, i)
			cs = append(cs, renderers.Change{Path: fmt.Sprintf("port/%d/description", i), After: &v, Disruption: d})
			fmt.Fprintf(&rem, "set port %d description %s\n", i, v)
		}
		p.Devices = append(p.Devices, targets.DevicePlan{Device: name, Role: role, Platform: platform, Action: targets.Create,
			Disruption: d, Changes: cs, Remediation: &targets.Remediation{Format: renderers.Text, Content: []byte(rem.String())}})
	}
	for i := range n {
		add(fmt.Sprintf("leaf-%04d", i), ir.RoleLeaf, "sonic", renderers.Reboot)
	}
	for i := range 4 * n {
		add(fmt.Sprintf("gpu-%05d", i), ir.RoleHost, "linux", renderers.TrafficPause)
	}
	p.Devices = append(p.Devices, targets.DevicePlan{Device: "spine-00", Role: ir.RoleSpine, Platform: "nvue", Action: targets.NoOp})
	return p
}

// TestPlanViewCounts: the text view of a plan too large to list (every
// device creating its own configuration) is a table of the devices to
// change by role and platform, and no change or remediation line; a small
// one lists them.
func TestPlanViewCounts(t *testing.T) {
	var big bytes.Buffer
	printPlan(&big, createPlan(500))
	out := big.String()
	for _, want := range []string{
		"too many to list: the devices to change by role and platform (--format json, or -o PLAN, has every device's):",
		"action  role  platform  devices  changes  worst disruption",
		"+  create  leaf  sonic     500      2000     reboot",
		"+  create  host  linux     2000     8000     traffic-pause",
		"Plan: 2500 devices to change: 2000 traffic-pause, 500 reboot; 1 unchanged",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the view of 2,500 creates does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "description") || strings.Count(out, "\n") > 20 {
		t.Errorf("the view of 2,500 creates lists changes or remediations (%d lines):\n%s", strings.Count(out, "\n"), out)
	}
	var small bytes.Buffer
	printPlan(&small, createPlan(2))
	if !strings.Contains(small.String(), "set port 3 description gpu-00007-port-3") || strings.Contains(small.String(), "too many to list") {
		t.Errorf("the view of 10 creates does not list them:\n%s", small.String())
	}
}
