package clitree

import (
	"regexp"
	"strings"
)

// Scope is what a platform owns of a running configuration: top-level
// sections owned whole, and modes of which only some lines are owned (an
// interface's MTU, not its addresses).
type Scope struct {
	Whole []Match
	Parts []Part
}

// Match matches a line: it starts with Prefix and, when Re is set, Re
// matches it too. The prefix is checked first, so that the few lines that
// can match pay for a regular expression.
type Match struct {
	Prefix string
	Re     *regexp.Regexp
}

func (m Match) matches(line string) bool {
	return strings.HasPrefix(line, m.Prefix) && (m.Re == nil || m.Re.MatchString(line))
}

// Part is a top-level mode of which rocefab owns some lines.
type Part struct {
	// Parent reports whether a top-level line opens such a mode and is
	// this device's (an interface of the device).
	Parent func(line string) bool
	// Children match the owned lines of the mode.
	Children []Match
}

// whole reports whether the top-level line is owned with all below it.
func (s Scope) whole(line string) bool {
	for _, m := range s.Whole {
		if m.matches(line) {
			return true
		}
	}
	return false
}

// part returns the Part whose mode the top-level line opens, or nil.
func (s Scope) part(line string) *Part {
	for i := range s.Parts {
		if s.Parts[i].Parent(line) {
			return &s.Parts[i]
		}
	}
	return nil
}

// owns reports whether a line of a partly owned mode is owned.
func (p *Part) owns(line string) bool {
	for _, m := range p.Children {
		if m.matches(line) {
			return true
		}
	}
	return false
}

// Restrict returns the part of t within the scope, comments dropped: the
// sections owned whole with everything below them, and each partly owned
// mode with only its owned lines. t is not changed.
func (s Scope) Restrict(t *Tree) *Tree {
	out := &Tree{built: t.built}
	for _, n := range t.Nodes {
		if n.Comment {
			continue
		}
		if s.whole(n.Line) {
			out.Nodes = append(out.Nodes, clone(n))
			continue
		}
		p := s.part(n.Line)
		if p == nil {
			continue
		}
		c := &Node{Line: n.Line, Raw: n.Raw, Kind: n.Kind, indent: n.indent}
		for _, ch := range n.Children {
			// An owned line of a partly owned mode is a single
			// command: anything indented below it is not rocefab's.
			if !ch.Comment && p.owns(ch.Line) {
				c.Children = append(c.Children, &Node{Line: ch.Line, Raw: ch.Raw, Kind: ch.Kind, indent: ch.indent})
			}
		}
		out.Nodes = append(out.Nodes, c)
	}
	return out
}

// Foreign returns the lines of t outside the scope, exactly as they are
// (comments included), in order: what applying a remediation must leave
// byte for byte as it was.
func (s Scope) Foreign(t *Tree) []string {
	var out []string
	var all func(n *Node)
	all = func(n *Node) {
		out = append(out, n.Raw)
		for _, c := range n.Children {
			all(c)
		}
	}
	for _, n := range t.Nodes {
		switch {
		case n.Comment:
			out = append(out, n.Raw)
		case s.whole(n.Line):
		case s.part(n.Line) != nil:
			// The mode's own line is shared: a new interface section
			// opens one, and it is not foreign configuration.
			p := s.part(n.Line)
			for _, c := range n.Children {
				if c.Comment || !p.owns(c.Line) {
					all(c)
					continue
				}
				for _, g := range c.Children {
					all(g)
				}
			}
		default:
			all(n)
		}
	}
	return out
}
