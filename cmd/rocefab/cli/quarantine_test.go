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

	"github.com/rocefab/rocefab/targets/doctor/slurmtest"
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

// TestQuarantineApply runs the quarantine end to end against a real
// slurmctld that knows multitenant's servers: doctor --out writes the
// plan and drains nothing; apply shows it and asks, and an answer other
// than yes drains nothing; an edited plan is refused before anything
// runs; with yes, scontrol show node has exactly the servers behind the
// faulty NIC and cable drained with rocefab's reasons; the release plan
// undrains them, and then none is drained.
func TestQuarantineApply(t *testing.T) {
	intent := filepath.Join(repoRoot(t), "examples", "multitenant")
	fab := compileIntent(t, intent)
	var nodes []string
	for _, d := range fab.Devices {
		if d.Host != nil {
			nodes = append(nodes, d.Name)
		}
	}
	scontrol := slurmtest.Start(t, nodes, nil)
	dir := t.TempDir()
	writeFaultySnapshots(t, dir)
	code, out, errs := rocefab(t, dir, "", "doctor", intent, "--snapshot", "t0.prom", "--snapshot", "t1.prom", "--out", "q.plan")
	if code != exitDoctorFindings || !strings.Contains(errs, "Wrote the quarantine plan q.plan: it drains 2 servers") {
		t.Fatalf("doctor: exit %d\n%s%s", code, out, errs)
	}
	drained := func() []string { return slices.Sorted(maps.Keys(slurmtest.Drained(t, scontrol))) }
	if got := drained(); len(got) != 0 {
		t.Fatalf("doctor --out drained %v", got)
	}

	code, out, errs = rocefab(t, dir, "no\n", "apply", "q.plan")
	if code != exitPlanError || !strings.Contains(errs, "apply cancelled") || !strings.Contains(out, "scontrol update NodeName=gpu-0003 State=DRAIN Reason='rocefab: pause-storm not-draining at gpu-0003:eth4'") {
		t.Fatalf("apply answered no: exit %d\n%s%s", code, out, errs)
	}
	if got := drained(); len(got) != 0 {
		t.Fatalf("apply answered no drained %v", got)
	}

	plan, err := os.ReadFile(filepath.Join(dir, "q.plan"))
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(plan), `"gpu-0005"`, `"gpu-0001"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "edited.plan"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = rocefab(t, dir, "yes\n", "apply", "edited.plan", "--auto-approve")
	if code != exitPlanError || !strings.Contains(errs, "edited") {
		t.Fatalf("edited plan: exit %d, %s", code, errs)
	}
	if got := drained(); len(got) != 0 {
		t.Fatalf("an edited plan drained %v", got)
	}

	code, out, errs = rocefab(t, dir, "yes\n", "apply", "q.plan")
	if code != exitOK {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errs)
	}
	got := slurmtest.Drained(t, scontrol)
	want := map[string]string{
		"gpu-0003": "rocefab: pause-storm not-draining at gpu-0003:eth4",
		"gpu-0005": "rocefab: link-errors fcs-errors at gpu-0005:eth2",
	}
	if !maps.Equal(got, want) {
		t.Fatalf("drained %v, want %v", got, want)
	}

	code, out, errs = rocefab(t, dir, "", "doctor", "--release", "q.plan", "--out", "r.plan")
	if code != exitOK {
		t.Fatalf("doctor --release: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = rocefab(t, dir, "", "apply", "r.plan", "--auto-approve", "--format", "json")
	var rep quarantineReport
	if err := json.Unmarshal([]byte(out), &rep); code != exitOK || err != nil {
		t.Fatalf("apply release: exit %d, %v\n%s%s", code, err, out, errs)
	}
	if !slices.Equal(rep.Nodes, []string{"gpu-0003", "gpu-0005"}) || len(rep.Ran) != 2 || rep.Ran[0][3] != "State=UNDRAIN" || rep.Failed != "" {
		t.Errorf("release report %+v", rep)
	}
	if got := drained(); len(got) != 0 {
		t.Fatalf("drained after the release: %v", got)
	}
}

// TestQuarantineApplyStops applies a quarantine plan to a slurmctld that
// does not know one of its servers: scontrol refuses that drain, and
// apply stops there with exit 1 and says which command failed, in its
// JSON report too.
func TestQuarantineApplyStops(t *testing.T) {
	intent := filepath.Join(repoRoot(t), "examples", "multitenant")
	fab := compileIntent(t, intent)
	var nodes []string
	for _, d := range fab.Devices {
		if d.Host != nil && d.Name != "gpu-0005" {
			nodes = append(nodes, d.Name)
		}
	}
	scontrol := slurmtest.Start(t, nodes, nil)
	dir := t.TempDir()
	writeFaultySnapshots(t, dir)
	if code, out, errs := rocefab(t, dir, "", "doctor", intent, "--snapshot", "t0.prom", "--snapshot", "t1.prom", "--out", "q.plan"); code != exitDoctorFindings {
		t.Fatalf("doctor: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs := rocefab(t, dir, "", "apply", "q.plan", "--auto-approve", "--format", "json")
	var rep quarantineReport
	if err := json.Unmarshal([]byte(out), &rep); code != exitPlanError || err != nil {
		t.Fatalf("apply: exit %d, %v\n%s%s", code, err, out, errs)
	}
	if !strings.Contains(rep.Failed, "stopped at drain 1 of 2: scontrol update NodeName=gpu-0005") || len(rep.Ran) != 0 || !strings.Contains(errs, rep.Failed) {
		t.Errorf("report %+v\nstderr %s", rep, errs)
	}
	if got := slurmtest.Drained(t, scontrol); len(got) != 0 {
		t.Errorf("drained %v after the first drain failed", got)
	}
}
