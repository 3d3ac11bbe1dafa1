package gnmi_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/openconfig"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/gnmi"
	"github.com/rocefab/rocefab/targets/gnmi/gnmitest"
)

var platform openconfig.Platform

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
		opts.TLS, _ = gnmitest.Certs(t)
	}
	return gnmitest.Started(t, tree, opts)
}

// target reaches servers by device name.
func target(t testing.TB, servers map[string]*gnmitest.Server, mod func(*gnmi.Options)) *gnmi.Target {
	t.Helper()
	_, pool := gnmitest.Certs(t)
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
	ch, rem := rendertest.ParseDiff(t, platform, d, arts)
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
	plain := gnmitest.Started(t, tree, gnmitest.Options{})
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

// TestNoCapabilities: a device that answers Capabilities with Unimplemented
// (openconfig/lemming v0.5.0) is pushed to as one without commit-confirmed:
// the push is taken back by the target, and its notes say so once.
func TestNoCapabilities(t *testing.T) {
	d := irtest.Fabric().Device("leaf-eos")
	srv := serveDrifted(t, d, gnmitest.Options{CommitConfirm: true})
	srv.SetFaults(gnmitest.Faults{NoCapabilities: true})
	tg := targetOne(t, d, srv, nil)
	ctx := context.Background()
	original := srv.Config()
	for range 2 {
		_, rem, _ := planOne(t, tg, d)
		if err := tg.PushConfirmed(ctx, d, rem, time.Minute); err != nil {
			t.Fatalf("push to a device without Capabilities: %v", err)
		}
		if srv.Pending() {
			t.Errorf("the push used the commit-confirmed extension the device never advertised")
		}
		if err := tg.Rollback(ctx, d); err != nil {
			t.Fatal(err)
		}
		if ch, _, _ := planOne(t, tg, d); len(ch) == 0 {
			t.Errorf("rolled back, yet nothing to change")
		}
		if foreign(t, srv.Config()) != foreign(t, original) {
			t.Errorf("foreign configuration changed by the rollback")
		}
	}
	notes := tg.Notes()
	if len(notes) != 1 || !strings.Contains(notes[0], d.Name) || !strings.Contains(notes[0], "Capabilities") {
		t.Errorf("notes: %q, want one naming %s and Capabilities", notes, d.Name)
	}
}

// TestOnlyTypeAll: a device that refuses a Get of type CONFIG (google/gnxi
// answers every type but ALL with Unimplemented) is read with type ALL and
// its operational state left out, both for the plan and for what a push
// without commit-confirmed must restore.
func TestOnlyTypeAll(t *testing.T) {
	d := irtest.Fabric().Device("leaf-eos")
	srv := serveDrifted(t, d, gnmitest.Options{})
	srv.SetFaults(gnmitest.Faults{OnlyTypeAll: true})
	tg := targetOne(t, d, srv, func(o *gnmi.Options) { o.Commit = gnmi.CommitNever })
	ctx := context.Background()
	original := srv.Config()
	ch, rem, read := planOne(t, tg, d)
	if len(ch) == 0 {
		t.Fatal("no change planned")
	}
	if strings.Contains(string(read), `state"`) {
		t.Errorf("the read kept operational state:\n%.400s", read)
	}
	if gnmitest.Canonical(t, read) != gnmitest.Canonical(t, original) {
		t.Errorf("the read is not the device's configuration:\n%.400s\n%.400s", read, original)
	}
	if err := tg.PushConfirmed(ctx, d, rem, time.Minute); err != nil {
		t.Fatal(err)
	}
	if ch, _, _ := planOne(t, tg, d); len(ch) != 0 {
		t.Errorf("after the push, still %d changes", len(ch))
	}
	if err := tg.Rollback(ctx, d); err != nil {
		t.Fatal(err)
	}
	if got := srv.Config(); gnmitest.Canonical(t, got) != gnmitest.Canonical(t, original) {
		t.Errorf("the rollback did not restore the configuration:\n%.400s\n%.400s", got, original)
	}
}

// TestIgnoredCommitConfirmed: a switch that advertises commit-confirmed
// and ignores it keeps a change its wave rolls back; apply's read-back
// finds it and reports the switch unknown, not rolled back.
func TestIgnoredCommitConfirmed(t *testing.T) {
	f := irtest.Fabric()
	ignoring, refusing := f.Device("leaf-eos"), f.Device("leaf-nvue")
	servers := map[string]*gnmitest.Server{}
	for _, d := range []*ir.Device{ignoring, refusing} {
		servers[d.Name] = serveDrifted(t, d, gnmitest.Options{CommitConfirm: true})
	}
	servers[ignoring.Name].SetFaults(gnmitest.Faults{IgnoreCommit: true})
	servers[refusing.Name].SetFaults(gnmitest.Faults{RejectSet: codes.FailedPrecondition})
	tg := target(t, servers, nil)
	devs := []*ir.Device{ignoring, refusing}
	req := targets.Request{Devices: devs, Target: tg, Parallelism: 2,
		Platforms: func(*ir.Device) (renderers.Platform, error) { return platform, nil }}
	p, err := targets.Make(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := targets.Apply(context.Background(), targets.Rollout{Plan: p, Devices: devs, Target: tg, Platforms: req.Platforms,
		Canary: 0, Wave: targets.Size{Percent: 100}, ConfirmTimeout: time.Minute, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, o := range rep.Devices {
		if o.Device == ignoring.Name {
			found = true
			if o.State != targets.Unknown || !strings.Contains(o.Reason, "rolled back, but") {
				t.Errorf("%s: %s: %s, want unknown after a rollback the read-back disproves", o.Device, o.State, o.Reason)
			}
		}
	}
	if !found || !rep.Failed {
		t.Errorf("report %+v: want a failed apply with %s in it", rep, ignoring.Name)
	}
}

// TestSetTimeoutAfterApply: a device takes the change and answers after
// the client's deadline. The push is pending all the same: Rollback takes
// it back (by the commit's id, or by restoring what was read before it),
// and without Rollback the commit timer does.
func TestSetTimeoutAfterApply(t *testing.T) {
	d := irtest.Fabric().Device("leaf-eos")
	ctx := context.Background()
	for _, native := range []bool{true, false} {
		t.Run(fmt.Sprintf("extension-%t", native), func(t *testing.T) {
			srv := serveDrifted(t, d, gnmitest.Options{CommitConfirm: native})
			tg := targetOne(t, d, srv, func(o *gnmi.Options) { o.Timeout = 300 * time.Millisecond })
			_, rem, _ := planOne(t, tg, d)
			original := gnmitest.Canonical(t, srv.Config())

			srv.SetFaults(gnmitest.Faults{SlowSet: 3 * time.Second})
			err := tg.PushConfirmed(ctx, d, rem, time.Minute)
			if err == nil || !strings.Contains(err.Error(), "may or may not") || !strings.Contains(err.Error(), "DeadlineExceeded") {
				t.Fatalf("a Set answered too late: %v", err)
			}
			srv.SetFaults(gnmitest.Faults{})
			if ch, _, _ := planOne(t, tg, d); len(ch) != 0 {
				t.Fatalf("the device did not take the change (%d changes): the fault is not the one tested", len(ch))
			}
			if err := tg.Rollback(ctx, d); err != nil {
				t.Fatalf("the push that timed out is not taken back: %v", err)
			}
			if got := gnmitest.Canonical(t, srv.Config()); got != original {
				t.Errorf("after the rollback the device does not run what it ran before")
			}
			if srv.Pending() {
				t.Errorf("a commit still pending after the rollback")
			}

			// Not rolled back: the timer takes it back.
			srv.SetFaults(gnmitest.Faults{SlowSet: 3 * time.Second})
			if err := tg.PushConfirmed(ctx, d, rem, 500*time.Millisecond); err == nil {
				t.Fatal("a Set answered too late succeeded")
			}
			srv.SetFaults(gnmitest.Faults{})
			waitFor(t, "the commit timer", func() bool { return gnmitest.Canonical(t, srv.Config()) == original })
		})
	}
}

// TestRolloutSetTimeoutAfterApply: in a rollout, the canary takes its
// change and answers after the deadline. The report must not call it
// untouched: it is rolled back (read back to what it ran before, the
// reason saying the outcome of its push was unknown), and the later waves
// are untouched.
func TestRolloutSetTimeoutAfterApply(t *testing.T) {
	for _, native := range []bool{true, false} {
		t.Run(fmt.Sprintf("extension-%t", native), func(t *testing.T) {
			f := irtest.Fabric()
			servers := map[string]*gnmitest.Server{}
			original := map[string]string{}
			var devs []*ir.Device
			for _, d := range f.Switches() {
				servers[d.Name] = serveDrifted(t, d, gnmitest.Options{CommitConfirm: native})
				original[d.Name] = gnmitest.Canonical(t, servers[d.Name].Config())
				devs = append(devs, d)
			}
			tg := target(t, servers, func(o *gnmi.Options) { o.Timeout = 300 * time.Millisecond })
			platforms := func(*ir.Device) (renderers.Platform, error) { return platform, nil }
			ctx := context.Background()
			p, err := targets.Make(ctx, targets.Request{Devices: devs, Target: tg, Parallelism: 4, Platforms: platforms})
			if err != nil {
				t.Fatal(err)
			}
			waves := targets.Waves(p, 1, targets.Size{N: 1})
			if len(waves) < 2 {
				t.Fatalf("%d waves: the test needs a canary and a later wave", len(waves))
			}
			slow := waves[0][0].Device
			servers[slow].SetFaults(gnmitest.Faults{SlowSet: 3 * time.Second})
			rep, err := targets.Apply(ctx, targets.Rollout{Plan: p, Devices: devs, Target: tg, Platforms: platforms,
				Canary: 1, Wave: targets.Size{N: 1}, Parallelism: 4, ConfirmTimeout: time.Minute, Timeout: 10 * time.Second,
				Event: func(e targets.Event) {
					// The device answers in time again once the push
					// timed out, so that the rollback is not the fault's.
					if e.Device == slow && e.Step == targets.StepFailed {
						servers[slow].SetFaults(gnmitest.Faults{})
					}
				}})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Failed || rep.Completed != 0 {
				t.Errorf("report: failed %t, %d waves completed; want failed in the first", rep.Failed, rep.Completed)
			}
			for _, o := range rep.Devices {
				switch {
				case o.Device == slow:
					if o.State != targets.RolledBack || !strings.Contains(o.Reason, "may or may not") {
						t.Errorf("%s: %s (%s); want rolled-back, saying its push's outcome was unknown", o.Device, o.State, o.Reason)
					}
				case o.State != targets.Untouched:
					t.Errorf("%s in a later wave: %s (%s)", o.Device, o.State, o.Reason)
				}
			}
			for name, s := range servers {
				if gnmitest.Canonical(t, s.Config()) != original[name] {
					t.Errorf("%s does not run what it ran before the apply", name)
				}
				if s.Pending() {
					t.Errorf("%s has a commit pending", name)
				}
			}
		})
	}
}
