package ssh

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rocefab/rocefab/renderers"
)

// sonic drives a SONiC switch through its Linux shell, one command per
// SSH channel (no CLI session: each command's exit status says whether it
// failed, and a file's content goes in as a command's input). SONiC has
// no commit timer, so rocefab keeps the confirm timer and rolls back when
// it lapses.
//
// The remediation is the sonic platform's JSON object of up to five parts
// (the removal of rocefab's rows naming the ports a breakout deletes, as a
// patch for GCU or one GCU refuses; breakouts; an RFC 6902 patch for GCU;
// an RFC 6902 patch GCU refuses), run in that order inside one
// transaction. The transaction is a GCU
// checkpoint of the whole CONFIG_DB taken first; where the remediation
// breaks out a port or needs a config reload, the running CONFIG_DB is
// also kept as a file, because GCU's `config rollback` cannot recreate
// ports that a breakout removed nor undo what GCU refuses to apply: such
// a transaction (its name ends in [sonicReloadTx]) rolls back by putting
// the kept copy in /etc/sonic/config_db.json and reloading it.
//
// The command forms, and where they come from (sonic-net/sonic-utilities
// @691b1bbc4fd2b71657d1b0b334c37136deb51526):
//
//   - `sonic-cfggen -d --print-data`: CONFIG_DB as JSON, the way `show
//     runningconfiguration all` and the config updater read it
//     (show/main.py get_config_json_by_namespace,
//     generic_config_updater/gu_common.py), and the form the sonic
//     platform parses;
//   - `config checkpoint NAME` ("Checkpoint created successfully."),
//     `config rollback NAME`, `config delete-checkpoint NAME`
//     (config/main.py);
//   - `config interface breakout PORT MODE -y` (config/main.py breakout;
//     doc/Command-Reference.md "config interface breakout"): it deletes
//     the parent's ports and creates the mode's, so those links flap. It
//     runs without -f (--force-remove-dependencies): configuration that
//     refers to a port it deletes makes it refuse rather than have that
//     configuration, perhaps not rocefab's, deleted unasked;
//   - `config apply-patch FILE`, FILE an RFC 6902 JSON array (config/main.py
//     apply_patch; generic_config_updater/main.py validate_patch_format
//     refuses anything else with "Invalid patch format in file"): "Patch
//     applied successfully.", or "Failed to apply patch due to: ..." and a
//     failing exit status;
//   - `config save -y` writes CONFIG_DB to /etc/sonic/config_db.json;
//     `config reload -y` clears CONFIG_DB and loads that file, restarting
//     the switch's services (config/main.py save and reload;
//     doc/Command-Reference.md "config save", "config reload");
//   - a file reaches /etc/sonic by `install -m 644` (GNU coreutils) beside
//     its destination, then `mv -f` over it: a rename within one
//     directory, so a reload never reads half a file;
//   - what changes the configuration runs under `sudo -n`, which fails at
//     once rather than asking a password nobody would type; rocefab's own
//     files are written under /tmp with umask 077 and removed when done.
type sonic struct{}

// sonicReloadTx ends the name of a transaction that rolls back by a
// config reload of the CONFIG_DB kept before it.
const sonicReloadTx = "-r"

// sonicConfigDB is the file `config save` writes and `config reload` reads.
const sonicConfigDB = "/etc/sonic/config_db.json"

func (sonic) scrapli() string          { return "" }
func (sonic) shell() bool              { return true }
func (sonic) deviceTimer() bool        { return false }
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

// sonicRemediation is the sonic platform's remediation (renderers/sonic
// Remediation), decoded here since a target does not import a platform.
type sonicRemediation struct {
	BreakoutPrep       []patchOp `json:"breakout-prep"`
	BreakoutPrepReload []patchOp `json:"breakout-prep-reload"`
	Breakout           []struct {
		Port string `json:"port"`
		Mode string `json:"mode"`
	} `json:"breakout"`
	ApplyPatch   []patchOp `json:"apply-patch"`
	ConfigReload []patchOp `json:"config-reload"`
}

