package sshtest

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"
)

// SONiC emulates a SONiC switch's Linux shell for the commands rocefab
// runs one per channel, without a terminal:
//
//   - `sonic-cfggen -d --print-data`: CONFIG_DB as JSON;
//   - `umask 077; cat > /tmp/NAME.json` keeps its input as a file, `rm -f
//     FILE` removes it;
//   - `sudo -n config checkpoint NAME`, `sudo -n config apply-patch FILE`,
//     `sudo -n config rollback NAME`, `sudo -n config delete-checkpoint
//     NAME`, `sudo -n config save -y`, printing what sonic-utilities'
//     config/main.py prints, and a failing exit status with "Failed to
//     apply patch due to: ..." for a patch it refuses.
//
// CONFIG_DB changes through Apply (the sonic platform's own, supplied by
// the test), which applies an RFC 6902 patch in one step where GCU
// orders and applies it in several; it checks no YANG model. sudo never
// asks for a password.
type SONiC struct {
	Apply func(configDB, patch []byte) ([]byte, error)

	mu          sync.Mutex
	configDB    []byte
	saved       []byte
	checkpoints map[string][]byte
	files       map[string][]byte
	faults      Faults
	received    []string
}

// NewSONiC returns a SONiC switch whose CONFIG_DB is configDB.
func NewSONiC(configDB []byte, apply func(configDB, patch []byte) ([]byte, error)) *SONiC {
	return &SONiC{Apply: apply, configDB: append([]byte(nil), configDB...), saved: append([]byte(nil), configDB...),
		checkpoints: map[string][]byte{}, files: map[string][]byte{}}
}

// SetFaults replaces the device's faults: Reject refuses a patch that
// contains it, HangupOnCommit drops the connection after a patch took
// effect and before its exit status, RefuseConfirm fails `config save`,
// Delay slows every command.
func (s *SONiC) SetFaults(f Faults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = f
}

// ConfigDB returns the running CONFIG_DB.
func (s *SONiC) ConfigDB() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.configDB...)
}

// Saved returns what `config save` wrote.
func (s *SONiC) Saved() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.saved...)
}

// Leftovers returns the checkpoints and files still on the switch.
func (s *SONiC) Leftovers() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for n := range s.checkpoints {
		out = append(out, "checkpoint "+n)
	}
	for n := range s.files {
		out = append(out, "file "+n)
	}
	return out
}

// Received returns every command run, in order.
func (s *SONiC) Received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.received...)
}

var (
	sonicName       = `([A-Za-z0-9_-]{1,64})`
	sonicFile       = `(/tmp/[A-Za-z0-9_-]{1,64}\.json)`
	sonicWrite      = regexp.MustCompile(`^umask 077; cat > ` + sonicFile + `$`)
	sonicRemove     = regexp.MustCompile(`^rm -f ` + sonicFile + `$`)
	sonicCheckpoint = regexp.MustCompile(`^sudo -n config checkpoint ` + sonicName + `$`)
	sonicPatch      = regexp.MustCompile(`^sudo -n config apply-patch ` + sonicFile + `$`)
	sonicRollback   = regexp.MustCompile(`^sudo -n config rollback ` + sonicName + `$`)
	sonicDelete     = regexp.MustCompile(`^sudo -n config delete-checkpoint ` + sonicName + `$`)
)

// Exec runs one command.
func (s *SONiC) Exec(cmd string, stdin io.Reader, stdout, stderr io.Writer) (int, bool) {
	s.mu.Lock()
	s.received = append(s.received, cmd)
	delay := s.faults.Delay
	s.mu.Unlock()
	if delay > 0 {
		time.Sleep(delay)
	}
	if m := sonicWrite.FindStringSubmatch(cmd); m != nil {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return 1, false
		}
		s.mu.Lock()
		s.files[m[1]] = b
		s.mu.Unlock()
		return 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fail := func(format string, args ...any) (int, bool) {
		fmt.Fprintf(stderr, format+"\n", args...)
		return 1, false
	}
	switch {
	case cmd == "sonic-cfggen -d --print-data":
		stdout.Write(s.configDB)
		return 0, false
	case cmd == "sudo -n config save -y":
		if s.faults.RefuseConfirm {
			return fail("Error: the configuration could not be saved")
		}
		s.saved = append([]byte(nil), s.configDB...)
		fmt.Fprintln(stdout, "Running command: /usr/local/bin/sonic-cfggen -d --print-data > /etc/sonic/config_db.json")
		return 0, false
	}
	if m := sonicRemove.FindStringSubmatch(cmd); m != nil {
		delete(s.files, m[1])
		return 0, false
	}
	if m := sonicCheckpoint.FindStringSubmatch(cmd); m != nil {
		s.checkpoints[m[1]] = append([]byte(nil), s.configDB...)
		fmt.Fprintln(stdout, "Checkpoint created successfully.")
		return 0, false
	}
	if m := sonicPatch.FindStringSubmatch(cmd); m != nil {
		patch, ok := s.files[m[1]]
		if !ok {
			return fail("Failed to apply patch due to: [Errno 2] No such file or directory: '%s'", m[1])
		}
		if s.faults.Reject != "" && strings.Contains(string(patch), s.faults.Reject) {
			return fail("Failed to apply patch due to: Given patch will produce invalid config. Error: %s is not valid", s.faults.Reject)
		}
		after, err := s.Apply(s.configDB, patch)
		if err != nil {
			return fail("Failed to apply patch due to: %v", err)
		}
		s.configDB = after
		if s.faults.HangupOnCommit {
			return 0, true
		}
		fmt.Fprintln(stdout, "Patch applied successfully.")
		return 0, false
	}
	if m := sonicRollback.FindStringSubmatch(cmd); m != nil {
		b, ok := s.checkpoints[m[1]]
		if !ok {
			return fail("Failed to rollback config\nError: Checkpoint '%s' does not exist", m[1])
		}
		s.configDB = append([]byte(nil), b...)
		fmt.Fprintln(stdout, "Config rolled back successfully.")
		return 0, false
	}
	if m := sonicDelete.FindStringSubmatch(cmd); m != nil {
		if _, ok := s.checkpoints[m[1]]; !ok {
			return fail("Failed to delete config checkpoint\nError: Checkpoint '%s' does not exist", m[1])
		}
		delete(s.checkpoints, m[1])
		fmt.Fprintln(stdout, "Checkpoint deleted successfully.")
		return 0, false
	}
	return fail("bash: %s: command not found", strings.Fields(cmd + " x")[0])
}

// Shell refuses an interactive login: the emulator runs commands only.
func (s *SONiC) Shell(t *Term) {
	t.Print("this emulated SONiC switch runs commands given with the connection only\n")
}
