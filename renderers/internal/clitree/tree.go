// Package clitree reads and edits the hierarchical configuration text that
// Arista EOS and Cisco NX-OS print for `show running-config`: lines nested
// by indentation under the line that opens their mode, with `!` lines as
// comments. A renderer builds its desired configuration as such a tree
// ([Builder]) and prints its artifact from it; the package reads text only
// for running configurations. It restricts such a tree to the scope rocefab owns on a
// platform, flattens it into [renderers.Element]s, computes the CLI lines
// that make a running tree into a desired one, and applies those lines to
// a running configuration text while keeping every other line as it was.
//
// The package knows no platform: each renderer describes its own with a
// [Dialect] (indentation, how the key of a single-valued command is split
// from its value, which `no` forms the device keeps in its configuration)
// and a [Scope] (what it owns).
package clitree

import (
	"bytes"
	"strings"
)

// Node is one line of a configuration and the lines nested below it.
type Node struct {
	// Line is the command without its indentation or line ending.
	Line string
	// Raw is the line exactly as read (indentation included, line ending
	// excluded), so that an unchanged line is written back byte for byte.
	Raw string
	// Comment marks a `!` line or a blank line: kept for printing, never
	// part of a state.
	Comment bool
	// eol is how the line ended ("\n", "\r\n", "" for a last line
	// without one or a line this package made).
	eol string
	// Kind is the catalog element the line realises, named by the
	// renderer that built it ([Builder]); a line parsed from a running
	// configuration has none, and the dialect's rules give its element.
	Kind string
	// Children are the lines of the mode Line opens.
	Children []*Node

	indent int
}

// Tree is a configuration, a renderer's model or a parsed running
// configuration: its top-level lines in order.
type Tree struct {
	Nodes []*Node
	// crlf and finalNewline say how lines this package adds end, so that
	// Bytes gives back exactly what was parsed when nothing changed.
	crlf         bool
	finalNewline bool
	// built marks a renderer's model, whose lines name their elements;
	// size is what printing it takes.
	built bool
	size  int
}

// parse reads a running configuration text into a tree. It is the
// package's only reader of configuration text, and it reads what a
// device runs (or a remediation to enter into it), never a renderer's
// artifact: a renderer's desired state is its [Builder]'s tree
// (renderers/parse_test.go keeps it so). Any input parses: a line
// belongs to the nearest earlier line indented less than it, a comment
// line (`!`, after its indentation) closes the modes it is not indented
// into, and a blank line stays where it is. Tabs count as one column.
func parse(text []byte) *Tree {
	t := &Tree{
		finalNewline: len(text) > 0 && text[len(text)-1] == '\n',
		crlf:         bytes.Contains(text, []byte("\r\n")),
	}
	type frame struct {
		indent int
		node   *Node
	}
	root := &Node{indent: -1}
	stack := []frame{{-1, root}}
	for len(text) > 0 {
		var raw []byte
		eol := ""
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			raw, text, eol = text[:i], text[i+1:], "\n"
			if len(raw) > 0 && raw[len(raw)-1] == '\r' {
				raw, eol = raw[:len(raw)-1], "\r\n"
			}
		} else {
			raw, text = text, nil
		}
		s := string(raw)
		content := strings.TrimLeft(s, " \t")
		indent := len(s) - len(content)
		line := strings.TrimRight(content, " \t\r")
		n := &Node{Line: line, Raw: s, eol: eol, indent: indent}
		switch {
		case line == "":
			n.Comment = true
			top := stack[len(stack)-1].node
			top.Children = append(top.Children, n)
		case line[0] == '!':
			n.Comment = true
			for len(stack) > 1 && stack[len(stack)-1].indent >= indent {
				stack = stack[:len(stack)-1]
			}
			top := stack[len(stack)-1].node
			top.Children = append(top.Children, n)
		default:
			for len(stack) > 1 && stack[len(stack)-1].indent >= indent {
				stack = stack[:len(stack)-1]
			}
			top := stack[len(stack)-1].node
			top.Children = append(top.Children, n)
			stack = append(stack, frame{indent, n})
		}
	}
	t.Nodes = root.Children
	return t
}

// Bytes prints the tree: the text it was parsed from when nothing changed,
// and otherwise each kept line byte for byte with the changed ones in
// their places, ending as the lines around them end.
func (t *Tree) Bytes() []byte {
	if t.built {
		return t.print()
	}
	var all []*Node
	var walk func(ns []*Node)
	walk = func(ns []*Node) {
		for _, n := range ns {
			all = append(all, n)
			walk(n.Children)
		}
	}
	walk(t.Nodes)
	eol := "\n"
	if t.crlf {
		eol = "\r\n"
	}
	var b bytes.Buffer
	for i, n := range all {
		b.WriteString(n.Raw)
		switch {
		case n.eol != "":
			b.WriteString(n.eol)
		case i < len(all)-1 || t.finalNewline:
			b.WriteString(eol)
		}
	}
	return b.Bytes()
}

// Lines returns the configuration lines of the tree in order, each with
// the indentation of its depth (indent columns a level) and comments
// dropped: the canonical form in which two trees compare.
func (t *Tree) Lines(indent int) []string {
	var out []string
	var walk func(ns []*Node, depth int)
	walk = func(ns []*Node, depth int) {
		for _, n := range ns {
			if n.Comment {
				continue
			}
			out = append(out, strings.Repeat(" ", depth*indent)+n.Line)
			walk(n.Children, depth+1)
		}
	}
	walk(t.Nodes, 0)
	return out
}

// clone copies n and its configuration lines below it, comments dropped.
func clone(n *Node) *Node {
	c := &Node{Line: n.Line, Raw: n.Raw, Kind: n.Kind, indent: n.indent}
	for _, ch := range n.Children {
		if !ch.Comment {
			c.Children = append(c.Children, clone(ch))
		}
	}
	return c
}