// push runs the remediation in the transaction tx, or tx with
// [sonicReloadTx] when it breaks out a port or needs a reload.
func (s sonic) push(c *cli, tx string, lines []string, timer time.Duration, diff func(string)) (string, error) {
	var rem sonicRemediation
	dec := json.NewDecoder(strings.NewReader(strings.Join(lines, "\n")))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rem); err != nil {
		return "", &undone{fmt.Errorf("%s: the remediation is not the sonic platform's (an object of breakout-prep, breakout-prep-reload, breakout, apply-patch and config-reload): %v; nothing was applied", c.device, err)}
	}
	for _, b := range rem.Breakout {
		if !sonicWord(b.Port) || !sonicWord(b.Mode) {
			return "", &undone{fmt.Errorf("%s: breakout of port %q to mode %q: a port is a name and a mode like 2x400G[200G], of letters, digits and _-[]().+; nothing was applied", c.device, b.Port, b.Mode)}
		}
	}
	if len(rem.Breakout) > 0 || len(rem.ConfigReload) > 0 || len(rem.BreakoutPrepReload) > 0 {
		tx += sonicReloadTx
	}
	return tx, s.patch(c, tx, rem, timer, diff)
}

// sonicWord reports whether s can be a port name or breakout mode typed
// on a shell's command line as it is (platform.json modes such as
// "4x25G[10G]" or "2x200G(4)+1x400G"), quoted by [sonicQuote].
func sonicWord(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("_-[]().+", r):
		default:
			return false
		}
	}
	return true
}

// sonicQuote quotes a word for the shell: breakout modes hold brackets,
// which a shell would take as a pattern.
func sonicQuote(s string) string { return "'" + s + "'" }

func (s sonic) patch(c *cli, tx string, rem sonicRemediation, timer time.Duration, diff func(string)) error {
	reload := strings.HasSuffix(tx, sonicReloadTx)
	if _, err := c.run("sudo -n config checkpoint "+tx, nil); err != nil {
		return fmt.Errorf("%w; nothing was applied", err)
	}
	var shown []string
	if reload {
		before, err := c.run("sonic-cfggen -d --print-data", nil)
		if err == nil {
			_, err = c.run("umask 077; set -C; cat > "+sonicKept(tx), []byte(before))
		}
		if err != nil {
			// Nothing was applied: the checkpoint has no use left. The
			// file is left: a write that set -C refused is not ours.
			_, _ = c.run("sudo -n config delete-checkpoint "+tx, nil)
			return &undone{fmt.Errorf("keeping the running CONFIG_DB before a breakout or reload: %w; nothing was applied", err)}
		}
	}
	// failed explains err of a step after which the device may hold some
	// of the transaction: a refusal is rolled back at once, a lost
	// connection is left to the confirm timer, Rollback or the operator.
	failed := func(err error, step string) error {
		var ee *ExitError
		if errors.As(err, &ee) {
			return s.undo(c, tx, fmt.Errorf("%w; the switch was rolled back to what it ran before %s", err, step))
		}
		return fmt.Errorf("%w: %s may be partly applied; the transaction %s restores the switch", err, step, tx)
	}
	// patches runs a patch GCU takes, then one it refuses by reload.
	patches := func(patch, reload []patchOp, when string) error {
		if len(patch) > 0 {
			out, err := s.applyPatch(c, tx, patch)
			if err != nil {
				return failed(err, "the patch"+when)
			}
			shown = append(shown, strings.TrimSpace(out))
		}
		if len(reload) > 0 {
			out, err := s.reload(c, tx, reload)
			if err != nil {
				return failed(err, "the config reload"+when)
			}
			shown = append(shown, strings.TrimSpace(out))
		}
		return nil
	}
	if err := patches(rem.BreakoutPrep, rem.BreakoutPrepReload, " before the breakout"); err != nil {
		return err
	}
	for _, b := range rem.Breakout {
		out, err := c.run("sudo -n config interface breakout "+b.Port+" "+sonicQuote(b.Mode)+" -y", nil)
		if err != nil {
			return failed(err, "the breakout of "+b.Port)
		}
		shown = append(shown, strings.TrimSpace(out))
	}
	if err := patches(rem.ApplyPatch, rem.ConfigReload, ""); err != nil {
		return err
	}
	if diff != nil {
		var b strings.Builder
		for _, o := range shown {
			if o != "" {
				b.WriteString(o + "\n")
			}
		}
		if b.Len() > 0 {
			diff(b.String())
		}
	}
	if timer > 0 {
		return nil
	}
	return s.confirm(c, tx)
}

