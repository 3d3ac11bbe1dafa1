package routing

import (
	"context"
	"fmt"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/targets/gnmi"
	"github.com/rocefab/rocefab/targets/host"
	"github.com/rocefab/rocefab/targets/ssh"
)

// How Counters reaches a device, as Via names it.
const (
	// ViaGNMI is a switch whose gNMI server answers Counters.GetState.
	ViaGNMI = "gnmi"
	// ViaCLI is a switch reached over SSH, whose CLI (or, on SONiC,
	// shell) answers Counters.Show.
	ViaCLI = "cli"
	// ViaShell is a server whose shell answers Counters.Run.
	ViaShell = "shell"
)

// Counters reads devices' counters through the transports the inventory
// gives them, for doctor --sample: the same gNMI, SSH and host targets
// plan and apply use, asked only to read.
type Counters struct {
	r *routed // nil: the route reads running/ beside the intent
}

// Counters returns the route's counter reader.
func (r *Route) Counters() *Counters {
	rt, _ := r.Target.(*routed)
	return &Counters{r: rt}
}

// Via says how d's counters are read: ViaGNMI, ViaCLI or ViaShell, or
// why they cannot be.
func (c *Counters) Via(d *ir.Device) (string, error) {
	if c.r == nil {
		return "", fmt.Errorf("%s: without --inventory rocefab reads running/ beside the intent, which holds no counters: give the inventory that reaches the devices", d.Name)
	}
	t, err := c.r.to(d)
	if err != nil {
		return "", err
	}
	switch t.(type) {
	case *host.Target:
		return ViaShell, nil
	case *ssh.Target:
		return ViaCLI, nil
	case *gnmi.Target:
		return ViaGNMI, nil
	}
	return "", fmt.Errorf("%s: the inventory reads it from running/ beside the intent (transport \"dir\"), which holds no counters: reach it over gnmi or ssh", d.Name)
}

// GetState returns d's answer to a gNMI Get of the state at paths.
func (c *Counters) GetState(ctx context.Context, d *ir.Device, paths []string) ([]*gpb.Notification, error) {
	if g, ok := c.route(d).(*gnmi.Target); ok {
		return g.GetState(ctx, d, paths)
	}
	return nil, fmt.Errorf("%s: not reached over gNMI", d.Name)
}

// Run runs a command that only reads on server d, over SSH or here.
func (c *Counters) Run(ctx context.Context, d *ir.Device, argv []string) ([]byte, error) {
	if h, ok := c.route(d).(*host.Target); ok {
		return h.Run(ctx, d, argv)
	}
	return nil, fmt.Errorf("%s: not reached over SSH", d.Name)
}

// Show runs commands that only read on switch d over SSH and returns
// what each printed.
func (c *Counters) Show(ctx context.Context, d *ir.Device, cmds []string) ([]string, error) {
	if s, ok := c.route(d).(*ssh.Target); ok {
		return s.Show(ctx, d, cmds)
	}
	return nil, fmt.Errorf("%s: not reached over SSH", d.Name)
}

// route is d's target, nil when it has none.
func (c *Counters) route(d *ir.Device) any {
	if c.r == nil {
		return nil
	}
	return c.r.route[d.Name]
}
