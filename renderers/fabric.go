package renderers

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync"

	"github.com/rocefab/rocefab/compiler/ir"
)

// FabricRenderer renders files that belong to the whole fabric rather than
// to one device: tenants' environments, the host runtime, the schedulers'
// files, the inventory, the summary. earlier are the fabric-wide artifacts
// the renderers before it in the registry gave, in order, so that an index
// of the build (SUMMARY.md) lists exactly what was written.
type FabricRenderer interface {
	RenderFabric(f *ir.Fabric, earlier []Artifact) ([]Artifact, error)
}

// Registry is what RenderFabric renders with. It is given by the caller,
// the only one that knows the concrete renderers, rather than filled by
// init() side effects, so that a test or a command renders with exactly
// the renderers it names.
type Registry struct {
	// Device lists the renderers of a device's artifacts, in the order
	// their artifacts are given; nil renders no device artifacts.
	Device func(d *ir.Device) []Renderer
	// Desired returns the platform whose desired state of d is wanted
	// (nil for none, and for a device that no platform models: the caller
	// says why it has none where it needs one); nil computes no desired
	// states.
	Desired func(d *ir.Device) Platform
	// Fabric renders the fabric-wide artifacts, in order, while the devices
	// are rendered; the sink gets them once every device is rendered
	// without error. They read only the fabric, never a device's artifacts.
	Fabric []FabricRenderer
}

// Rendered is one device's part of a fabric.
type Rendered struct {
	Device *ir.Device
	// Artifacts are the device's files, in the registry's order.
	Artifacts []Artifact
	// Desired is the device's desired state, when the registry asks for it.
	Desired State
}

// Sink receives a fabric as RenderFabric renders it. Device is called for
// each device as soon as it is rendered, from several goroutines at once
// and in no particular order, so that a build writes its files while
// others are rendered and never holds a whole fabric's artifacts (gigabytes
// at 100,000 GPUs). Fabric is called once, last, with the fabric-wide
// artifacts. An error from either stops the rendering.
type Sink interface {
	Device(r Rendered) error
	Fabric(arts []Artifact) error
}

// A ContentDiscarder is a Sink that keeps nothing of an artifact's
// Content once Device returns, as a build that writes each file and drops
// it: RenderFabric then gives the buffers of the renderers' pooled
// artifacts (ContentPool) back for the next devices.
type ContentDiscarder interface {
	Sink
	DiscardsContent()
}

// Options tune RenderFabric; the zero value renders on every core.
type Options struct {
	// Workers bounds the devices rendered at once (GOMAXPROCS when 0 or
	// less).
	Workers int
	// Progress, when not nil, is called once for every device done,
	// rendered or failed, from the workers.
	Progress func()
}

// DeviceError is one device that could not be rendered (or whose
// rendering the sink refused).
type DeviceError struct {
	Device string
	Err    error
}

// Error names the device, then the cause.
func (e *DeviceError) Error() string { return e.Device + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *DeviceError) Unwrap() error { return e.Err }

// RenderFabric renders the devices devs of f (all of f's, or those a
// command selected) with the registry's renderers, spread over the cores,
// and hands each device's artifacts and desired state to sink as soon as
// they are made; then the fabric-wide artifacts, rendered meanwhile. Every
// byte depends only on f and the device, never on the order workers finish
// in.
//
// A device that fails does not stop the others: the error joins one
// *DeviceError per failed device, in the order of devs, and the
// fabric-wide artifacts do not reach the sink. A cancelled ctx stops the
// workers between devices and returns ctx's cause.
func RenderFabric(ctx context.Context, f *ir.Fabric, devs []*ir.Device, reg Registry, opt Options, sink Sink) error {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(len(devs), 1))
	errs := make([]error, len(devs))
	// The fabric-wide artifacts depend on f alone, not on the devices'
	// artifacts, so they are rendered beside the devices rather than after
	// them: the inventory and summary of a large fabric take as long as
	// hundreds of devices, and a serial tail leaves cores idle.
	var wide []Artifact
	var wideErr error
	wideDone := make(chan struct{})
	go func() {
		defer close(wideDone)
		wide, wideErr = renderWide(f, reg.Fabric)
	}()
	var wg sync.WaitGroup
	next := make(chan int, workers)
	for range workers {
		wg.Go(func() {
			for i := range next {
				// Devices already queued when the cancel came are
				// dropped, not rendered: a cancel stops at the devices
				// in flight.
				if ctx.Err() != nil {
					continue
				}
				if err := renderDevice(devs[i], reg, sink); err != nil {
					errs[i] = &DeviceError{Device: devs[i].Name, Err: err}
				}
				if opt.Progress != nil {
					opt.Progress()
				}
			}
		})
	}
