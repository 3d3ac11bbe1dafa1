package cli

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/targets/doctor"
	"github.com/rocefab/rocefab/targets/gnmi/gnmitest"
	"github.com/rocefab/rocefab/targets/host/hosttest"
	"github.com/rocefab/rocefab/targets/ssh/sshtest"
)

// withCounters adds to a switch's tree the state counters of each of its
// interfaces and egress queues (OpenConfig interface, Ethernet and queue
// counters, as a device reports them in a Get of its state), and returns
// how many queues have them.
func withCounters(t *testing.T, tree []byte) ([]byte, int) {
	t.Helper()
	var root map[string]any
	if err := json.Unmarshal(tree, &root); err != nil {
		t.Fatal(err)
	}
	ifs := root["openconfig-interfaces:interfaces"].(map[string]any)["interface"].([]any)
	for _, e := range ifs {
		m := e.(map[string]any)
		m["state"] = map[string]any{"counters": map[string]any{"in-octets": "1000", "out-octets": "2000", "in-fcs-errors": "0", "carrier-transitions": "1"}}
		eth, _ := m["openconfig-if-ethernet:ethernet"].(map[string]any)
		if eth == nil {
			eth = map[string]any{}
			m["openconfig-if-ethernet:ethernet"] = eth
		}
		eth["state"] = map[string]any{"counters": map[string]any{"in-mac-pause-frames": "0", "out-mac-pause-frames": "0", "in-symbol-error": "0"}}
	}
	queues := 0
	for _, e := range root["openconfig-qos:qos"].(map[string]any)["interfaces"].(map[string]any)["interface"].([]any) {
		for _, q := range e.(map[string]any)["output"].(map[string]any)["queues"].(map[string]any)["queue"].([]any) {
			q.(map[string]any)["state"] = map[string]any{"ecn-marked-pkts": "5", "dropped-pkts": "0"}
			queues++
		}
	}
	out, err := json.Marshal(root)
	if err != nil {
		t.Fatal(err)
	}
	return out, queues
}

// sampleReport is doctor's JSON report with --sample.
type sampleReport struct {
	Rates     int `json:"rates"`
	Unmatched int `json:"unmatched"`
	Findings  []struct {
		Kind   string `json:"kind"`
		Cause  string `json:"cause"`
		Origin struct {
			Device, Port string
		} `json:"origin"`
	} `json:"findings"`
	Unsampled []struct {
		Device, Error string
	} `json:"unsampled"`
}

// unsampledAre checks that the devices not sampled are those of want,
// each with an error that says want's text.
func (rep *sampleReport) unsampledAre(t *testing.T, want map[string]string) {
	t.Helper()
	if len(rep.Unsampled) != len(want) {
		t.Errorf("unsampled %+v, want %v", rep.Unsampled, want)
	}
	for _, u := range rep.Unsampled {
		if w, ok := want[u.Device]; !ok || !strings.Contains(u.Error, w) {
			t.Errorf("unsampled %s: %s, want %q", u.Device, u.Error, w)
		}
	}
}

