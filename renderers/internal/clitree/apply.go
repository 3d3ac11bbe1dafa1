package clitree

import (
	"fmt"
	"strings"
)

// Apply enters the remediation lines rem (as [Dialect.Remediate] writes
// them: a mode's lines indented below it, `exit` leaving it) into the
// running configuration text, the way the device would, and returns the
// new text. Only owned lines change: a command replaces the line with its
// key in its mode or is added at the end of the mode (a new top-level
// section before End), `no X` removes the line X or the line with X's
// key, with everything below it; a kept negation (Dialect.Negations) stays
// as a line. Every other line, comments and foreign sections included,
// keeps its bytes and its place. A command for a line outside s is an
// error: a remediation never touches foreign configuration.
func (d *Dialect) Apply(running, rem []byte, s Scope) ([]byte, error) {
	t := parse(running)
	cmds := parse(rem)
	root := &Node{Children: t.Nodes, indent: -1}
	if err := d.apply(root, cmds.Nodes, 0, s, nil); err != nil {
		return nil, err
	}
	t.Nodes = root.Children
	return t.Bytes(), nil
}

// apply enters cmds into the mode parent at depth; part is the partly
// owned mode being edited, nil at the top level and inside owned sections.
func (d *Dialect) apply(parent *Node, cmds []*Node, depth int, s Scope, part *Part) error {
	for _, c := range cmds {
		if c.Comment || c.Line == "exit" {
			continue
		}
		line := c.Line
		if depth == 0 || part != nil {
			target, negated := line, false
			if rest, ok := strings.CutPrefix(line, "no "); ok {
				target, negated = rest, true
			} else if rest, ok := strings.CutPrefix(line, d.Reset); ok && d.Reset != "" {
				target, negated = rest, true
			}
			owned := false
			switch {
			case depth == 0 && negated:
				// Removing or resetting a section takes all of it: only
				// a section owned whole may go, never a port whose other
				// lines are foreign.
				owned = s.whole(target)
			case depth == 0:
				owned = s.whole(target) || s.part(target) != nil
			default:
				owned = part.owns(line) || part.owns(target)
			}
			if !owned {
				return fmt.Errorf("remediation line %q: outside the owned scope, which a remediation never leaves", line)
			}
		}
		if len(c.Children) > 0 {
			m := d.find(parent, line)
			if m == nil {
				m = d.newNode(parent, line)
				d.insert(parent, m)
			}
			p := part
			if depth == 0 && !s.whole(line) {
				p = s.part(line)
			}
			if err := d.apply(m, c.Children, depth+1, s, p); err != nil {
				return err
			}
			continue
		}
		if rest, ok := strings.CutPrefix(line, d.Reset); ok && d.Reset != "" {
			k, _, _ := d.key(rest)
			d.drop(parent, k)
			continue
		}
		if rest, ok := strings.CutPrefix(line, "no "); ok {
			if i := d.indexLine(parent, rest); i >= 0 {
				parent.Children = append(parent.Children[:i:i], parent.Children[i+1:]...)
			} else {
				k, _, _ := d.key(rest)
				d.drop(parent, k)
			}
			if d.negation(parent.Line, line) {
				d.set(parent, line, part != nil)
			}
			continue
		}
		d.set(parent, line, part != nil)
	}
	return nil
}

// set enters a command: it takes the place of the first line with its
// key, keeping that line's indentation, and the other lines with the key
// go; without one it is added. In a partly owned mode (keep), what is
// indented below the replaced line is foreign and stays below it.
func (d *Dialect) set(parent *Node, line string, keep bool) {
	k, _, _ := d.key(line)
	n := d.newNode(parent, line)
	kept := make([]*Node, 0, len(parent.Children)+1)
	found := false
	for _, c := range parent.Children {
		if !c.Comment {
			if ck, _, _ := d.key(c.Line); ck == k {
				if !found {
					found = true
					if c.Line == line {
						n = c
					} else {
						n.Raw, n.indent, n.eol = c.Raw[:c.indent]+line, c.indent, c.eol
						if keep {
							n.Children = c.Children
						}
					}
					kept = append(kept, n)
				}
				continue
			}
		}
		kept = append(kept, c)
	}
	parent.Children = kept
	if !found {
		d.insert(parent, n)
	}
}

// newNode makes a line to add to parent, indented as its last sibling, or
// one level deeper than parent, so that the text reads back into the same
// tree whatever indentation the running configuration uses.
func (d *Dialect) newNode(parent *Node, line string) *Node {
	if parent.indent < 0 {
		return &Node{Line: line, Raw: line}
	}
	indent := parent.indent + d.Indent
	for i := len(parent.Children) - 1; i >= 0; i-- {
		if c := parent.Children[i]; !c.Comment {
			indent = c.indent
			break
		}
	}
	return &Node{Line: line, Raw: strings.Repeat(" ", indent) + line, indent: indent}
}

// drop removes the configuration lines of parent whose key is k.
func (d *Dialect) drop(parent *Node, k string) {
	out := parent.Children[:0]
	for _, c := range parent.Children {
		if !c.Comment {
			if ck, _, _ := d.key(c.Line); ck == k {
				continue
			}
		}
		out = append(out, c)
	}
	parent.Children = out
}

func (d *Dialect) indexLine(parent *Node, line string) int {
	for i, c := range parent.Children {
		if !c.Comment && c.Line == line {
			return i
		}
	}
	return -1
}

func (d *Dialect) find(parent *Node, line string) *Node {
	if i := d.indexLine(parent, line); i >= 0 {
		return parent.Children[i]
	}
	return nil
}

// insert adds n at the end of parent, or for a top-level section before
// the configuration's End line.
func (d *Dialect) insert(parent *Node, n *Node) {
	if parent.indent < 0 && d.End != "" {
		if i := d.indexLine(parent, d.End); i >= 0 && parent.Children[i].indent == 0 {
			parent.Children = append(parent.Children[:i], append([]*Node{n}, parent.Children[i:]...)...)
			return
		}
	}
	parent.Children = append(parent.Children, n)
}
