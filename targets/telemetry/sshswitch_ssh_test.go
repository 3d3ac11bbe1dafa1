package telemetry_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
			fab, ds := linttest.CompileSource(t, fmt.Sprintf(`name: "lab"
topology: {servers: 4, rails: 2, leaf: {platform: %q, model: %q, downlinks: 4, uplinks: 4}}
`, tc.platform, tc.model))
			if fab == nil || ds.HasErrors() {
				t.Fatalf("compile: %v", ds)
			}
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
			if len(rep.Findings) != 1 {
				t.Fatalf("findings %+v, want one", rep.Findings)
			}
			if f := rep.Findings[0]; f.Kind != "pause-storm" || f.Cause != "not-draining" || f.Origin.String() != origin {
				t.Errorf("finding %s %s at %s, want pause-storm not-draining at %s", f.Kind, f.Cause, f.Origin, origin)
			}
		})
	}
}
