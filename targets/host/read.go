package host

import (
	"context"
	"fmt"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
)

// Run runs argv on server d and returns what it printed on stdout: a
// command that only reads (doctor --sample's `ethtool -S` and reads of
// /sys), run without the sudo prefix, which reading needs not. A command
// that exits with a failure is an error carrying what it printed on
// stderr.
func (t *Target) Run(ctx context.Context, d *ir.Device, argv []string) ([]byte, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("%s: no command to run", d.Name)
	}
	s, err := t.open(ctx, d)
	if err != nil {
		return nil, err
	}
	defer s.close()
	ctx, cancel := context.WithTimeout(ctx, t.opts.CommandTimeout)
	defer cancel()
	r, err := s.conn.Run(ctx, argv, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	if r.Status != 0 {
		msg := strings.Join(strings.Fields(string(r.Stderr)), " ")
		if msg == "" {
			msg = "it printed nothing on stderr"
		}
		return nil, fmt.Errorf("%s: %s exited with status %d: %s", d.Name, argv[0], r.Status, msg)
	}
	return r.Stdout, nil
}
