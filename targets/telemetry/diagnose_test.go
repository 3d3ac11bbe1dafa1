package telemetry_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/lint/linttest"
	"github.com/rocefab/rocefab/targets/doctor"
	"github.com/rocefab/rocefab/targets/ssh"
	"github.com/rocefab/rocefab/targets/ssh/sshtest"
	"github.com/rocefab/rocefab/targets/telemetry"
)

// labFabric compiles a fabric of four servers with two NICs each (the
// default netdevs), two rail leaves of platform and model, and a spine.
func labFabric(t *testing.T, platform, model string) *ir.Fabric {
	t.Helper()
	fab, ds := linttest.CompileSource(t, fmt.Sprintf(`name: "lab"
topology: {servers: 4, rails: 2, leaf: {platform: %q, model: %q, downlinks: 4, uplinks: 4}}
`, platform, model))
	if fab == nil || ds.HasErrors() {
		t.Fatalf("compile: %v", ds)
	}
	return fab
}

// onlyStorm checks that rep has one finding: a pause storm whose origin,
// a port that pauses without draining, is origin (device:port).
func onlyStorm(t *testing.T, rep doctor.Report, origin string) {
	t.Helper()
	if len(rep.Findings) != 1 {
		t.Fatalf("findings %+v, want one", rep.Findings)
	}
	if f := rep.Findings[0]; f.Kind != "pause-storm" || f.Cause != "not-draining" || f.Origin.String() != origin {
		t.Errorf("finding %s %s at %s, want pause-storm not-draining at %s", f.Kind, f.Cause, f.Origin, origin)
	}
}

// stormReach is a fabric whose counters all stand still but for one NIC
// that sends PFC pauses and receives nothing: the gray failure. Switches
// answer over gNMI, servers over their shell.
type stormReach struct {
	mu     sync.Mutex
	reads  map[string]int
	origin string // server
	netdev string
}

func (r *stormReach) Via(d *ir.Device) (string, error) {
	if d.Switch != nil {
		return "gnmi", nil
	}
	return "shell", nil
}

func (r *stormReach) GetState(_ context.Context, d *ir.Device, _ []string) ([]*gpb.Notification, error) {
	var ifaces []string
	for _, p := range d.Switch.Ports {
		ifaces = append(ifaces, fmt.Sprintf(`{"name": %q, "state": {"counters": {"in-octets": "0", "out-octets": "0", "in-fcs-errors": "0", "carrier-transitions": "0"}},
		  "openconfig-if-ethernet:ethernet": {"state": {"counters": {"in-mac-pause-frames": "0", "out-mac-pause-frames": "0", "in-symbol-error": "0"}}}}`, p.Name))
	}
	js := `{"openconfig-interfaces:interface": [` + strings.Join(ifaces, ",") + `]}`
	return []*gpb.Notification{{Update: []*gpb.Update{{Path: &gpb.Path{Elem: []*gpb.PathElem{{Name: "interfaces"}}},
		Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(js)}}}}}}, nil
}

// Show is asked of no switch: they answer over gNMI.
func (r *stormReach) Show(_ context.Context, d *ir.Device, cmds []string) ([]string, error) {
	return nil, fmt.Errorf("%s: Show %q", d.Name, cmds)
}

func (r *stormReach) Run(_ context.Context, d *ir.Device, argv []string) ([]byte, error) {
	r.mu.Lock()
	r.reads[d.Name]++
	n := r.reads[d.Name]
	r.mu.Unlock()
	var b strings.Builder
	for _, nic := range d.Host.NICs {
		pauses := 0
		if d.Name == r.origin && nic.Port == r.netdev {
			pauses = 1_000_000 * n
		}
		fmt.Fprintf(&b, "ethtool %s\nNIC statistics:\n     tx_prio3_pause: %d\n     rx_prio3_pause: 0\n     rx_prio3_bytes: 0\n     tx_prio3_bytes: 0\n     rx_crc_errors_phy: 0\n",
			nic.Port, pauses)
	}
	return []byte(b.String()), nil
}

// TestSampledDiagnosis: what --sample reads is diagnosed as a collector's
// scrapes are: a NIC that pauses without receiving is named the origin
// of a storm, and nothing else is found.
func TestSampledDiagnosis(t *testing.T) {
	fab := labFabric(t, "nvue", "SN5600")
	w := telemetry.NewWindow()
	reach := &stormReach{reads: map[string]int{}, origin: "gpu-0001", netdev: "eth2"}
	unsampled, err := telemetry.Sample(t.Context(), w, telemetry.SampleOptions{Devices: fab.Devices, Reach: reach, Wait: 50 * time.Millisecond})
	if err != nil || len(unsampled) > 0 {
		t.Fatalf("Sample: %v %+v", err, unsampled)
	}
	rep := doctor.NewModel(fab).Diagnose(w, doctor.DefaultOptions())
	if rep.Unmatched != 0 || rep.Rates == 0 {
		t.Errorf("%d rates, %d unmatched: every sampled series names a port of the fabric", rep.Rates, rep.Unmatched)
	}
	if reach.reads["gpu-0001"] != 2 {
		t.Errorf("gpu-0001 read %d times, want 2", reach.reads["gpu-0001"])
	}
	onlyStorm(t, rep, "gpu-0001:eth2")
}

