package doctor_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/targets/doctor"
	"github.com/rocefab/rocefab/targets/telemetry"
)

// diagnose reads the scenario's snapshots through the parser, as the CLI
// does, and diagnoses them.
func diagnose(t testing.TB, s *scenario) doctor.Report {
	t.Helper()
	// The scrapes stream from the generator to the parser: a 100,000-GPU
	// fabric's would not fit in memory as text.
	w := telemetry.NewWindow()
	for i := range 2 {
		pr, pw := io.Pipe()
		go func() {
			bw := bufio.NewWriterSize(pw, 1<<16)
			s.writeOne(bw, i)
			pw.CloseWithError(bw.Flush())
		}()
		err := w.Read(pr, "snap"+strconv.Itoa(i), 0)
		pr.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if single := w.Single(); single != 0 || w.Skipped != 0 {
		t.Fatalf("%d series with one sample, %d skipped", single, w.Skipped)
	}
	// A model prepared once diagnoses the window again afresh.
	md := doctor.NewModel(s.fab)
	rep := md.Diagnose(w, doctor.DefaultOptions())
	first, _ := json.Marshal(rep)
	if again, _ := json.Marshal(md.Diagnose(w, doctor.DefaultOptions())); !bytes.Equal(first, again) {
		t.Errorf("a second diagnosis by the same model differs:\n%s\n%s", first, again)
	}
	if rep.Unmatched != 0 {
		t.Errorf("%d rates name no port of the fabric", rep.Unmatched)
	}
	if rep.Seconds != 30 {
		t.Errorf("window %g s, want 30", rep.Seconds)
	}
	return rep
}

var (
	reportsMu sync.Mutex
	reports   = map[string]doctor.Report{}
)

// diagnosed is diagnose for the scenarios several tests share: the
// scenario named name, s, is diagnosed (and that diagnosis checked) once
// per test binary, and every test reads that report without changing it.
func diagnosed(t testing.TB, name string, s *scenario) doctor.Report {
	t.Helper()
	reportsMu.Lock()
	defer reportsMu.Unlock()
	rep, ok := reports[name]
	if !ok {
		rep = diagnose(t, s)
		reports[name] = rep
	}
	return rep
}

// only checks that the report has exactly one finding, of kind and cause,
// at origin.
func only(t *testing.T, rep doctor.Report, kind, cause string, origin doctor.Endpoint) doctor.Finding {
	t.Helper()
	if len(rep.Findings) != 1 {
		for _, f := range rep.Findings {
			t.Logf("finding: %s %s at %s: %s", f.Kind, f.Cause, f.Origin, f.Message)
		}
		t.Fatalf("%d findings, want exactly one", len(rep.Findings))
	}
	f := rep.Findings[0]
	if f.Kind != kind || f.Cause != cause || f.Origin != origin {
		t.Fatalf("finding %s %s at %s, want %s %s at %s", f.Kind, f.Cause, f.Origin, kind, cause, origin)
	}
	if len(f.Evidence) == 0 {
		t.Errorf("finding without evidence")
	}
	for _, e := range f.Evidence {
		if e.Seconds != 30 || e.Series == "" {
			t.Errorf("evidence %+v: want its series and the 30 s window", e)
		}
	}
	return f
}

func TestHealthyIncast(t *testing.T) {
	s := newScenario(fabric(t, "pod-2048"))
	rep := diagnose(t, s)
	if len(rep.Findings) != 0 {
		t.Errorf("a healthy fabric with incast bursts: %d findings, first %+v", len(rep.Findings), rep.Findings[0])
	}
	if rep.Rates == 0 {
		t.Fatal("no rates read")
	}
}

func TestNICStopsDraining(t *testing.T) {
	s, nic := drainingNIC(t)
	fab := s.fab
	f := only(t, diagnosed(t, "draining NIC in pod-2048", s), doctor.KindPauseStorm, doctor.CauseNotDraining, doctor.Endpoint{Device: nic[0], Port: nic[1]})

	leaf := s.port[nic]
	if len(f.Victims) == 0 || f.Victims[0].Endpoint != (doctor.Endpoint{Device: leaf.peer, Port: leaf.peerP}) || !f.Victims[0].Propagates {
		t.Fatalf("first victim %+v, want the leaf port %s:%s, propagating", f.Victims[0], leaf.peer, leaf.peerP)
	}
	// Every other device is a victim: the storm reached them all, and
	// the servers only receive.
	victims := map[string]bool{}
	for _, v := range f.Victims {
		victims[v.Device] = true
		if got := v.Path[0]; got != nic[0]+":"+nic[1] {
			t.Errorf("victim %s: path starts at %s, want the origin", v.Endpoint, got)
		}
		isServer := strings.HasPrefix(v.Device, "gpu-")
		if v.Propagates == isServer {
			t.Errorf("victim %s: propagates %v", v.Endpoint, v.Propagates)
		}
	}
	for _, d := range fab.Devices {
		if d.Name != nic[0] && !victims[d.Name] {
			t.Errorf("%s is not listed as a victim", d.Name)
			break
		}
	}
	if !slices.Equal(f.Drain, []string{nic[0]}) || f.Touches.Servers != 256 {
		t.Errorf("drain %v, touches %d servers: want %s drained and every server touched", f.Drain, f.Touches.Servers, nic[0])
	}
}

// cable returns a healthy pod-2048 and the two ends of leaf's first
// uplink: the leaf's and the spine's.
func cable(t *testing.T, leaf string) (s *scenario, up, far [2]string) {
	fab := fabric(t, "pod-2048")
	s = newScenario(fab)
	up = uplink(t, fab, leaf)
	spine := s.port[up]
	return s, up, [2]string{spine.peer, spine.peerP}
}

// lossySpineCable is a healthy pod-2048 whose cable of leaf-r2-03's
// first uplink counts 25 FCS errors a second at the spine's end. It
// returns the scenario and the two ends: the leaf's and the spine's.
func lossySpineCable(t *testing.T) (s *scenario, up, far [2]string) {
	s, up, far = cable(t, "leaf-r2-03")
	s.set(far, "rx-errors", 25)
	return s, up, far
}

func TestLossyCable(t *testing.T) {
	s, up, far := lossySpineCable(t)
	f := only(t, diagnosed(t, "lossy spine cable", s), doctor.KindLinkErrors, doctor.CauseFCS, doctor.Endpoint{Device: far[0], Port: far[1]})
	if f.Peer == nil || *f.Peer != (doctor.Endpoint{Device: up[0], Port: up[1]}) {
		t.Errorf("peer %v, want the leaf end %s", f.Peer, up)
	}
	// The cable carries the traffic of the servers below its leaf; a
	// quarantine shuts it at the spine and drains nobody.
	below := 0
	for _, d := range s.fab.Devices {
		if d.Host != nil && slices.ContainsFunc(d.Host.NICs, func(n ir.NIC) bool { return n.Peer == up[0] }) {
			below++
		}
	}
	if f.Touches.Servers != below || below == 0 {
		t.Errorf("touches %+v, want the %d servers below %s", f.Touches, below, up[0])
	}
	if f.Shut == nil || *f.Shut != f.Origin || len(f.Drain) != 0 {
		t.Errorf("shut %v, drain %v: want the spine end shut and no drain", f.Shut, f.Drain)
	}
}

func TestFlappingSpinePort(t *testing.T) {
	s, up, far := cable(t, "leaf-r6-01")
	s.set(far, "carrier", 0.2)
	s.set(up, "carrier", 0.1)
	f := only(t, diagnose(t, s), doctor.KindLinkErrors, doctor.CauseFlaps, doctor.Endpoint{Device: far[0], Port: far[1]})
	if len(f.Evidence) != 2 {
		t.Errorf("evidence %+v: want the carrier transitions of both ends", f.Evidence)
	}
}

// incast returns pod-2048 with an incast toward gpu-0100's rail-1 NIC
// on a leaf whose ECN thresholds sit above XOFF: the leaf sends that NIC
// line rate, marks nothing, and pauses every port that feeds it.
func incast(t *testing.T) (s *scenario, leaf string, feeders [][2]string) {
	fab := fabric(t, "pod-2048")
	s = newScenario(fab)
	nic := nicOf(t, fab, "gpu-0100", 1)
	congested := [2]string{s.port[nic].peer, s.port[nic].peerP}
	s.throughput(congested, 0.6, 1)
	for _, k := range s.ports() {
		if k[0] == congested[0] {
			s.set(k, "ecn", 0)
			if k != congested {
				feeders = append(feeders, k)
			}
		}
	}
	s.storm(feeders, 15000)
	return s, congested[0], feeders
}

func TestECNAboveXoff(t *testing.T) {
	s, leaf, feeders := incast(t)
	f := only(t, diagnose(t, s), doctor.KindPauseStorm, doctor.CauseNoECN, doctor.Endpoint{Device: leaf})
	if len(f.Ports) != len(feeders) {
		t.Errorf("origin ports %d, want the %d feeding ports", len(f.Ports), len(feeders))
	}
}

// TestDeterministic: the same counters give the same report, byte for
// byte, whatever order the map of rates is walked in. Under -short (the
// race detector's run, after this one) once again is enough to drive the
// same goroutines.
func TestDeterministic(t *testing.T) {
	s, _, _ := incast(t)
	first, err := json.Marshal(diagnose(t, s))
	if err != nil {
		t.Fatal(err)
	}
	repeats := 3
	if testing.Short() {
		repeats = 1
	}
	for range repeats {
		again, _ := json.Marshal(diagnose(t, s))
		if !bytes.Equal(first, again) {
			t.Fatal("two diagnoses of the same counters differ")
		}
	}
}

// TestDCQCNOff: one server's NIC ignores the CNPs its receivers send
// (DCQCN off there): that NIC is named, its server drained, and the
// tenant running on it touched.
func TestDCQCNOff(t *testing.T) {
	fab := fabric(t, "pod-2048")
	s := newScenario(fab)
	nic := nicOf(t, fab, "gpu-0200", 2)
	s.set(nic, "cnp-ignored", 4000)
	s.set(nic, "cnp-handled", 0)
	f := only(t, diagnose(t, s), doctor.KindCNPIgnored, doctor.CauseDCQCNOff, doctor.Endpoint{Device: nic[0], Port: nic[1]})
	if !strings.Contains(f.Message, "although the intent enables it") {
		t.Errorf("message %q: want the drift from the intent named", f.Message)
	}
	if len(f.Evidence) != 2 || f.Evidence[0].Counter != telemetry.CNPHandled || f.Evidence[1].PerSecond != 4000 {
		t.Errorf("evidence %+v: want the CNPs handled and ignored", f.Evidence)
	}
	wantTouches(t, f, 1, []string{"ft-7b"})
	if !slices.Equal(f.Drain, []string{"gpu-0200"}) || f.Shut != nil {
		t.Errorf("drain %v, shut %v: want gpu-0200 drained and no link shut", f.Drain, f.Shut)
	}
}

// TestLosslessQueueDrops: a leaf's lossless queue toward one server
// drops (lossy queues drop everywhere, which is no finding).
func TestLosslessQueueDrops(t *testing.T) {
	fab := fabric(t, "pod-2048")
	s := newScenario(fab)
	nic := nicOf(t, fab, "gpu-0007", 0)
	leaf := [2]string{s.port[nic].peer, s.port[nic].peerP}
	s.set(leaf, "drops", 3)
	f := only(t, diagnose(t, s), doctor.KindLosslessDrops, doctor.CauseQueueDrops, doctor.Endpoint{Device: leaf[0], Port: leaf[1]})
	if len(f.Evidence) != 1 || f.Evidence[0].Counter != telemetry.Drops || !strings.Contains(f.Evidence[0].Series, `queue_name="3"`) {
		t.Errorf("evidence %+v: want the lossless queue's drops", f.Evidence)
	}
	wantTouches(t, f, 1, []string{"train-175b"})
	if len(f.Drain) != 0 {
		t.Errorf("drain %v: a switch queue's drops drain no server", f.Drain)
	}
}

// TestNICDiscards: a NIC discards lossless packets for lack of buffer.
func TestNICDiscards(t *testing.T) {
	fab := fabric(t, "pod-2048")
	s := newScenario(fab)
	nic := nicOf(t, fab, "gpu-0250", 7)
	s.set(nic, "drops", 10)
	f := only(t, diagnose(t, s), doctor.KindLosslessDrops, doctor.CauseNICDiscards, doctor.Endpoint{Device: nic[0], Port: nic[1]})
	wantTouches(t, f, 1, []string{"ft-7b"})
	if !slices.Equal(f.Drain, []string{"gpu-0250"}) {
		t.Errorf("drain %v, want gpu-0250", f.Drain)
	}
}

// wantTouches checks how many servers a finding reaches, and which
// tenants besides those that run anywhere (pod-2048's checkpoint).
func wantTouches(t *testing.T, f doctor.Finding, servers int, tenants []string) {
	t.Helper()
	want := slices.Sorted(slices.Values(append([]string{"checkpoint"}, tenants...)))
	if f.Touches.Servers != servers || !slices.Equal(f.Touches.Tenants, want) || len(f.Touches.Blocks) == 0 {
		t.Errorf("touches %+v: want %d servers, tenants %v and their blocks", f.Touches, servers, want)
	}
}

// TestScenarios100k injects one fault of each kind into separate parts of
// hyperscale-100k (100,000 GPUs), over the healthy incast of every other
// port, and diagnoses the whole window at once: each fault is named at its
// origin, once, and nothing else is.
func TestScenarios100k(t *testing.T) {
	if testing.Short() {
		t.Skip("diagnoses two scrapes of every port of a 100,000-GPU fabric")
	}
	fab := fabric(t, "hyperscale-100k")
	s := newScenario(fab)
	type want struct {
		kind, cause string
		origin      doctor.Endpoint
	}
	var wants []want
	ep := func(k [2]string) doctor.Endpoint { return doctor.Endpoint{Device: k[0], Port: k[1]} }

	// A NIC that stops draining pauses its leaf.
	nic := nicOf(t, fab, "gpu-06000", 3)
	s.throughput(nic, 0.001, 0.6)
	s.pause(nic, 20000)
	wants = append(wants, want{doctor.KindPauseStorm, doctor.CauseNotDraining, ep(nic)})

	// A lossy cable and a flapping one, counted at their spine ends.
	lossy := uplink(t, fab, "leaf-r2-030")
	lossyFar := [2]string{s.port[lossy].peer, s.port[lossy].peerP}
	s.set(lossyFar, "rx-errors", 25)
	wants = append(wants, want{doctor.KindLinkErrors, doctor.CauseFCS, ep(lossyFar)})
	flap := uplink(t, fab, "leaf-r5-070")
	flapFar := [2]string{s.port[flap].peer, s.port[flap].peerP}
	s.set(flapFar, "carrier", 0.2)
	s.set(flap, "carrier", 0.1)
	wants = append(wants, want{doctor.KindLinkErrors, doctor.CauseFlaps, ep(flapFar)})

	// A leaf whose ECN thresholds sit above XOFF: an incast toward one
	// NIC at line rate, no marks, every other port pausing its feeder.
	congested := [2]string{s.port[nicOf(t, fab, "gpu-09000", 1)].peer, s.port[nicOf(t, fab, "gpu-09000", 1)].peerP}
	s.throughput(congested, 0.6, 1)
	for _, k := range s.ports() {
		if k[0] == congested[0] {
			s.set(k, "ecn", 0)
			if k != congested && s.port[k].peer != "" {
				s.pause(k, 15000)
			}
		}
	}
	wants = append(wants, want{doctor.KindPauseStorm, doctor.CauseNoECN, doctor.Endpoint{Device: congested[0]}})

	// DCQCN off on one server; a leaf queue and a NIC that drop lossless
	// packets.
	dcqcn := nicOf(t, fab, "gpu-11000", 6)
	s.set(dcqcn, "cnp-ignored", 4000)
	s.set(dcqcn, "cnp-handled", 0)
	wants = append(wants, want{doctor.KindCNPIgnored, doctor.CauseDCQCNOff, ep(dcqcn)})
	victimNIC := nicOf(t, fab, "gpu-03000", 0)
	leafQueue := [2]string{s.port[victimNIC].peer, s.port[victimNIC].peerP}
	s.set(leafQueue, "drops", 3)
	wants = append(wants, want{doctor.KindLosslessDrops, doctor.CauseQueueDrops, ep(leafQueue)})
	discards := nicOf(t, fab, "gpu-12000", 7)
	s.set(discards, "drops", 10)
	wants = append(wants, want{doctor.KindLosslessDrops, doctor.CauseNICDiscards, ep(discards)})

	// A SONiC leaf's PFC watchdog catches a storm toward one server.
	wdNIC := nicOf(t, fab, "gpu-08000", 2)
	wd := s.peerOf(wdNIC)
	s.set(wd, "watchdog", 0.1)
	wants = append(wants, want{doctor.KindPFCWatchdog, doctor.CauseStormDetected, ep(wd)})

	rep := diagnose(t, s)
	var got []want
	for _, f := range rep.Findings {
		got = append(got, want{f.Kind, f.Cause, f.Origin})
	}
	cmpWant := func(a, b want) int {
		return strings.Compare(a.kind+" "+a.origin.String(), b.kind+" "+b.origin.String())
	}
	slices.SortFunc(got, cmpWant)
	slices.SortFunc(wants, cmpWant)
	if !slices.Equal(got, wants) {
		t.Fatalf("findings\n%v\nwant\n%v", got, wants)
	}
	for _, f := range rep.Findings {
		switch {
		case f.Origin == ep(wd):
			if !slices.Equal(f.Drain, []string{wdNIC[0]}) || f.Touches.Servers != 1 {
				t.Errorf("%s at %s: drain %v, touches %d servers: want %s alone", f.Kind, f.Origin, f.Drain, f.Touches.Servers, wdNIC[0])
			}
		case f.Origin == ep(nic) || f.Origin == ep(dcqcn) || f.Origin == ep(discards):
			if !slices.Equal(f.Drain, []string{f.Origin.Device}) || f.Touches.Servers != 1 {
				t.Errorf("%s at %s: drain %v, touches %d servers: want its server alone", f.Kind, f.Origin, f.Drain, f.Touches.Servers)
			}
		case f.Kind == doctor.KindLinkErrors:
			if len(f.Drain) != 0 || f.Shut == nil || *f.Shut != f.Origin || f.Touches.Servers == 0 {
				t.Errorf("%s at %s: drain %v, shut %v, touches %+v: want the spine end shut, the servers below the leaf touched", f.Kind, f.Origin, f.Drain, f.Shut, f.Touches)
			}
		}
	}
	// The quarantine plan drains those four servers and no other.
	q := doctor.NewQuarantine(rep, doctor.IntentRef{}, "test", "scenario")
	if got, want := q.Nodes(), []string{nic[0], wdNIC[0], dcqcn[0], discards[0]}; !slices.Equal(got, want) {
		t.Errorf("quarantine drains %v, want %v", got, want)
	}
	if err := q.Check(fab); err != nil {
		t.Error(err)
	}
}
