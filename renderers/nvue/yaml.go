package nvue

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rocefab/rocefab/renderers"
)

// The YAML here is written by hand rather than with a YAML library: the
// NVUE document is a tree of mappings with integer and string leaves, and a
// writer this small keeps every byte of the output (key order, quoting,
// comments next to the values they explain) under the renderer's control,
// which is what golden files need.

// node is one key of a YAML mapping: either a scalar leaf or a mapping.
type node struct {
	key      string
	leaf     bool
	value    string // the scalar as written, already quoted when needed
	raw      string // the scalar as the document means it, unquoted
	children []*node
	index    map[string]*node
	above    []string // comment lines written before the key
	trailing string   // a comment written after the value on the key's line
	slab     *slab    // where the tree's nodes come from
}

// newNode returns the root of a new tree.
func newNode(key string) *node { return (&slab{}).node(key) }

// slab hands out a tree's nodes from blocks, so that a document of a
// thousand keys costs a few allocations rather than one per key: the nodes
// of a tree live and die together. A tree whose document is written gives
// its blocks back (release) for the next switch's tree.
type slab struct {
	free   []node
	blocks []*[]node
}

// slabBlock is how many nodes a slab allocates at once: a few blocks hold
// a 64-port switch's document.
const slabBlock = 128

// slabBlocks keeps the blocks of released trees: a fabric's NVUE switches
// build trees of the same size one after the other, and reusing their
// nodes spares the collector hundreds of kilobytes a switch.
var slabBlocks = sync.Pool{New: func() any {
	b := make([]node, slabBlock)
	return &b
}}

func (s *slab) node(key string) *node {
	if len(s.free) == 0 {
		b := slabBlocks.Get().(*[]node)
		s.blocks = append(s.blocks, b)
		s.free = *b
	}
	n := &s.free[0]
	s.free = s.free[1:]
	n.key, n.slab = key, s
	return n
}

// release gives the slab's blocks back, cleared, for other trees; no node
// of its tree may be used after.
func (s *slab) release() {
	for _, b := range s.blocks {
		clear(*b)
		slabBlocks.Put(b)
	}
	s.blocks, s.free = nil, nil
}

// indexAt is the number of children from which a mapping indexes them by
// key: most mappings hold a handful of keys, where a scan is cheaper than
// a map, while `interface` holds every port of the switch.
const indexAt = 16

// child returns the mapping child with that key, creating it.
func (n *node) child(key string) *node {
	if n.index != nil {
		if c, ok := n.index[key]; ok {
			return c
		}
	} else {
		for _, c := range n.children {
			if c.key == key {
				return c
			}
		}
	}
	c := n.slab.node(key)
	n.children = append(n.children, c)
	switch {
	case n.index != nil:
		n.index[key] = c
	case len(n.children) >= indexAt:
		n.index = make(map[string]*node, 2*len(n.children))
		for _, o := range n.children {
			n.index[o.key] = o
		}
	}
	return c
}

// set sets a scalar child and returns it, so that a comment can be added.
func (n *node) set(key string, v any) *node {
	switch v := v.(type) {
	case int:
		s := strconv.Itoa(v)
		return n.setScalar(key, s, s)
	case int64:
		s := strconv.FormatInt(v, 10)
		return n.setScalar(key, s, s)
	case string:
		return n.setScalar(key, quote(v), v)
	default:
		panic(fmt.Sprintf("nvue: unsupported YAML scalar %T", v))
	}
}

// setScalar is set with the scalar given as written (value) and as meant
// (raw), for a value set on every port, whose writing is made once.
func (n *node) setScalar(key, value, raw string) *node {
	c := n.child(key)
	c.leaf = true
	c.children, c.index = nil, nil
	c.value, c.raw = value, raw
	return c
}

// comment adds comment lines above the node's key.
func (n *node) comment(format string, args ...any) *node {
	n.above = append(n.above, fmt.Sprintf(format, args...))
	return n
}

// note sets the comment written after the node's value.
func (n *node) note(format string, args ...any) *node {
	n.trailing = fmt.Sprintf(format, args...)
	return n
}

// markVerify puts a "verify: <form>" comment above every leaf and empty
// mapping whose statement form isVerify reports. A commented node is never
// folded into a flow mapping, so the mark stays on its own line next to
// the key it names. form is the form of path's keys (renderers.NVUEForm
// without the value): each node's is its parent's and its own key's, so
// no leaf recomputes its whole path. path is reused as a stack across
// siblings: the form functions keep none of it.
func markVerify(n *node, path []string, form string, isVerify func(form string) bool) {
	for _, c := range n.children {
		p := append(path, c.key)
		if c.leaf || len(c.children) == 0 {
			// One concatenation, one allocation, per leaf.
			leaf := form + " " + renderers.NVUEKeyForm(p) + " " + renderers.NVUEValueForm(p, c.raw, !c.leaf)
			if isVerify(leaf) {
				c.above = append([]string{renderers.VerifyMark(leaf)}, c.above...)
			}
			continue
		}
		markVerify(c, p, form+" "+renderers.NVUEKeyForm(p), isVerify)
	}
}

