package nvue

import (
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// A quarantine shuts a faulty cable's switch port and its release brings
// it back (renderers.PortAdmin), each pushed as any remediation: staged in
// a revision and applied with `nv config apply --confirm` over SSH
// (targets/ssh), or applied to the running nvue.yaml by the directory
// target. The command is `nv set interface swpN link state down` (or
// `up`), which Cumulus Linux documents for bringing an interface down and
// back up administratively (CumulusNetworks/docs@322b3152
// content/cumulus-linux-515/Layer-1-and-Switch-Ports/Interface-Configuration-and-Management/_index.md,
// "Bring an Interface Up or Down"); an interface configured without a
// link state is up (the same section: `nv set interface swp1` brings it up).

var _ renderers.PortAdmin = Renderer{}

// AdminRemediation returns the command that shuts port of switch d (up
// false) or brings it back (up true).
func (Renderer) AdminRemediation(d *ir.Device, port string, up bool) (renderers.Remediation, error) {
	if err := renderers.CheckAdminPort(d, port); err != nil {
		return renderers.Remediation{}, fmt.Errorf("nvue: %w", err)
	}
	return renderers.Remediation{Format: renderers.Text, Content: []byte(fmt.Sprintf("nv set interface %s link state %s\n", port, renderers.AdminOf(up)))}, nil
}

// adminPort returns the interface a remediation sets the link state of,
// when that is all it does: one `nv set interface PORT link state
// up|down`.
func adminPort(rem renderers.Remediation) (string, bool) {
	if rem.Format != renderers.Text {
		return "", false
	}
	cmds, err := readCommands(rem.Content)
	if err != nil || len(cmds) != 1 || !cmds[0].set {
		return "", false
	}
	a := cmds[0].args
	if len(a) != 5 || a[0] != "interface" || a[2] != "link" || a[3] != "state" || !slices.Contains([]string{"up", "down"}, a[4]) {
		return "", false
	}
	return a[1], true
}

// AdminState reads port's link state from the running nvue.yaml (`nv
// config show -o yaml`): down or up as the state says, up for an
// interface without one.
func (Renderer) AdminState(d *ir.Device, running []renderers.Artifact, port string) (renderers.AdminState, error) {
	src, err := renderers.RunningContent(running, File)
	if err != nil {
		return "", fmt.Errorf("nvue: the link state of %s: %w", port, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return "", fmt.Errorf("nvue: %w", err)
	}
	set, err := editableSet(&doc)
	if err != nil {
		return "", fmt.Errorf("nvue: %w", err)
	}
	node := set
	for _, seg := range []string{"interface", port} {
		if node, _, err = child(node, seg); err != nil {
			return "", fmt.Errorf("nvue: %w", err)
		}
		if node == nil || node.Kind != yaml.MappingNode {
			return "", fmt.Errorf("nvue: interface %s is not in the running configuration", port)
		}
	}
	for _, seg := range []string{"link", "state"} {
		if node, _, err = child(node, seg); err != nil {
			return "", fmt.Errorf("nvue: %w", err)
		}
		if node == nil {
			return renderers.AdminUp, nil
		}
	}
	v := node.Value
	if node.Kind == yaml.MappingNode && len(node.Content) == 2 {
		// A value NVUE keys as an object, as it prints `breakout: 2x: {}`.
		v = node.Content[0].Value
	}
	if s, ok := renderers.ReadAdminState(v); ok {
		return s, nil
	}
	return "", fmt.Errorf("nvue: interface %s: link state %q: allowed are up, down", port, v)
}