feed:
	for _, i := range firstOfEachKind(devs) {
		// select picks at random among ready cases: test the cancel
		// first, so that a free slot in next never wins over it.
		if ctx.Err() != nil {
			break
		}
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	// An interrupted or failed rendering still waits for the fabric-wide
	// one, so that nothing of this call runs after it returns.
	<-wideDone
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: %w", context.Cause(ctx))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if wideErr != nil {
		return wideErr
	}
	if len(reg.Fabric) == 0 {
		return nil
	}
	return sink.Fabric(wide)
}

// firstOfEachKind returns the indexes of devs with the first device of each
// kind (platform, role, model) first, then the others in order. Devices of
// a kind share what a renderer makes once and reuses (an OpenConfig tree
// per shape, tens of milliseconds each), and a worker that meets a kind
// another is making waits for it: handing the kinds out first has them
// made side by side.
func firstOfEachKind(devs []*ir.Device) []int {
	type kind struct {
		platform, model string
		role            ir.Role
	}
	seen := map[kind]bool{}
	order := make([]int, 0, len(devs))
	var rest []int
	for i, d := range devs {
		k := kind{d.Platform, d.Model, d.Role}
		if seen[k] {
			rest = append(rest, i)
			continue
		}
		seen[k] = true
		order = append(order, i)
	}
	return append(order, rest...)
}

// renderWide renders the fabric-wide artifacts in the registry's order,
// each renderer given those before it. A panic is a renderer's bug; it
// becomes the error rather than end the process from a goroutine.
func renderWide(f *ir.Fabric, rs []FabricRenderer) (wide []Artifact, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error (a bug: please report it): %v", r)
		}
	}()
	for _, r := range rs {
		arts, err := r.RenderFabric(f, wide)
		if err != nil {
			return nil, err
		}
		wide = append(wide, arts...)
	}
	return wide, nil
}

// renderDevice renders one device and hands it to the sink. A panic in a
// renderer is the renderer's bug, but it would end the whole process from
// a worker goroutine: it becomes this device's error instead.
func renderDevice(d *ir.Device, reg Registry, sink Sink) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error (a bug: please report it): %v", r)
		}
	}()
	out := Rendered{Device: d}
	var p Platform
	if reg.Desired != nil {
		p = reg.Desired(d)
	}
	if reg.Device != nil {
		for _, r := range reg.Device(d) {
			if m, ok := r.(ModelRenderer); ok && p != nil && reflect.TypeOf(p) == reflect.TypeOf(r) {
				// The platform is this renderer: one model gives both.
				arts, s, err := m.RenderDesired(d)
				if err != nil {
					return err
				}
				out.Artifacts, out.Desired, p = append(out.Artifacts, arts...), s, nil
				continue
			}
			arts, err := r.Render(d)
			if err != nil {
				return err
			}
			out.Artifacts = append(out.Artifacts, arts...)
		}
	}
	if p != nil {
		s, err := p.Desired(d)
		if err != nil {
			return err
		}
		out.Desired = s
	}
	if err := sink.Device(out); err != nil {
		return err
	}
	// A desired state may share bytes with the artifacts it was printed
	// from: only a sink that took artifacts alone has let go of them all.
	if _, ok := sink.(ContentDiscarder); ok && out.Desired == nil {
		recycle(out.Artifacts)
	}
	return nil
}
