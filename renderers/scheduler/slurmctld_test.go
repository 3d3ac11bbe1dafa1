package scheduler_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/compiler/placement"
)

// TestSlurmctldLoadsTopology loads each test fabric's slurm/topology.conf
// into a real slurmctld (Debian's slurmctld, with munge for its
// authentication and no slurmd: the nodes are named by the fabric and
// never register) with TopologyPlugin=topology/tree, and reads the tree
// back with scontrol show topology: every switch the file names is there,
// with its nodes.
func TestSlurmctldLoadsTopology(t *testing.T) {
	var bins []string
	for _, b := range []string{"slurmctld", "scontrol", "munged", "mungekey"} {
		p, err := exec.LookPath(b)
		if err != nil {
			t.Skipf("needs %s on PATH (Debian packages slurmctld, slurm-client, munge)", b)
		}
		bins = append(bins, p)
	}
	if os.Geteuid() != 0 {
		t.Skip("runs slurmctld as root (SlurmUser=root)")
	}
	slurmctld, scontrol, munged, mungekey := bins[0], bins[1], bins[2], bins[3]
	each(t, func(t *testing.T, v *placement.View, files map[string][]byte) {
		dir := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		sock := startMunge(t, ctx, dir, munged, mungekey)

		etc := filepath.Join(dir, "etc")
		if err := os.MkdirAll(filepath.Join(dir, "state"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(etc, 0o755); err != nil {
			t.Fatal(err)
		}
		var conf strings.Builder
		// slurm.conf(5): the controller on loopback, the tree plugin that
		// reads topology.conf from beside slurm.conf, each server a node
		// at 127.0.0.1.
		fmt.Fprintf(&conf, `ClusterName=rocefab
SlurmctldHost=localhost
SlurmctldPort=%d
AuthType=auth/munge
AuthInfo=socket=%s
CredType=cred/munge
StateSaveLocation=%s
SlurmctldPidFile=%s
SlurmctldLogFile=%s
SlurmUser=root
TopologyPlugin=topology/tree
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/linear
MpiDefault=none
`, freePort(t), sock, filepath.Join(dir, "state"), filepath.Join(dir, "slurmctld.pid"), filepath.Join(dir, "slurmctld.log"))
		for _, g := range v.Groups {
			for _, s := range g.Servers {
				fmt.Fprintf(&conf, "NodeName=%s NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN\n", s)
			}
		}
		conf.WriteString("PartitionName=all Nodes=ALL Default=YES State=UP\n")
		cfg := filepath.Join(etc, "slurm.conf")
		if err := os.WriteFile(cfg, []byte(conf.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(etc, "topology.conf"), files["slurm/topology.conf"], 0o644); err != nil {
			t.Fatal(err)
		}
		ctld := exec.CommandContext(ctx, slurmctld, "-D", "-f", cfg)
		var log strings.Builder
		ctld.Stdout, ctld.Stderr = &log, &log
		if err := ctld.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			ctld.Process.Kill()
			ctld.Wait()
			if t.Failed() {
				t.Logf("slurmctld:\n%s", tail(log.String(), 4000))
			}
		}()
		var topo string
		for {
			out, err := exec.CommandContext(ctx, scontrol, "show", "topology").CombinedOutput()
			if err == nil {
				topo = string(out)
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("scontrol show topology: %v\n%s", err, out)
			}
			time.Sleep(200 * time.Millisecond)
		}
		// scontrol prints each switch on a line: its name, level, link
		// speed, every node below it and its child switches.
		shown := map[string]string{}
		for _, line := range strings.Split(topo, "\n") {
			if name, _, ok := strings.Cut(strings.TrimPrefix(line, "SwitchName="), " "); ok && strings.HasPrefix(line, "SwitchName=") {
				shown[name] = line + " "
			}
		}
		lines := confLines(t, files["slurm/topology.conf"], "SwitchName", "Nodes", "Switches")
		if len(shown) != len(lines) {
			t.Errorf("slurmctld shows %d switches, topology.conf names %d:\n%s", len(shown), len(lines), topo)
		}
		for _, l := range lines {
			got, ok := shown[l["SwitchName"]]
			if !ok {
				t.Errorf("slurmctld's topology lacks switch %s:\n%s", l["SwitchName"], topo)
				continue
			}
			for _, k := range []string{"Nodes", "Switches"} {
				if v := l[k]; v != "" && !strings.Contains(got, " "+k+"="+v+" ") {
					t.Errorf("switch %s: slurmctld shows %q, want %s=%s", l["SwitchName"], got, k, v)
				}
			}
		}
	})
}

// startMunge starts munged on a socket in dir with a new key, for
// slurmctld and scontrol to authenticate with; it stops with the test.
func startMunge(t *testing.T, ctx context.Context, dir, munged, mungekey string) string {
	t.Helper()
	key, sock := filepath.Join(dir, "munge.key"), filepath.Join(dir, "munge.sock")
	if out, err := exec.Command(mungekey, "-c", "-k", key).CombinedOutput(); err != nil {
		t.Fatalf("mungekey: %v\n%s", err, out)
	}
	cmd := exec.CommandContext(ctx, munged, "-F", "-f", "-S", sock, "--key-file="+key,
		"--log-file="+filepath.Join(dir, "munged.log"), "--pid-file="+filepath.Join(dir, "munged.pid"),
		"--seed-file="+filepath.Join(dir, "munged.seed"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	for {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("munged did not create %s", sock)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// scontrol reads slurm.conf from SLURM_CONF.
	t.Setenv("SLURM_CONF", filepath.Join(dir, "etc", "slurm.conf"))
	return sock
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