// plain reports what this writer leaves unquoted, [A-Za-z_][A-Za-z0-9_./-]*:
// nothing that a YAML 1.1 or 1.2 reader could take for a number, a
// boolean, a null, a date or syntax. A byte loop rather than a regexp,
// since every key and value of a document passes here.
func plain(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c == '.' || c == '/' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// yaml11Words are the plain words YAML 1.1 reads as booleans or null; NVUE's
// on/off leaves are strings, so they must be quoted.
var yaml11Words = map[string]bool{
	"y": true, "yes": true, "n": true, "no": true, "true": true, "false": true,
	"on": true, "off": true, "null": true,
}

// quote returns s as a YAML scalar: plain when that is unambiguous, single
// quoted otherwise.
func quote(s string) string {
	if plain(s) && (len(s) > 5 || !yaml11Words[strings.ToLower(s)]) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// checkText refuses text that would break out of a YAML line or comment.
func checkText(what, s string) error {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029 {
			return fmt.Errorf("%s %q has a control or line-break character", what, s)
		}
	}
	return nil
}

// naturalCompare orders keys with digit runs compared as numbers, so that
// swp2 sorts before swp10 and DSCP '8' before '10'.
func naturalCompare(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if isDigit(ca) && isDigit(cb) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			na := strings.TrimLeft(a[si:i], "0")
			nb := strings.TrimLeft(b[sj:j], "0")
			if c := cmp.Or(cmp.Compare(len(na), len(nb)), strings.Compare(na, nb)); c != 0 {
				return c
			}
			continue
		}
		if c := cmp.Compare(ca, cb); c != 0 {
			return c
		}
		i, j = i+1, j+1
	}
	return cmp.Or(cmp.Compare(len(a)-i, len(b)-j), strings.Compare(a, b))
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// flowWidth is the longest line a mapping is folded into {a: 1, b: 2} for.
const flowWidth = 100

// emit writes the document: header comments, then the single `- set:` item
// that `nv config patch` merges into the pending revision.
func emit(header []string, set *node) ([]byte, error) {
	buf := bytes.NewBuffer(documents.Get(0))
	for _, h := range header {
		if err := checkText("comment", h); err != nil {
			return nil, err
		}
		writeComment(buf, "", h)
	}
	buf.WriteString("- set:\n")
	sortChildren(set)
	if err := emitChildren(buf, set, "    "); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// documents holds the buffers documents are written into (Render makes
// the artifact).
var documents renderers.ContentPool

func writeComment(buf *bytes.Buffer, indent, text string) {
	buf.WriteString(indent)
	if text == "" {
		buf.WriteString("#\n")
		return
	}
	buf.WriteString("# ")
	buf.WriteString(text)
	buf.WriteByte('\n')
}

// sortChildren puts n's children in the order the document prints them.
// It sorts in place: the tree is built for one document and not read in
// insertion order after it is emitted.
func sortChildren(n *node) {
	slices.SortFunc(n.children, func(a, b *node) int { return naturalCompare(a.key, b.key) })
}

// emitChildren writes the children of n, which sortChildren has sorted.
func emitChildren(buf *bytes.Buffer, n *node, indent string) error {
	for _, c := range n.children {
		if err := emitNode(buf, c, indent); err != nil {
			return err
		}
	}
	return nil
}

func emitNode(buf *bytes.Buffer, n *node, indent string) error {
	for _, t := range [...]string{n.key, n.value, n.trailing} {
		if err := checkText("text", t); err != nil {
			return err
		}
	}
	for _, a := range n.above {
		if err := checkText("text", a); err != nil {
			return err
		}
	}
	for _, a := range n.above {
		writeComment(buf, indent, a)
	}
	start := buf.Len()
	buf.WriteString(indent)
	buf.WriteString(quote(n.key))
	buf.WriteByte(':')
	switch {
	case n.leaf:
		buf.WriteByte(' ')
		buf.WriteString(n.value)
		writeTail(buf, n)
		return nil
	case len(n.children) == 0:
		buf.WriteString(" {}")
		writeTail(buf, n)
		return nil
	}
	sortChildren(n)
	// Try the flow form in place and take it back when it does not fit.
	mark := buf.Len()
	buf.WriteByte(' ')
	if flow(buf, n) && buf.Len()-start <= flowWidth {
		writeTail(buf, n)
		return nil
	}
	buf.Truncate(mark)
	writeTail(buf, n)
	return emitChildren(buf, n, indent+"  ")
}

// writeTail ends the key's line with its trailing comment, if any.
func writeTail(buf *bytes.Buffer, n *node) {
	if n.trailing != "" {
		buf.WriteString("  # ")
		buf.WriteString(n.trailing)
	}
	buf.WriteByte('\n')
}

// flow writes a mapping of scalars and empty mappings, none of them
// commented, as a one-line flow mapping; it reports false, having written
// part of it, when n has a child the flow form cannot hold.
func flow(buf *bytes.Buffer, n *node) bool {
	buf.WriteByte('{')
	for i, c := range n.children {
		if len(c.above) > 0 || c.trailing != "" {
			return false
		}
		if i > 0 {
			buf.WriteString(", ")
		}
		switch {
		case c.leaf:
			buf.WriteString(quote(c.key))
			buf.WriteString(": ")
			buf.WriteString(c.value)
		case len(c.children) == 0:
			buf.WriteString(quote(c.key))
			buf.WriteString(": {}")
		default:
			return false
		}
	}
	buf.WriteByte('}')
	return true
}
