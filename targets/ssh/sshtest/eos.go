package sshtest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/diff"
)

// EOS emulates an Arista EOS switch's CLI with configuration sessions:
//
//   - privileged exec on login (`hostname#`), `enable` accepted again,
//     `terminal length 0` and `terminal width N`, `show running-config`;
//   - `configure session NAME` (prompt `hostname(config-s-NAME)#`, a mode
//     entered below it adds `-<first word>`), configuration lines typed with
//     their indentation (the session keeps its structure from it, where
//     EOS reads it from its grammar), an indented `exit` leaving a mode, `show
//     session-config diffs` (a unified diff of running against the
//     session), `end` leaving the session pending, `abort`, `commit`;
//   - from exec: `configure session NAME commit`, `configure session NAME
//     commit timer hh:mm:ss` (running changes at once and reverts when the
//     timer lapses unless `configure session NAME commit` confirms it),
//     `configure session NAME abort` (drops a session, or reverts a commit
//     whose timer runs), `show session-config named NAME diffs`, `write
//     memory`;
//   - `show configuration sessions detail | json`: every session by name
//     with its state, "pending" while uncommitted, "pendingCommitTimer"
//     while its commit timer runs, and then "commitBy", the seconds of
//     uptime at which the timer lapses; `show version | json` with the
//     "uptime" it counts from (napalm's EOS driver reads pending commits
//     this way: napalm-automation/napalm@ee70e634 napalm/eos/eos.py
//     _get_pending_commits, _lock);
//   - `show interfaces | json`: the counters SetCounters gave, as napalm's
//     fixture of it holds them (see Counters), and a management port;
//   - a line the device does not take prints `% Invalid input` and is not
//     added to the session; an unknown exec command too.
//
// The forms are those napalm and Ansible send to EOS (see targets/ssh's
// eos.go for the sources). The running configuration changes through
// Apply, which the test supplies (the EOS platform's own), so the emulator
// accepts exactly the lines Apply takes and is stricter than EOS on lines
// outside rocefab's scope, which it refuses. Unlike EOS it takes a commit
// timer under one minute (tests wait seconds, not minutes), names a
// missing session with `% Error` in its own words, and keeps at most one
// pending commit.
type EOS struct {
	Hostname string
	// Apply enters configuration lines (indented by mode, `exit` leaving
	// one) into a running configuration, or refuses them.
	Apply func(running []byte, lines string) ([]byte, error)

	device
	commitTimer[string]
	running  []byte
	startup  []byte
	sessions map[string][]string // uncommitted sessions' lines
	pushed   int                 // configuration lines taken, over every session
	booted   time.Time
}

// Faults are what a device does wrong on purpose.
type Faults struct {
	// HangupAfterLines drops the connection when this many configuration
	// lines have been taken (over every session), before the next; 0 never.
	HangupAfterLines int
	// HangupOnCommit drops the connection right after a commit with a
	// timer took effect, before the prompt: the pusher cannot know it did.
	HangupOnCommit bool
	// Reject refuses every configuration line containing it with
	// `% Invalid input`.
	Reject string
	// Delay is slept before every prompt.
	Delay time.Duration
	// RefuseConfirm makes `configure session NAME commit` of a pending
	// commit fail, as a device whose session was cleared would.
	RefuseConfirm bool
	// RefuseSave makes saving the configuration fail (EOS `write
	// memory`): a full or failing flash.
	RefuseSave bool
}

// NewEOS returns an EOS device named hostname running running.
func NewEOS(hostname string, running []byte, apply func([]byte, string) ([]byte, error)) *EOS {
	e := &EOS{Hostname: hostname, Apply: apply, running: append([]byte(nil), running...),
		startup: append([]byte(nil), running...), sessions: map[string][]string{}, booted: time.Now()}
	e.commitTimer.lock = &e.mu
	return e
}

// Running returns the running configuration.
func (e *EOS) Running() []byte { return e.copyOf(&e.running) }

// SetRunning replaces the running configuration, as another operator
// would.
func (e *EOS) SetRunning(b []byte) { e.replace(&e.running, b) }

// Startup returns the startup configuration (what `write memory` saved).
func (e *EOS) Startup() []byte { return e.copyOf(&e.startup) }

var (
	eosSessionRe = regexp.MustCompile(`^configure session ([A-Za-z0-9_-]{1,64})(?: (commit|abort|commit timer (\d{2}):(\d{2}):(\d{2})))?$`)
	eosNamedDiff = regexp.MustCompile(`^show session-config named ([A-Za-z0-9_-]{1,64}) diffs$`)
	eosTimerRe   = regexp.MustCompile(`^commit timer (\d{2}):(\d{2}):(\d{2})$`)
	eosTermRe    = regexp.MustCompile(`^terminal (length|width) \d+$`)
)

const eosInvalid = "% Invalid input\n"

