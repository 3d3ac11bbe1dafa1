package nvue

import (
	"fmt"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// CheckScope refuses a remediation with a line that is not `nv set` or
// `nv unset` of a path inside switch d's owned scope (ownedRoots, with
// d's interfaces), reading the remediation alone (renderers.ScopeChecker):
// `nv set system hostname X` or `nv unset router bgp` never reach the
// switch.
func (Renderer) CheckScope(d *ir.Device, rem renderers.Remediation) error {
	if ok, err := renderers.ScopeInput("nvue", d, rem, renderers.Text, "nv set/unset lines"); !ok {
		return err
	}
	if err := checkCommands(scopeOf(d), rem.Content); err != nil {
		return fmt.Errorf("nvue: %s: %w", d.Name, err)
	}
	return nil
}

// checkCommands checks every line of cmds against sc: an `nv set` or `nv
// unset` whose path lies inside an owned root. A path only on the way to
// a root (`nv unset qos`) is outside: it would take foreign keys with it.
func checkCommands(sc scope, cmds []byte) error {
	lines, err := readCommands(cmds)
	if err != nil {
		return err
	}
	for _, c := range lines {
		path := c.args
		if c.set && !emptyEntry(path) {
			path = path[:len(path)-1] // the value
		}
		if root, _ := sc.classify(path); root == 0 {
			return fmt.Errorf("remediation line %d %q: outside the owned scope, which a remediation never leaves", c.line, c.text)
		}
	}
	return nil
}
