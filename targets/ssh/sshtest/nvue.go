package sshtest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// NVUE emulates the bash shell of an NVIDIA Cumulus Linux 5.x switch and
// its NVUE CLI, with an applied configuration and pending revisions:
//
//   - the prompt `user@hostname:mgmt:~$`, as Cumulus Linux prints it with
//     the management VRF;
//   - `nv config show -o yaml` (also piped through `cat`): the applied
//     configuration;
//   - `nv config attach applied -y` starts a revision based on the applied
//     configuration, answered `attached [rev_id: N]`; `nv set` and `nv
//     unset` lines stage into it (a session without one gets one on its
//     first line, as NVUE does); `nv config diff` (with any options)
//     prints the staged lines; `nv config detach` leaves the revision,
//     `nv config delete N` deletes it;
//   - `nv config apply -y` applies the revision for good, `nv config
//     apply --confirm <n>[s|m|h] -y` with a timer after which the switch
//     reverts to the configuration applied before unless `nv config apply
//     N --confirm-yes` confirms it; `nv config apply N --confirm-no`
//     reverts it at once; `nv config save` saves the applied
//     configuration as the startup one;
//   - a line the configuration does not take, or an unknown nv command,
//     prints a line starting `Error:` and changes nothing; anything else
//     is answered `-bash: WORD: command not found`, as bash does.
//
// The configuration changes through Apply, which the test supplies (the
// nvue platform's own), so the emulator takes exactly the lines Apply
// takes, and is stricter than NVUE on paths outside rocefab's scope. Its
// error words are its own; `nv config diff` prints the staged lines rather
// than NVUE's computed commands. Unlike NVUE it keeps at most one revision
// whose timer runs, and takes timers under a minute.
//
// Of its Faults, HangupOnCommit drops the connection right after an
// apply with a timer took effect; RefuseConfirm makes --confirm-yes fail.
type NVUE struct {
	Hostname string
	User     string
	// Apply enters nv set / nv unset lines into a configuration, or
	// refuses them.
	Apply func(applied []byte, lines string) ([]byte, error)

	device
	commitTimer[int]
	applied   []byte
	startup   []byte
	revs      map[int][]string // revisions not applied: their staged lines
	nextRev   int
	staged    int // lines taken, over every session
	lastApply int // the revision last applied
}

// NewNVUE returns a switch named hostname, logged into as user, whose
// applied configuration is applied.
func NewNVUE(hostname, user string, applied []byte, apply func([]byte, string) ([]byte, error)) *NVUE {
	n := &NVUE{Hostname: hostname, User: user, Apply: apply, applied: append([]byte(nil), applied...),
		startup: append([]byte(nil), applied...), revs: map[int][]string{}, nextRev: 2}
	n.commitTimer.lock = &n.mu
	return n
}

// Applied returns the applied configuration.
func (n *NVUE) Applied() []byte { return n.copyOf(&n.applied) }

// SetApplied replaces the applied configuration, as another operator
// would.
func (n *NVUE) SetApplied(b []byte) { n.replace(&n.applied, b) }

// Startup returns what `nv config save` saved.
func (n *NVUE) Startup() []byte { return n.copyOf(&n.startup) }

// Revisions returns how many revisions were neither applied nor deleted.
func (n *NVUE) Revisions() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.revs)
}

var (
	nvueShowRe    = regexp.MustCompile(`^nv config show -o yaml( \| cat)?$`)
	nvueApplyRe   = regexp.MustCompile(`^nv config apply( --confirm (\d+)([smh]?))? (-y|--assume-yes)$`)
	nvueConfirmRe = regexp.MustCompile(`^nv config apply (\d+) --confirm-(yes|no)$`)
	nvueDeleteRe  = regexp.MustCompile(`^nv config delete (\d+)$`)
)

// Shell runs one shell session.
func (n *NVUE) Shell(t *Term) {
	n.mu.Lock()
	t.Delay = n.faults.Delay
	n.mu.Unlock()
	rev := 0 // the revision this session stages into
	prompt := func() { t.Prompt(fmt.Sprintf("%s@%s:mgmt:~$ ", n.User, n.Hostname)) }
	prompt()
	for {
		_, line, ok := n.readLine(t)
		if !ok {
			return
		}
		switch {
		case line == "":
		case line == "exit" || line == "logout":
			return
		case strings.HasPrefix(line, "nv set ") || strings.HasPrefix(line, "nv unset "):
			out, hangup := n.stage(&rev, line)
			if hangup {
				t.Hangup()
				return
			}
			t.Print(out)
		default:
			out, hangup := n.command(&rev, line)
			t.Print(out)
			if hangup {
				t.Hangup()
				return
			}
		}
		prompt()
	}
}

