package ssh

import (
	"context"

	"github.com/rocefab/rocefab/compiler/ir"
)

// Show runs commands that only read on d, in one login, and returns what
// each printed: at the CLI's prompt with paging off, or, on a device whose
// management is a Linux shell (SONiC), one channel each, a failure's
// exit status an *ExitError. A command the CLI refuses is a *DeviceError.
// It is how doctor --sample reads a switch's counters over SSH; nothing
// is configured or committed.
func (t *Target) Show(ctx context.Context, d *ir.Device, cmds []string) ([]string, error) {
	c, drv, err := t.open(ctx, d)
	if err != nil {
		return nil, err
	}
	defer c.close()
	sd, shell := drv.(shellDriver)
	shell = shell && sd.shell()
	outs := make([]string, 0, len(cmds))
	for _, cmd := range cmds {
		var out string
		if shell {
			out, err = c.run(cmd, nil)
		} else {
			out, err = c.send(cmd)
		}
		if err != nil {
			return nil, err
		}
		outs = append(outs, out)
	}
	return outs, nil
}
