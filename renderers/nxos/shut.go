package nxos

import (
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// A quarantine shuts a faulty cable's switch port and its release brings
// it back (renderers.PortAdmin), each pushed as any remediation: over SSH
// inside the checkpoint rocefab takes and rolls back to (targets/ssh), or
// applied to the running nxos.cfg by the directory target. The lines are
// `interface EthernetX/Y` and `shutdown` or `no shutdown` below it, the
// commands Ansible's nxos_interfaces module sends for an interface's
// "enabled" (ansible-collections/cisco.nxos@08fd28f5
// plugins/module_utils/network/nxos/config/interfaces/interfaces.py).
// NX-OS keeps `no shutdown` in the running configuration; an interface
// with neither line has the platform's default, which "(no) system
// default switchport shutdown" sets for layer-2 ports and which differs
// between Nexus families for layer-3 ones (the same file,
// get_interface_defaults): rocefab does not read it, so such a port's
// state is unknown and a release never brings it up.

var _ renderers.PortAdmin = Renderer{}

// AdminRemediation returns the lines that shut port of switch d (up
// false) or bring it back (up true).
func (Renderer) AdminRemediation(d *ir.Device, port string, up bool) (renderers.Remediation, error) {
	return cli.AdminRemediation(d, port, up)
}

// AdminState reads port's administrative state from the running
// nxos.cfg: `shutdown` down, `no shutdown` up, neither unknown.
func (Renderer) AdminState(d *ir.Device, running []renderers.Artifact, port string) (renderers.AdminState, error) {
	return cli.AdminState(running, port, renderers.AdminUnknown)
}
