package clitree

import (
	"strings"
)

// Remediate returns the configuration lines that make the owned tree have
// into want, in the order a configuration session takes them, indented by
// depth: within each mode, first the lines that go (`no <line>`, and the
// old line of a changed command that a new value does not replace), then
// every new or changed line in want's order, entering a mode by its line
// and leaving it with `exit`; the sections that go entirely are removed
// last, after the lines that may refer to them (a policy map's class)
// changed. A partly owned mode is never removed: only its owned lines
// are. Equal trees give no line.
func (d *Dialect) Remediate(have, want *Tree, s Scope) []string {
	var out []string
	d.remediate(&out, "", have.Nodes, want.Nodes, 0, s)
	return out
}

func (d *Dialect) remediate(out *[]string, mode string, have, want []*Node, depth int, s Scope) {
	pad := strings.Repeat(" ", depth*d.Indent)
	hk, wk := d.keys(have), d.keys(want)
	wantBy := make(map[string]keyed, len(wk))
	for _, k := range wk {
		wantBy[k.key] = k
	}
	haveBy := make(map[string]keyed, len(hk))
	for _, k := range hk {
		haveBy[k.key] = k
	}
	// Lines that go, and old lines a new value does not replace.
	var sections []keyed
	for _, h := range hk {
		w, ok := wantBy[h.key]
		switch {
		case !ok && depth == 0 && s.part(h.n.Line) != nil:
			// A partly owned mode stays; its owned lines go.
			if len(h.n.Children) > 0 {
				*out = append(*out, h.n.Line)
				d.remediate(out, h.n.Line, h.n.Children, nil, 1, s)
				*out = append(*out, strings.Repeat(" ", d.Indent)+"exit")
			}
		case !ok && len(h.n.Children) > 0:
			sections = append(sections, h)
		case !ok:
			*out = append(*out, pad+d.remove(mode, h.n.Line))
		case h.n.Line != w.n.Line && !(h.overrides && w.overrides):
			*out = append(*out, pad+d.remove(mode, h.n.Line))
		}
	}
	for _, w := range wk {
		h, ok := haveBy[w.key]
		switch {
		case !ok || h.n.Line != w.n.Line:
			d.write(out, w.n, depth)
		case !equal(d, h.n.Children, w.n.Children):
			*out = append(*out, pad+w.n.Line)
			d.remediate(out, w.n.Line, h.n.Children, w.n.Children, depth+1, s)
			*out = append(*out, pad+strings.Repeat(" ", d.Indent)+"exit")
		}
	}
	for _, h := range sections {
		*out = append(*out, pad+negate(h.n.Line))
	}
}

// write writes n and everything below it, each mode left with `exit`.
func (d *Dialect) write(out *[]string, n *Node, depth int) {
	pad := strings.Repeat(" ", depth*d.Indent)
	*out = append(*out, pad+n.Line)
	if len(n.Children) == 0 {
		return
	}
	for _, c := range n.Children {
		if !c.Comment {
			d.write(out, c, depth+1)
		}
	}
	*out = append(*out, pad+strings.Repeat(" ", d.Indent)+"exit")
}

// negate returns the command that removes line: `no <line>`, and for a
// `no X` line the command X itself, the convention of the platforms'
// configuration diff (ansible.netcommon's network config, which rocefab
// does not use, does the same).
func negate(line string) string {
	if rest, ok := strings.CutPrefix(line, "no "); ok {
		return rest
	}
	return "no " + line
}

// remove returns the command that removes line: `no <line>`; for a line
// whose `no` form the device keeps as a line, and for a `no X` line, the
// dialect's reset (`default X`) where it has one, so that the line goes
// without leaving a negation or turning X on; otherwise a `no X` line is
// removed by X.
func (d *Dialect) remove(mode, line string) string {
	if d.Reset != "" {
		if rest, ok := strings.CutPrefix(line, "no "); ok {
			return d.Reset + rest
		}
		if d.negation(mode, "no "+line) {
			return d.Reset + line
		}
	}
	return negate(line)
}

// equal reports whether two lists of lines are the same configuration,
// order of lines within a mode aside.
func equal(d *Dialect, a, b []*Node) bool {
	ak, bk := d.keys(a), d.keys(b)
	if len(ak) != len(bk) {
		return false
	}
	by := make(map[string]*Node, len(bk))
	for _, k := range bk {
		by[k.key] = k.n
	}
	for _, k := range ak {
		o, ok := by[k.key]
		if !ok || o.Line != k.n.Line || !equal(d, k.n.Children, o.Children) {
			return false
		}
	}
	return true
}