// gnmiCounterLab writes the lab intent and an inventory that reaches its
// switches over gNMI without TLS, each on a gnmitest server holding
// counters (the servers get no transport), and returns the directory and
// how many ports and queues the switches have.
func gnmiCounterLab(t *testing.T) (dir string, ports, queues int) {
	t.Helper()
	dir = gnmiLab(t)
	fab := compileIntent(t, dir)
	addrs := map[string]string{}
	for _, d := range fab.Switches() {
		tree, n := withCounters(t, deviceTree(t, d))
		addrs[d.Name] = gnmitest.Started(t, tree, gnmitest.Options{}).Addr()
		ports += len(d.Switch.Ports)
		queues += n
	}
	inv, err := json.Marshal(map[string]any{
		"platforms": map[string]any{"eos": map[string]any{"transport": "gnmi"}, "nvue": map[string]any{"transport": "gnmi"}},
		"address":   addrs,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "inventory.json"), inv, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, ports, queues
}

// TestDoctorSampleGNMI: doctor --sample reads each switch twice with a
// gNMI Get of its state (gnmitest servers holding counters) through the
// inventory plan takes, and diagnoses what it read; the servers the
// inventory gives no transport are reported, and the exit code says the
// fabric could not be called healthy.
func TestDoctorSampleGNMI(t *testing.T) {
	dir, ports, queues := gnmiCounterLab(t)
	code, out, errOut := rocefab(t, dir, "", "doctor", ".", "--sample", "200ms", "--inventory", "inventory.json", "--insecure-plaintext", "--format", "json")
	var rep sampleReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", code, err, out, errOut)
	}
	// Seven counters of each port and two of each queue, named as gnmic
	// names them, every one naming a port of the fabric (the management
	// port each tree also holds is not read).
	if want := 7*ports + 2*queues; rep.Rates != want || rep.Unmatched != 0 || len(rep.Findings) != 0 {
		t.Errorf("%d rates, %d unmatched, %d findings; want %d, 0, 0\n%s", rep.Rates, rep.Unmatched, len(rep.Findings), want, out)
	}
	if len(rep.Unsampled) != 4 {
		t.Fatalf("unsampled %+v, want the four servers", rep.Unsampled)
	}
	for _, u := range rep.Unsampled {
		if !strings.HasPrefix(u.Device, "gpu-") || !strings.Contains(u.Error, "gives it no transport") {
			t.Errorf("unsampled %s: %s", u.Device, u.Error)
		}
	}
	if code != exitDoctorError || !strings.Contains(errOut, "4 devices could not be sampled") ||
		!strings.Contains(errOut, "WARNING: --insecure-plaintext") {
		t.Errorf("exit %d, want %d\n%s", code, exitDoctorError, errOut)
	}

	code, out, errOut = rocefab(t, dir, "", "doctor", ".", "--sample", "200ms", "--inventory", "inventory.json", "--insecure-plaintext")
	if code != exitDoctorError || !strings.Contains(out, "healthy: no pause storm") || !strings.Contains(out, "not sampled: 4 devices (the rest were diagnosed)") {
		t.Errorf("text: exit %d\n%s%s", code, out, errOut)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--sample", "1s"}, "give --inventory FILE"},
		{[]string{"--sample", "1s", "--inventory", "inventory.json", "--snapshot", "x.prom"}, "allowed is one source of counters"},
		{[]string{"--snapshot", "x.prom", "--inventory", "inventory.json"}, "--inventory and --insecure-plaintext go with --sample"},
		{[]string{"--sample", "-1s", "--inventory", "inventory.json"}, "allowed is a duration above 0"},
	} {
		code, out, errOut := rocefab(t, dir, "", append([]string{"doctor", "."}, tc.args...)...)
		if code != exitDoctorError || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, want %d and %q\n%s%s", tc.args, code, exitDoctorError, tc.want, out, errOut)
		}
	}
}

