package ssh

import (
	"context"

	"github.com/rocefab/rocefab/compiler/ir"
)

// Show runs one command that only reads (a counters command) on d's CLI,
// or on its shell for the platforms driven through one (SONiC), and
// returns what it printed. Nothing is configured: no session, no commit.
func (t *Target) Show(ctx context.Context, d *ir.Device, command string) (string, error) {
	c, _, err := t.open(ctx, d)
	if err != nil {
		return "", err
	}
	defer c.close()
	if c.d == nil {
		return c.run(command, nil)
	}
	return c.send(command)
}
