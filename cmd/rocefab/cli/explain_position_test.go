package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExplainPosition: explain shows a server's leaf group, pod and
// fabric, and nothing of the kind for a switch.
func TestExplainPosition(t *testing.T) {
	dir := t.TempDir()
	src := `name: "t"
topology: {servers: 256, rails: 4, pod: servers: 64,
	leaf: {platform: "sonic", model: "DS5000", downlinks: 32, uplinks: 32},
	spine: {platform: "nvue", model: "SN5600"}, superspine: {platform: "eos", model: "7060X6-64PE"}}
hosts: nic: ports: ["eth1", "eth2", "eth3", "eth4"]
hosts: nccl: hca: ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]
`
	p := filepath.Join(dir, "fabric.cue")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := Run(append([]string{"explain", p}, args...), &stdout, &stderr); code != 0 {
			t.Fatalf("explain %v: exit %d\n%s", args, code, stderr.String())
		}
		return stdout.String()
	}
	out := run("gpu-0100")
	for _, want := range []string{
		"gpu-0100 leaf-group = 32 servers\n",
		"    group = leafgroup-03\n",
		"    leaves = leaf-r0-03,leaf-r1-03,leaf-r2-03,leaf-r3-03\n",
		"    servers = gpu-[0096-0127]\n",
		"gpu-0100 pod = 64 servers\n",
		"    pod = pod-01\n",
		"    groups = leafgroup-[02-03]\n",
		"gpu-0100 fabric = 256 servers\n",
		"  source:  the links of the fabric; slurm/topology.conf SwitchName=leafgroup-03, node label rocefab.io/leaf-group=leafgroup-03\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain gpu-0100 lacks %q:\n%s", want, out)
		}
	}
	var vals []explained
	if err := json.Unmarshal([]byte(run("gpu-0100", "pod", "--format", "json")), &vals); err != nil {
		t.Fatal(err)
	}
	if len(vals) != 1 || vals[0].Field != "pod" || vals[0].Inputs["spines"] == "" {
		t.Errorf("explain gpu-0100 pod --format json = %+v", vals)
	}
	if out := run("leaf-r0-00"); strings.Contains(out, "leaf-group") {
		t.Errorf("a switch has a position:\n%s", out)
	}
}
