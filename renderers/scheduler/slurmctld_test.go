package scheduler_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/compiler/placement"
	"github.com/rocefab/rocefab/targets/doctor/slurmtest"
)

// TestSlurmctldLoadsTopology loads each test fabric's slurm/topology.conf
// into a real slurmctld (Debian's slurmctld, with munge for its
// authentication and no slurmd: the nodes are named by the fabric and
// never register) with TopologyPlugin=topology/tree, and reads the tree
// back with scontrol show topology: every switch the file names is there,
// with its nodes.
func TestSlurmctldLoadsTopology(t *testing.T) {
	each(t, func(t *testing.T, v *placement.View, files map[string][]byte) {
		var nodes []string
		for _, g := range v.Groups {
			nodes = append(nodes, g.Servers...)
		}
		scontrol := slurmtest.Start(t, nodes, files["slurm/topology.conf"])
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var topo string
		for {
			out, err := exec.CommandContext(ctx, scontrol, "show", "topology").CombinedOutput()
			if err == nil {
				topo = string(out)
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("scontrol show topology: %v\n%s", err, out)
			}
			time.Sleep(200 * time.Millisecond)
		}
		// scontrol prints each switch on a line: its name, level, link
		// speed, every node below it and its child switches.
		shown := map[string]string{}
		for _, line := range strings.Split(topo, "\n") {
			if name, _, ok := strings.Cut(strings.TrimPrefix(line, "SwitchName="), " "); ok && strings.HasPrefix(line, "SwitchName=") {
				shown[name] = line + " "
			}
		}
		lines := confLines(t, files["slurm/topology.conf"], "SwitchName", "Nodes", "Switches")
		if len(shown) != len(lines) {
			t.Errorf("slurmctld shows %d switches, topology.conf names %d:\n%s", len(shown), len(lines), topo)
		}
		for _, l := range lines {
			got, ok := shown[l["SwitchName"]]
			if !ok {
				t.Errorf("slurmctld's topology lacks switch %s:\n%s", l["SwitchName"], topo)
				continue
			}
			for _, k := range []string{"Nodes", "Switches"} {
				if v := l[k]; v != "" && !strings.Contains(got, " "+k+"="+v+" ") {
					t.Errorf("switch %s: slurmctld shows %q, want %s=%s", l["SwitchName"], got, k, v)
				}
			}
		}
	})
}
