package ssh

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// nxos drives a Cisco NX-OS CLI. Configuration lines take effect as they
// are typed, so the transaction is a checkpoint file taken before them:
// a refused line rolls the switch back to it at once, and an unconfirmed
// push is rolled back to it by rocefab's timer (NX-OS has no timer for a
// change made line by line; `configure replace ... commit-timeout` needs a
// whole configuration file on the switch). The command forms, and where
// they come from:
//
//   - paging and width off on login, and the errors NX-OS prints (`%
//     Invalid command`, `% Invalid input detected`, `ERROR:`, ...):
//     scrapli/scrapligo@v1.4.3 assets/platforms/cisco_nxos.yaml;
//   - `terminal dont-ask`, `checkpoint file NAME`, `rollback
//     running-config file NAME` (answered "... completed ..." or
//     "Rollback failed."), `delete NAME`: napalm-automation/napalm@ee70e634
//     napalm/nxos/nxos.py (_save_to_checkpoint, _delete_file) and
//     napalm/nxos_ssh/nxos_ssh.py (rollback);
//   - `copy running-config startup-config`: the save napalm's NX-OS SSH
//     driver runs after every commit (napalm/nxos_ssh/nxos_ssh.py
//     _copy_run_start, netmiko's save_config default);
//   - `show diff rollback-patch file NAME running-config`: the rollback
//     patch between a checkpoint and the running configuration (Cisco
//     Nexus 9000 NX-OS System Management Configuration Guide,
//     "Configuring the Rollback Feature"; napalm diffs two files with the
//     same command);
//   - `show running-config` starts with a `!Time:` line of the moment it
//     was printed (napalm@ee70e634 test/nxos/mocked_data/test_get_config/
//     normal/show_running-config.json): it is dropped, so that reading an
//     unchanged switch twice gives the same bytes.
type nxos struct{}

func (nxos) scrapli() string   { return "cisco_nxos" }
func (nxos) deviceTimer() bool { return false }

func (nxos) read(c *cli) ([]byte, error) {
	out, err := c.send("show running-config")
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, l := range strings.SplitAfter(strings.TrimLeft(out, "\n"), "\n") {
		if strings.HasPrefix(l, "!Time:") {
			continue
		}
		b.WriteString(l)
	}
	s := b.String()
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return []byte(s), nil
}

// push names the checkpoint file tx.
func (x nxos) push(c *cli, tx string, lines []string, timer time.Duration, diff func(string)) (string, error) {
	return tx, x.checkpointed(c, tx, lines, timer, diff)
}

func (x nxos) checkpointed(c *cli, tx string, lines []string, timer time.Duration, diff func(string)) error {
	for _, cmd := range []string{"terminal dont-ask", "checkpoint file " + tx, "configure terminal"} {
		if _, err := c.send(cmd); err != nil {
			return fmt.Errorf("%w; nothing was entered", err)
		}
	}
	for i, l := range lines {
		if _, err := c.send(l); err != nil {
			var de *DeviceError
			if !errors.As(err, &de) {
				return fmt.Errorf("%w, after %d of %d lines, which NX-OS applied as they came: the checkpoint %s taken before them restores the switch", err, i, len(lines), tx)
			}
			err = fmt.Errorf("%w (line %d of %d)", err, i+1, len(lines))
			if _, eerr := c.send("end"); eerr != nil {
				return fmt.Errorf("%w; leaving configuration mode failed (%v): the checkpoint %s restores the switch", err, eerr, tx)
			}
			if rerr := x.restore(c, tx); rerr != nil {
				return fmt.Errorf("%w; rolling back to the checkpoint failed: %v", err, rerr)
			}
			return &undone{fmt.Errorf("%w; the switch was rolled back to the checkpoint taken before the push", err)}
		}
	}
	if _, err := c.send("end"); err != nil {
		return fmt.Errorf("%w: the lines are applied; the checkpoint %s restores the switch", err, tx)
	}
	if diff != nil {
		// The switch's own account of the change; a switch that cannot
		// print it still took the change.
		if out, err := c.send("show diff rollback-patch file " + tx + " running-config"); err == nil {
			diff(out)
		}
	}
	if timer > 0 {
		return nil
	}
	return x.confirm(c, tx)
}

// restore rolls the switch back to the checkpoint and deletes it.
func (nxos) restore(c *cli, tx string) error {
	out, err := c.send("rollback running-config file " + tx)
	if err != nil {
		return err
	}
	if strings.Contains(out, "Rollback failed") || !strings.Contains(strings.ToLower(out), "completed") {
		return &DeviceError{Device: c.device, Command: "rollback running-config file " + tx, Output: out}
	}
	if _, err := c.send("delete " + tx); err != nil {
		return fmt.Errorf("rolled back, but the checkpoint file stays: %w", err)
	}
	return nil
}

func (nxos) confirm(c *cli, tx string) error {
	for _, cmd := range []string{"terminal dont-ask", "copy running-config startup-config"} {
		if _, err := c.send(cmd); err != nil {
			return err
		}
	}
	// The change is saved: a checkpoint file that cannot be deleted is
	// left behind, and the push stays confirmed.
	_, _ = c.send("delete " + tx)
	return nil
}

func (x nxos) rollback(c *cli, tx string) error {
	if _, err := c.send("terminal dont-ask"); err != nil {
		return err
	}
	return x.restore(c, tx)
}
