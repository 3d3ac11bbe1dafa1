package clitree

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// The administrative state of one interface, as EOS and NX-OS both write
// it: `interface NAME` and, below it, `shutdown` or `no shutdown`
// (ansible-collections/arista.eos@01a7b943 and cisco.nxos@08fd28f5,
// plugins/module_utils/network/*/config/interfaces/interfaces.py: the
// "enabled" key becomes exactly these commands under the interface). A
// quarantine's remediation is those two lines and nothing else.

// adminLines match the administrative state lines of an interface.
var adminLines = []Match{
	{Prefix: "shutdown", Re: regexp.MustCompile(`^shutdown$`)},
	{Prefix: "no shutdown", Re: regexp.MustCompile(`^no shutdown$`)},
}

// AdminRemediation returns the lines that set interface port up or down,
// indented as the dialect's remediations are.
func (d *Dialect) AdminRemediation(port string, up bool) renderers.Remediation {
	line := "shutdown"
	if up {
		line = "no shutdown"
	}
	return renderers.Remediation{Format: renderers.Text, Content: Text([]string{
		"interface " + port,
		strings.Repeat(" ", d.Indent) + line,
	})}
}

// AdminPort returns the interface a remediation sets the administrative
// state of, when that is all it does: one `interface NAME` with one
// `shutdown` or `no shutdown` below it (an `exit` may close the mode).
func AdminPort(rem renderers.Remediation) (string, bool) {
	if rem.Format != renderers.Text {
		return "", false
	}
	var top []*Node
	for _, n := range parse(rem.Content).Nodes {
		if !n.Comment {
			top = append(top, n)
		}
	}
	if len(top) != 1 {
		return "", false
	}
	port, ok := strings.CutPrefix(top[0].Line, "interface ")
	if !ok || port == "" || strings.ContainsAny(port, " \t") {
		return "", false
	}
	var lines []string
	for _, c := range top[0].Children {
		if !c.Comment && c.Line != "exit" {
			lines = append(lines, c.Line)
		}
	}
	if len(lines) != 1 || (!adminLines[0].matches(lines[0]) && !adminLines[1].matches(lines[0])) {
		return "", false
	}
	return port, true
}

// AdminScope owns the administrative state lines of interface port and
// nothing else: what applying an AdminRemediation may change.
func AdminScope(port string) Scope {
	return Scope{Parts: []Part{{
		Parent:   func(line string) bool { return line == "interface "+port },
		Children: adminLines,
	}}}
}

// AdminRemediation returns the lines that shut port of switch d (up
// false) or bring it back (up true), for the platform's PortAdmin.
func (p *Platform) AdminRemediation(d *ir.Device, port string, up bool) (renderers.Remediation, error) {
	if err := renderers.CheckAdminPort(d, port); err != nil {
		return renderers.Remediation{}, fmt.Errorf("%s: %w", p.Name, err)
	}
	return p.Dialect.AdminRemediation(port, up), nil
}

// AdminState reads interface port's administrative state from the running
// file: `shutdown` down, `no shutdown` up, and neither line AdminUnset,
// what the platform prints for its default.
func (p *Platform) AdminState(running []renderers.Artifact, port string) (renderers.AdminState, error) {
	text, err := Running(running, p.File)
	if err != nil {
		return "", fmt.Errorf("%s: %w", p.Name, err)
	}
	if text == nil {
		return "", fmt.Errorf("%s: no running %s to read the administrative state of %s from", p.Name, p.File, port)
	}
	state, found := p.AdminUnset, false
	for _, n := range parse(text).Nodes {
		if n.Comment || n.Line != "interface "+port {
			continue
		}
		found = true
		for _, c := range n.Children {
			switch {
			case c.Comment:
			case adminLines[0].matches(c.Line):
				state = renderers.AdminDown
			case adminLines[1].matches(c.Line):
				state = renderers.AdminUp
			}
		}
	}
	if !found {
		return "", fmt.Errorf("%s: interface %s is not in the running configuration", p.Name, port)
	}
	return state, nil
}
