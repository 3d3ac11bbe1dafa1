package ssh

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rocefab/rocefab/renderers"
)

// sonic drives a SONiC switch through its Linux shell, one command per
// SSH channel (no CLI session: each command's exit status says whether it
// failed, and the patch goes in as a command's input). The transaction is
// a GCU checkpoint of the whole CONFIG_DB taken before the RFC 6902 patch
// is applied; SONiC has no commit timer, so rocefab keeps the confirm
// timer and rolls back to the checkpoint when it lapses. The command
// forms, and where they come from (sonic-net/sonic-utilities@691b1bbc):
//
//   - `sonic-cfggen -d --print-data`: CONFIG_DB as JSON, the way `show
//     runningconfiguration all` and the config updater read it
//     (show/main.py get_config_json_by_namespace,
//     generic_config_updater/gu_common.py), and the form the sonic
//     platform parses;
//   - `config checkpoint NAME` ("Checkpoint created successfully."),
//     `config apply-patch FILE` ("Patch applied successfully.", or
//     "Failed to apply patch due to: ..." and a failing exit status),
//     `config rollback NAME`, `config delete-checkpoint NAME`, `config save
//     -y` (config/main.py); they change the configuration, so they run
//     under `sudo -n`, which fails at once rather than asking a password
//     nobody would type;
//   - the patch is written to a file of the user's own under /tmp, with
//     umask 077, and removed after it was applied.
type sonic struct{}

func (sonic) scrapli() string          { return "" }
func (sonic) shell() bool              { return true }
func (sonic) deviceTimer() bool        { return false }
func (sonic) file() string             { return "config_db.json" }
func (sonic) format() renderers.Format { return renderers.JSON }

func (sonic) read(c *cli) ([]byte, error) {
	out, err := c.run("sonic-cfggen -d --print-data", nil)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return []byte(out), nil
}

// push names the checkpoint tx.
func (s sonic) push(c *cli, tx string, lines []string, timer time.Duration, diff func(string)) (string, error) {
	return tx, s.patch(c, tx, []byte(strings.Join(lines, "\n")+"\n"), timer, diff)
}

func (s sonic) patch(c *cli, tx string, patch []byte, timer time.Duration, diff func(string)) error {
	if _, err := c.run("sudo -n config checkpoint "+tx, nil); err != nil {
		return fmt.Errorf("%w; nothing was applied", err)
	}
	file := "/tmp/" + tx + ".json"
	if _, err := c.run("umask 077; cat > "+file, patch); err != nil {
		return s.undo(c, tx, fmt.Errorf("writing the patch: %w; nothing was applied", err))
	}
	out, err := c.run("sudo -n config apply-patch "+file, nil)
	// The patch file has done its work either way.
	_, _ = c.run("rm -f "+file, nil)
	if err != nil {
		var ee *ExitError
		if errors.As(err, &ee) {
			// GCU applies a patch in steps: a failed one may have left
			// some of them in effect, which the checkpoint takes back.
			return s.undo(c, tx, fmt.Errorf("%w; the switch was rolled back to the checkpoint taken before the patch", err))
		}
		return fmt.Errorf("%w: the patch may be partly applied; the checkpoint %s restores the switch", err, tx)
	}
	if diff != nil {
		diff(out)
	}
	if timer > 0 {
		return nil
	}
	return s.confirm(c, tx)
}

// undo rolls back to the checkpoint after err and deletes it.
func (s sonic) undo(c *cli, tx string, err error) error {
	if rerr := s.rollback(c, tx); rerr != nil {
		return fmt.Errorf("%w; rolling back to the checkpoint failed: %v", err, rerr)
	}
	return &undone{err}
}

func (sonic) confirm(c *cli, tx string) error {
	if _, err := c.run("sudo -n config save -y", nil); err != nil {
		return err
	}
	// The change is saved: a checkpoint that cannot be deleted is left
	// behind, and the push stays confirmed.
	_, _ = c.run("sudo -n config delete-checkpoint "+tx, nil)
	return nil
}

func (sonic) rollback(c *cli, tx string) error {
	if _, err := c.run("sudo -n config rollback "+tx, nil); err != nil {
		return err
	}
	_, _ = c.run("sudo -n config delete-checkpoint "+tx, nil)
	return nil
}
