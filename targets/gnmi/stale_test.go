package gnmi_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/openconfig/ygot/ygot"
	"google.golang.org/protobuf/encoding/prototext"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/gnmi/gnmitest"
)

// setLeaf sets one leaf of a device behind rocefab's back, as other
// automation does.
func setLeaf(t *testing.T, tg targets.Target, d *ir.Device, path, jsonVal string) {
	t.Helper()
	p, err := ygot.StringToStructuredPath(path)
	if err != nil {
		t.Fatal(err)
	}
	req := &gpb.SetRequest{Update: []*gpb.Update{{Path: p, Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(jsonVal)}}}}}
	b, err := prototext.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.Push(context.Background(), d, renderers.Remediation{Format: renderers.Prototext, Content: b}); err != nil {
		t.Fatalf("%s: setting %s: %v", d.Name, path, err)
	}
}

// TestStaleOwnedOnly: a saved plan goes stale when a switch's owned
// configuration changed since (apply names the switch and the path) and
// not when only its foreign configuration did (the loopback's
// description), which apply then keeps.
func TestStaleOwnedOnly(t *testing.T) {
	f := irtest.Fabric()
	servers := map[string]*gnmitest.Server{}
	var devs []*ir.Device
	for _, d := range f.Switches() {
		servers[d.Name] = serveDrifted(t, d, gnmitest.Options{})
		devs = append(devs, d)
	}
	tg := target(t, servers, nil)
	req := targets.Request{Devices: devs, Target: tg, Parallelism: 4,
		Platforms: func(*ir.Device) (renderers.Platform, error) { return platform, nil }}
	rollout := func(p *targets.Plan) targets.Rollout {
		return targets.Rollout{Plan: p, Devices: devs, Target: tg, Platforms: req.Platforms,
			ConfirmTimeout: time.Minute, Timeout: 10 * time.Second}
	}
	ctx := context.Background()
	p, err := targets.Make(ctx, req)
	if err != nil {
		t.Fatal(err)
	}

	owned, foreignDev := devs[0], devs[1]
	mtu := "/interfaces/interface[name=" + owned.Switch.Ports[0].Name + "]/config/mtu"
	setLeaf(t, tg, owned, mtu, "1234")
	setLeaf(t, tg, foreignDev, "/interfaces/interface[name=Loopback0]/config/description", `"router id, renumbered"`)
	_, err = targets.Apply(ctx, rollout(p))
	se, ok := errors.AsType[*targets.StaleError](err)
	if !ok || len(se.Devices) != 1 || se.Devices[0].Device != owned.Name || !strings.Contains(err.Error(), mtu+" changed") {
		t.Fatalf("apply after an owned and a foreign change: %v, want %s stale at %s only", err, owned.Name, mtu)
	}

	p, err = targets.Make(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	setLeaf(t, tg, foreignDev, "/interfaces/interface[name=Loopback0]/config/description", `"router id, again"`)
	rep, err := targets.Apply(ctx, rollout(p))
	if err != nil {
		t.Fatalf("a foreign change staled the plan: %v", err)
	}
	if rep.Failed || rep.Counts()[targets.Applied] != len(devs) {
		t.Errorf("apply: %+v", rep)
	}
	if !strings.Contains(string(servers[foreignDev.Name].Config()), "router id, again") {
		t.Errorf("%s: the foreign change is gone", foreignDev.Name)
	}
}