// TestDoctorSampleServers: doctor --sample reads servers over SSH (a real
// sshd in each server's network namespace, its veth netdevs eth1 and
// eth2): `ethtool -S` of the netdevs the intent names, which a veth
// answers, and the RDMA devices' hw_counters in the server's /sys, named
// as node_exporter names them. A server and the leaves (SSH) nothing
// listens for, and the spine read from running/, are reported, not read.
func TestDoctorSampleServers(t *testing.T) {
	hosttest.Need(t, "ethtool", "ethtool")
	dir := gnmiLab(t)
	fab := compileIntent(t, dir)
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	// Nothing listens for gpu-0003 nor for the leaves, reached over SSH.
	addrs := map[string]string{"gpu-0003": "127.0.0.1:1", "leaf-r0-00": "127.0.0.1:1", "leaf-r1-00": "127.0.0.1:1"}
	var known []string
	var first *hosttest.Server
	hcas := 0
	for _, d := range fab.Devices {
		if d.Host == nil || d.Name == "gpu-0003" {
			continue
		}
		var netdevs []string
		for _, n := range d.Host.NICs {
			netdevs = append(netdevs, n.Port)
		}
		srv := hosttest.NewServer(t, hosttest.ServerOptions{Netdevs: netdevs, Key: key})
		for _, n := range d.Host.NICs {
			for _, c := range []string{"np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled", "rp_cnp_ignored", "out_of_buffer"} {
				srv.Write(t, "class/infiniband/"+n.HCA+"/ports/1/hw_counters/"+c, "0\n")
			}
			hcas++
		}
		addrs[d.Name] = srv.SSHD.Forward(t)
		known = append(known, srv.SSHD.KnownHostsLine(addrs[d.Name]))
		if first == nil {
			first = srv
		}
	}
	writeSSHInventory(t, dir, map[string]string{"eos": "ssh", "nvue": "dir"}, addrs, known)
	first.SSHD.WriteClientKey(t, filepath.Join(dir, "id_ed25519"))

	code, out, errOut := rocefab(t, dir, "", "doctor", ".", "--sample", "200ms", "--inventory", "inventory.json", "--format", "json")
	var rep sampleReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", code, err, out, errOut)
	}
	// The four hw_counters doctor reads of each RDMA device (a veth
	// counts none of mlx5's ethtool statistics).
	if rep.Rates != 4*hcas || rep.Unmatched != 0 || len(rep.Findings) != 0 {
		t.Errorf("%d rates, %d unmatched, %d findings; want %d, 0, 0\n%s", rep.Rates, rep.Unmatched, len(rep.Findings), 4*hcas, out)
	}
	want := map[string]string{"gpu-0003": "connection refused", "spine-00": "holds no counters",
		"leaf-r0-00": "connection refused", "leaf-r1-00": "connection refused"}
	rep.unsampledAre(t, want)
	if code != exitDoctorError {
		t.Errorf("exit %d, want %d\n%s", code, exitDoctorError, errOut)
	}

	// A netdev the server lacks: ethtool's own message says why.
	first.In("ip", "link", "del", "eth2")
	code, out, errOut = rocefab(t, dir, "", "doctor", ".", "--sample", "10ms", "--inventory", "inventory.json", "--format", "json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", code, err, out, errOut)
	}
	found := false
	for _, u := range rep.Unsampled {
		found = found || strings.Contains(u.Error, "eth2")
	}
	if !found || rep.Rates != 4*(hcas-2) {
		t.Errorf("a server without eth2: %d rates, unsampled %+v", rep.Rates, rep.Unsampled)
	}
}

