package interop

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/doctor"
)

// TestLemmingQuarantineShut shuts the switch end of a cable on a lemming
// switch through rocefab's gNMI target, as apply of a quarantine plan
// does, and brings it back with the release made from what the apply
// recorded: after the shut the one leaf that differs from the tree before
// is the port's config/enabled, false (lemming's own Subscribe ONCE
// compared), and after the release the tree is the one before.
func TestLemmingQuarantineShut(t *testing.T) {
	l := newLab(t)
	d := l.devs[0]
	var port ir.Port
	for _, p := range d.Switch.Ports {
		if p.Peer != "" {
			port = p
			break
		}
	}
	at := doctor.Endpoint{Device: d.Name, Port: port.Name}
	q := &doctor.Quarantine{Kind: doctor.KindQuarantine, FormatVersion: doctor.QuarantineFormatVersion, Fabric: irtest.Fabric().Name,
		Drains: []doctor.Drain{}, Shuts: []doctor.Shut{{Kind: doctor.KindLinkErrors, Cause: doctor.CauseFCS, Origin: at,
			Peer: &doctor.Endpoint{Device: port.Peer, Port: port.PeerPort}, Port: at, Admin: renderers.AdminDown}}}
	q.SHA256 = q.Digest()
	if err := q.Check(irtest.Fabric()); err != nil {
		t.Fatal(err)
	}
	// The tree as rocefab configures it, before the quarantine.
	tg := l.target(t)
	ctx := context.Background()
	p, err := targets.Make(ctx, request(l, tg))
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := targets.Apply(ctx, targets.Rollout{Plan: p, Devices: l.devs, Target: tg, Platforms: request(l, tg).Platforms,
		Wave: targets.Size{Percent: 100}, Parallelism: 8, ConfirmTimeout: time.Minute, Timeout: time.Minute}); err != nil || rep.Failed {
		t.Fatalf("apply: %v %+v", err, rep)
	}
	before := l.leaves(t, d.Name)
	ports := doctor.Ports{Target: tg, Platforms: request(l, tg).Platforms, Fabric: irtest.Fabric(), ConfirmTimeout: time.Minute, Timeout: time.Minute}
	out, err := q.SetPorts(ctx, ports)
	if err != nil || out[0].State != targets.Applied || out[0].Before != renderers.AdminUp {
		t.Fatalf("quarantine: %+v, %v", out, err)
	}
	enabled := fmt.Sprintf("/interfaces/interface[name=%s]/config/enabled", port.Name)
	diff := diffLeaves(before, l.leaves(t, d.Name))
	if len(diff) != 1 || diff[0] != "+ "+enabled+" = bool_val:false" && diff[0] != "~ "+enabled+": bool_val:true -> bool_val:false" {
		t.Fatalf("the shut changed:\n%v\nwant only %s false", diff, enabled)
	}
	r := q.Release(doctor.Record(nil, q, out), nil)
	if out, err := r.SetPorts(ctx, ports); err != nil || out[0].State != targets.Applied {
		t.Fatalf("release: %+v, %v", out, err)
	}
	after := l.leaves(t, d.Name)
	if v := after[enabled]; v != "bool_val:true" {
		t.Errorf("%s after the release: %q", enabled, v)
	}
	delete(after, enabled)
	delete(before, enabled)
	if diff := diffLeaves(before, after); len(diff) > 0 {
		t.Errorf("the release left:\n%v", diff)
	}
}
