package doctor_test

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/doctor"
)

// kubePlan is the quarantine plan of faultyFabric drained in the
// schedulers given.
func kubePlan(t *testing.T, schedulers ...string) *doctor.Quarantine {
	t.Helper()
	rep, _ := faultyFabric(t)
	q, err := doctor.NewQuarantineIn(rep, doctor.IntentRef{Path: "../examples/pod-2048", SHA256: "ab"}, "test", "scenario", schedulers)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestQuarantineKubePlan: drained in Kubernetes, the quarantine of
// pod-2048's faulty NIC and cable cordons and taints exactly the nodes of
// the two servers behind them, each with its finding's kind as the
// taint's value, and drains nothing in Slurm unless asked to as well.
// The plan reads back; an edited node, command or taint is refused by the
// plan's own rules, and a node moved to another server with its commands
// and digest made to match is refused by the model.
func TestQuarantineKubePlan(t *testing.T) {
	fab := fabric(t, "pod-2048")
	_, want := faultyFabric(t)
	q := kubePlan(t, doctor.SchedulerKubernetes)
	if len(q.Drains) != 0 || q.FormatVersion != doctor.QuarantineFormatVersion {
		t.Fatalf("drains %v in Slurm, format %d", q.Nodes(), q.FormatVersion)
	}
	if got := q.KubeNodes(); !slices.Equal(got, want) {
		t.Fatalf("cordons %v, want %v", got, want)
	}
	for _, c := range q.Cordons {
		wantCmds := [][]string{
			{"kubectl", "cordon", c.Server},
			{"kubectl", "taint", "nodes", c.Server, "rocefab.io/quarantine=" + c.Kind + ":NoSchedule"},
		}
		if !slices.EqualFunc(c.Commands, wantCmds, slices.Equal) || c.Node != c.Server {
			t.Errorf("node %s of %s runs %q", c.Node, c.Server, c.Commands)
		}
	}
	if err := q.Check(fab); err != nil {
		t.Fatal(err)
	}
	both := kubePlan(t, doctor.SchedulerSlurm, doctor.SchedulerKubernetes)
	if !slices.Equal(both.Nodes(), want) || !slices.Equal(both.KubeNodes(), want) {
		t.Errorf("slurm,kubernetes drains %v and cordons %v, want both %v", both.Nodes(), both.KubeNodes(), want)
	}
	if slurm := doctor.NewQuarantine(faultyReport(t), doctor.IntentRef{}, "test", "scenario"); len(slurm.Cordons) != 0 || !slices.Equal(slurm.Nodes(), want) {
		t.Errorf("the default plan cordons %v and drains %v", slurm.KubeNodes(), slurm.Nodes())
	}

	b := readsBack(t, q)
	for _, edit := range [][2]string{
		{`"cordon",
          "gpu-0037"`, `"cordon",
          "gpu-0001"`},
		{`"node": "gpu-0100"`, `"node": "gpu-0101"`},
		{`"cordon",`, `"drain",`},
		{`rocefab.io/quarantine=pause-storm:NoSchedule`, `rocefab.io/quarantine=pause-storm:NoExecute`},
		{`"taint": true`, `"taint": false`},
	} {
		bad := strings.Replace(b.String(), edit[0], edit[1], 1)
		if bad == b.String() {
			t.Fatalf("edit %q changes nothing", edit[0])
		}
		if _, err := doctor.ReadQuarantine([]byte(bad)); err == nil {
			t.Errorf("edit %q -> %q: read back", edit[0], edit[1])
		} else if !strings.Contains(err.Error(), "edited") && !strings.Contains(err.Error(), "a quarantine plan cordons and taints") {
			t.Errorf("edit %q -> %q: %v", edit[0], edit[1], err)
		}
	}

	// A plan of version 3 (no evidence), or of a later version with
	// fields this one does not know, is refused for its version.
	for _, edit := range [][2]string{
		{`"quarantine_format_version": 4`, `"quarantine_format_version": 3`},
		{`"quarantine_format_version": 4`, `"quarantine_format_version": 5, "witness": []`},
	} {
		_, err := doctor.ReadQuarantine([]byte(strings.Replace(b.String(), edit[0], edit[1], 1)))
		if fe, ok := errors.AsType[*doctor.FormatError](err); !ok || !strings.Contains(err.Error(), "this rocefab reads version 4 only; write the plan again") {
			t.Errorf("%s: %v (%v)", edit[1], err, fe)
		}
	}

	// Another server of the fabric, its node and commands made to match:
	// the plan's own rules take it, the model does not.
	moved := *q
	moved.Cordons = slices.Clone(q.Cordons)
	m := &moved.Cordons[0]
	m.Server, m.Node = "gpu-0001", "gpu-0001"
	m.Commands = [][]string{{"kubectl", "cordon", "gpu-0001"}, {"kubectl", "taint", "nodes", "gpu-0001", "rocefab.io/quarantine=" + m.Kind + ":NoSchedule"}}
	moved.SHA256 = moved.Digest()
	b.Reset()
	moved.Write(b)
	if _, err := doctor.ReadQuarantine(b.Bytes()); err != nil {
		t.Fatalf("a consistent plan is refused: %v", err)
	}
	if err := moved.Check(fab); err == nil || !strings.Contains(err.Error(), "server gpu-0001 is neither the origin") {
		t.Errorf("check of a node at the wrong server: %v", err)
	}
	m.Server, m.Node = "spine-01", "spine-01"
	if err := moved.Check(fab); err == nil || !strings.Contains(err.Error(), "spine-01 is not a server of fabric") {
		t.Errorf("check of a switch's node: %v", err)
	}
}

// faultyReport is faultyFabric's report.
func faultyReport(t *testing.T) doctor.Report {
	rep, _ := faultyFabric(t)
	return rep
}

// TestQuarantineKubeNames: a node is its server's name in lower case; a
// server whose name is no Kubernetes node name, or a scheduler rocefab
// does not know, is an error that names it.
func TestQuarantineKubeNames(t *testing.T) {
	finding := func(servers ...string) doctor.Report {
		return doctor.Report{Fabric: "lab", Findings: []doctor.Finding{{Kind: doctor.KindCNPIgnored, Cause: "dcqcn-off",
			Origin: doctor.Endpoint{Device: servers[0], Port: "eth1"}, Drain: servers}}}
	}
	q, err := doctor.NewQuarantineIn(finding("GPU-0007"), doctor.IntentRef{}, "test", "scenario", []string{doctor.SchedulerKubernetes})
	if err != nil || len(q.Cordons) != 1 || q.Cordons[0].Node != "gpu-0007" || q.Cordons[0].Server != "GPU-0007" {
		t.Fatalf("GPU-0007: %+v, %v", q, err)
	}
	if _, err := doctor.NewQuarantineIn(finding("gpu_07"), doctor.IntentRef{}, "test", "scenario", []string{doctor.SchedulerKubernetes}); err == nil ||
		!strings.Contains(err.Error(), "server gpu_07 has no Kubernetes node name") {
		t.Errorf("gpu_07: %v", err)
	}
	if q, err := doctor.NewQuarantineIn(finding("gpu_07"), doctor.IntentRef{}, "test", "scenario", []string{doctor.SchedulerSlurm}); err != nil || len(q.Drains) != 1 {
		t.Errorf("gpu_07 in Slurm: %+v, %v", q, err)
	}
	if _, err := doctor.NewQuarantineIn(finding("gpu-07"), doctor.IntentRef{}, "test", "scenario", []string{"k8s"}); err == nil ||
		!strings.Contains(err.Error(), `scheduler "k8s": allowed are slurm, kubernetes`) {
		t.Errorf("k8s: %v", err)
	}
}

// TestQuarantineKubeRecord: the release uncordons only the nodes the
// quarantine cordoned and removes only the taints it added, as the record
// of its applies says: a node cordoned beforehand stays cordoned, one
// tainted beforehand (by an earlier quarantine) stays tainted, and
// applying the plan again, which finds every node cordoned and tainted,
// changes none of that. Without a record the release changes no node.
func TestQuarantineKubeRecord(t *testing.T) {
	q := kubePlan(t, doctor.SchedulerKubernetes)
	a, b := q.Cordons[0], q.Cordons[1]
	outcome := func(c doctor.Cordon, before doctor.NodeState, ran ...[]string) doctor.NodeOutcome {
		return doctor.NodeOutcome{Node: c.Node, Server: c.Server, Before: &before, Ran: ran, State: targets.Applied}
	}
	// a was schedulable: cordoned and tainted; b was cordoned by someone
	// else: only tainted.
	rec := doctor.RecordNodes(nil, q, []doctor.NodeOutcome{
		outcome(a, doctor.NodeState{}, a.Commands...),
		outcome(b, doctor.NodeState{Unschedulable: true}, b.Commands[1]),
	})
	// Applied again: nothing to do on either.
	rec = doctor.RecordNodes(rec, q, []doctor.NodeOutcome{
		outcome(a, doctor.NodeState{Unschedulable: true, Tainted: true}),
		outcome(b, doctor.NodeState{Unschedulable: true, Tainted: true}),
	})
	var buf bytes.Buffer
	if err := rec.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := doctor.ReadNodeRecord(buf.Bytes(), q)
	if err != nil {
		t.Fatal(err)
	}
	r := q.Release(nil, back)
	want := [][][]string{
		{{"kubectl", "taint", "nodes", a.Node, "rocefab.io/quarantine:NoSchedule-"}, {"kubectl", "uncordon", a.Node}},
		{{"kubectl", "taint", "nodes", b.Node, "rocefab.io/quarantine:NoSchedule-"}},
	}
	if len(r.Cordons) != 2 {
		t.Fatalf("release %+v", r.Cordons)
	}
	for i, c := range r.Cordons {
		if !slices.EqualFunc(c.Commands, want[i], slices.Equal) {
			t.Errorf("release of %s runs %q, want %q", c.Node, c.Commands, want[i])
		}
	}
	readsBack(t, r)
	if q.Cordons[0].Commands[0][1] != "cordon" {
		t.Error("Release changed the quarantine plan")
	}

	// b tainted by an earlier quarantine and cordoned: the release leaves
	// it; a never read (its apply stopped before it): left too.
	rec = doctor.RecordNodes(nil, q, []doctor.NodeOutcome{
		{Node: a.Node, Server: a.Server, State: targets.Untouched},
		outcome(b, doctor.NodeState{Unschedulable: true, Tainted: true}),
	})
	if r := q.Release(nil, rec); len(r.Cordons) != 0 {
		t.Errorf("release of nodes the quarantine did not change: %+v", r.Cordons)
	}
	if r := q.Release(nil, nil); len(r.Cordons) != 0 || r.Cordons == nil {
		t.Errorf("release without a record: %+v", r.Cordons)
	}
	other := kubePlan(t, doctor.SchedulerSlurm, doctor.SchedulerKubernetes)
	buf.Reset()
	rec.Write(&buf)
	if _, err := doctor.ReadNodeRecord(buf.Bytes(), other); err == nil || !strings.Contains(err.Error(), "not this one") {
		t.Errorf("the record of another plan: %v", err)
	}
}

// TestNodeStateOf reads a Node as kubectl get node -o json prints it
// (k8s.io/api core/v1: spec.unschedulable, spec.taints[].key, value,
// effect): only rocefab's key with effect NoSchedule counts as tainted.
func TestNodeStateOf(t *testing.T) {
	for _, c := range []struct {
		json string
		want doctor.NodeState
	}{
		{`{"kind":"Node","apiVersion":"v1","metadata":{"name":"gpu-0001"},"spec":{}}`, doctor.NodeState{}},
		{`{"kind":"Node","metadata":{"name":"gpu-0001"},"spec":{"unschedulable":true,"taints":[{"key":"node.kubernetes.io/unschedulable","effect":"NoSchedule"}]}}`,
			doctor.NodeState{Unschedulable: true}},
		{`{"kind":"Node","metadata":{"name":"gpu-0001"},"spec":{"taints":[{"key":"rocefab.io/quarantine","value":"link-errors","effect":"NoSchedule"}]}}`,
			doctor.NodeState{Tainted: true}},
		{`{"kind":"Node","metadata":{"name":"gpu-0001"},"spec":{"taints":[{"key":"rocefab.io/quarantine","value":"link-errors","effect":"NoExecute"}]}}`,
			doctor.NodeState{}},
	} {
		got, err := doctor.NodeStateOf([]byte(c.json), "gpu-0001")
		if err != nil || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.json, got, err, c.want)
		}
	}
	for _, bad := range []string{`{"kind":"Node","metadata":{"name":"gpu-0002"}}`, `{"kind":"NodeList","items":[]}`, `not json`} {
		if _, err := doctor.NodeStateOf([]byte(bad), "gpu-0001"); err == nil {
			t.Errorf("%s read as node gpu-0001", bad)
		}
	}
}