// Shell runs one CLI session.
func (e *EOS) Shell(t *Term) {
	e.mu.Lock()
	t.Delay = e.faults.Delay
	e.mu.Unlock()
	session := ""      // the session being edited, "" in exec
	var modes []string // the modes entered below the session
	prompt := func() {
		switch {
		case session == "":
			t.Prompt(e.Hostname + "#")
		case len(modes) == 0:
			t.Prompt(fmt.Sprintf("%s(config-s-%s)#", e.Hostname, session))
		default:
			t.Prompt(fmt.Sprintf("%s(config-s-%s-%s)#", e.Hostname, session, modes[len(modes)-1]))
		}
	}
	prompt()
	for {
		raw, line, ok := e.readLine(t)
		if !ok {
			return
		}
		if session == "" {
			if line == "exit" || line == "logout" {
				return
			}
			if out, enter, hangup := e.exec(line); hangup {
				t.Hangup()
				return
			} else {
				t.Print(out)
				if enter != "" {
					session, modes = enter, nil
				}
			}
			prompt()
			continue
		}
		switch {
		case line == "":
		case line == "end":
			session, modes = "", nil
		case line == "exit" && indentDepth(raw) > 0:
			// An indented exit leaves the mode it is indented in.
			e.addLine(session, raw)
			modes = modes[:min(len(modes), indentDepth(raw)-1)]
		case line == "exit":
			session = ""
		case line == "show session-config diffs":
			t.Print(e.sessionDiff(session))
		case line == "abort":
			e.mu.Lock()
			delete(e.sessions, session)
			e.mu.Unlock()
			session, modes = "", nil
		case line == "commit":
			if out := e.commit(session, 0); out != "" {
				t.Print(out)
			} else {
				session, modes = "", nil
			}
		case eosTimerRe.MatchString(line):
			m := eosTimerRe.FindStringSubmatch(line)
			if out := e.commit(session, hms(m[1], m[2], m[3])); out != "" {
				t.Print(out)
				break
			}
			session, modes = "", nil
			if e.hangupOnCommit() {
				t.Hangup()
				return
			}
		default:
			if t.refused(e.configLine(session, raw)) {
				break
			}
			// The prompt shows the mode the line's indentation puts it
			// in; the session keeps the line as typed.
			modes = nest(modes, indentDepth(raw), line)
		}
		prompt()
	}
}

func hms(h, m, s string) time.Duration {
	hh, _ := strconv.Atoi(h)
	mm, _ := strconv.Atoi(m)
	ss, _ := strconv.Atoi(s)
	return time.Duration(hh)*time.Hour + time.Duration(mm)*time.Minute + time.Duration(ss)*time.Second
}

// indentDepth is a line's depth at EOS's three spaces per level.
func indentDepth(raw string) int {
	return (len(raw) - len(strings.TrimLeft(raw, " "))) / 3
}

// eosModes are the commands that enter a mode, among the lines rocefab
// writes and EOS prints in `show running-config`.
var eosModes = []string{"interface ", "qos profile ", "uc-tx-queue ", "mc-tx-queue ", "tx-queue ",
	"policy-map ", "class-map ", "class ", "platform ", "hardware ", "router ", "vrf instance ", "ip access-list ",
	"management ", "priority-flow-control", "qos map ", "queue-monitor ", "monitor "}

// nest is the stack of modes after a configuration line at depth: the
// modes it is indented in, and the one it opens.
func nest(modes []string, depth int, line string) []string {
	modes = modes[:min(len(modes), depth)]
	if depth == len(modes) && opensMode(line) {
		modes = append(modes, modeName(line))
	}
	return modes
}

func opensMode(line string) bool {
	if strings.HasPrefix(line, "no ") {
		return false
	}
	for _, p := range eosModes {
		if strings.HasPrefix(line, p) || line == strings.TrimSpace(p) {
			return true
		}
	}
	return false
}

// modeName is the prompt's word for a mode.
func modeName(line string) string {
	w, _, _ := strings.Cut(line, " ")
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			return r
		}
		return -1
	}, w)
}

func (e *EOS) hangupOnCommit() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.faults.HangupOnCommit
}

