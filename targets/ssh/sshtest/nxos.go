package sshtest

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/diff"
)

// NXOS emulates a Cisco NX-OS switch's CLI, where configuration lines
// take effect as they are typed and checkpoint files are the transaction:
//
//   - privileged exec on login (`hostname#`), `terminal length 0`,
//     `terminal width N`, `terminal dont-ask` and its `no` form;
//   - `show running-config`, which starts with `!Command:` and a `!Time:`
//     line that changes with every read, as NX-OS prints them;
//   - `checkpoint file NAME`, `rollback running-config file NAME` (prints
//     "Rollback completed successfully."), `delete NAME`, `show diff
//     rollback-patch file NAME running-config`, `copy running-config
//     startup-config`;
//   - `show interface | json`: the counters SetCounters gave, as napalm's
//     fixture of NX-API's answer holds them (see Counters), and mgmt0;
//   - `configure terminal` (prompt `hostname(config)#`, a mode entered
//     below it `hostname(config-<first word>)#`), lines with their
//     indentation, an indented `exit` leaving a mode, `end`;
//   - a line the device does not take prints `% Invalid command at '^'
//     marker.` and changes nothing.
//
// The running configuration changes through Apply (the NX-OS platform's
// own, supplied by the test): each line is entered with those typed
// before it since `configure terminal`, so the emulator takes exactly
// the lines Apply takes and refuses lines outside rocefab's scope, which
// NX-OS would take. Its file errors are its own words, starting with
// `ERROR:` as NX-OS's do.
//
// Of its Faults, HangupOnCommit drops the connection after `end`;
// RefuseConfirm makes `copy running-config startup-config` fail.
type NXOS struct {
	Hostname string
	Apply    func(running []byte, lines string) ([]byte, error)

	device
	running []byte
	startup []byte
	files   map[string][]byte
	pushed  int
}

// NewNXOS returns an NX-OS device named hostname running running.
func NewNXOS(hostname string, running []byte, apply func([]byte, string) ([]byte, error)) *NXOS {
	return &NXOS{Hostname: hostname, Apply: apply, running: append([]byte(nil), running...),
		startup: append([]byte(nil), running...), files: map[string][]byte{}}
}

// Running returns the running configuration.
func (n *NXOS) Running() []byte { return n.copyOf(&n.running) }

// Startup returns what `copy running-config startup-config` saved.
func (n *NXOS) Startup() []byte { return n.copyOf(&n.startup) }

// Files returns the names of the checkpoint files on the device.
func (n *NXOS) Files() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for f := range n.files {
		out = append(out, f)
	}
	return out
}

var (
	nxosFileRe     = `([A-Za-z0-9_.:-]{1,64})`
	nxosCheckpoint = regexp.MustCompile(`^checkpoint file ` + nxosFileRe + `$`)
	nxosRollback   = regexp.MustCompile(`^rollback running-config file ` + nxosFileRe + `$`)
	nxosDelete     = regexp.MustCompile(`^delete ` + nxosFileRe + `$`)
	nxosDiff       = regexp.MustCompile(`^show diff rollback-patch file ` + nxosFileRe + ` running-config$`)
	nxosTermRe     = regexp.MustCompile(`^(no )?terminal (length \d+|width \d+|dont-ask)$`)
)

const nxosInvalid = "% Invalid command at '^' marker.\n"

