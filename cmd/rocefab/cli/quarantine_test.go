package cli

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/nvue"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/doctor"
	"github.com/rocefab/rocefab/targets/doctor/slurmtest"
	"github.com/rocefab/rocefab/targets/routing"
)

// writeFaultySnapshots writes two scrapes of multitenant 30 s apart, in
// node_exporter's ethtool names: gpu-0003's eth4 sends 20,000 pauses/s
// while it carries nothing (a NIC that stopped draining), and gpu-0005's
// eth2 counts 30 FCS errors/s (a lossy cable to its leaf).
func writeFaultySnapshots(t *testing.T, dir string) {
	series := []struct {
		name    string
		v0, v30 int
	}{
		{`node_ethtool_transmitted_prio3_pause{device="eth4",instance="gpu-0003:9100"}`, 1000, 601000},
		{`node_ethtool_received_prio3_pause{device="eth4",instance="gpu-0003:9100"}`, 1000, 1000},
		{`node_ethtool_transmitted_prio3_bytes{device="eth4",instance="gpu-0003:9100"}`, 1000, 2000},
		{`node_ethtool_received_prio3_bytes{device="eth4",instance="gpu-0003:9100"}`, 1000, 2000},
		{`node_ethtool_received_crc_errors_phy{device="eth2",instance="gpu-0005:9100"}`, 10, 910},
	}
	for i, file := range []string{"t0.prom", "t1.prom"} {
		var b strings.Builder
		for _, s := range series {
			fmt.Fprintf(&b, "%s %d %d\n", s.name, []int{s.v0, s.v30}[i], 1_700_000_000_000+i*30_000)
		}
		if err := os.WriteFile(filepath.Join(dir, file), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// faultyMultitenant copies multitenant with the running configuration of
// the leaf at the other end of gpu-0005's eth2 cable (the lossy cable of
// writeFaultySnapshots), whose port the quarantine shuts, and returns the
// directory, the fabric, the leaf and its port.
func faultyMultitenant(t *testing.T) (string, *ir.Fabric, *ir.Device, string) {
	t.Helper()
	dir := copyExample(t, "multitenant")
	fab := compileIntent(t, dir)
	var leaf, port string
	for _, d := range fab.Devices {
		if d.Name == "gpu-0005" {
			for _, n := range d.Host.NICs {
				if n.Port == "eth2" {
					leaf, port = n.Peer, n.PeerPort
				}
			}
		}
	}
	for _, d := range fab.Devices {
		if d.Name != leaf {
			continue
		}
		desc, _ := routing.Lookup(d.Platform)
		arts, err := desc.Renderer.Render(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "running", leaf), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, a := range arts {
			if err := os.WriteFile(filepath.Join(dir, "running", a.Path), a.Content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir, fab, d, port
	}
	t.Fatal("no leaf faces gpu-0005:eth2")
	return "", nil, nil, ""
}

// quarantine is faultyMultitenant's fabric with a slurmctld that knows
// its servers, and the quarantine plan q.plan that doctor --out wrote of
// writeFaultySnapshots in dir.
type quarantine struct {
	intent, dir string
	leaf        *ir.Device
	port        string
	// scontrol is the slurmctld's scontrol (slurmtest.Start).
	scontrol string
	// doctorErr is what doctor printed on stderr.
	doctorErr string
}

// quarantinePlan starts the quarantine tests: the slurmctld knows every
// server but those unknown names, and doctor must exit with findings.
func quarantinePlan(t *testing.T, unknown ...string) quarantine {
	t.Helper()
	intent, fab, leaf, port := faultyMultitenant(t)
	var nodes []string
	for _, d := range fab.Hosts() {
		if !slices.Contains(unknown, d.Name) {
			nodes = append(nodes, d.Name)
		}
	}
	q := quarantine{intent: intent, dir: t.TempDir(), leaf: leaf, port: port, scontrol: slurmtest.Start(t, nodes, nil)}
	writeFaultySnapshots(t, q.dir)
	_, q.doctorErr = rocefabExits(t, exitDoctorFindings, q.dir, "", "doctor", intent, "--snapshot", "t0.prom", "--snapshot", "t1.prom", "--out", "q.plan")
	return q
}

// TestQuarantineApply runs the quarantine end to end against a real
// slurmctld that knows multitenant's servers: doctor --out writes the
// plan and drains nothing; apply shows it and asks, and an answer other
// than yes drains nothing; an edited plan is refused before anything
// runs; with yes, scontrol show node has exactly the servers behind the
// faulty NIC and cable drained with rocefab's reasons, and the leaf end
// of the cable shut; the release plan undrains them and brings the port
// back up, and then none is drained.
func TestQuarantineApply(t *testing.T) {
	q := quarantinePlan(t)
	if !strings.Contains(q.doctorErr, "Wrote the quarantine plan q.plan: it drains 2 servers in Slurm and shuts 1 switch port") {
		t.Fatalf("doctor:\n%s", q.doctorErr)
	}
	drained := func() []string { return slices.Sorted(maps.Keys(slurmtest.Drained(t, q.scontrol))) }
	if got := drained(); len(got) != 0 {
		t.Fatalf("doctor --out drained %v", got)
	}

	code, out, errs := rocefab(t, q.dir, "no\n", "apply", "q.plan")
	if code != exitPlanError || !strings.Contains(errs, "apply cancelled") || !strings.Contains(out, "scontrol update NodeName=gpu-0003 State=DRAIN Reason='rocefab: pause-storm not-draining at gpu-0003:eth4'") {
		t.Fatalf("apply answered no: exit %d\n%s%s", code, out, errs)
	}
	if got := drained(); len(got) != 0 {
		t.Fatalf("apply answered no drained %v", got)
	}

	plan, err := os.ReadFile(filepath.Join(q.dir, "q.plan"))
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(plan), `"gpu-0005"`, `"gpu-0001"`, 1)
	if err := os.WriteFile(filepath.Join(q.dir, "edited.plan"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = rocefab(t, q.dir, "yes\n", "apply", "edited.plan", "--auto-approve")
	if code != exitPlanError || !strings.Contains(errs, "edited") {
		t.Fatalf("edited plan: exit %d, %s", code, errs)
	}
	if got := drained(); len(got) != 0 {
		t.Fatalf("an edited plan drained %v", got)
	}

	// The NIC's finding moved to another server, its reason, command and
	// digest made to match: the plan's own rules and the model take it,
	// the diagnosis of its snapshots does not.
	resigned(t, q.dir, "q.plan", "moved.plan", func(q *doctor.Quarantine) {
		d := &q.Drains[slices.IndexFunc(q.Drains, func(d doctor.Drain) bool { return d.Origin.Device == "gpu-0003" })]
		d.Origin.Device, d.Nodes = "gpu-0001", []string{"gpu-0001"}
		d.Reason = "rocefab: pause-storm not-draining at gpu-0001:eth4"
		d.Command = []string{"scontrol", "update", "NodeName=gpu-0001", "State=DRAIN", "Reason=" + d.Reason}
	})
	code, _, errs = rocefab(t, q.dir, "", "apply", "moved.plan", "--auto-approve")
	if code != exitPlanError || !strings.Contains(errs, "drain 2: the plan has pause-storm not-draining at gpu-0001:eth4: servers gpu-0001 where pause-storm not-draining at gpu-0003:eth4: servers gpu-0003 is expected") {
		t.Fatalf("a moved origin: exit %d, %s", code, errs)
	}
	// A snapshot changed since doctor read it is refused with its path
	// and the digest the plan recorded.
	t1 := filepath.Join(q.dir, "t1.prom")
	snap, err := os.ReadFile(t1)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(t1, append(slices.Clone(snap), "# edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, qp := readPlan(t, filepath.Join(q.dir, "q.plan"))
	code, _, errs = rocefab(t, q.dir, "", "apply", "q.plan", "--auto-approve")
	if want := "evidence t1.prom: its SHA-256 is "; code != exitPlanError || !strings.Contains(errs, want) || !strings.Contains(errs, "the plan recorded "+qp.Evidence.Snapshots[1].SHA256) {
		t.Fatalf("a changed snapshot: exit %d, %s", code, errs)
	}
	if got := drained(); len(got) != 0 {
		t.Fatalf("a refused plan drained %v", got)
	}
	if err := os.WriteFile(t1, snap, 0o644); err != nil {
		t.Fatal(err)
	}

	out, errs = rocefabExits(t, exitOK, q.dir, "yes\n", "apply", "q.plan")
	got := slurmtest.Drained(t, q.scontrol)
	want := map[string]string{
		"gpu-0003": "rocefab: pause-storm not-draining at gpu-0003:eth4",
		"gpu-0005": "rocefab: link-errors fcs-errors at gpu-0005:eth2",
	}
	if !maps.Equal(got, want) {
		t.Fatalf("drained %v, want %v", got, want)
	}
	if st := adminState(t, q.intent, q.leaf, q.port); st != renderers.AdminDown {
		t.Fatalf("after apply %s:%s is %s", q.leaf.Name, q.port, st)
	}

	out, errs = rocefabExits(t, exitOK, q.dir, "", "doctor", "--release", "q.plan", "--out", "r.plan")
	code, out, errs = rocefab(t, q.dir, "", "apply", "r.plan", "--auto-approve", "--format", "json")
	var rep quarantineReport
	if err := json.Unmarshal([]byte(out), &rep); code != exitOK || err != nil {
		t.Fatalf("apply release: exit %d, %v\n%s%s", code, err, out, errs)
	}
	if !slices.Equal(rep.Nodes, []string{"gpu-0003", "gpu-0005"}) || len(rep.Ran) != 2 || rep.Ran[0][3] != "State=UNDRAIN" || rep.Failed != "" || len(rep.Ports) != 1 {
		t.Errorf("release report %+v", rep)
	}
	if st := adminState(t, q.intent, q.leaf, q.port); st != renderers.AdminUp {
		t.Fatalf("after the release %s:%s is %s", q.leaf.Name, q.port, st)
	}
	if got := drained(); len(got) != 0 {
		t.Fatalf("drained after the release: %v", got)
	}

	// The release names the quarantine plan it releases: a plan written
	// again in its place is refused, and so is a release whose steps its
	// quarantine plan does not give.
	resigned(t, q.dir, "r.plan", "r2.plan", func(r *doctor.Quarantine) { r.Drains = r.Drains[:1] })
	code, _, errs = rocefab(t, q.dir, "", "apply", "r2.plan", "--auto-approve")
	if code != exitPlanError || !strings.Contains(errs, "drain 2: the plan has nothing where pause-storm not-draining at gpu-0003:eth4: servers gpu-0003 is expected") {
		t.Fatalf("a release missing a drain: exit %d, %s", code, errs)
	}
	rocefabExits(t, exitDoctorFindings, q.dir, "", "doctor", q.intent, "--snapshot", "t0.prom", "--snapshot", "t1.prom", "--out", "q.plan", "--drain", "slurm,kubernetes")
	code, _, errs = rocefab(t, q.dir, "", "apply", "r.plan", "--auto-approve")
	if code != exitPlanError || !strings.Contains(errs, "r.plan releases the quarantine plan q.plan with digest "+qp.SHA256) || !strings.Contains(errs, "it changed since the release was written") {
		t.Fatalf("a release of a plan written again: exit %d, %s", code, errs)
	}
}

// resigned reads the plan from in dir, edits it with edit, makes its
// digest match and writes it to to: an edit the plan's own rules cannot
// tell.
func resigned(t *testing.T, dir, from, to string, edit func(*doctor.Quarantine)) {
	t.Helper()
	_, q := readPlan(t, filepath.Join(dir, from))
	edit(q)
	q.SHA256 = q.Digest()
	var out strings.Builder
	if err := q.Write(&out); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, to), []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestQuarantineApplyStops applies a quarantine plan to a slurmctld that
// does not know one of its servers: scontrol refuses that drain, and
// apply stops there with exit 1, before it shuts the port, and says which
// command failed, in its JSON report too.
func TestQuarantineApplyStops(t *testing.T) {
	q := quarantinePlan(t, "gpu-0005")
	code, out, errs := rocefab(t, q.dir, "", "apply", "q.plan", "--auto-approve", "--format", "json")
	var rep quarantineReport
	if err := json.Unmarshal([]byte(out), &rep); code != exitPlanError || err != nil {
		t.Fatalf("apply: exit %d, %v\n%s%s", code, err, out, errs)
	}
	if !strings.Contains(rep.Failed, "stopped at drain 1 of 2: scontrol update NodeName=gpu-0005") || len(rep.Ran) != 0 || !strings.Contains(errs, rep.Failed) ||
		len(rep.Ports) != 1 || rep.Ports[0].State != targets.Untouched {
		t.Errorf("report %+v\nstderr %s", rep, errs)
	}
	if got := slurmtest.Drained(t, q.scontrol); len(got) != 0 {
		t.Errorf("drained %v after the first drain failed", got)
	}
	if st := adminState(t, q.intent, q.leaf, q.port); st != renderers.AdminUp {
		t.Errorf("%s:%s is %s after the first drain failed", q.leaf.Name, q.port, st)
	}
}

// spinePort returns the first port of spine-00 that faces a leaf.
func spinePort(t *testing.T, fab *ir.Fabric) (*ir.Device, ir.Port) {
	t.Helper()
	for _, d := range fab.Devices {
		if d.Name != "spine-00" {
			continue
		}
		for _, p := range d.Switch.Ports {
			if p.Facing == ir.RoleLeaf {
				return d, p
			}
		}
	}
	t.Fatal("spine-00 has no port facing a leaf")
	return nil, ir.Port{}
}

// writeSpineSnapshots writes two scrapes 30 s apart, in gnmic's names of
// the OpenConfig counters: the spine end of a spine cable counts 30 FCS
// errors a second.
func writeSpineSnapshots(t *testing.T, dir string, spine *ir.Device, port ir.Port) {
	t.Helper()
	for i, file := range []string{"t0.prom", "t1.prom"} {
		line := fmt.Sprintf("interfaces_interface_state_counters_in_fcs_errors{interface_name=%q,source=%q} %d %d\n",
			port.Name, spine.Name, 10+900*i, 1_700_000_000_000+i*30_000)
		if err := os.WriteFile(filepath.Join(dir, file), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// adminState reads port's administrative state from d's running nvue.yaml
// below dir.
func adminState(t *testing.T, dir string, d *ir.Device, port string) renderers.AdminState {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "running", d.Name, nvue.File))
	if err != nil {
		t.Fatal(err)
	}
	st, err := nvue.Renderer{}.AdminState(d, []renderers.Artifact{{Path: d.Name + "/" + nvue.File, Content: b}}, port)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestQuarantineShutApply runs the quarantine of a lossy spine cable end
// to end through the command line on pod-2048's running files (the
// directory target): doctor --out writes a plan that shuts the spine's
// end and drains nobody; apply answered no shuts nothing; an edited plan
// is refused; a release made before any apply brings no port up; apply shuts the port, with commit-confirm, and changes
// nothing else in any running file; applying it again finds it down; the
// release plan brings it back up, and its JSON report says so.
func TestQuarantineShutApply(t *testing.T) {
	dir, _ := smallPod(t)
	fab := compileIntent(t, dir)
	spine, port := spinePort(t, fab)
	writeSpineSnapshots(t, dir, spine, port)
	before := runningFiles(t, dir)
	code, out, errs := rocefab(t, dir, "", "doctor", ".", "--snapshot", "t0.prom", "--snapshot", "t1.prom", "--out", "q.plan")
	if code != exitDoctorFindings || !strings.Contains(errs, "Wrote the quarantine plan q.plan: it drains 0 servers in Slurm and shuts 1 switch port") {
		t.Fatalf("doctor: exit %d\n%s%s", code, out, errs)
	}
	want := fmt.Sprintf("switch port %s:%s administratively down", spine.Name, port.Name)
	code, out, errs = rocefab(t, dir, "no\n", "apply", "q.plan")
	if code != exitPlanError || !strings.Contains(errs, "apply cancelled") || !strings.Contains(out, want) {
		t.Fatalf("apply answered no: exit %d\n%s%s", code, out, errs)
	}
	if st := adminState(t, dir, spine, port.Name); st != renderers.AdminUp {
		t.Fatalf("apply answered no left %s %s", port.Name, st)
	}

	plan, err := os.ReadFile(filepath.Join(dir, "q.plan"))
	if err != nil {
		t.Fatal(err)
	}
	other := spine.Switch.Ports[len(spine.Switch.Ports)-1].Name
	edited := strings.Replace(string(plan), `"port": "`+port.Name+`"`, `"port": "`+other+`"`, 1)
	if edited == string(plan) {
		t.Fatal("the edit changes nothing")
	}
	if err := os.WriteFile(filepath.Join(dir, "edited.plan"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = rocefab(t, dir, "", "apply", "edited.plan", "--auto-approve")
	if code != exitPlanError || !strings.Contains(errs, "edited") {
		t.Fatalf("edited plan: exit %d, %s", code, errs)
	}

	// Before any apply there is no record of a shut: the release brings
	// no port up, and says so.
	code, out, errs = rocefab(t, dir, "", "doctor", "--release", "q.plan", "--out", "early.plan")
	if code != exitOK || !strings.Contains(errs, "the release brings no port up") {
		t.Fatalf("doctor --release before apply: exit %d\n%s%s", code, out, errs)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "early.plan")); err != nil || !strings.Contains(string(b), `"shuts": []`) {
		t.Fatalf("the release plan made before apply: %v\n%s", err, b)
	}

	code, out, errs = rocefab(t, dir, "yes\n", "apply", "q.plan")
	if code != exitOK || !strings.Contains(out, "applied") || !strings.Contains(out, "Apply complete: 1 switch port shut") {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errs)
	}
	if st := adminState(t, dir, spine, port.Name); st != renderers.AdminDown {
		t.Fatalf("after apply %s is %s", port.Name, st)
	}
	after := runningFiles(t, dir)
	for name, b := range before {
		if name != spine.Name+"/"+nvue.File && b != after[name] {
			t.Errorf("apply changed %s", name)
		}
	}
	if len(after) != len(before) {
		t.Errorf("running/ has %d files after apply, %d before", len(after), len(before))
	}
	code, out, errs = rocefab(t, dir, "", "apply", "q.plan", "--auto-approve")
	if code != exitOK || !strings.Contains(out, "unchanged") {
		t.Fatalf("apply again: exit %d\n%s%s", code, out, errs)
	}

	code, out, errs = rocefab(t, dir, "", "doctor", "--release", "q.plan", "--out", "r.plan")
	if code != exitOK || errs != "" {
		t.Fatalf("doctor --release: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = rocefab(t, dir, "", "apply", "r.plan", "--auto-approve", "--format", "json")
	var rep quarantineReport
	if err := json.Unmarshal([]byte(out), &rep); code != exitOK || err != nil {
		t.Fatalf("apply release: exit %d, %v\n%s%s", code, err, out, errs)
	}
	if len(rep.Ports) != 1 || rep.Ports[0].State != targets.Applied || rep.Ports[0].Admin != renderers.AdminUp || rep.Failed != "" {
		t.Errorf("release report %+v", rep)
	}
	if st := adminState(t, dir, spine, port.Name); st != renderers.AdminUp {
		t.Fatalf("after the release %s is %s", port.Name, st)
	}
}

// readPlan reads the quarantine plan at path, its text and what it says.
func readPlan(t *testing.T, path string) ([]byte, *doctor.Quarantine) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	q, err := doctor.ReadQuarantine(b)
	if err != nil {
		t.Fatal(err)
	}
	return b, q
}
