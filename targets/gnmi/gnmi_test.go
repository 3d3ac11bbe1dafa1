package gnmi_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/openconfig"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/gnmi"
	"github.com/rocefab/rocefab/targets/gnmi/gnmitest"
)

var platform openconfig.Platform

// certs is one self-signed server certificate for every test server.
var certs = sync.OnceValues(func() (*tls.Config, *x509.CertPool) {
	srv, pool, err := gnmitest.SelfSigned()
	if err != nil {
		panic(err)
	}
	return srv, pool
})

// withMTU is d with another switch MTU: the intent the device ran before.
func withMTU(d *ir.Device, mtu int) *ir.Device {
	c := *d
	s := *d.Switch
	s.MTU = mtu
	q := *s.QoS
	q.Queues = append([]ir.Queue(nil), q.Queues...)
	for i, qu := range q.Queues {
		if qu.ECN != nil {
			e := *qu.ECN
			e.MinBytes = e.MinBytes / 2
			q.Queues[i].ECN = &e
		}
	}
	s.QoS = &q
	c.Switch = &s
	return &c
}

// runningTree is d's tree as a device runs it: the artifact of an older
// intent plus configuration rocefab does not own: a loopback, the
// management port, a subinterface, and BGP in a network instance (outside
// the server's schema, kept as given).
func runningTree(t testing.TB, old *ir.Device) []byte {
	t.Helper()
	arts, err := openconfig.Renderer{}.Render(old)
	if err != nil {
		t.Fatal(err)
	}
	out, err := gnmitest.WithForeign(arts[0].Content, foreignInterfaces,
		map[string]json.RawMessage{"openconfig-network-instance:network-instances": foreignBGP})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var foreignInterfaces = []json.RawMessage{
	json.RawMessage(`{"name":"Loopback0","config":{"name":"Loopback0","type":"iana-if-type:softwareLoopback","description":"router id"}}`),
	json.RawMessage(`{"name":"Management1","config":{"name":"Management1","type":"iana-if-type:ethernetCsmacd","mtu":1500},` +
		`"subinterfaces":{"subinterface":[{"index":0,"config":{"index":0,"description":"oob"}}]}}`),
}

var foreignBGP = json.RawMessage(`{"network-instance":[{"name":"default","protocols":{"protocol":[{"identifier":"openconfig-policy-types:BGP","name":"BGP","bgp":{"global":{"config":{"as":65001}}}}]}}]}`)

// foreign returns what rocefab does not own in a tree, as canonical JSON
// (members sorted): the test server re-renders its tree after a Set, as a
// device prints its configuration in its own order, so the comparison is
// of content, not of the server's layout.
func foreign(t testing.TB, js []byte) string {
	t.Helper()
	f, err := gnmitest.Foreign(js, "Loopback0", "Management1")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func canonical(t testing.TB, js []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(js, &v); err != nil {
		t.Fatalf("%v: %s", err, js)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// serveDrifted serves d's running tree with an MTU of 4200, a drift a
// plan corrects, from a device with opts.
func serveDrifted(t testing.TB, d *ir.Device, opts gnmitest.Options) *gnmitest.Server {
	t.Helper()
	return serve(t, runningTree(t, withMTU(d, 4200)), opts)
}

// targetOne is a target that reaches d on srv, its options changed by
// mod (nil: none).
func targetOne(t testing.TB, d *ir.Device, srv *gnmitest.Server, mod func(*gnmi.Options)) *gnmi.Target {
	t.Helper()
	return target(t, map[string]*gnmitest.Server{d.Name: srv}, mod)
}

// serve starts a TLS server holding tree.
func serve(t testing.TB, tree []byte, opts gnmitest.Options) *gnmitest.Server {
	t.Helper()
	if opts.TLS == nil {
		opts.TLS, _ = certs()
	}
	s, err := gnmitest.New(tree, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// target reaches servers by device name.
func target(t testing.TB, servers map[string]*gnmitest.Server, mod func(*gnmi.Options)) *gnmi.Target {
	t.Helper()
	_, pool := certs()
	opts := gnmi.Options{
		Artifact: openconfig.FileName,
		TLS:      &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		Address: func(d *ir.Device) (string, error) {
			s, ok := servers[d.Name]
			if !ok {
				return "", fmt.Errorf("%s: no address", d.Name)
			}
			return s.Addr(), nil
		},
		Timeout: 10 * time.Second,
	}
	if mod != nil {
		mod(&opts)
	}
	tg, err := gnmi.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

// planOne reads d, parses and diffs it, and returns the changes and the
// remediation.
func planOne(t testing.TB, tg *gnmi.Target, d *ir.Device) ([]renderers.Change, renderers.Remediation, []byte) {
	t.Helper()
	arts, err := tg.Read(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	if len(arts) != 1 || arts[0].Path != d.Name+"/"+openconfig.FileName {
		t.Fatalf("read %v", arts)
	}
	have, err := platform.Parse(d, arts)
	if err != nil {
		t.Fatal(err)
	}
	want, err := platform.Desired(d)
	if err != nil {
		t.Fatal(err)
	}
	ch, rem, err := platform.Diff(d, have, want)
	if err != nil {
		t.Fatal(err)
	}
	return ch, rem, arts[0].Content
}

// TestGetDiffSetGet: Get -> parse -> diff -> Set -> Get -> diff is empty,
// and what rocefab does not own is untouched.
func TestGetDiffSetGet(t *testing.T) {
	d := irtest.Fabric().Device("leaf-eos")
	srv := serveDrifted(t, d, gnmitest.Options{})
	tg := targetOne(t, d, srv, nil)
	ch, rem, before := planOne(t, tg, d)
	if len(ch) == 0 {
		t.Fatal("no change planned")
	}
	if err := tg.Push(context.Background(), d, rem); err != nil {
		t.Fatal(err)
	}
	ch, _, after := planOne(t, tg, d)
	if len(ch) != 0 {
		t.Errorf("after the push, still %d changes: %v", len(ch), ch)
	}
	if foreign(t, before) != foreign(t, after) {
		t.Errorf("foreign configuration changed:\n%s\n%s", foreign(t, before), foreign(t, after))
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestCommitConfirmed: with the extension, a commit not confirmed in time
// is rolled back by the device, a confirmed one stays, a cancelled one is
// rolled back at once. Without it, the target takes the push back itself.
func TestCommitConfirmed(t *testing.T) {
	d := irtest.Fabric().Device("leaf-eos")
	for _, native := range []bool{true, false} {
		t.Run(fmt.Sprintf("extension-%t", native), func(t *testing.T) {
			tree := runningTree(t, withMTU(d, 4200))
			srv := serve(t, tree, gnmitest.Options{CommitConfirm: native})
			tg := targetOne(t, d, srv, nil)
			ctx := context.Background()
			_, rem, _ := planOne(t, tg, d)
			original := srv.Config()

			// Not confirmed: rolled back when the timer runs out.
			if err := tg.PushConfirmed(ctx, d, rem, 300*time.Millisecond); err != nil {
				t.Fatal(err)
			}
			if ch, _, _ := planOne(t, tg, d); len(ch) != 0 {
				t.Fatalf("pushed, yet %d changes", len(ch))
			}
			if srv.Pending() != native {
				t.Errorf("the server has a pending commit: %t, want %t", srv.Pending(), native)
			}
			waitFor(t, "the rollback", func() bool {
				ch, _, _ := planOne(t, tg, d)
				return len(ch) > 0
			})
			if foreign(t, srv.Config()) != foreign(t, original) {
				t.Errorf("foreign configuration changed by the rollback")
			}
			// Taken back by whichever timer, the push cannot be confirmed.
			if err := tg.Confirm(ctx, d); err == nil {
				t.Errorf("confirmed a push that was taken back")
			}

			// Confirmed: stays after the timeout.
			_, rem, _ = planOne(t, tg, d)
			if err := tg.PushConfirmed(ctx, d, rem, 300*time.Millisecond); err != nil {
				t.Fatal(err)
			}
			if err := tg.Confirm(ctx, d); err != nil {
				t.Fatal(err)
			}
			time.Sleep(500 * time.Millisecond)
			if ch, _, _ := planOne(t, tg, d); len(ch) != 0 {
				t.Errorf("a confirmed push was rolled back: %v", ch)
			}

			// Rolled back on request.
			srv2 := serve(t, tree, gnmitest.Options{CommitConfirm: native})
			tg2 := target(t, map[string]*gnmitest.Server{d.Name: srv2}, nil)
			_, rem, _ = planOne(t, tg2, d)
			if err := tg2.PushConfirmed(ctx, d, rem, time.Minute); err != nil {
				t.Fatal(err)
			}
			if err := tg2.Rollback(ctx, d); err != nil {
				t.Fatal(err)
			}
			if ch, _, _ := planOne(t, tg2, d); len(ch) == 0 {
				t.Errorf("rolled back, yet nothing to change")
			}
			if srv2.Pending() {
				t.Errorf("a commit still pending after the rollback")
			}
		})
	}
}

// TestFaults: a refused Set leaves the device as it was and says so; a
// connection lost during a Set says the outcome is unknown, and a read
// afterwards shows which; a slow device times out.
func TestFaults(t *testing.T) {
	d := irtest.Fabric().Device("leaf-eos")
	tree := runningTree(t, withMTU(d, 4200))
	ctx := context.Background()

	srv := serve(t, tree, gnmitest.Options{})
	tg := targetOne(t, d, srv, nil)
	_, rem, _ := planOne(t, tg, d)
	srv.SetFaults(gnmitest.Faults{RejectSet: codes.FailedPrecondition})
	before := srv.Config()
	if err := tg.Push(ctx, d, rem); err == nil || !strings.Contains(err.Error(), "nothing changed") {
		t.Errorf("rejected Set: %v", err)
	}
	if !bytes.Equal(before, srv.Config()) {
		t.Errorf("a rejected Set changed the device")
	}

	for _, after := range []bool{false, true} {
		srv.SetFaults(gnmitest.Faults{DropSet: true, DropAfterApply: after})
		err := tg.Push(ctx, d, rem)
		if err == nil || !strings.Contains(err.Error(), "may or may not") {
			t.Errorf("dropped Set (after apply %t): %v", after, err)
		}
		srv.SetFaults(gnmitest.Faults{})
		ch, _, _ := planOne(t, tg, d) // reconnects
		if applied := len(ch) == 0; applied != after {
			t.Errorf("dropped Set (after apply %t): the device holds the change: %t", after, applied)
		}
	}

	slow := serve(t, tree, gnmitest.Options{})
	slow.SetFaults(gnmitest.Faults{Delay: 5 * time.Second})
	tgSlow := target(t, map[string]*gnmitest.Server{d.Name: slow}, func(o *gnmi.Options) { o.Timeout = 200 * time.Millisecond })
	if _, err := tgSlow.Read(ctx, d); err == nil || !strings.Contains(err.Error(), "DeadlineExceeded") {
		t.Errorf("slow device: %v", err)
	}
}

// TestTransport: TLS is the default and checks the server; plaintext is
// only used when asked for; credentials are sent.
func TestTransport(t *testing.T) {
	d := irtest.Fabric().Device("leaf-eos")
	tree := runningTree(t, d)
	ctx := context.Background()
	srv := serve(t, tree, gnmitest.Options{Username: "admin", Password: "pw"})
	servers := map[string]*gnmitest.Server{d.Name: srv}
	if _, err := target(t, servers, func(o *gnmi.Options) { o.TLS = nil }).Read(ctx, d); err == nil {
		t.Errorf("a server of an unknown authority was trusted")
	}
	if _, err := target(t, servers, func(o *gnmi.Options) { o.Plaintext = true }).Read(ctx, d); err == nil {
		t.Errorf("plaintext reached a TLS server")
	}
	if _, err := target(t, servers, nil).Read(ctx, d); err == nil || !strings.Contains(err.Error(), "Unauthenticated") {
		t.Errorf("no credentials: %v", err)
	}
	if _, err := target(t, servers, func(o *gnmi.Options) { o.Username, o.Password = "admin", "pw" }).Read(ctx, d); err != nil {
		t.Errorf("with credentials: %v", err)
	}
	plain, err := gnmitest.New(tree, gnmitest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Start(); err != nil {
		t.Fatal(err)
	}
	defer plain.Stop()
	servers = map[string]*gnmitest.Server{d.Name: plain}
	if _, err := target(t, servers, nil).Read(ctx, d); err == nil {
		t.Errorf("TLS reached a plaintext server")
	}
	if _, err := target(t, servers, func(o *gnmi.Options) { o.Plaintext = true }).Read(ctx, d); err != nil {
		t.Errorf("plaintext, asked for: %v", err)
	}
	if err := target(t, servers, func(o *gnmi.Options) { o.Plaintext = true }).Push(ctx, d, renderers.Remediation{Format: renderers.Text, Content: []byte("mtu 9000")}); err == nil {
		t.Errorf("a CLI remediation was pushed over gNMI")
	}
}

// TestPlanRollout runs the targets package's plan and apply against gNMI
// servers: every device converges, and a plan afterwards is empty.
func TestPlanRollout(t *testing.T) {
	f := irtest.Fabric()
	servers := map[string]*gnmitest.Server{}
	var devs []*ir.Device
	for _, d := range f.Switches() {
		servers[d.Name] = serveDrifted(t, d, gnmitest.Options{CommitConfirm: d.Platform == ir.PlatformEOS})
		devs = append(devs, d)
	}
	tg := target(t, servers, nil)
	req := targets.Request{Devices: devs, Target: tg, Parallelism: 4,
		Platforms: func(*ir.Device) (renderers.Platform, error) { return platform, nil }}
	ctx := context.Background()
	p, err := targets.Make(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Summary(); s.Change != len(devs) {
		t.Fatalf("plan: %s", s)
	}
	for _, dp := range p.Devices {
		if err := tg.PushConfirmed(ctx, f.Device(dp.Device), dp.Remediation.Remediation(), time.Minute); err != nil {
			t.Fatalf("%s: %v", dp.Device, err)
		}
		if err := tg.Confirm(ctx, f.Device(dp.Device)); err != nil {
			t.Fatalf("%s: %v", dp.Device, err)
		}
	}
	p, err = targets.Make(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Empty() || !p.Complete() {
		t.Errorf("after apply: %s", p.Summary())
	}
}

// cpuTime is the process's CPU time: the servers' and the client's, since
// both run in this process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPlan plans N 64-port leaves, each served by its own gNMI server
// over TLS on loopback, with parallelism 64, as `rocefab plan` does: read,
// parse, desired state, diff. N is 100 and 1,000, and 5,000 with
// ROCEFAB_BENCH_5000=1.
func BenchmarkPlan(b *testing.B) {
	sizes := []int{100, 1000}
	if os.Getenv("ROCEFAB_BENCH_5000") != "" {
		sizes = append(sizes, 5000)
	}
	for _, n := range sizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			base := leaf64()
			tree := runningTree(b, withMTU(base, 4200))
			servers := map[string]*gnmitest.Server{}
			var devs []*ir.Device
			for i := range n {
				d := *base
				d.Name = fmt.Sprintf("leaf-%05d", i)
				devs = append(devs, &d)
				servers[d.Name] = serve(b, tree, gnmitest.Options{})
			}
			req := targets.Request{Devices: devs, Parallelism: 64,
				Platforms: func(*ir.Device) (renderers.Platform, error) { return platform, nil }}
			cpu := cpuTime()
			for b.Loop() {
				req.Target = target(b, servers, nil) // new connections: TLS handshakes included
				p, err := targets.Make(context.Background(), req)
				if err != nil {
					b.Fatal(err)
				}
				if s := p.Summary(); s.Change != n {
					b.Fatalf("plan: %s", s)
				}
				req.Target.(*gnmi.Target).Close()
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e9, "cpu-s/op")
			b.ReportMetric(float64(n), "devices")
		})
	}
}

// leaf64 is a 64-port leaf.
func leaf64() *ir.Device { return irtest.EOSLeaf(64) }

// TestJournalOutlivesTheTarget: a push left unconfirmed by a target that
// ends (an apply that died: its timer dies with it) is found by the next
// one through the journal, which confirms it by its commit id or takes it
// back with the values read before it; a native commit past its deadline
// is known taken back by the device and crossed out.
func TestJournalOutlivesTheTarget(t *testing.T) {
	d := irtest.Fabric().Device("leaf-eos")
	ctx := context.Background()
	for _, native := range []bool{true, false} {
		for _, settle := range []string{"confirm", "rollback"} {
			t.Run(fmt.Sprintf("extension-%t/%s", native, settle), func(t *testing.T) {
				srv := serveDrifted(t, d, gnmitest.Options{CommitConfirm: native})
				journal := targets.NewJournal(t.TempDir() + "/pending")
				withJournal := func(o *gnmi.Options) { o.Journal = journal }
				first := targetOne(t, d, srv, withJournal)
				_, rem, _ := planOne(t, first, d)
				if err := first.PushConfirmed(ctx, d, rem, time.Minute); err != nil {
					t.Fatal(err)
				}
				first.Close() // the apply ends without a confirmation

				next := targetOne(t, d, srv, withJournal)
				pc, err := next.Pending(ctx, d)
				if err != nil || pc == nil {
					t.Fatalf("the next target finds no pending push: %v, %v", pc, err)
				}
				if native == pc.Deadline.IsZero() {
					t.Errorf("deadline %v: a native commit has one, a push rocefab would take back has none", pc.Deadline)
				}
				if settle == "confirm" {
					err = next.Confirm(ctx, d)
				} else {
					err = next.Rollback(ctx, d)
				}
				if err != nil {
					t.Fatal(err)
				}
				if srv.Pending() {
					t.Error("the device still holds a commit waiting for its confirmation")
				}
				if pc, err := next.Pending(ctx, d); pc != nil || err != nil {
					t.Errorf("still pending after %s: %v, %v", settle, pc, err)
				}
				if e, err := journal.Load(d.Name); e != nil || err != nil {
					t.Errorf("the journal still records the push: %+v, %v", e, err)
				}
				ch, _, _ := planOne(t, next, d)
				if converged := len(ch) == 0; converged != (settle == "confirm") {
					t.Errorf("after %s: %d changes", settle, len(ch))
				}
			})
		}
	}
	t.Run("native-deadline-passed", func(t *testing.T) {
		srv := serveDrifted(t, d, gnmitest.Options{CommitConfirm: true})
		journal := targets.NewJournal(t.TempDir() + "/pending")
		withJournal := func(o *gnmi.Options) { o.Journal = journal }
		first := targetOne(t, d, srv, withJournal)
		_, rem, _ := planOne(t, first, d)
		if err := first.PushConfirmed(ctx, d, rem, 300*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		first.Close()
		waitFor(t, "the device's rollback", func() bool { return !srv.Pending() })
		time.Sleep(1100 * time.Millisecond) // the journal's deadline is to the second
		next := targetOne(t, d, srv, withJournal)
		if pc, err := next.Pending(ctx, d); pc != nil || err != nil {
			t.Errorf("a commit past its deadline is pending: %v, %v", pc, err)
		}
		if e, _ := journal.Load(d.Name); e != nil {
			t.Errorf("the journal still records a commit the device took back: %+v", e)
		}
	})
}
