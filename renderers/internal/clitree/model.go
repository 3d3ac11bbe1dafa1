package clitree

import (
	"slices"
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
	// text holds every line written, each followed by a newline; a node
	// takes its Raw and Line from it when the tree is made, so that a
	// line costs no allocation of its own.
	text []byte
	// slabs hold the nodes, a chunk at a time, in the order written, and
	// spans where each one's line is in text.
	slabs [][]Node
	spans [][2]int
}

// slab is how many nodes a Builder allocates at once.
const slab = 128

// NewBuilder returns a builder of a configuration indented by indent
// columns a level (the dialect's Indent).
func NewBuilder(indent int) *Builder {
	return &Builder{indent: indent, root: Node{indent: -1}}
}

// Grow makes room for about n more bytes of text and n/40 more lines,
// so that a renderer that knows its size builds without regrowing.
func (b *Builder) Grow(n int) {
	b.text = slices.Grow(b.text, n)
	b.spans = slices.Grow(b.spans, n/40)
}

// Line adds a configuration line at depth: line is the command without
// indentation, kind the catalog element it realises ("" for what the
// catalog does not list, such as a description or a mode's own line).
func (b *Builder) Line(depth int, kind, line string) {
	n := b.node(depth, line, nil)
	n.Kind = kind
	b.add(depth, n, false)
}

// LineBytes is Line for a line held in a byte slice, which it copies.
func (b *Builder) LineBytes(depth int, kind string, line []byte) {
	n := b.node(depth, "", line)
	n.Kind = kind
	b.add(depth, n, false)
}

// Comment adds a comment line at depth: text is `!` or starts with `! `.
// It is printed, and never part of a state.
func (b *Builder) Comment(depth int, text string) {
	n := b.node(depth, text, nil)
	n.Comment = true
	b.add(depth, n, true)
}

// CommentBytes is Comment for a line held in a byte slice, which it
// copies.
func (b *Builder) CommentBytes(depth int, text []byte) {
	n := b.node(depth, "", text)
	n.Comment = true
	b.add(depth, n, true)
}

// node returns a new node for the line s (or, when s is empty, line) at
// depth, its text appended to b.text.
func (b *Builder) node(depth int, s string, line []byte) *Node {
	start := len(b.text)
	if depth > 0 {
		b.text = append(b.text, spaces(depth*b.indent)...)
	}
	indent := len(b.text) - start
	b.text = append(b.text, s...)
	b.text = append(b.text, line...)
	b.spans = append(b.spans, [2]int{start, len(b.text)})
	b.text = append(b.text, '\n')
	if k := len(b.slabs); k == 0 || len(b.slabs[k-1]) == cap(b.slabs[k-1]) {
		b.slabs = append(b.slabs, make([]Node, 0, slab))
	}
	k := len(b.slabs) - 1
	b.slabs[k] = append(b.slabs[k], Node{indent: indent, eol: "\n"})
	return &b.slabs[k][len(b.slabs[k])-1]
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
	b.open = b.open[:depth]
	if !comment {
		b.open = append(b.open, n)
	}
}

// Tree returns the model built so far; the builder is done with.
func (b *Builder) Tree() *Tree {
	text := string(b.text)
	i := 0
	for _, sl := range b.slabs {
		for j := range sl {
			n, sp := &sl[j], b.spans[i]
			n.Raw = text[sp[0]:sp[1]]
			n.Line = n.Raw[n.indent:]
			i++
		}
	}
	return &Tree{Nodes: b.root.Children, finalNewline: true, built: true, size: len(text)}
}

// MarkBlocks puts comment lines above each top-level block of a built
// model: the mark of the block's own line directly above it, then the
// marks of the lines below it, each once per block, in the order they
// come. mark returns a line's comment ("! verify: ...") or "" for none.
// NX-OS takes no comment inside a policy, so a line's mark goes above the
// block that holds it.
func (t *Tree) MarkBlocks(mark func(line string) string) {
	out := make([]*Node, 0, len(t.Nodes))
	for _, n := range t.Nodes {
		if n.Comment {
			out = append(out, n)
			continue
		}
		var marks []string
		if m := mark(n.Line); m != "" {
			marks = append(marks, m)
		}
		var seen map[string]bool
		var walk func(ns []*Node)
		walk = func(ns []*Node) {
			for _, c := range ns {
				if c.Comment {
					continue
				}
				if m := mark(c.Line); m != "" && !seen[m] {
					if seen == nil {
						seen = map[string]bool{}
					}
					seen[m] = true
					marks = append(marks, m)
				}
				walk(c.Children)
			}
		}
		walk(n.Children)
		for _, m := range marks {
			out = append(out, &Node{Line: m, Raw: m, Comment: true, eol: "\n"})
			t.size += len(m) + 1
		}
		out = append(out, n)
	}
	t.Nodes = out
}

// print writes the tree's lines in order, each ending in a newline: the
// artifact text of a built model.
func (t *Tree) print() []byte { return t.printTo(nil) }

// printTo is print appending to b.
func (t *Tree) printTo(b []byte) []byte {
	b = slices.Grow(b, t.size)
	var walk func(ns []*Node)
	walk = func(ns []*Node) {
		for _, n := range ns {
			b = append(b, n.Raw...)
			b = append(b, '\n')
			walk(n.Children)
		}
	}
	walk(t.Nodes)
	return b
}
