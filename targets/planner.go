package targets

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// FabricRequest is what PlanFabric plans: the devices of a fabric (all of
// its devices, or those a command selected), read through Target and
// modelled by Platforms, up to Parallelism devices at once.
type FabricRequest struct {
	Fabric      *ir.Fabric
	Devices     []*ir.Device
	Target      Target
	Platforms   Platforms
	Parallelism int
}

// PlanFabric plans the selected devices as the pipeline build renders with
// (renderers.RenderFabric) gives their desired states: each device is read
// and diffed (Make) as soon as its state is rendered, up to Parallelism
// devices at once, so that a plan holds no more desired states than
// devices in flight. A device whose state cannot be computed is planned
// failed with why, as the platform itself would have it; the plan marks
// every unconfirmed commit it finds (MarkPending). The error is only for
// a plan that could not be made at all (ctx cancelled).
func PlanFabric(ctx context.Context, req FabricRequest) (*Plan, error) {
	sink := &planSink{req: req, ctx: ctx, plans: make(map[*ir.Device]DevicePlan, len(req.Devices)), shapes: NewShapes()}
	reg := renderers.Registry{Desired: func(d *ir.Device) renderers.Platform {
		p, err := req.Platforms(d)
		if err != nil {
			return nil // planned unsupported, with the platform's reason
		}
		return p
	}}
	err := renderers.RenderFabric(ctx, req.Fabric, req.Devices, reg, renderers.Options{Workers: req.Parallelism}, sink)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("plan interrupted: %w", context.Cause(ctx))
	}
	failed := map[string]error{}
	if err != nil {
		for _, e := range unjoin(err) {
			var de *renderers.DeviceError
			if !errors.As(e, &de) {
				return nil, err
			}
			failed[de.Device] = de.Err
		}
	}
	p := &Plan{PlanHead: PlanHead{FormatVersion: PlanFormatVersion}, Devices: make([]DevicePlan, 0, len(req.Devices))}
	for _, d := range req.Devices {
		dp, ok := sink.plans[d]
		if !ok {
			// Its desired state failed: the platform's Diff is never
			// reached, and the plan says why.
			cause := failed[d.Name]
			if cause == nil {
				cause = errors.New("no desired state was rendered for it")
			}
			one, err := sink.planOne(d, renderedPlatforms(req.Platforms, nil, cause))
			if err != nil {
				return nil, err
			}
			dp = one
		}
		p.Devices = append(p.Devices, dp)
	}
	slices.SortFunc(p.Devices, func(a, b DevicePlan) int { return strings.Compare(a.Device, b.Device) })
	// Each device planned through Make is marked already; this also marks
	// those whose desired state could not be rendered.
	if err := MarkPending(ctx, p, req.Target, req.Devices, req.Parallelism); err != nil {
		return nil, err
	}
	return p, nil
}

// unjoin returns the errors errors.Join joined into err, or err alone.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// planSink plans each device as its desired state is rendered.
type planSink struct {
	req   FabricRequest
	ctx   context.Context
	mu    sync.Mutex
	plans map[*ir.Device]DevicePlan
	// shapes keeps the devices' changes and remediations as they are
	// planned, once per shape: a fabric's first plan holds each device's
	// own values, not its text.
	shapes *Shapes
}

func (k *planSink) Device(r renderers.Rendered) error {
	dp, err := k.planOne(r.Device, renderedPlatforms(k.req.Platforms, r.Desired, nil))
	if err != nil {
		return err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.plans[r.Device] = dp
	return nil
}

func (k *planSink) Fabric([]renderers.Artifact) error { return nil }

// planOne reads and diffs one device against the target.
func (k *planSink) planOne(d *ir.Device, platforms Platforms) (DevicePlan, error) {
	p, err := Make(k.ctx, Request{Devices: []*ir.Device{d}, Target: k.req.Target, Platforms: platforms, Parallelism: 1})
	if err != nil {
		return DevicePlan{}, err
	}
	return k.shapes.Share(p.Devices[0])
}

// renderedPlatforms returns platforms whose desired state of the device is
// the one rendered (or the error it failed with).
func renderedPlatforms(platforms Platforms, desired renderers.State, err error) Platforms {
	return func(d *ir.Device) (renderers.Platform, error) {
		p, perr := platforms(d)
		if perr != nil || p == nil {
			return p, perr
		}
		return renderedPlatform{Platform: p, desired: desired, err: err}, nil
	}
}

// renderedPlatform is a platform whose desired state of its device was
// rendered beforehand; reading and diffing are the platform's own.
type renderedPlatform struct {
	renderers.Platform
	desired renderers.State
	err     error
}

// Desired returns the state rendered for the device, or why there is none.
func (p renderedPlatform) Desired(*ir.Device) (renderers.State, error) {
	if p.err != nil {
		return nil, p.err
	}
	if p.desired == nil {
		return nil, errors.New("no desired state was rendered for it")
	}
	return p.desired, nil
}