// TestDoctorSampleSwitchesOverSSH: doctor --sample reads the lab's EOS
// leaves over SSH (emulated, password auth, host keys in known_hosts)
// with `show interfaces | json`, twice, and diagnoses what they print:
// every counter read names a port of the fabric, and a leaf port that
// sends pauses without draining is the origin of a pause storm. The NVUE
// spine, whose counters command's JSON no public source shows, and the
// servers read from running/ are reported.
func TestDoctorSampleSwitchesOverSSH(t *testing.T) {
	dir := gnmiLab(t)
	fab := compileIntent(t, dir)
	var names []string
	ports, origin := 0, ""
	for _, d := range fab.Switches() {
		names = append(names, d.Name)
		if d.Platform == "eos" {
			ports += len(d.Switch.Ports)
			if origin == "" {
				origin = d.Name + ":" + d.Switch.Ports[0].Name
			}
		}
	}
	serveSwitches(t, dir, names, func(name string) sshtest.Shell {
		d := fab.Device(name)
		if d.Platform != "eos" {
			return sshtest.NewNVUE(name, "netops", nil, nil)
		}
		now, step := map[string]sshtest.Counters{}, map[string]sshtest.Counters{}
		for _, p := range d.Switch.Ports {
			now[p.Name] = sshtest.Counters{InOctets: 1000, OutOctets: 2000}
		}
		if dev, port, _ := strings.Cut(origin, ":"); dev == name {
			step[port] = sshtest.Counters{OutPause: 1_000_000}
		}
		e := sshtest.NewEOS(name, nil, nil)
		e.SetCounters(now, step)
		return e
	}, map[string]any{
		"defaults":  map[string]any{"username": "netops", "auth": "password", "knownHosts": "known_hosts", "transport": "dir"},
		"platforms": map[string]any{"eos": map[string]any{"transport": "ssh"}, "nvue": map[string]any{"transport": "ssh"}},
	})
	t.Setenv(testPasswordEnv, testSecret)

	code, out, errOut := rocefab(t, dir, "", "doctor", ".", "--sample", "200ms", "--inventory", "inventory.json", "--format", "json")
	var rep sampleReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", code, err, out, errOut)
	}
	// The seven counters of `show interfaces | json` of each leaf port.
	if rep.Rates != 7*ports || rep.Unmatched != 0 {
		t.Errorf("%d rates, %d unmatched; want %d, 0\n%s", rep.Rates, rep.Unmatched, 7*ports, out)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Kind != "pause-storm" || rep.Findings[0].Cause != "not-draining" ||
		rep.Findings[0].Origin.Device+":"+rep.Findings[0].Origin.Port != origin {
		t.Errorf("findings %+v, want one pause-storm not-draining at %s", rep.Findings, origin)
	}
	want := map[string]string{"spine-00": "not sampleable over SSH"}
	for _, d := range fab.Devices {
		if d.Host != nil {
			want[d.Name] = "holds no counters"
		}
	}
	rep.unsampledAre(t, want)
	if code != exitDoctorFindings {
		t.Errorf("exit %d, want %d\n%s", code, exitDoctorFindings, errOut)
	}
	noSecret(t, dir, out, errOut)
}

