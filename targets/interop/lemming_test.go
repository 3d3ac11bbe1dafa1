package interop

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/openconfig/ygot/ygot"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/openconfig"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/gnmi"
	"github.com/rocefab/rocefab/targets/gnmi/gnmitest"
	"github.com/rocefab/rocefab/targets/interop/lemmingdev"
)

const (
	username = "netops"
	password = "interop-secret"
)

// older is d as an earlier intent rendered it: another MTU.
func older(d *ir.Device) *ir.Device {
	c := *d
	s := *d.Switch
	s.MTU = 4200
	c.Switch = &s
	return &c
}

// foreignInterfaces is configuration rocefab does not own: the management
// port with an IPv4 subinterface, a loopback, and a port outside the
// fabric.
const foreignInterfaces = `[
 {"name":"Management1","config":{"name":"Management1","type":"iana-if-type:ethernetCsmacd","mtu":1500,"description":"oob"},
  "subinterfaces":{"subinterface":[{"index":0,"config":{"index":0,"description":"oob v4"},
   "openconfig-if-ip:ipv4":{"addresses":{"address":[{"ip":"192.0.2.10","config":{"ip":"192.0.2.10","prefix-length":24}}]}}}]}},
 {"name":"Loopback0","config":{"name":"Loopback0","type":"iana-if-type:softwareLoopback","description":"router id"}},
 {"name":"Ethernet99","config":{"name":"Ethernet99","type":"iana-if-type:ethernetCsmacd","mtu":1500,"description":"not the fabric's"}}
]`

// foreignRoot is more of it: the hostname and BGP.
const foreignRoot = `{
 "openconfig-system:system":{"config":{"hostname":"%s"}},
 "openconfig-network-instance:network-instances":{"network-instance":[{"name":"DEFAULT",
  "config":{"name":"DEFAULT","type":"openconfig-network-instance-types:DEFAULT_INSTANCE"},
  "protocols":{"protocol":[{"identifier":"openconfig-policy-types:BGP","name":"BGP",
   "config":{"identifier":"openconfig-policy-types:BGP","name":"BGP"},
   "bgp":{"global":{"config":{"as":65001,"router-id":"192.0.2.1"}}}}]}}]}
}`

