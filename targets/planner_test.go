package targets_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/targets"
)

// countingTarget returns no running configuration for any device and
// counts the reads in flight.
type countingTarget struct {
	inFlight, most atomic.Int64
	mu             sync.Mutex
	read           map[string]int
}

func (t *countingTarget) Read(ctx context.Context, d *ir.Device) ([]renderers.Artifact, error) {
	n := t.inFlight.Add(1)
	defer t.inFlight.Add(-1)
	for {
		m := t.most.Load()
		if n <= m || t.most.CompareAndSwap(m, n) {
			break
		}
	}
	t.mu.Lock()
	t.read[d.Name]++
	t.mu.Unlock()
	return nil, nil
}

func (t *countingTarget) Push(context.Context, *ir.Device, renderers.Remediation) error {
	return errors.New("not in this test")
}

// namePlatform wants one element naming the device; its Desired fails
// for "bad", panics for "buggy".
type namePlatform struct{}

func (namePlatform) Desired(d *ir.Device) (renderers.State, error) {
	switch d.Name {
	case "bad":
		return nil, errors.New("no model of it")
	case "buggy":
		panic("index out of range")
	}
	return renderers.Elements{{Path: "name", Value: d.Name}}, nil
}

func (namePlatform) Parse(*ir.Device, []renderers.Artifact) (renderers.State, error) {
	return renderers.Elements{}, nil
}

func (namePlatform) Diff(_ *ir.Device, running, desired renderers.State) ([]renderers.Change, renderers.Remediation, error) {
	cs := renderers.DiffElements(running.Elements(), desired.Elements(), nil)
	return cs, renderers.Remediation{Format: renderers.Text, Content: []byte("set\n")}, nil
}

// TestPlanFabric: PlanFabric reads and diffs each device as its desired state
// is rendered, no more than --parallelism at once, once each; a device
// whose state fails or panics is planned failed with why, one no platform
// models unsupported, and the plan is in name order.
func TestPlanFabric(t *testing.T) {
	fab := &ir.Fabric{Name: "lab"}
	for i := range 40 {
		fab.Devices = append(fab.Devices, &ir.Device{Name: fmt.Sprintf("sw-%02d", 39-i), Platform: "p", Rail: -1})
	}
	for _, n := range []string{"bad", "buggy", "other"} {
		fab.Devices = append(fab.Devices, &ir.Device{Name: n, Platform: n, Rail: -1})
	}
	tgt := &countingTarget{read: map[string]int{}}
	p, err := targets.PlanFabric(context.Background(), targets.FabricRequest{Fabric: fab, Devices: fab.Devices, Target: tgt, Parallelism: 3,
		Platforms: func(d *ir.Device) (renderers.Platform, error) {
			if d.Platform == "other" {
				return nil, errors.New("no platform models other")
			}
			return namePlatform{}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Devices) != len(fab.Devices) || p.FormatVersion != targets.PlanFormatVersion {
		t.Fatalf("%d device plans for %d devices, format %d", len(p.Devices), len(fab.Devices), p.FormatVersion)
	}
	for i, dp := range p.Devices {
		if i > 0 && p.Devices[i-1].Device >= dp.Device {
			t.Errorf("plan not in name order: %s before %s", p.Devices[i-1].Device, dp.Device)
		}
		switch dp.Device {
		case "bad":
			if dp.Action != targets.Failed || dp.Reason != "computing its desired state: no model of it" {
				t.Errorf("bad: %s %q", dp.Action, dp.Reason)
			}
		case "buggy":
			if dp.Action != targets.Failed || dp.Reason != "computing its desired state: internal error (a bug: please report it): index out of range" {
				t.Errorf("buggy: %s %q", dp.Action, dp.Reason)
			}
		case "other":
			if dp.Action != targets.Unsupported || dp.Reason != "no platform models other" {
				t.Errorf("other: %s %q", dp.Action, dp.Reason)
			}
		default:
			// The plan shares each device's changes, and the desired
			// state they were diffed against, by shape.
			changes, _, err := dp.Body()
			if err != nil || dp.Action != targets.Create || len(changes) != 1 || *changes[0].After != dp.Device {
				t.Errorf("%s: %s %+v %v", dp.Device, dp.Action, changes, err)
			}
			want := []renderers.Element{{Path: "name", Value: dp.Device}}
			if es, err := dp.DesiredState(); dp.SharedDesired == nil || err != nil || !slices.Equal(es, want) {
				t.Errorf("%s: desired state %+v (shared %v), %v; want %+v", dp.Device, es, dp.SharedDesired != nil, err, want)
			}
		}
	}
	for name, n := range tgt.read {
		if n != 1 {
			t.Errorf("%s read %d times", name, n)
		}
	}
	if m := tgt.most.Load(); m > 3 {
		t.Errorf("%d devices read at once, --parallelism 3", m)
	}
}

// TestPlanFabricCancel: an interrupted plan says so and returns no plan.
func TestPlanFabricCancel(t *testing.T) {
	fab := &ir.Fabric{Name: "lab"}
	for i := range 10 {
		fab.Devices = append(fab.Devices, &ir.Device{Name: fmt.Sprintf("sw-%02d", i), Platform: "p", Rail: -1})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p, err := targets.PlanFabric(ctx, targets.FabricRequest{Fabric: fab, Devices: fab.Devices, Target: &countingTarget{read: map[string]int{}}, Parallelism: 2,
		Platforms: func(*ir.Device) (renderers.Platform, error) { return namePlatform{}, nil }})
	if err == nil || p != nil {
		t.Fatalf("plan %v, error %v; want an interrupted plan", p, err)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v does not say the plan was cancelled", err)
	}
}
