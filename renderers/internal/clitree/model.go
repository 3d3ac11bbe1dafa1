package clitree

import (
	"bytes"
	"strings"
)

// Builder builds a device's configuration model, the stanza tree a
// renderer computes from the IR: one node per line, in the order the
// renderer writes them, each configuration line naming the catalog
// element it realises. The artifact is printed from the tree ([Tree.Bytes])
// and the desired state is the tree restricted to the owned scope
// ([Platform.State]), so that neither is read back from the other.
//
// A line at depth k belongs to the last configuration line written at
// depth k-1, which is how `show running-config` nests it; a comment line
// closes the modes at its depth and deeper, as it does when a device
// prints it. Printing the nodes in order gives back what was written.
type Builder struct {
	indent int
	root   Node
	// open holds, per depth, the configuration line whose mode a line one
	// level deeper enters.
	open []*Node
	// bytes counts what printing the tree takes, for one allocation.
	bytes int
}

// NewBuilder returns a builder of a configuration indented by indent
// columns a level (the dialect's Indent).
func NewBuilder(indent int) *Builder {
	return &Builder{indent: indent, root: Node{indent: -1}}
}

// Line adds a configuration line at depth: line is the command without
// indentation, kind the catalog element it realises ("" for what the
// catalog does not list, such as a description or a mode's own line).
func (b *Builder) Line(depth int, kind, line string) {
	raw := b.pad(depth) + line
	b.add(depth, &Node{Line: raw[len(raw)-len(line):], Raw: raw, Kind: kind, indent: len(raw) - len(line), eol: "\n"}, false)
}

// Comment adds a comment line at depth: text is `!` or starts with `! `.
// It is printed, and never part of a state.
func (b *Builder) Comment(depth int, text string) {
	raw := b.pad(depth) + text
	b.add(depth, &Node{Line: text, Raw: raw, Comment: true, indent: len(raw) - len(text), eol: "\n"}, true)
}

func (b *Builder) pad(depth int) string {
	if depth <= 0 {
		return ""
	}
	return spaces(depth * b.indent)
}

// spaces returns n spaces, without an allocation for the indentations
// a configuration uses.
func spaces(n int) string {
	const s = "                                "
	if n <= len(s) {
		return s[:n]
	}
	return strings.Repeat(" ", n)
}

// add enters n at depth: below the open mode one level up (or the
// deepest open one, for a line indented past it), after everything
// written so far.
func (b *Builder) add(depth int, n *Node, comment bool) {
	depth = max(depth, 0)
	parent := &b.root
	if d := min(depth, len(b.open)); d > 0 {
		parent = b.open[d-1]
		depth = d
	}
	parent.Children = append(parent.Children, n)
	b.bytes += len(n.Raw) + 1
	b.open = b.open[:depth]
	if !comment {
		b.open = append(b.open, n)
	}
}

// Tree returns the model built so far.
func (b *Builder) Tree() *Tree {
	return &Tree{Nodes: b.root.Children, finalNewline: true, built: true, size: b.bytes}
}

// Built reports whether t is a renderer's model (from a [Builder]), not a
// configuration parsed from text.
func (t *Tree) Built() bool { return t.built }

// print writes the tree's lines in order, each ending in a newline: the
// artifact text of a built model.
func (t *Tree) print() []byte {
	var b bytes.Buffer
	b.Grow(t.size)
	var walk func(ns []*Node)
	walk = func(ns []*Node) {
		for _, n := range ns {
			b.WriteString(n.Raw)
			b.WriteByte('\n')
			walk(n.Children)
		}
	}
	walk(t.Nodes)
	return b.Bytes()
}
