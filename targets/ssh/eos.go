package ssh

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// eos drives an Arista EOS CLI: a configuration session per push, the
// session's own diff, a commit with a timer, and its confirmation or
// abort. The command forms, and where they come from:
//
//   - paging and width off on login: scrapligo's arista_eos platform
//     (scrapli/scrapligo@v1.4.3 assets/platforms/arista_eos.yaml,
//     network-on-open: `terminal width 32767`, `terminal length 0`), which
//     also lists the errors EOS prints (`% Invalid input`, `% Error`,
//     `% Cannot commit`, ...): a line answered with one fails;
//   - `show running-config`: the text the EOS platform parses;
//   - `configure session NAME`, the lines, `show session-config diffs`,
//     and to discard an uncommitted session `end`, `configure session
//     NAME`, `abort`: ansible-collections/arista.eos@666e4205
//     plugins/cliconf/eos.py (edit_config, discard_changes); lines typed
//     with the indentation `show running-config` prints, as an EOS
//     session takes them (prompt `(config-s-NAME-acl-X)#` before indented
//     lines in ansible-collections/arista.eos issue #476);
//   - `configure session NAME commit timer hh:mm:ss` to commit with a
//     timer, `configure session NAME commit` to confirm (or to commit at
//     once), `configure session NAME abort` to revert a commit whose timer
//     runs, `write memory` after the final commit (sessions do not save the
//     startup configuration): napalm-automation/napalm@ee70e634
//     napalm/eos/eos.py (commit_config, confirm_commit, rollback). The
//     EOS manual gives the timer as hh:mm:ss and no minimum
//     (https://www.arista.com/en/um-eos/eos-session-management-commands,
//     "commit timer"), so the timer is sent as asked, rounded up to the
//     second;
//   - a commit whose timer runs, from a later connection: `show
//     configuration sessions detail | json` lists every session by name
//     with its "state", "pendingCommitTimer" while its timer runs, and
//     "commitBy", the seconds of uptime at which it lapses, counted from
//     the "uptime" of `show version | json`: napalm@ee70e634
//     napalm/eos/eos.py (_get_pending_commits, which asks the same two
//     commands in JSON over eAPI); the EOS CLI prints a command's JSON
//     model with `| json` (Arista's EnhancedSession.py example runs
//     `FastCli -p 15 -c 'show configuration sessions | json'` and confirms
//     the session in "pendingCommitTimer" with `configure session NAME
//     commit`).
type eos struct{}

func (eos) scrapli() string   { return "arista_eos" }
func (eos) deviceTimer() bool { return true }

func (eos) read(c *cli) ([]byte, error) {
	return shownConfig(c.send("show running-config"))
}

// push names the session tx.
func (e eos) push(c *cli, tx string, lines []string, timer time.Duration, diff func(string)) (string, error) {
	return tx, e.session(c, tx, lines, timer, diff)
}

func (e eos) session(c *cli, tx string, lines []string, timer time.Duration, diff func(string)) error {
	if _, err := c.send("configure session " + tx); err != nil {
		return err
	}
	for i, l := range lines {
		if _, err := c.send(l); err != nil {
			var de *DeviceError
			if errors.As(err, &de) {
				return e.discard(c, tx, fmt.Errorf("%w (line %d of %d); the session was aborted, nothing of it was applied", err, i+1, len(lines)))
			}
			// The connection is gone: a session never committed applies
			// nothing on EOS.
			return fmt.Errorf("%w, after %d of %d lines; the session was not committed, so nothing of it was applied", err, i, len(lines))
		}
	}
	out, err := c.send("show session-config diffs")
	if err != nil {
		return e.discard(c, tx, err)
	}
	if diff != nil {
		diff(out)
	}
	if _, err := c.send("end"); err != nil {
		return fmt.Errorf("%w; the session was not committed, so nothing of it was applied", err)
	}
	if timer > 0 {
		if _, err := c.send(fmt.Sprintf("configure session %s commit timer %s", tx, timerText(timer))); err != nil {
			var de *DeviceError
			if errors.As(err, &de) {
				return e.discard(c, tx, err)
			}
			return fmt.Errorf("%w: the commit may have taken effect; if it did, the device reverts it when its timer of %s lapses", err, timerText(timer))
		}
		return nil
	}
	if _, err := c.send("configure session " + tx + " commit"); err != nil {
		var de *DeviceError
		if errors.As(err, &de) {
			return e.discard(c, tx, err)
		}
		return fmt.Errorf("%w: the commit may or may not have taken effect", err)
	}
	return e.save(c)
}

// discard aborts the uncommitted session after err.
func (eos) discard(c *cli, tx string, err error) error {
	for _, cmd := range []string{"end", "configure session " + tx, "abort"} {
		if _, aerr := c.send(cmd); aerr != nil {
			return fmt.Errorf("%w; aborting the session failed too (%v), but it was never committed", err, aerr)
		}
	}
	return &undone{err}
}

func (eos) save(c *cli) error {
	if _, err := c.send("write memory"); err != nil {
		return fmt.Errorf("the change is committed but not saved to the startup configuration: %w", err)
	}
	return nil
}

// confirm commits the session for good and saves it. Once committed the
// change cannot be taken back by the session any more, so a failed save
// is a warning, not a failed confirmation.
func (e eos) confirm(c *cli, tx string) error {
	if _, err := c.send("configure session " + tx + " commit"); err != nil {
		return err
	}
	if err := e.save(c); err != nil {
		c.warn(err.Error())
	}
	return nil
}

// pending returns the session rocefab committed with a timer that still
// runs, and when the timer lapses (zero when the switch does not say).
// Sessions not named by rocefab are another operator's: left alone.
func (eos) pending(c *cli) (string, time.Time, error) {
	out, err := c.send("show configuration sessions detail | json")
	if err != nil {
		return "", time.Time{}, err
	}
	var sessions struct {
		Sessions map[string]struct {
			State    string   `json:"state"`
			CommitBy *float64 `json:"commitBy"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(out), &sessions); err != nil {
		return "", time.Time{}, fmt.Errorf("%s: `show configuration sessions detail | json` printed no sessions: %v", c.device, err)
	}
	var tx string
	var commitBy *float64
	for _, name := range slices.Sorted(maps.Keys(sessions.Sessions)) {
		s := sessions.Sessions[name]
		if strings.HasPrefix(name, txPrefix) && strings.Contains(s.State, "pendingCommitTimer") {
			tx, commitBy = name, s.CommitBy
			break
		}
	}
	if tx == "" || commitBy == nil {
		return tx, time.Time{}, nil
	}
	out, err = c.send("show version | json")
	if err != nil {
		return "", time.Time{}, err
	}
	var version struct {
		Uptime *float64 `json:"uptime"`
	}
	if json.Unmarshal([]byte(out), &version) != nil || version.Uptime == nil {
		return tx, time.Time{}, nil
	}
	left := time.Duration((*commitBy - *version.Uptime) * float64(time.Second))
	return tx, time.Now().Add(max(left, 0)).UTC().Truncate(time.Second), nil
}

func (eos) rollback(c *cli, tx string) error {
	_, err := c.send("configure session " + tx + " abort")
	return err
}