// sshLeaves reaches a fabric's leaves over SSH, through the SSH target,
// on sshtest emulators of their platform; the other devices have no
// transport.
type sshLeaves struct{ target *ssh.Target }

func (r sshLeaves) Via(d *ir.Device) (string, error) {
	if d.Role != "leaf" {
		return "", fmt.Errorf("%s: the test gives it no transport", d.Name)
	}
	return "cli", nil
}

func (sshLeaves) GetState(context.Context, *ir.Device, []string) ([]*gpb.Notification, error) {
	return nil, fmt.Errorf("not over gNMI")
}

func (sshLeaves) Run(_ context.Context, d *ir.Device, _ []string) ([]byte, error) {
	return nil, fmt.Errorf("%s: not a server", d.Name)
}

func (r sshLeaves) Show(ctx context.Context, d *ir.Device, cmds []string) ([]string, error) {
	return r.target.Show(ctx, d, cmds)
}

// emulator is a leaf's emulated CLI with the counters it prints.
type emulator interface {
	sshtest.Shell
	SetCounters(now, step map[string]sshtest.Counters)
}

// TestSampleSwitchesOverSSH: doctor --sample reads each leaf of a fabric
// over SSH with its platform's counters command (EOS `show interfaces |
// json`, NX-OS `show interface | json`, SONiC's COUNTERS_DB through
// sonic-db-dump), answered by the emulators in the platforms' shapes;
// every counter read names a port of the fabric, and one leaf port that
// sends pauses without draining, the rest standing still, is diagnosed as
// a pause storm's origin there, and only that.
func TestSampleSwitchesOverSSH(t *testing.T) {
	for _, tc := range []struct {
		platform, model string
		// perPort is how many series each port's counters become;
		// perQueue each egress queue's.
		perPort, perQueue int
		pausing           func(c *sshtest.Counters)
		newShell          func(name string) emulator
	}{
		{"eos", "7060X6-64PE", 7, 0, func(c *sshtest.Counters) { c.OutPause = 1_000_000 },
			func(name string) emulator { return sshtest.NewEOS(name, nil, nil) }},
		{"nxos", "N9364D-GX2A", 5, 0, func(c *sshtest.Counters) { c.OutPause = 1_000_000 },
			func(name string) emulator { return sshtest.NewNXOS(name, nil, nil) }},
		{"sonic", "DCS-7060X6-64PE", 2 + 16, 3, func(c *sshtest.Counters) { c.PFCTx = map[int]uint64{3: 1_000_000} },
			func(string) emulator { return sshtest.NewSONiC([]byte("{}")) }},
	} {
		t.Run(tc.platform, func(t *testing.T) {
			fab := labFabric(t, tc.platform, tc.model)
			hk, err := sshtest.NewHostKey()
			if err != nil {
				t.Fatal(err)
			}
			addrs := map[string]string{}
			var known strings.Builder
			ports, queues := 0, 0
			var origin string
			for _, d := range fab.Switches() {
				if d.Role != "leaf" {
					continue
				}
				now, step := map[string]sshtest.Counters{}, map[string]sshtest.Counters{}
				for _, p := range d.Switch.Ports {
					c := sshtest.Counters{}
					if tc.perQueue > 0 {
						c.Queues = map[int]sshtest.QueueCounters{0: {}, 3: {}, 6: {}}
						queues += len(c.Queues)
					}
					now[p.Name] = c
					if origin == "" && p.Facing == ir.RoleHost {
						origin = d.Name + ":" + p.Name
						s := sshtest.Counters{}
						tc.pausing(&s)
						step[p.Name] = s
					}
					ports++
				}
				sh := tc.newShell(d.Name)
				sh.SetCounters(now, step)
				srv, err := sshtest.Serve(sh, hk, sshtest.Credentials{User: "netops", Password: "lab-secret"})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { srv.Close() })
				addrs[d.Name] = srv.Addr
				known.WriteString(srv.KnownHostsLine() + "\n")
			}
			khFile := filepath.Join(t.TempDir(), "known_hosts")
			if err := os.WriteFile(khFile, []byte(known.String()), 0o600); err != nil {
				t.Fatal(err)
			}
			creds := &ssh.Credentials{Username: "netops", Auth: ssh.AuthPassword, Password: "lab-secret"}
			target, err := ssh.New(ssh.Options{
				Endpoint: func(d *ir.Device) (ssh.Endpoint, error) {
					return ssh.Endpoint{Address: addrs[d.Name], Credentials: creds}, nil
				},
				HostKeys:       &ssh.HostKeys{File: khFile},
				CommandTimeout: 10 * time.Second,
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { target.Close() })

			w := telemetry.NewWindow()
			unsampled, err := telemetry.Sample(t.Context(), w, telemetry.SampleOptions{Devices: fab.Devices, Reach: sshLeaves{target}, Wait: 50 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range unsampled {
				if !strings.Contains(u.Error, "the test gives it no transport") {
					t.Errorf("unsampled %s: %s", u.Device, u.Error)
				}
			}
			rep := doctor.NewModel(fab).Diagnose(w, doctor.DefaultOptions())
			if want := tc.perPort*ports + tc.perQueue*queues; rep.Rates != want || rep.Unmatched != 0 {
				t.Errorf("%d rates, %d unmatched; want %d, 0: every series read names a port of the fabric", rep.Rates, rep.Unmatched, want)
			}
			onlyStorm(t, rep, origin)
		})
	}
}