// exec runs an exec-mode command: its output, the session it enters, and
// whether the device hangs up.
func (e *EOS) exec(line string) (out, enter string, hangup bool) {
	switch {
	case line == "", line == "enable", eosTermRe.MatchString(line):
		return "", "", false
	case line == "show running-config":
		return string(e.Running()), "", false
	case line == "show configuration sessions detail | json":
		return e.sessionsJSON(), "", false
	case line == "show interfaces | json":
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.eosInterfacesJSON(), "", false
	case line == "show version | json":
		b, _ := json.Marshal(map[string]any{"uptime": time.Since(e.booted).Seconds()})
		return string(b) + "\n", "", false
	case line == "write memory" || line == "copy running-config startup-config":
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.faults.RefuseSave {
			return "% Error copying system:/running-config to flash:/startup-config (No space left on device)\n", "", false
		}
		e.startup = append([]byte(nil), e.running...)
		return "Copy completed successfully.\n", "", false
	}
	if m := eosNamedDiff.FindStringSubmatch(line); m != nil {
		return e.sessionDiff(m[1]), "", false
	}
	m := eosSessionRe.FindStringSubmatch(line)
	if m == nil {
		return eosInvalid, "", false
	}
	name := m[1]
	switch {
	case m[2] == "":
		e.mu.Lock()
		if _, ok := e.sessions[name]; !ok {
			e.sessions[name] = nil
		}
		e.mu.Unlock()
		return "", name, false
	case m[2] == "abort":
		return e.abort(name), "", false
	case m[2] == "commit":
		e.mu.Lock()
		if pending, ok := e.commitTimer.pending(); ok && pending == name {
			defer e.mu.Unlock()
			if e.faults.RefuseConfirm {
				return fmt.Sprintf("%% Error: configuration session %s has no pending commit\n", name), "", false
			}
			e.commitTimer.confirm()
			return "", "", false
		}
		e.mu.Unlock()
		return e.commit(name, 0), "", false
	default:
		out := e.commit(name, hms(m[3], m[4], m[5]))
		return out, "", out == "" && e.hangupOnCommit()
	}
}

// configLine enters one configuration line into a session: "" when the
// device took it, else what it printed.
func (e *EOS) configLine(session, raw string) (out string, hangup bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.faults.HangupAfterLines > 0 && e.pushed >= e.faults.HangupAfterLines {
		return "", true
	}
	line := strings.TrimSpace(raw)
	if e.faults.Reject != "" && strings.Contains(line, e.faults.Reject) {
		return eosInvalid, false
	}
	lines := append(append([]string(nil), e.sessions[session]...), raw)
	if _, err := e.Apply(e.running, strings.Join(lines, "\n")+"\n"); err != nil {
		return eosInvalid, false
	}
	e.sessions[session] = lines
	e.pushed++
	return "", false
}

func (e *EOS) addLine(session, raw string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sessions[session] = append(e.sessions[session], raw)
}

// sessionConfig is what running would be with session's lines.
func (e *EOS) sessionConfig(session string) ([]byte, error) {
	lines := e.sessions[session]
	if len(lines) == 0 {
		return e.running, nil
	}
	return e.Apply(e.running, strings.Join(lines, "\n")+"\n")
}

func (e *EOS) sessionDiff(session string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.sessions[session]; !ok {
		return fmt.Sprintf("%% Error: no configuration session %s\n", session)
	}
	after, err := e.sessionConfig(session)
	if err != nil {
		return "% Error: " + err.Error() + "\n"
	}
	d := diff.Diff("system:/running-config", e.running, "session:/"+session+"-session-config", after)
	if d == nil {
		return ""
	}
	// go-internal's diff starts with a "diff a b" line; the device's does
	// not.
	s := string(d)
	if _, rest, ok := strings.Cut(s, "\n"); ok && strings.HasPrefix(s, "diff ") {
		s = rest
	}
	return s
}

// commit applies a session: for good, or with a timer after which running
// reverts.
func (e *EOS) commit(session string, timer time.Duration) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.sessions[session]; !ok {
		return fmt.Sprintf("%% Error: no configuration session %s\n", session)
	}
	if pending, ok := e.commitTimer.pending(); timer > 0 && ok {
		return fmt.Sprintf("%% Cannot commit: session %s has a pending commit timer\n", pending)
	}
	after, err := e.sessionConfig(session)
	if err != nil {
		return "% Cannot commit: " + err.Error() + "\n"
	}
	delete(e.sessions, session)
	e.commitTimer.start(&e.running, after, session, timer)
	return ""
}

// abort drops an uncommitted session or reverts a pending commit.
func (e *EOS) abort(session string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if pending, ok := e.commitTimer.pending(); ok && pending == session {
		e.commitTimer.revert()
		return ""
	}
	if _, ok := e.sessions[session]; ok {
		delete(e.sessions, session)
		return ""
	}
	return fmt.Sprintf("%% Error: no configuration session %s\n", session)
}

// sessionsJSON is `show configuration sessions detail | json`: the
// sessions, uncommitted or with a commit timer running, by name.
func (e *EOS) sessionsJSON() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	sessions := map[string]any{}
	for name := range e.sessions {
		sessions[name] = map[string]any{"state": "pending"}
	}
	if p := e.commitTimer.p; p != nil {
		sessions[p.id] = map[string]any{"state": "pendingCommitTimer", "commitBy": p.deadline.Sub(e.booted).Seconds()}
	}
	b, _ := json.Marshal(map[string]any{"sessions": sessions})
	return string(b) + "\n"
}
