package ssh_test

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/eos"
	"github.com/rocefab/rocefab/schema"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/ssh"
	"github.com/rocefab/rocefab/targets/ssh/sshtest"
	gossh "golang.org/x/crypto/ssh"
)

// testPassword is the secret every emulated device takes; no output of a
// test may carry it.
const testPassword = "s3cret-Do-Not-Print-7f3a"

var (
	fabOnce sync.Once
	fabDevs []*ir.Device
	fabErr  error
)

// eosLeaves returns the first n EOS switches of examples/pod-2048.
func eosLeaves(t testing.TB, n int) []*ir.Device {
	t.Helper()
	fabOnce.Do(func() {
		in, ds, err := schema.Load(filepath.Join("..", "..", "examples", "pod-2048"))
		if err != nil || ds.HasErrors() {
			fabErr = fmt.Errorf("loading pod-2048: %v %v", err, ds)
			return
		}
		f, _ := compiler.Compile(in)
		for _, d := range f.Switches() {
			if d.Platform == "eos" {
				fabDevs = append(fabDevs, d)
			}
		}
	})
	if fabErr != nil {
		t.Fatal(fabErr)
	}
	if len(fabDevs) < n {
		t.Fatalf("pod-2048 has %d EOS switches, want %d", len(fabDevs), n)
	}
	return fabDevs[:n]
}

// eosApply enters lines into a running eos.cfg with the EOS platform.
func eosApply(running []byte, lines string) ([]byte, error) {
	arts, err := eos.Renderer{}.Apply([]renderers.Artifact{{Path: "d/eos.cfg", Format: renderers.Text, Content: running}},
		renderers.Remediation{Format: renderers.Text, Content: []byte(lines)})
	if err != nil {
		return nil, err
	}
	for _, a := range arts {
		if strings.HasSuffix(a.Path, "/eos.cfg") {
			return a.Content, nil
		}
	}
	return running, nil
}

// world is a fabric of emulated EOS switches behind SSH servers.
type world struct {
	devs       []*ir.Device
	eos        map[string]*sshtest.EOS
	srv        map[string]*sshtest.Server
	knownHosts string
	creds      *ssh.Credentials
	target     *ssh.Target
	diffs      map[string]string
	mu         sync.Mutex
	// timeout bounds each device's step in apply (20s when zero).
	timeout time.Duration
}

func newWorld(t testing.TB, devs []*ir.Device) *world {
	t.Helper()
	return newWorldWith(t, devs, func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", "pod-2048", "running", name, "eos.cfg"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	})
}

// newWorldWith serves each device with the running configuration
// runningFor gives it.
func newWorldWith(t testing.TB, devs []*ir.Device, runningFor func(name string) []byte) *world {
	t.Helper()
	hk, err := sshtest.NewHostKey()
	if err != nil {
		t.Fatal(err)
	}
	w := &world{devs: devs, eos: map[string]*sshtest.EOS{}, srv: map[string]*sshtest.Server{}, diffs: map[string]string{}}
	var kh bytes.Buffer
	for _, d := range devs {
		running := runningFor(d.Name)
		dev := sshtest.NewEOS(d.Name, running, eosApply)
		s, err := sshtest.Serve(dev, hk, sshtest.Credentials{User: "netops", Password: testPassword})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		w.eos[d.Name], w.srv[d.Name] = dev, s
		kh.WriteString(s.KnownHostsLine() + "\n")
	}
	w.knownHosts = filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(w.knownHosts, kh.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	w.creds = &ssh.Credentials{Username: "netops", Auth: ssh.AuthPassword, Password: testPassword}
	w.target = w.newTarget(t, &ssh.HostKeys{File: w.knownHosts})
	return w
}

func (w *world) newTarget(t testing.TB, hk *ssh.HostKeys) *ssh.Target {
	t.Helper()
	tg, err := ssh.New(ssh.Options{
		Endpoint: func(d *ir.Device) (ssh.Endpoint, error) {
			return ssh.Endpoint{Address: w.srv[d.Name].Addr, Credentials: w.creds}, nil
		},
		HostKeys:       hk,
		CommandTimeout: 10 * time.Second,
		Diff: func(device, diff string) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.diffs[device] = diff
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

func eosPlatform(*ir.Device) (renderers.Platform, error) { return eos.Renderer{}, nil }

func (w *world) plan(t testing.TB) *targets.Plan {
	t.Helper()
	p, err := targets.Make(context.Background(), targets.Request{Devices: w.devs, Target: w.target, Platforms: eosPlatform, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (w *world) apply(t testing.TB, p *targets.Plan, confirm time.Duration, canary int) *targets.Report {
	t.Helper()
	rep, err := targets.Apply(context.Background(), targets.Rollout{
		Plan: p, Devices: w.devs, Target: w.target, Platforms: eosPlatform, Canary: canary,
		ConfirmTimeout: confirm, Timeout: cmp.Or(w.timeout, 20*time.Second), LapseGrace: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// foreign returns every device's configuration outside rocefab's scope.
func (w *world) foreign() map[string][]string {
	out := map[string][]string{}
	for n, e := range w.eos {
		out[n] = eos.Foreign(e.Running())
	}
	return out
}

func states(rep *targets.Report) map[string]targets.State {
	out := map[string]targets.State{}
	for _, d := range rep.Devices {
		out[d.Device] = d.State
	}
	return out
}

func sameForeign(t *testing.T, before, after map[string][]string) {
	t.Helper()
	for n, b := range before {
		if !slices.Equal(b, after[n]) {
			t.Errorf("%s: foreign configuration changed", n)
		}
	}
}

// knownHostsLine is a known_hosts line for addr with key.
func knownHostsLine(addr string, key gossh.PublicKey) string {
	return (&sshtest.Server{Addr: addr, HostKey: key}).KnownHostsLine()
}

func writeFile(t testing.TB, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}
