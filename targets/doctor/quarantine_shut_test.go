package doctor_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/doctor"
	"github.com/rocefab/rocefab/targets/routing"
)

// spineCablePlan is the quarantine plan of pod-2048 with a lossy spine
// cable: leaf-r2-03's first uplink counts no error, the spine end counts
// 25 FCS errors a second. It returns the plan and the spine port.
func spineCablePlan(t *testing.T) (*doctor.Quarantine, doctor.Endpoint) {
	t.Helper()
	s, _, far := lossySpineCable(t)
	q := doctor.NewQuarantine(diagnosed(t, "lossy spine cable", s), doctor.IntentRef{}, "test", "scenario")
	return q, doctor.Endpoint{Device: far[0], Port: far[1]}
}

// leafCablePlan is the quarantine plan of faultyFabric (a NIC that stops
// draining, and gpu-0100's rail-2 cable counting FCS errors at its
// leaf). It returns the plan and the leaf port.
func leafCablePlan(t *testing.T) (*doctor.Quarantine, doctor.Endpoint) {
	t.Helper()
	rep, _ := faultyFabric(t)
	fab := fabric(t, "pod-2048")
	nic := nicOf(t, fab, "gpu-0100", 2)
	for _, d := range fab.Devices {
		if d.Name != nic[0] {
			continue
		}
		for _, n := range d.Host.NICs {
			if n.Port == nic[1] {
				return doctor.NewQuarantine(rep, doctor.IntentRef{}, "test", "scenario"), doctor.Endpoint{Device: n.Peer, Port: n.PeerPort}
			}
		}
	}
	t.Fatalf("no leaf port faces %v", nic)
	return nil, doctor.Endpoint{}
}

// cablePlans are the quarantine plans of a lossy cable, each with the
// switch port it shuts.
var cablePlans = []struct {
	name string
	plan func(*testing.T) (*doctor.Quarantine, doctor.Endpoint)
}{{"spine cable", spineCablePlan}, {"leaf cable", leafCablePlan}}

// TestQuarantineShutPlan: the quarantine plan of a lossy spine cable
// shuts exactly the spine's end and drains nobody; that of a lossy server
// cable shuts exactly the leaf's end besides its drains. The plan reads
// back; an edited shut is refused by the digest, and one made to match
// the digest is refused by the model when its port is not the switch end
// of the finding's cable.
func TestQuarantineShutPlan(t *testing.T) {
	fab := fabric(t, "pod-2048")
	for _, c := range cablePlans {
		t.Run(c.name, func(t *testing.T) {
			q, port := c.plan(t)
			if len(q.Shuts) != 1 || q.Shuts[0].Port != port || q.Shuts[0].Admin != renderers.AdminDown {
				t.Fatalf("shuts %+v, want exactly %s down", q.Shuts, port)
			}
			if c.name == "spine cable" && len(q.Drains) != 0 {
				t.Errorf("a spine cable drains %v", q.Nodes())
			}
			if err := q.Check(fab); err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := q.Write(&b); err != nil {
				t.Fatal(err)
			}
			if _, err := doctor.ReadQuarantine(b.Bytes()); err != nil {
				t.Fatal(err)
			}
			other := fab.Devices[0]
			for _, d := range fab.Devices {
				if d.Switch != nil && d.Name != port.Device && d.Platform == devOf(t, fab, port.Device).Platform {
					other = d
					break
				}
			}
			edited := *q
			edited.Shuts = slices.Clone(q.Shuts)
			edited.Shuts[0].Port.Device = other.Name
			var bad bytes.Buffer
			if err := edited.Write(&bad); err != nil {
				t.Fatal(err)
			}
			if _, err := doctor.ReadQuarantine(bad.Bytes()); err == nil || !strings.Contains(err.Error(), "edited") {
				t.Errorf("an edited shut port: %v, want it refused as edited", err)
			}
			moved := *q
			moved.Shuts = slices.Clone(q.Shuts)
			moved.Shuts[0].Port = doctor.Endpoint{Device: port.Device, Port: otherPort(t, fab, port)}
			if err := moved.Check(fab); err == nil || !strings.Contains(err.Error(), "neither the origin") {
				t.Errorf("a shut of another port of the switch: %v", err)
			}
			moved.Shuts[0] = q.Shuts[0]
			moved.Shuts[0].Origin, moved.Shuts[0].Port = doctor.Endpoint{Device: port.Device, Port: otherPort(t, fab, port)}, doctor.Endpoint{Device: port.Device, Port: otherPort(t, fab, port)}
			if err := moved.Check(fab); err == nil || !strings.Contains(err.Error(), "not the cable of the finding") {
				t.Errorf("a shut whose origin was moved along: %v", err)
			}
			moved.Shuts[0] = q.Shuts[0]
			moved.Shuts[0].Port, moved.Shuts[0].Origin = doctor.Endpoint{Device: "gpu-0001", Port: "eth2"}, doctor.Endpoint{Device: "gpu-0001", Port: "eth2"}
			if err := moved.Check(fab); err == nil || !strings.Contains(err.Error(), "not a switch") {
				t.Errorf("a shut of a server port: %v", err)
			}
		})
	}
}

