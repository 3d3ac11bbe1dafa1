package summary

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/lint/linttest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/rendertest"
)

// compileText compiles an intent given as text.
func compileText(t *testing.T, intent string) *ir.Fabric {
	t.Helper()
	fab, ds := linttest.CompileSource(t, intent)
	if fab == nil || ds.HasErrors() {
		t.Fatalf("compile: %v", ds)
	}
	return fab
}

const cellsIntent = `name: "lab"
topology: {servers: 16, leaf: {platform: "nvue", model: "SN5600"}}
classes: {
	roce: {priority: 3, dscp: [26], lossless: true, bandwidth: 50, ecn: {min: "800cells", max: "7800cells", probability: 20}}
	cnp: {priority: 6, dscp: [48], cnp: true, strict: true}
	bulk: {priority: 0, default: true, bandwidth: 50}
}
`

// TestECNInCells: thresholds the intent gives in cells appear in bytes, as
// the switches program them (the IR's), not as 0 B.
func TestECNInCells(t *testing.T) {
	fab := compileText(t, cellsIntent)
	arts, err := Renderer{}.RenderFabric(fab, nil)
	if err != nil {
		t.Fatal(err)
	}
	md := string(arts[0].Content)
	var q *ir.Queue
	for _, d := range fab.Devices {
		if d.Switch != nil {
			for i := range d.Switch.QoS.Queues {
				if d.Switch.QoS.Queues[i].Class.Name == "roce" {
					q = &d.Switch.QoS.Queues[i]
				}
			}
			break
		}
	}
	if q == nil || q.ECN == nil || q.ECN.MinBytes == 0 {
		t.Fatalf("no ECN in bytes on the switch queue: %+v", q)
	}
	want := fmt.Sprintf("| roce | 3 | 26 | yes (PFC) | ETS 50%% | %s / %s / 20%% |\n", size(q.ECN.MinBytes), size(q.ECN.MaxBytes))
	if !strings.Contains(md, want) {
		t.Errorf("no class row %q in\n%s", want, md)
	}
}

// fileRenderer renders one file per device, named name.
type fileRenderer struct{ name string }

func (r fileRenderer) Render(d *ir.Device) ([]renderers.Artifact, error) {
	return []renderers.Artifact{{Path: d.Name + "/" + r.name}}, nil
}

// TestFileMap: the file map lists the summary, the inventory when the
// build has one, each group's files from its renderers, each tenant's
// environment and the other fabric-wide files by directory.
func TestFileMap(t *testing.T) {
	fab := compileText(t, cellsIntent)
	r := Renderer{Files: func(d *ir.Device) []renderers.Renderer {
		if d.Switch != nil {
			return []renderers.Renderer{fileRenderer{"switch.cfg"}}
		}
		return []renderers.Renderer{fileRenderer{"host.conf"}}
	}}
	earlier := []renderers.Artifact{{Path: "tenants/a_b.env"}, {Path: "hosts/x.sh"}, {Path: "hosts/y.service"}, {Path: "inventory.json"}}
	arts, err := r.RenderFabric(fab, earlier)
	if err != nil {
		t.Fatal(err)
	}
	md := string(arts[0].Content)
	rendertest.Contains(t, "SUMMARY.md", md,
		"| `SUMMARY.md` | this summary |\n| `inventory.json` | the expanded fabric,",
		"| `<leaf>/switch.cfg` | ",
		"| `<server>/host.conf` | each of the 16 servers (linux ",
		"| `tenants/a_b.env` | NCCL environment of tenant a\\_b |\n",
		"| `hosts/x.sh`, `hosts/y.service` | the whole fabric, for hosts |\n",
	)
	arts, err = r.RenderFabric(fab, earlier[:3])
	if err != nil {
		t.Fatal(err)
	}
	if md := string(arts[0].Content); strings.Contains(md, "inventory.json") {
		t.Errorf("a build without inventory.json lists it:\n%s", md)
	}
}

// TestNextStepsPlanAndApply: the next steps say how to push the build,
// with the commands: plan against the running configurations, then apply
// the saved plan.
func TestNextStepsPlanAndApply(t *testing.T) {
	arts, err := Renderer{}.RenderFabric(compileText(t, cellsIntent), nil)
	if err != nil {
		t.Fatal(err)
	}
	md := string(arts[0].Content)
	i := strings.Index(md, "## Next steps\n")
	if i < 0 {
		t.Fatalf("no next steps in\n%s", md)
	}
	steps := md[i:]
	if j := strings.Index(steps[1:], "\n## "); j >= 0 {
		steps = steps[:j+1]
	}
	for _, want := range []string{"`rocefab plan PATH -o fabric.plan`", "`rocefab apply fabric.plan`", "`--inventory FILE`"} {
		if !strings.Contains(steps, want) {
			t.Errorf("the next steps do not give %s:\n%s", want, steps)
		}
	}
}