// applyPatch gives ops to `config apply-patch` as an RFC 6902 array.
func (sonic) applyPatch(c *cli, tx string, ops []patchOp) (string, error) {
	b, err := json.MarshalIndent(ops, "", "  ")
	if err != nil {
		return "", fmt.Errorf("%s: the patch: %w", c.device, err)
	}
	file := "/tmp/" + tx + ".json"
	if _, err := c.run("umask 077; set -C; cat > "+file, append(b, '\n')); err != nil {
		return "", fmt.Errorf("writing the patch: %w", err)
	}
	out, err := c.run("sudo -n config apply-patch "+file, nil)
	// The patch file has done its work either way.
	_, _ = c.run("rm -f "+file, nil)
	return out, err
}

// reload saves CONFIG_DB, applies ops to the saved file and reloads it.
func (s sonic) reload(c *cli, tx string, ops []patchOp) (string, error) {
	if _, err := c.run("sudo -n config save -y", nil); err != nil {
		return "", err
	}
	saved, err := c.run("cat "+sonicConfigDB, nil)
	if err != nil {
		return "", err
	}
	after, err := applyPatch([]byte(saved), ops)
	if err != nil {
		// Nothing refused it on the device: the patch does not fit the
		// saved file, which the device still runs unchanged.
		return "", &ExitError{Device: c.device, Command: "applying the config-reload patch to " + sonicConfigDB, Status: 1, Output: err.Error()}
	}
	if err := s.install(c, tx, after); err != nil {
		return "", err
	}
	return c.run("sudo -n config reload -y", nil)
}

// install writes content to /etc/sonic/config_db.json in one rename.
func (sonic) install(c *cli, tx string, content []byte) error {
	tmp := "/tmp/" + tx + "-db.json"
	next := "/etc/sonic/" + tx + ".json"
	if _, err := c.run("umask 077; set -C; cat > "+tmp, content); err != nil {
		return err
	}
	_, err := c.run("sudo -n install -m 644 "+tmp+" "+next, nil)
	_, _ = c.run("rm -f "+tmp, nil)
	if err != nil {
		return err
	}
	_, err = c.run("sudo -n mv -f "+next+" "+sonicConfigDB, nil)
	return err
}

// sonicKept is the copy of the running CONFIG_DB a reload transaction
// rolls back to.
func sonicKept(tx string) string { return "/tmp/" + tx + "-before.json" }

// undo rolls back after err and deletes the checkpoint.
func (s sonic) undo(c *cli, tx string, err error) error {
	if rerr := s.rollback(c, tx); rerr != nil {
		return fmt.Errorf("%w; rolling back failed: %v", err, rerr)
	}
	return &undone{err}
}

func (sonic) confirm(c *cli, tx string) error {
	if _, err := c.run("sudo -n config save -y", nil); err != nil {
		return err
	}
	// The change is saved: a checkpoint or kept copy that cannot be
	// deleted is left behind, and the push stays confirmed.
	_, _ = c.run("sudo -n config delete-checkpoint "+tx, nil)
	if strings.HasSuffix(tx, sonicReloadTx) {
		_, _ = c.run("rm -f "+sonicKept(tx), nil)
	}
	return nil
}

func (s sonic) rollback(c *cli, tx string) error {
	if strings.HasSuffix(tx, sonicReloadTx) {
		kept, err := c.run("cat "+sonicKept(tx), nil)
		if err != nil {
			return fmt.Errorf("reading the CONFIG_DB kept before the transaction: %w", err)
		}
		if !json.Valid([]byte(kept)) || !bytes.HasPrefix(bytes.TrimSpace([]byte(kept)), []byte("{")) {
			return fmt.Errorf("%s: %s is not a CONFIG_DB: the switch was not rolled back", c.device, sonicKept(tx))
		}
		if err := s.install(c, tx, []byte(kept)); err != nil {
			return err
		}
		if _, err := c.run("sudo -n config reload -y", nil); err != nil {
			return err
		}
		_, _ = c.run("rm -f "+sonicKept(tx), nil)
	} else if _, err := c.run("sudo -n config rollback "+tx, nil); err != nil {
		return err
	}
	_, _ = c.run("sudo -n config delete-checkpoint "+tx, nil)
	return nil
}