// Shell runs one CLI session.
func (n *NXOS) Shell(t *Term) {
	n.mu.Lock()
	t.Delay = n.faults.Delay
	n.mu.Unlock()
	config := false
	var start []byte   // running when configure terminal was typed
	var lines []string // typed since
	var modes []string // entered below config
	prompt := func() {
		switch {
		case !config:
			t.Prompt(n.Hostname + "#")
		case len(modes) == 0:
			t.Prompt(n.Hostname + "(config)#")
		default:
			t.Prompt(fmt.Sprintf("%s(config-%s)#", n.Hostname, modes[len(modes)-1]))
		}
	}
	prompt()
	for {
		raw, line, ok := n.readLine(t)
		if !ok {
			return
		}
		if !config {
			switch {
			case line == "exit":
				return
			case line == "configure terminal":
				config, start, lines, modes = true, n.Running(), nil, nil
			default:
				t.Print(n.exec(line))
			}
			prompt()
			continue
		}
		switch {
		case line == "":
		case line == "end":
			config = false
			n.mu.Lock()
			hang := n.faults.HangupOnCommit
			n.mu.Unlock()
			if hang {
				t.Hangup()
				return
			}
		case line == "exit" && indentDepth2(raw) > 0:
			lines = append(lines, raw)
			modes = modes[:min(len(modes), indentDepth2(raw)-1)]
		case line == "exit":
			config = false
		default:
			if t.refused(n.configLine(start, lines, raw)) {
				break
			}
			lines = append(lines, raw)
			modes = nest(modes, indentDepth2(raw), line)
		}
		prompt()
	}
}

// indentDepth2 is a line's depth at NX-OS's two spaces per level.
func indentDepth2(raw string) int {
	return (len(raw) - len(strings.TrimLeft(raw, " "))) / 2
}

// configLine enters raw after lines into the configuration that ran at
// `configure terminal`: at once, as NX-OS does.
func (n *NXOS) configLine(start []byte, lines []string, raw string) (out string, hangup bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.faults.HangupAfterLines > 0 && n.pushed >= n.faults.HangupAfterLines {
		return "", true
	}
	if n.faults.Reject != "" && strings.Contains(raw, n.faults.Reject) {
		return nxosInvalid, false
	}
	all := append(append([]string(nil), lines...), raw)
	after, err := n.Apply(start, strings.Join(all, "\n")+"\n")
	if err != nil {
		return nxosInvalid, false
	}
	n.running = after
	n.pushed++
	return "", false
}

// exec runs an exec-mode command and returns its output.
func (n *NXOS) exec(line string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case line == "", line == "enable", nxosTermRe.MatchString(line):
		return ""
	case line == "show running-config":
		return showRunningNXOS(n.running)
	case line == "show interface | json":
		return n.nxosInterfaceJSON()
	case line == "copy running-config startup-config":
		if n.faults.RefuseConfirm {
			return "ERROR: the startup configuration is locked by another session\n"
		}
		n.startup = append([]byte(nil), n.running...)
		return "[########################################] 100%\nCopy complete.\n"
	}
	if m := nxosCheckpoint.FindStringSubmatch(line); m != nil {
		n.files[m[1]] = append([]byte(nil), n.running...)
		return "Done\n"
	}
	if m := nxosRollback.FindStringSubmatch(line); m != nil {
		b, ok := n.files[m[1]]
		if !ok {
			return fmt.Sprintf("ERROR: file %s does not exist\n", m[1])
		}
		n.running = append([]byte(nil), b...)
		return "Rollback completed successfully.\n"
	}
	if m := nxosDelete.FindStringSubmatch(line); m != nil {
		if _, ok := n.files[m[1]]; !ok {
			return fmt.Sprintf("ERROR: file %s does not exist\n", m[1])
		}
		delete(n.files, m[1])
		return ""
	}
	if m := nxosDiff.FindStringSubmatch(line); m != nil {
		b, ok := n.files[m[1]]
		if !ok {
			return fmt.Sprintf("ERROR: file %s does not exist\n", m[1])
		}
		d := diff.Diff(m[1], b, "running-config", n.running)
		s := string(d)
		if _, rest, ok := strings.Cut(s, "\n"); ok && strings.HasPrefix(s, "diff ") {
			s = rest
		}
		return s
	}
	return nxosInvalid
}

// showRunningNXOS prints running as `show running-config` does: a
// `!Time:` line of now after the `!Command:` line.
func showRunningNXOS(running []byte) string {
	now := "!Time: " + time.Now().UTC().Format("Mon Jan _2 15:04:05.000000 2006") + "\n"
	s := string(running)
	if first, rest, ok := strings.Cut(s, "\n"); ok && strings.HasPrefix(first, "!Command:") {
		return first + "\n" + now + rest
	}
	return "!Command: show running-config\n" + now + "\n" + s
}
