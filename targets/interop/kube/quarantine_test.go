package kube

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/cmd/rocefab/cli"
)

// writeSnapshots writes two scrapes of multitenant 30 s apart, in
// node_exporter's names: gpu-0003's eth4 and gpu-0005's eth2 send 20,000
// pauses/s while they carry nothing (NICs that stopped draining), and
// gpu-0002's first RDMA device ignores 500 CNPs/s (DCQCN off). Each is a
// finding that drains its server and shuts no switch port.
func writeSnapshots(t *testing.T, dir string) {
	t.Helper()
	type series struct {
		name    string
		v0, v30 int
	}
	var all []series
	for _, nic := range [][2]string{{"gpu-0003", "eth4"}, {"gpu-0005", "eth2"}} {
		l := fmt.Sprintf(`{device=%q,instance="%s:9100"}`, nic[1], nic[0])
		all = append(all, series{"node_ethtool_transmitted_prio3_pause" + l, 1000, 601000}, series{"node_ethtool_received_prio3_pause" + l, 1000, 1000},
			series{"node_ethtool_transmitted_prio3_bytes" + l, 1000, 2000}, series{"node_ethtool_received_prio3_bytes" + l, 1000, 2000})
	}
	l := `{device="mlx5_0",instance="gpu-0002:9100",port="1"}`
	all = append(all, series{"node_infiniband_rp_cnp_ignored_packets_received_total" + l, 0, 15000}, series{"node_infiniband_rp_cnp_packets_handled_total" + l, 7, 7})
	for i, file := range []string{"t0.prom", "t1.prom"} {
		var b strings.Builder
		for _, s := range all {
			fmt.Fprintf(&b, "%s %d %d\n", s.name, []int{s.v0, s.v30}[i], 1_700_000_000_000+i*30_000)
		}
		if err := os.WriteFile(filepath.Join(dir, file), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// rocefab runs rocefab's command line in dir and returns its exit code
// and output.
func rocefab(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	t.Chdir(dir)
	var out bytes.Buffer
	code := cli.Run(args, &out, &out)
	return code, out.String()
}

// quarantined is rocefab's taint with a finding's kind.
func quarantined(kind string) taint {
	return taint{Key: "rocefab.io/quarantine", Value: kind, Effect: "NoSchedule"}
}

// TestKubeQuarantine runs a quarantine drained in Kubernetes end to end
// against a real kube-apiserver: six of multitenant's servers have nodes,
// gpu-0005 (faulty) and gpu-0006 (healthy) cordoned by someone else
// beforehand and gpu-0003 carrying a taint of another owner. doctor
// --drain kubernetes writes the plan and changes nothing; apply without
// --kube-context reaches no server and changes nothing; apply --kube-context
// cordons and taints exactly the nodes of the three servers behind the
// faults, each with its finding's kind, and nothing else, as the API
// server lists the nodes; applying it again changes nothing. The release
// removes the three taints and uncordons gpu-0002 and gpu-0003 only:
// gpu-0005 stays cordoned, and every node is as before. A quarantine
// naming a server whose node is gone fails on that node before it
// cordons any.
func TestKubeQuarantine(t *testing.T) {
	c := startCluster(t)
	foreign := taint{Key: "example.com/gpu-firmware", Value: "old", Effect: "NoSchedule"}
	created := map[string]node{
		"gpu-0001": {}, "gpu-0002": {}, "gpu-0003": {Taints: []taint{foreign}}, "gpu-0004": {},
		"gpu-0005": {Unschedulable: true}, "gpu-0006": {Unschedulable: true},
	}
	for name, n := range created {
		c.createNode(t, name, n)
	}
	// The API server's admission adds taints of its own to a new node
	// (TaintNodesByCondition: node.kubernetes.io/not-ready until a kubelet
	// reports it ready): the nodes before the quarantine are as it keeps
	// them.
	before := c.nodes(t)
	for name, n := range created {
		if b, ok := before[name]; !ok || b.Unschedulable != n.Unschedulable || len(n.Taints) > 0 && !slices.Contains(b.Taints, foreign) {
			t.Fatalf("node %s as created: %+v, want %+v", name, b, n)
		}
	}
	// with returns the nodes before the quarantine with the nodes named
	// cordoned and carrying rocefab's taint of each kind.
	with := func(kinds map[string]string) map[string]node {
		out := maps.Clone(before)
		for name, kind := range kinds {
			n := out[name]
			n.Unschedulable = true
			n.Taints = append(slices.Clone(n.Taints), quarantined(kind))
			slices.SortFunc(n.Taints, func(a, b taint) int { return strings.Compare(a.Key, b.Key) })
			out[name] = n
		}
		return out
	}
	intent, err := filepath.Abs(filepath.Join("..", "..", "..", "examples", "multitenant"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeSnapshots(t, dir)
	// Set after the binaries were found: kubectl keeps its discovery
	// cache under HOME.
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBECONFIG", c.Kubeconfig)
	t.Setenv("KUBECTL", c.Kubectl)

	code, out := rocefab(t, dir, "doctor", intent, "--snapshot", "t0.prom", "--snapshot", "t1.prom", "--out", "q.plan", "--drain", "kubernetes")
	if code != 2 || !strings.Contains(out, "Wrote the quarantine plan q.plan: it cordons and taints 3 Kubernetes nodes and shuts 0 switch ports") {
		t.Fatalf("doctor: exit %d\n%s", code, out)
	}
	if got := c.nodes(t); !reflect.DeepEqual(got, before) {
		t.Fatalf("doctor --out changed the nodes: %+v", got)
	}

	// kubectl's current context reaches no server: without --kube-context
	// apply fails reading the first node, before it changes any.
	code, out = rocefab(t, dir, "apply", "q.plan", "--auto-approve")
	if code != 1 || !strings.Contains(out, "no node was changed") || !strings.Contains(out, "kubectl get node gpu-0002 -o json") {
		t.Fatalf("apply in the current context: exit %d\n%s", code, out)
	}
	if got := c.nodes(t); !reflect.DeepEqual(got, before) {
		t.Fatalf("a failed apply changed the nodes: %+v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "q.plan.nodes.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an apply that read no node left a record beside the plan: %v", err)
	}

	// A user who may read nodes and not change them: every node is read,
	// the first cordon is forbidden (kubectl cordon says so and exits 0;
	// the node read back says it is not cordoned), and apply stops there.
	code, out = rocefab(t, dir, "apply", "q.plan", "--auto-approve", "--kube-context", c.Reader)
	if code != 1 || !strings.Contains(out, "untouched   node gpu-0002 (server gpu-0002): kubectl cordon gpu-0002 exited 0 and the node reads schedulable, untainted: error: unable to cordon node") ||
		!strings.Contains(out, "is forbidden") || !strings.Contains(out, "stopped at node 1 of 3, gpu-0002") {
		t.Fatalf("apply as a reader: exit %d\n%s", code, out)
	}
	if got := c.nodes(t); !reflect.DeepEqual(got, before) {
		t.Fatalf("a forbidden apply changed the nodes: %+v", got)
	}

	code, out = rocefab(t, dir, "apply", "q.plan", "--auto-approve", "--kube-context", c.Context)
	if code != 0 || !strings.Contains(out, "kubectl taint nodes gpu-0002 rocefab.io/quarantine=cnp-ignored:NoSchedule") ||
		!strings.Contains(out, "Apply complete: 3 Kubernetes nodes cordoned and tainted or already so") {
		t.Fatalf("apply: exit %d\n%s", code, out)
	}
	quarantine := with(map[string]string{"gpu-0002": "cnp-ignored", "gpu-0003": "pause-storm", "gpu-0005": "pause-storm"})
	if got := c.nodes(t); !reflect.DeepEqual(got, quarantine) {
		t.Fatalf("after the quarantine:\n%+v\nwant\n%+v", got, quarantine)
	}
	var rec struct {
		Nodes []struct {
			Node     string `json:"node"`
			Cordoned bool   `json:"cordoned"`
			Tainted  bool   `json:"tainted"`
		} `json:"nodes"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "q.plan.nodes.json"))
	if err != nil || json.Unmarshal(b, &rec) != nil {
		t.Fatalf("the record beside the plan: %v\n%s", err, b)
	}
	if want := `[{gpu-0002 true true} {gpu-0003 true true} {gpu-0005 false true}]`; fmt.Sprint(rec.Nodes) != want {
		t.Errorf("record %v, want %s", rec.Nodes, want)
	}

	code, out = rocefab(t, dir, "apply", "q.plan", "--auto-approve", "--kube-context", c.Context)
	if code != 0 || strings.Count(out, "unchanged") != 3 || strings.Contains(out, "  done  kubectl") {
		t.Fatalf("apply again: exit %d\n%s", code, out)
	}
	if got := c.nodes(t); !reflect.DeepEqual(got, quarantine) {
		t.Fatalf("after the quarantine applied again: %+v", got)
	}

	code, out = rocefab(t, dir, "doctor", "--release", "q.plan", "--out", "r.plan")
	if code != 0 {
		t.Fatalf("doctor --release: exit %d\n%s", code, out)
	}
	code, out = rocefab(t, dir, "apply", "r.plan", "--auto-approve", "--kube-context", c.Context)
	if code != 0 || !strings.Contains(out, "kubectl uncordon gpu-0003") || strings.Contains(out, "uncordon gpu-0005") {
		t.Fatalf("apply of the release: exit %d\n%s", code, out)
	}
	if got := c.nodes(t); !reflect.DeepEqual(got, before) {
		t.Fatalf("after the release:\n%+v\nwant as before\n%+v", got, before)
	}

	// The release applied again finds nothing to undo.
	code, out = rocefab(t, dir, "apply", "r.plan", "--auto-approve", "--kube-context", c.Context)
	if code != 0 || strings.Count(out, "unchanged") != 3 {
		t.Fatalf("the release applied again: exit %d\n%s", code, out)
	}

	// gpu-0003's node is gone: apply names it and cordons no other.
	c.must(t, http.StatusOK, http.MethodDelete, "/api/v1/nodes/gpu-0003", nil)
	delete(before, "gpu-0003")
	code, out = rocefab(t, dir, "apply", "q.plan", "--auto-approve", "--kube-context", c.Context)
	if code != 1 || !strings.Contains(out, "no node was changed: server gpu-0003: node gpu-0003: kubectl get node gpu-0003 -o json") ||
		!strings.Contains(out, `nodes "gpu-0003" not found`) {
		t.Fatalf("apply with a node missing: exit %d\n%s", code, out)
	}
	if got := c.nodes(t); !reflect.DeepEqual(got, before) {
		t.Fatalf("an apply with a node missing changed the nodes: %+v", got)
	}
}
