package doctor_test

import (
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/targets/doctor"
	"github.com/rocefab/rocefab/targets/doctor/slurmtest"
)

// faultyFabric is pod-2048 with two faults whose servers a quarantine
// drains: gpu-0037's rail-5 NIC stops draining (a pause storm's origin),
// and the cable of gpu-0100's rail-2 NIC counts FCS errors at the leaf.
// It returns the report and the servers behind the faults.
func faultyFabric(t *testing.T) (doctor.Report, []string) {
	s, _ := drainingNIC(t)
	fab := s.fab
	cable := nicOf(t, fab, "gpu-0100", 2)
	leaf := s.port[cable]
	s.set([2]string{leaf.peer, leaf.peerP}, "rx-errors", 25)
	return diagnosed(t, "draining NIC and lossy server cable", s), []string{"gpu-0037", "gpu-0100"}
}

func TestQuarantinePlan(t *testing.T) {
	rep, want := faultyFabric(t)
	fab := fabric(t, "pod-2048")
	q := doctor.NewQuarantine(rep, doctor.IntentRef{Path: "../examples/pod-2048", SHA256: "ab"}, "test", "snap0, snap1")
	if got := q.Nodes(); !slices.Equal(got, want) {
		t.Fatalf("drains %v, want %v", got, want)
	}
	if err := q.Check(fab); err != nil {
		t.Fatal(err)
	}
	for _, d := range q.Drains {
		wantCmd := []string{"scontrol", "update", "NodeName=" + strings.Join(d.Nodes, ","), "State=DRAIN", "Reason=" + d.Reason}
		if !slices.Equal(d.Command, wantCmd) || !strings.HasPrefix(d.Reason, doctor.ReasonPrefix) {
			t.Errorf("drain of %v runs %q", d.Nodes, d.Command)
		}
	}
	b := readsBack(t, q)
	if !doctor.IsQuarantine(bytes.NewReader(b.Bytes())) || doctor.IsQuarantine(strings.NewReader(`{"format_version": 2, "kind": "quarantine"}`)) {
		t.Fatal("a quarantine plan is not told from a device plan")
	}

	// An edited plan is refused: another node in the command, another
	// node in the list (its command recomputed to match), another reason.
	for _, edit := range [][2]string{
		{`"NodeName=gpu-0037"`, `"NodeName=gpu-0037,gpu-0001"`},
		{`"gpu-0100"`, `"gpu-0101"`},
		{`"State=DRAIN"`, `"State=DOWN"`},
	} {
		bad := strings.Replace(b.String(), edit[0], edit[1], 1)
		if bad == b.String() {
			t.Fatalf("edit %q changes nothing", edit[0])
		}
		if _, err := doctor.ReadQuarantine([]byte(bad)); err == nil || !strings.Contains(err.Error(), "edited") {
			t.Errorf("edit %q -> %q: %v, want it refused as edited", edit[0], edit[1], err)
		}
	}
	// A node moved to another finding, its command and digest made to
	// match, is still refused: it is not at that finding's origin.
	moved := *q
	moved.Drains = slices.Clone(q.Drains)
	moved.Drains[0].Nodes = []string{"gpu-0001"}
	if err := moved.Check(fab); err == nil || !strings.Contains(err.Error(), "gpu-0001 is neither the origin") {
		t.Errorf("check of a drain at the wrong server: %v", err)
	}
	moved.Drains[0].Nodes = []string{"spine-01"}
	if err := moved.Check(fab); err == nil || !strings.Contains(err.Error(), "not a server") {
		t.Errorf("check of a drain of a switch: %v", err)
	}

	r := q.Release(nil, nil)
	if r.Kind != doctor.KindRelease || !slices.Equal(r.Nodes(), want) || r.SHA256 == q.SHA256 || len(r.Shuts) != 0 {
		t.Fatalf("release %+v", r)
	}
	for _, d := range r.Drains {
		if !slices.Equal(d.Command, []string{"scontrol", "update", "NodeName=" + strings.Join(d.Nodes, ","), "State=UNDRAIN"}) {
			t.Errorf("release runs %q", d.Command)
		}
	}
	if q.Drains[0].Command[3] != "State=DRAIN" {
		t.Error("Release changed the quarantine plan")
	}
}

// readsBack writes q, reads it back and fails the test unless what it
// reads writes the same; it returns what q wrote.
func readsBack(t *testing.T, q *doctor.Quarantine) *bytes.Buffer {
	t.Helper()
	var b bytes.Buffer
	if err := q.Write(&b); err != nil {
		t.Fatal(err)
	}
	back, err := doctor.ReadQuarantine(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	back.Write(&again)
	if !bytes.Equal(b.Bytes(), again.Bytes()) {
		t.Error("the plan read back writes differently")
	}
	return &b
}

// TestQuarantineSlurmctld drains pod-2048's faulty servers in a real
// slurmctld that knows every server of the fabric, as apply runs the
// plan's commands, and releases them: scontrol show node shows exactly
// the servers behind the faulty NIC and cable drained with the plan's
// reasons, then none.
func TestQuarantineSlurmctld(t *testing.T) {
	fab := fabric(t, "pod-2048")
	var nodes []string
	for _, d := range fab.Devices {
		if d.Host != nil {
			nodes = append(nodes, d.Name)
		}
	}
	scontrol := slurmtest.Start(t, nodes, nil)
	rep, want := faultyFabric(t)
	q := doctor.NewQuarantine(rep, doctor.IntentRef{}, "test", "scenario")
	run := func(q *doctor.Quarantine) {
		for _, d := range q.Drains {
			if out, err := exec.Command(scontrol, d.Command[1:]...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", strings.Join(d.Command, " "), err, out)
			}
		}
	}
	if got := slurmtest.Drained(t, scontrol); len(got) != 0 {
		t.Fatalf("drained before the quarantine: %v", got)
	}
	run(q)
	got := slurmtest.Drained(t, scontrol)
	if len(got) != len(want) {
		t.Errorf("drained %v, want exactly %v", got, want)
	}
	for _, d := range q.Drains {
		for _, n := range d.Nodes {
			if got[n] != d.Reason {
				t.Errorf("%s: drained with reason %q, want %q", n, got[n], d.Reason)
			}
		}
	}
	run(q.Release(nil, nil))
	if got := slurmtest.Drained(t, scontrol); len(got) != 0 {
		t.Errorf("drained after the release: %v", got)
	}
}
