package renderers

import (
	"fmt"

	"github.com/rocefab/rocefab/compiler/ir"
)

// AdminState is a port's administrative state as the running
// configuration says it.
type AdminState string

// The administrative states of a port.
const (
	AdminUp   AdminState = "up"
	AdminDown AdminState = "down"
	// AdminUnknown is a port whose running configuration does not say
	// (a platform whose default depends on settings rocefab does not
	// read): nothing is restored to a state it cannot name.
	AdminUnknown AdminState = "unknown"
)

// AdminOf is the administrative state a quarantine's up asks for.
func AdminOf(up bool) AdminState {
	if up {
		return AdminUp
	}
	return AdminDown
}

// ReadAdminState returns the state of a platform's running configuration
// that names it "up" or "down"; false for any other word, which the
// platform's AdminState refuses.
func ReadAdminState(word string) (AdminState, bool) {
	switch s := AdminState(word); s {
	case AdminUp, AdminDown:
		return s, true
	}
	return "", false
}

// PortAdmin is a platform that sets one port's administrative state on
// its own, outside any plan: a quarantine shuts a faulty cable's switch
// port and its release brings it back. The remediation it returns sets
// that one interface's administrative state and nothing else, in the
// form the platform's transports push as any remediation (CLI lines, nv
// set, a CONFIG_DB patch, a gNMI SetRequest), so that the same
// commit-confirm takes it; the platform's Applier applies it to the
// running files the directory target keeps. A device plan never carries
// it: the platform's CheckScope still refuses an administrative state
// outside the owned scope.
type PortAdmin interface {
	// AdminRemediation returns the remediation that sets port of switch
	// d administratively up (up) or down.
	AdminRemediation(d *ir.Device, port string, up bool) (Remediation, error)
	// AdminState reads port's administrative state from d's running
	// configuration, as the device returns it.
	AdminState(d *ir.Device, running []Artifact, port string) (AdminState, error)
}

// CheckAdminPort refuses a port that is not one of switch d's own: an
// administrative state is set on the ports the model gives the switch,
// never on a management or foreign interface.
func CheckAdminPort(d *ir.Device, port string) error {
	if d == nil || d.Switch == nil {
		return fmt.Errorf("the administrative state of %q: not a switch", port)
	}
	for _, p := range d.Switch.Ports {
		if p.Name == port {
			return nil
		}
	}
	return fmt.Errorf("%s has no port %q in the model", d.Name, port)
}

// RunningContent returns the content of the one running artifact named
// file (its base name), for a platform that reads one setting from it; an
// error when there is none or more than one.
func RunningContent(running []Artifact, file string) ([]byte, error) {
	at, err := RunningFile(running, file)
	if err != nil {
		return nil, err
	}
	if at < 0 {
		return nil, fmt.Errorf("no running %s", file)
	}
	return running[at].Content, nil
}
