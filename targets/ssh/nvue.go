package ssh

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// nvue drives the NVUE CLI of an NVIDIA Cumulus Linux 5.x switch from its
// bash shell: the remediation's `nv set` and `nv unset` lines stage into a
// pending revision, NVUE's own diff of it is shown, and it is applied with
// a confirm timer that NVUE keeps: unconfirmed, the switch rolls it back by
// itself. The command forms, and where they come from:
//
//   - the prompt (`user@host:vrf:dir$`) and the errors the shell prints
//     (`ERROR:`, `command not found`, `Permission denied`): scrapligo's
//     cumulus_linux platform (scrapli/scrapligo@v1.4.3
//     assets/platforms/cumulus_linux.yaml); NVUE's own errors start with
//     `Error:` (the pattern napalm-cumulus watches for, below) or name an
//     `Invalid config`, and are checked here since scrapligo matches case;
//   - `nv config show -o yaml`: the applied configuration as the nvue
//     platform parses it (NVUE reference, Config Commands, "nv config
//     show"); it is piped through `cat` because NVUE pages output to a
//     terminal when an operator has enabled `system cli pagination`
//     (NVUE reference, Set and Unset Commands, System Configuration: "view
//     ... the output of an NVUE command one page at a time in the
//     terminal window"), and a pipe is no terminal;
//   - `nv config attach applied -y`, answered `attached [rev_id: N]`, to
//     stage into a fresh revision based on the applied one; `nv config
//     diff --color off -o commands` for the revision's diff; `nv config
//     apply --confirm <secs>s -y` to apply with a timer; `nv config apply
//     <rev> --confirm-yes` and `nv config save` to confirm; `nv config
//     apply <rev> --confirm-no` to roll back a revision whose timer runs;
//     `nv config detach` and `nv config delete <rev>` to drop a revision
//     never applied: david-pili/napalm-cumulus@90982c3d
//     napalm_cumulus/cumulus.py (_load_candidate, compare_config,
//     commit_config, confirm_commit, discard_config, rollback; its README
//     says it was tested on Cumulus Linux 5.12);
//   - `--confirm <time>` rolls back by itself unless confirmed, default
//     ten minutes; `-y` answers NVUE's prompts: NVUE reference, Config
//     Commands, "nv config apply"
//     (https://docs.nvidia.com/networking-ethernet-software/nvue-reference/Config-Commands).
type nvue struct{}

func (nvue) scrapli() string   { return "cumulus_linux" }
func (nvue) deviceTimer() bool { return true }

var nvueAttached = regexp.MustCompile(`attached \[rev_id: (\d+)\]`)

// nvueSend runs cmd and turns what NVUE prints for a refused command into
// a *DeviceError; scrapligo's platform only knows the shell's errors.
func nvueSend(c *cli, cmd string) (string, error) {
	out, err := c.send(cmd)
	if err != nil {
		return out, err
	}
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "Error:") || strings.HasPrefix(l, "Invalid config") {
			return out, &DeviceError{Device: c.device, Command: strings.TrimSpace(cmd), Output: out}
		}
	}
	return out, nil
}

func (nvue) read(c *cli) ([]byte, error) {
	return shownConfig(nvueSend(c, "nv config show -o yaml | cat"))
}

// push stages lines into a revision NVUE numbers, and returns its number:
// the transaction confirm and rollback name.
func (n nvue) push(c *cli, _ string, lines []string, timer time.Duration, diff func(string)) (string, error) {
	rev, err := n.pushRevision(c, lines, timer, diff)
	return rev, err
}

func (n nvue) pushRevision(c *cli, lines []string, timer time.Duration, diff func(string)) (string, error) {
	out, err := nvueSend(c, "nv config attach applied -y")
	if err != nil {
		return "", fmt.Errorf("%w; nothing was staged", err)
	}
	m := nvueAttached.FindStringSubmatch(out)
	if m == nil {
		return "", &DeviceError{Device: c.device, Command: "nv config attach applied -y", Output: "no revision in its answer: " + out}
	}
	rev := m[1]
	for i, l := range lines {
		if _, err := nvueSend(c, l); err != nil {
			var de *DeviceError
			if errors.As(err, &de) {
				return rev, n.discard(c, rev, fmt.Errorf("%w (line %d of %d); the revision was dropped, nothing of it was applied", err, i+1, len(lines)))
			}
			return rev, fmt.Errorf("%w, after %d of %d lines; revision %s was never applied, so nothing of it took effect", err, i, len(lines), rev)
		}
	}
	out, err = nvueSend(c, "nv config diff --color off -o commands")
	if err != nil {
		return rev, n.discard(c, rev, err)
	}
	if diff != nil {
		diff(out)
	}
	if timer > 0 {
		secs := int64((timer + time.Second - 1) / time.Second)
		if _, err := nvueSend(c, fmt.Sprintf("nv config apply --confirm %ds -y", secs)); err != nil {
			var de *DeviceError
			if errors.As(err, &de) {
				return rev, n.discard(c, rev, fmt.Errorf("%w; the revision was not applied", err))
			}
			return rev, fmt.Errorf("%w: revision %s may have been applied; if it was, the switch rolls it back when its timer of %ds lapses", err, rev, secs)
		}
		return rev, nil
	}
	if _, err := nvueSend(c, "nv config apply -y"); err != nil {
		var de *DeviceError
		if errors.As(err, &de) {
			return rev, n.discard(c, rev, fmt.Errorf("%w; the revision was not applied", err))
		}
		return rev, fmt.Errorf("%w: revision %s may or may not have been applied", err, rev)
	}
	return rev, nil
}

// discard drops revision rev, never applied, after err.
func (nvue) discard(c *cli, rev string, err error) error {
	for _, cmd := range []string{"nv config detach", "nv config delete " + rev} {
		if _, derr := nvueSend(c, cmd); derr != nil {
			return fmt.Errorf("%w; dropping revision %s failed too (%v), but it was never applied", err, rev, derr)
		}
	}
	return &undone{err}
}

func (nvue) confirm(c *cli, rev string) error {
	if _, err := nvueSend(c, "nv config apply "+rev+" --confirm-yes"); err != nil {
		return err
	}
	if _, err := nvueSend(c, "nv config save"); err != nil {
		return fmt.Errorf("revision %s is confirmed but not saved to the startup configuration: %w", rev, err)
	}
	return nil
}

// rollback reverts revision rev, applied with a timer, at once. A revision
// the push never applied was dropped by it, or, after a lost connection,
// stays detached and unapplied: it never took effect.
func (nvue) rollback(c *cli, rev string) error {
	_, err := nvueSend(c, "nv config apply "+rev+" --confirm-no")
	return err
}