// preload is d's tree on the switch before rocefab: the artifact of an
// older intent and the foreign configuration.
func preload(t *testing.T, d *ir.Device) []byte {
	t.Helper()
	arts, err := openconfig.Renderer{}.Render(older(d))
	if err != nil {
		t.Fatal(err)
	}
	var ifs []json.RawMessage
	if err := json.Unmarshal([]byte(foreignInterfaces), &ifs); err != nil {
		t.Fatal(err)
	}
	var root map[string]json.RawMessage
	if err := json.Unmarshal(fmt.Appendf(nil, foreignRoot, d.Name), &root); err != nil {
		t.Fatal(err)
	}
	out, err := gnmitest.WithForeign(arts[0].Content, ifs, root)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// lab is lemming switches for every switch of the test fabric, preloaded;
// every other one answers Capabilities.
type lab struct {
	devs    []*ir.Device
	devices map[string]*lemmingdev.Device
}

func newLab(t *testing.T) *lab {
	t.Helper()
	srvTLS, _ := gnmitest.Certs(t)
	l := &lab{devices: map[string]*lemmingdev.Device{}}
	for i, d := range irtest.Fabric().Switches() {
		dev, err := lemmingdev.Start(lemmingdev.Options{Name: d.Name, TLS: srvTLS, Username: username, Password: password, Capabilities: i%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(dev.Stop)
		l.devs = append(l.devs, d)
		l.devices[d.Name] = dev
		c := l.client(t, d.Name)
		req := &gpb.SetRequest{Replace: []*gpb.Update{{Path: &gpb.Path{}, Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: preload(t, d)}}}}}
		if _, err := c.Set(l.ctx(), req); err != nil {
			t.Fatalf("%s: preloading lemming: %v", d.Name, err)
		}
	}
	return l
}

func (l *lab) ctx() context.Context {
	return metadata.AppendToOutgoingContext(context.Background(), "username", username, "password", password)
}

// client is a gNMI client of one switch, over TLS.
func (l *lab) client(t *testing.T, name string) gpb.GNMIClient {
	t.Helper()
	_, pool := gnmitest.Certs(t)
	conn, err := grpc.NewClient(l.devices[name].Addr(), grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return gpb.NewGNMIClient(conn)
}

// target is rocefab's gNMI target of the lab.
func (l *lab) target(t *testing.T) *gnmi.Target {
	t.Helper()
	_, pool := gnmitest.Certs(t)
	tg, err := gnmi.New(gnmi.Options{
		Artifact: openconfig.FileName,
		TLS:      &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		Username: username, Password: password,
		Address: func(d *ir.Device) (string, error) {
			dev, ok := l.devices[d.Name]
			if !ok {
				return "", fmt.Errorf("%s: no address", d.Name)
			}
			return dev.Addr(), nil
		},
		Timeout: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

// leaves is every leaf a switch holds, path -> value, from lemming's own
// Subscribe ONCE over the network.
func (l *lab) leaves(t *testing.T, name string) map[string]string {
	t.Helper()
	ns, err := lemmingdev.Once(l.ctx(), l.client(t, name), name)
	if err != nil {
		t.Fatalf("%s: Subscribe ONCE: %v", name, err)
	}
	out := map[string]string{}
	for _, n := range ns {
		for _, u := range n.GetUpdate() {
			p := &gpb.Path{Elem: append(slices.Clone(n.GetPrefix().GetElem()), u.GetPath().GetElem()...)}
			s, err := ygot.PathToString(p)
			if err != nil {
				t.Fatal(err)
			}
			out[s] = u.GetVal().String()
		}
		for _, del := range n.GetDelete() {
			s, _ := ygot.PathToString(&gpb.Path{Elem: append(slices.Clone(n.GetPrefix().GetElem()), del.GetElem()...)})
			delete(out, s)
		}
	}
	return out
}

// foreign is the part of leaves rocefab does not own on d.
func foreign(d *ir.Device, leaves map[string]string) map[string]string {
	owned := openconfig.OwnedPaths(d)
	out := map[string]string{}
	for p, v := range leaves {
		mine := false
		for _, o := range owned {
			if p == o.Path || strings.HasPrefix(p, o.Path+"/") || strings.HasPrefix(p, "/qos/") {
				mine = true
				break
			}
		}
		if !mine {
			out[p] = v
		}
	}
	return out
}

func request(l *lab, tg targets.Target) targets.Request {
	return targets.Request{Devices: l.devs, Target: tg, Parallelism: 8,
		Platforms: func(*ir.Device) (renderers.Platform, error) { return openconfig.Platform{}, nil }}
}

func diffLeaves(a, b map[string]string) []string {
	var out []string
	for p, v := range a {
		if w, ok := b[p]; !ok {
			out = append(out, "- "+p+" = "+v)
		} else if w != v {
			out = append(out, "~ "+p+": "+v+" -> "+w)
		}
	}
	for p, v := range b {
		if _, ok := a[p]; !ok {
			out = append(out, "+ "+p+" = "+v)
		}
	}
	slices.Sort(out)
	return out
}

// TestLemmingPlanApplyPlan: plan -> apply -> plan against lemming switches
// over TLS with a password, which report YANG defaults: every switch
// changes, apply converges, the next plan has no changes, and every leaf
// rocefab does not own is as it was.
func TestLemmingPlanApplyPlan(t *testing.T) {
	l := newLab(t)
	before := map[string]map[string]string{}
	for _, d := range l.devs {
		before[d.Name] = foreign(d, l.leaves(t, d.Name))
		if len(before[d.Name]) == 0 {
			t.Fatalf("%s: no foreign configuration preloaded", d.Name)
		}
	}
	tg := l.target(t)
	ctx := context.Background()
	p, err := targets.Make(ctx, request(l, tg))
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Summary(); s.Change != len(l.devs) || !p.Complete() {
		for _, dp := range p.Devices {
			t.Logf("%s: %s %s", dp.Device, dp.Action, dp.Reason)
		}
		t.Fatalf("plan: %s", s)
	}
	rep, err := targets.Apply(ctx, targets.Rollout{Plan: p, Devices: l.devs, Target: tg,
		Platforms: request(l, tg).Platforms, Canary: 1, Wave: targets.Size{Percent: 50}, Parallelism: 8,
		ConfirmTimeout: 5 * time.Minute, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed || rep.Counts()[targets.Applied] != len(l.devs) {
		t.Fatalf("apply: %+v", rep)
	}
	if len(rep.Notes) != len(l.devs)/2 {
		t.Errorf("notes: %q, want one per switch without Capabilities", rep.Notes)
	}
	p, err = targets.Make(ctx, request(l, tg))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Empty() || !p.Complete() {
		for _, dp := range p.Devices {
			t.Logf("%s: %s %s %v", dp.Device, dp.Action, dp.Reason, dp.Changes)
		}
		t.Errorf("plan after apply: %s, want no changes", p.Summary())
	}
	for _, d := range l.devs {
		if diff := diffLeaves(before[d.Name], foreign(d, l.leaves(t, d.Name))); len(diff) > 0 {
			t.Errorf("%s: foreign configuration changed:\n%s", d.Name, strings.Join(diff, "\n"))
		}
	}
}

// TestLemmingRollback: a switch that refuses its change in the second
// wave fails the rollout; every switch of that wave is rolled back to a
// tree equal, leaf for leaf, to the one it held before (lemming's own
// Subscribe ONCE compared), the later waves are untouched, and the canary
// keeps its change.
func TestLemmingRollback(t *testing.T) {
	l := newLab(t)
	before := map[string]map[string]string{}
	for _, d := range l.devs {
		before[d.Name] = l.leaves(t, d.Name)
	}
	tg := l.target(t)
	ctx := context.Background()
	p, err := targets.Make(ctx, request(l, tg))
	if err != nil {
		t.Fatal(err)
	}
	waves := targets.Waves(p, 1, targets.Size{Percent: 100})
	if len(waves) < 2 || len(waves[1]) < 2 {
		t.Fatalf("waves %v: want a canary and a second wave of several switches", waves)
	}
	failing := waves[1][len(waves[1])-1].Device
	l.devices[failing].RefuseSets(1)
	rep, err := targets.Apply(ctx, targets.Rollout{Plan: p, Devices: l.devs, Target: tg,
		Platforms: request(l, tg).Platforms, Canary: 1, Wave: targets.Size{Percent: 100}, Parallelism: 8,
		ConfirmTimeout: 5 * time.Minute, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Failed {
		t.Fatalf("apply did not fail: %+v", rep)
	}
	canary := waves[0][0].Device
	want := map[string]targets.State{canary: targets.Applied}
	for _, dp := range waves[1] {
		want[dp.Device] = targets.RolledBack
	}
	for _, w := range waves[2:] {
		for _, dp := range w {
			want[dp.Device] = targets.Untouched
		}
	}
	for _, o := range rep.Devices {
		if o.State != want[o.Device] {
			t.Errorf("%s: %s (%s), want %s", o.Device, o.State, o.Reason, want[o.Device])
		}
	}
	for _, d := range l.devs {
		if d.Name == canary {
			continue
		}
		if diff := diffLeaves(before[d.Name], l.leaves(t, d.Name)); len(diff) > 0 {
			t.Errorf("%s: not the tree it held before:\n%s", d.Name, strings.Join(diff, "\n"))
		}
	}
}