// stage adds a set or unset line to the session's revision.
func (n *NVUE) stage(rev *int, line string) (out string, hangup bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.faults.HangupAfterLines > 0 && n.staged >= n.faults.HangupAfterLines {
		return "", true
	}
	if n.faults.Reject != "" && strings.Contains(line, n.faults.Reject) {
		return fmt.Sprintf("Error: Invalid config: %s is not a valid path\n", line), false
	}
	if _, ok := n.revs[*rev]; !ok {
		*rev = n.newRev()
	}
	lines := append(append([]string(nil), n.revs[*rev]...), line)
	if _, err := n.Apply(n.applied, strings.Join(lines, "\n")+"\n"); err != nil {
		return "Error: Invalid config: " + firstLine(err.Error()) + "\n", false
	}
	n.revs[*rev] = lines
	n.staged++
	return "", false
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func (n *NVUE) newRev() int {
	r := n.nextRev
	n.nextRev++
	n.revs[r] = nil
	return r
}

// command runs any other command line: its output, and whether the switch
// hangs up after printing it.
func (n *NVUE) command(rev *int, line string) (string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case nvueShowRe.MatchString(line):
		return string(n.applied), false
	case line == "nv config attach applied -y":
		*rev = n.newRev()
		return fmt.Sprintf("attached [rev_id: %d]\n", *rev), false
	case strings.HasPrefix(line, "nv config diff"):
		lines, ok := n.revs[*rev]
		if !ok || len(lines) == 0 {
			return "", false
		}
		return strings.Join(lines, "\n") + "\n", false
	case line == "nv config detach":
		*rev = 0
		return "", false
	case line == "nv config save":
		n.startup = append([]byte(nil), n.applied...)
		return "saved [rev_id: applied]\n", false
	}
	if m := nvueDeleteRe.FindStringSubmatch(line); m != nil {
		r, _ := strconv.Atoi(m[1])
		if _, ok := n.revs[r]; !ok {
			return fmt.Sprintf("Error: revision %d does not exist\n", r), false
		}
		delete(n.revs, r)
		if *rev == r {
			*rev = 0
		}
		return "", false
	}
	if m := nvueApplyRe.FindStringSubmatch(line); m != nil {
		var timer time.Duration
		if m[1] != "" {
			v, _ := strconv.Atoi(m[2])
			unit := map[string]time.Duration{"": time.Minute, "s": time.Second, "m": time.Minute, "h": time.Hour}[m[3]]
			timer = time.Duration(v) * unit
		}
		out := n.apply(rev, timer)
		return out, out == fmt.Sprintf("applied [rev_id: %d]\n", n.lastApply) && timer > 0 && n.faults.HangupOnCommit
	}
	if m := nvueConfirmRe.FindStringSubmatch(line); m != nil {
		r, _ := strconv.Atoi(m[1])
		if pending, ok := n.commitTimer.pending(); !ok || pending != r {
			return fmt.Sprintf("Error: revision %d is not waiting for a confirmation\n", r), false
		}
		if m[2] == "yes" {
			if n.faults.RefuseConfirm {
				return fmt.Sprintf("Error: revision %d could not be confirmed: the configuration is locked\n", r), false
			}
			n.commitTimer.confirm()
			return "", false
		}
		n.commitTimer.revert()
		return fmt.Sprintf("rolled back [rev_id: %d]\n", r), false
	}
	if strings.HasPrefix(line, "nv ") {
		return fmt.Sprintf("Error: Invalid command: %s\n", line), false
	}
	w, _, _ := strings.Cut(line, " ")
	return fmt.Sprintf("-bash: %s: command not found\n", w), false
}

// apply applies the session's revision, with a confirm timer when timer
// is not zero.
func (n *NVUE) apply(rev *int, timer time.Duration) string {
	lines, ok := n.revs[*rev]
	if !ok {
		return "Error: there is no pending revision to apply\n"
	}
	if pending, ok := n.commitTimer.pending(); ok {
		return fmt.Sprintf("Error: revision %d is waiting for a confirmation\n", pending)
	}
	after := n.applied
	if len(lines) > 0 {
		var err error
		if after, err = n.Apply(n.applied, strings.Join(lines, "\n")+"\n"); err != nil {
			return "Error: Invalid config: " + firstLine(err.Error()) + "\n"
		}
	}
	r := *rev
	delete(n.revs, r)
	*rev = 0
	n.commitTimer.start(&n.applied, after, r, timer)
	n.lastApply = r
	if timer <= 0 {
		n.startup = append([]byte(nil), n.applied...)
	}
	return fmt.Sprintf("applied [rev_id: %d]\n", r)
}
