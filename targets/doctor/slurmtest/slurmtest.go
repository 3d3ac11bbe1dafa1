// Package slurmtest starts a real slurmctld on loopback for tests: Debian's
// slurmctld with munge for its authentication and no slurmd, the nodes
// named by the fabric and never registering. Tests that need it skip, with
// the reason, when the binaries or root are missing.
package slurmtest

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
)

// Start starts munged and slurmctld in a directory of the test's with
// nodes, every one declared State=DOWN (a node that never registers stays
// so; scontrol's DRAIN and UNDRAIN then change only its drain flag) in one
// partition, and topology.conf when it is not nil (TopologyPlugin=
// topology/tree). It sets SLURM_CONF for scontrol and sinfo and returns
// scontrol's path; both daemons stop with the test.
func Start(t *testing.T, nodes []string, topology []byte) string {
	t.Helper()
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
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	sock := startMunge(t, ctx, dir, munged, mungekey)
	etc := filepath.Join(dir, "etc")
	for _, d := range []string{filepath.Join(dir, "state"), etc} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var conf strings.Builder
	// slurm.conf(5): the controller on loopback, each node at 127.0.0.1.
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
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/linear
MpiDefault=none
`, freePort(t), sock, filepath.Join(dir, "state"), filepath.Join(dir, "slurmctld.pid"), filepath.Join(dir, "slurmctld.log"))
	if topology != nil {
		conf.WriteString("TopologyPlugin=topology/tree\n")
		if err := os.WriteFile(filepath.Join(etc, "topology.conf"), topology, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range nodes {
		fmt.Fprintf(&conf, "NodeName=%s NodeAddr=127.0.0.1 CPUs=1 State=DOWN\n", n)
	}
	conf.WriteString("PartitionName=all Nodes=ALL Default=YES State=UP\n")
	cfg := filepath.Join(etc, "slurm.conf")
	if err := os.WriteFile(cfg, []byte(conf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctld := exec.CommandContext(ctx, slurmctld, "-D", "-f", cfg)
	var log strings.Builder
	ctld.Stdout, ctld.Stderr = &log, &log
	if err := ctld.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctld.Process.Kill()
		ctld.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "slurmctld.log"))
			t.Logf("slurmctld:\n%s%s", tail(log.String(), 2000), tail(string(b), 4000))
		}
	})
	t.Setenv("SLURM_CONF", cfg)
	deadline := time.Now().Add(time.Minute)
	for {
		out, err := exec.Command(scontrol, "ping").CombinedOutput()
		if err == nil && strings.Contains(string(out), "UP") {
			return scontrol
		}
		if time.Now().After(deadline) {
			t.Fatalf("slurmctld did not answer scontrol ping: %v\n%s", err, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Drained returns the nodes slurmctld shows drained, with their reasons
// (scontrol show node's State holds DRAIN, its Reason the text set).
func Drained(t *testing.T, scontrol string) map[string]string {
	t.Helper()
	out, err := exec.Command(scontrol, "show", "node", "--oneliner").CombinedOutput()
	if err != nil {
		t.Fatalf("scontrol show node: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name := field(line, "NodeName=", " ")
		if state := field(line, "State=", " "); strings.Contains(state, "DRAIN") {
			// Reason runs to its [user@time] stamp.
			reason, _, _ := strings.Cut(field(line, "Reason=", "\n"), " [")
			got[name] = reason
		}
	}
	return got
}

// field returns what follows key in line up to end.
func field(line, key, end string) string {
	_, v, ok := strings.Cut(line, key)
	if !ok {
		return ""
	}
	v, _, _ = strings.Cut(v, end)
	return v
}

// startMunge starts munged on a socket in dir with a new key.
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
	for deadline := time.Now().Add(30 * time.Second); ; {
		if _, err := os.Stat(sock); err == nil {
			return sock
		}
		if time.Now().After(deadline) {
			t.Fatalf("munged did not create %s", sock)
		}
		time.Sleep(50 * time.Millisecond)
	}
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
