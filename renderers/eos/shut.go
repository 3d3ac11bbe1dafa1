package eos

import (
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// A quarantine shuts a faulty cable's switch port and its release brings
// it back (renderers.PortAdmin), each pushed as any remediation: in a
// configuration session committed with a timer over SSH (targets/ssh), or
// applied to the running eos.cfg by the directory target. The lines are
// `interface EthernetX` and `shutdown` or `no shutdown` below it, the
// commands Ansible's eos_interfaces module sends for an interface's
// "enabled" (ansible-collections/arista.eos@01a7b943
// plugins/module_utils/network/eos/config/interfaces/interfaces.py,
// generate_commands). `show running-config` prints `shutdown` under an
// interface that is administratively down and nothing for one that is up:
// the same module reads "enabled" as the absence of that line
// (arista.eos@015a8303 plugins/module_utils/network/eos/facts/interfaces/
// interfaces.py, render_config).

var _ renderers.PortAdmin = Renderer{}

// AdminRemediation returns the lines that shut port of switch d (up
// false) or bring it back (up true).
func (Renderer) AdminRemediation(d *ir.Device, port string, up bool) (renderers.Remediation, error) {
	return cli.AdminRemediation(d, port, up)
}

// AdminState reads port's administrative state from the running
// eos.cfg: down with a `shutdown` line, up without one.
func (Renderer) AdminState(d *ir.Device, running []renderers.Artifact, port string) (renderers.AdminState, error) {
	return cli.AdminState(running, port, renderers.AdminUp)
}