// devOf returns the device named name.
func devOf(t *testing.T, fab *ir.Fabric, name string) *ir.Device {
	t.Helper()
	for _, d := range fab.Devices {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("no device %s", name)
	return nil
}

// otherPort returns a port of the same switch other than p's.
func otherPort(t *testing.T, fab *ir.Fabric, p doctor.Endpoint) string {
	t.Helper()
	for _, sp := range devOf(t, fab, p.Device).Switch.Ports {
		if sp.Name != p.Port && sp.Peer != "" {
			return sp.Name
		}
	}
	t.Fatalf("%s has one port", p.Device)
	return ""
}

// dirRoute copies the running files of pod-2048's devices into a new
// intent directory and routes them through the directory target, as apply
// does without an inventory.
func dirRoute(t *testing.T, fab *ir.Fabric, devices ...string) (*routing.Route, string) {
	t.Helper()
	dir := t.TempDir()
	for _, name := range devices {
		src := filepath.Join(rendertest.RepoRoot(t), "examples", "pod-2048", "running", name)
		entries, err := os.ReadDir(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "running", name), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "running", name, e.Name()), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	r, _, err := routing.Reach(routing.Options{Dir: dir, Devices: fab.Devices})
	if err != nil {
		t.Fatal(err)
	}
	return r, dir
}

// readRunning reads what d runs through route and the platform that
// reads it.
func readRunning(t *testing.T, route *routing.Route, d *ir.Device) (renderers.Platform, []renderers.Artifact) {
	t.Helper()
	arts, err := route.Target.Read(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	p, err := route.Platforms(d)
	if err != nil {
		t.Fatal(err)
	}
	return p, arts
}

// portState reads port's administrative state through route.
func portState(t *testing.T, route *routing.Route, fab *ir.Fabric, port doctor.Endpoint) renderers.AdminState {
	t.Helper()
	d := devOf(t, fab, port.Device)
	p, arts := readRunning(t, route, d)
	st, err := p.(renderers.PortAdmin).AdminState(d, arts, port.Port)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// owned returns the elements of the owned scope that d runs through
// route.
func owned(t *testing.T, route *routing.Route, d *ir.Device) []renderers.Element {
	t.Helper()
	p, arts := readRunning(t, route, d)
	st, err := p.Parse(d, arts)
	if err != nil {
		t.Fatal(err)
	}
	return st.Elements()
}

// shutAndRelease applies q's shuts through route, checks the port is
// down with the rest of the owned scope as it was, makes the release plan
// from what the apply recorded, applies it and checks the port is up.
func shutAndRelease(t *testing.T, route *routing.Route, fab *ir.Fabric, q *doctor.Quarantine, port doctor.Endpoint) {
	t.Helper()
	ctx := context.Background()
	d := devOf(t, fab, port.Device)
	before := owned(t, route, d)
	ports := doctor.Ports{Target: route.Target, Platforms: route.Platforms, Fabric: fab, ConfirmTimeout: 30 * time.Second, Timeout: 20 * time.Second}
	out, err := q.SetPorts(ctx, ports)
	if err != nil || len(out) != 1 || out[0].State != targets.Applied || out[0].Before != renderers.AdminUp {
		t.Fatalf("quarantine: %+v, %v", out, err)
	}
	if st := portState(t, route, fab, port); st != renderers.AdminDown {
		t.Fatalf("%s is %s after the quarantine", port, st)
	}
	// Nothing of the owned scope changes but, where the platform owns it
	// (NX-OS, SONiC), the port's administrative state.
	if ch := renderers.DiffElements(before, owned(t, route, d), nil); len(ch) > 1 || len(ch) == 1 && !strings.Contains(ch[0].Path, port.Port) {
		t.Errorf("the shut changed the owned scope of %s: %+v", d.Name, ch)
	}
	rec := doctor.Record(nil, q, out)
	// Applying the quarantine again finds the port down: the record keeps
	// that the quarantine shut it.
	again, err := q.SetPorts(ctx, ports)
	if err != nil || again[0].State != targets.Unchanged {
		t.Fatalf("quarantine again: %+v, %v", again, err)
	}
	rec = doctor.Record(rec, q, again)
	r := q.Release(rec, nil)
	if len(r.Shuts) != 1 || r.Shuts[0].Port != port || r.Shuts[0].Admin != renderers.AdminUp {
		t.Fatalf("release shuts %+v", r.Shuts)
	}
	if err := r.Check(fab); err != nil {
		t.Fatal(err)
	}
	out, err = r.SetPorts(ctx, ports)
	if err != nil || out[0].State != targets.Applied || out[0].Before != renderers.AdminDown {
		t.Fatalf("release: %+v, %v", out, err)
	}
	if st := portState(t, route, fab, port); st != renderers.AdminUp {
		t.Fatalf("%s is %s after the release", port, st)
	}
}

// TestQuarantineShutDirectory shuts the spine end of a lossy spine cable
// (NVUE) and the leaf end of a lossy server cable (EOS) in pod-2048's
// running files through the directory target, and releases them. A port
// that was down before the quarantine stays down: the release plan does
// not name it.
func TestQuarantineShutDirectory(t *testing.T) {
	fab := fabric(t, "pod-2048")
	for _, c := range cablePlans {
		t.Run(c.name, func(t *testing.T) {
			q, port := c.plan(t)
			route, _ := dirRoute(t, fab, port.Device)
			shutAndRelease(t, route, fab, q, port)

			// Down before the quarantine: nothing pushed, nothing released.
			// (No durations given: apply's defaults, not an instant
			// timeout.)
			ports := doctor.Ports{Target: route.Target, Platforms: route.Platforms, Fabric: fab}
			setDown(t, route, fab, port)
			out, err := q.SetPorts(context.Background(), ports)
			if err != nil || out[0].State != targets.Unchanged || out[0].Before != renderers.AdminDown {
				t.Fatalf("quarantine of a port already down: %+v, %v", out, err)
			}
			if r := q.Release(doctor.Record(nil, q, out), nil); len(r.Shuts) != 0 {
				t.Errorf("the release brings up %+v, which was down before the quarantine", r.Shuts)
			}
		})
	}
}

// setDown shuts port by hand, as an operator before the quarantine.
func setDown(t *testing.T, route *routing.Route, fab *ir.Fabric, port doctor.Endpoint) {
	t.Helper()
	d := devOf(t, fab, port.Device)
	p, err := route.Platforms(d)
	if err != nil {
		t.Fatal(err)
	}
	rem, err := p.(renderers.PortAdmin).AdminRemediation(d, port.Port, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := route.Target.Push(context.Background(), d, rem); err != nil {
		t.Fatal(err)
	}
}