// TestDoctorSampleQuarantine: doctor --sample --out writes both rounds
// beside the plan, with their digests in it, and never over a file it
// did not write; apply diagnoses the files again: the healthy plan is
// taken, a drain the samples do not give is refused, a changed file is
// refused with its path, and a file whose digest was made to match
// gives a finding the plan lacks.
func TestDoctorSampleQuarantine(t *testing.T) {
	dir, _, _ := gnmiCounterLab(t)
	fab := compileIntent(t, dir)
	sample := []string{"doctor", ".", "--sample", "100ms", "--inventory", "inventory.json", "--insecure-plaintext", "--out", "q.plan"}
	files := doctor.SampleFiles(filepath.Join(dir, "q.plan"))
	if err := os.WriteFile(files[1], []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := rocefab(t, dir, "", sample...)
	if b, _ := os.ReadFile(files[1]); code != exitDoctorError || !strings.Contains(errOut, "q.plan.t1.prom exists and rocefab did not write it") || string(b) != "mine\n" {
		t.Fatalf("over a file of someone else's: exit %d, %q left, %s", code, b, errOut)
	}
	if _, err := os.Stat(files[0]); err == nil {
		t.Fatal("the first round's file was written although the second's was refused")
	}
	os.Remove(files[1])
	// The servers have no transport: exit 1, and the plan is written.
	if code, out, errOut := rocefab(t, dir, "", sample...); code != exitDoctorError || !strings.Contains(errOut, "Wrote the quarantine plan q.plan") {
		t.Fatalf("doctor --sample --out: exit %d\n%s%s", code, out, errOut)
	}
	_, q := readPlan(t, filepath.Join(dir, "q.plan"))
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || !strings.HasPrefix(string(b), doctor.SampleMarker) || !strings.Contains(string(b), "\ninterfaces_interface_state_counters_in_octets{") {
			t.Fatalf("%s: %v\n%.300s", f, err, b)
		}
		if ev := q.Evidence.Samples[i]; ev.Path != filepath.Base(f) || ev.SHA256 != fmt.Sprintf("%x", sha256.Sum256(b)) {
			t.Errorf("evidence %+v of %s", ev, f)
		}
	}
	rocefabExits(t, exitOK, dir, "", "apply", "q.plan", "--auto-approve")
	if code, _, errOut := rocefab(t, dir, "", "apply", "q.plan", "--auto-approve", "--prometheus", "http://u:p@127.0.0.1:9"); code != exitPlanError ||
		!strings.Contains(errOut, "--prometheus http://127.0.0.1:9: the plan was diagnosed from files") {
		t.Fatalf("--prometheus with a plan of samples: exit %d, %s", code, errOut)
	}

	resigned(t, dir, "q.plan", "drains.plan", func(q *doctor.Quarantine) {
		reason := "rocefab: link-errors fcs-errors at gpu-0001:eth1"
		q.Drains = append(q.Drains, doctor.Drain{Kind: doctor.KindLinkErrors, Cause: doctor.CauseFCS, Origin: doctor.Endpoint{Device: "gpu-0001", Port: "eth1"},
			Nodes: []string{"gpu-0001"}, Reason: reason, Command: []string{"scontrol", "update", "NodeName=gpu-0001", "State=DRAIN", "Reason=" + reason}})
	})
	if code, _, errOut := rocefab(t, dir, "", "apply", "drains.plan", "--auto-approve"); code != exitPlanError ||
		!strings.Contains(errOut, "drain 1: the plan has link-errors fcs-errors at gpu-0001:eth1: servers gpu-0001 where nothing is expected") {
		t.Fatalf("a drain the samples do not give: exit %d, %s", code, errOut)
	}

	// A spine port whose FCS errors grow by 100,000 between the rounds.
	spine, port := spinePort(t, fab)
	round2, err := os.ReadFile(files[1])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(round2), "\n")
	at := slices.IndexFunc(lines, func(l string) bool {
		return strings.HasPrefix(l, "interfaces_interface_state_counters_in_fcs_errors{") &&
			strings.Contains(l, fmt.Sprintf("interface_name=%q", port.Name)) && strings.Contains(l, fmt.Sprintf("source=%q", spine.Name))
	})
	if at < 0 {
		t.Fatalf("the second round has no FCS errors of %s:%s", spine.Name, port.Name)
	}
	f := strings.Fields(lines[at])
	lines[at] = strings.Join([]string{f[0], "100000", f[2]}, " ")
	if err := os.WriteFile(files[1], []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := rocefab(t, dir, "", "apply", "q.plan", "--auto-approve"); code != exitPlanError ||
		!strings.Contains(errOut, "evidence q.plan.t1.prom: its SHA-256 is ") || !strings.Contains(errOut, "the plan recorded "+q.Evidence.Samples[1].SHA256) {
		t.Fatalf("changed samples: exit %d, %s", code, errOut)
	}
	resigned(t, dir, "q.plan", "q.plan", func(q *doctor.Quarantine) {
		for i, f := range files {
			sum, err := doctor.FileDigest(f)
			if err != nil {
				t.Fatal(err)
			}
			q.Evidence.Samples[i].SHA256 = sum
		}
	})
	want := fmt.Sprintf("shut 1: the plan has nothing where link-errors fcs-errors at %s:%s: port %s:%s down is expected", spine.Name, port.Name, spine.Name, port.Name)
	if code, _, errOut := rocefab(t, dir, "", "apply", "q.plan", "--auto-approve"); code != exitPlanError || !strings.Contains(errOut, want) {
		t.Fatalf("samples with a lossy port: exit %d, %s\nwant %s", code, errOut, want)
	}
}
