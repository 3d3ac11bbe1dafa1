package nvue

import (
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// A running configuration is read into a tree of nodes by a small reader
// of the YAML that `nv config show -o yaml` prints, and by the YAML library
// for anything else. NVUE prints block mappings and sequences indented with
// spaces, one key a line, plain or single-quoted scalars and `{}` for an
// empty object (see examples/pod-2048/running/*/nvue.yaml); reading that
// with go.yaml.in/yaml/v3 took most of the time of a plan of a leaf (its
// scanner allocates a token per character class). The reader below accepts
// a strict subset of YAML and builds exactly the nodes the library builds
// for it (kinds, values, null tags and line numbers; a test compares the
// two on the examples and under fuzzing); on the first byte outside the
// subset (anchors, tags, block scalars, flow sequences, tabs, multi-line
// scalars, non-ASCII text, a second document) it gives up and the library
// reads the document, so that what it reads is never read differently.

// rnode is one node of a running document with what reading it needs: the
// fields of yaml.Node that say what it is, a third of its size.
type rnode struct {
	Kind yaml.Kind
	// Tag is the resolved tag; only "!!null" (an absent value, `key:`)
	// is told apart.
	Tag   string
	Value string
	Line  int
	// Content holds a mapping's keys and values, alternating, and a
	// sequence's items.
	Content []*rnode
}

// readTop returns the top node of a YAML document (nil for an empty one),
// read by the subset reader when the document lies in the subset.
func readTop(src []byte) (*rnode, error) {
	if top, ok := readSubset(src); ok {
		return top, nil
	}
	return readLibrary(src)
}

// readLibrary reads src with the YAML library: any YAML, at the library's
// pace. The tests hold readSubset to it.
func readLibrary(src []byte) (*rnode, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	return fromYAML(doc.Content[0]), nil
}

// fromYAML copies what reading needs of the library's tree.
func fromYAML(n *yaml.Node) *rnode {
	out := &rnode{Kind: n.Kind, Tag: n.Tag, Value: n.Value, Line: n.Line}
	if len(n.Content) > 0 {
		out.Content = make([]*rnode, len(n.Content))
		for i, c := range n.Content {
			out.Content[i] = fromYAML(c)
		}
	}
	return out
}

// line is one line of the document with content: its number, indentation
// and text without the indentation, a comment and trailing spaces.
type line struct {
	num    int
	indent int
	text   string
}

// subsetReader reads the lines of a document in the subset.
type subsetReader struct {
	lines []line
	pos   int
	// slab holds the nodes, allocated together: a leaf's configuration
	// has thousands.
	slab []rnode
}

// slabSize is how many nodes are allocated at once: enough to make the
// allocations few, few enough that the last one's unused part costs
// little.
const slabSize = 512

// node returns a new node set to n.
func (r *subsetReader) node(n rnode) *rnode {
	if len(r.slab) == cap(r.slab) {
		r.slab = make([]rnode, 0, slabSize)
	}
	r.slab = append(r.slab, n)
	return &r.slab[len(r.slab)-1]
}

// readSubset reads src if it lies in the subset; ok is false otherwise.
func readSubset(src []byte) (top *rnode, ok bool) {
	lines, ok := splitLines(src)
	if !ok {
		return nil, false
	}
	if len(lines) == 0 {
		return nil, true
	}
	r := &subsetReader{lines: lines}
	if lines[0].indent != 0 {
		return nil, false
	}
	top, ok = r.block(0)
	if !ok || r.pos != len(r.lines) || top.Kind == yaml.ScalarNode {
		return nil, false
	}
	return top, true
}

// splitLines splits src into its lines with content. It refuses what the
// subset has no place for: bytes outside printable ASCII (but in comments),
// tabs, carriage returns, and the lines that start directives, documents
// and other block constructs.
func splitLines(b []byte) ([]line, bool) {
	if !utf8.Valid(b) {
		return nil, false
	}
	// One string for the whole document: the lines, keys and values are
	// slices of it.
	src := string(b)
	out := make([]line, 0, strings.Count(src, "\n")+1)
	for num := 1; len(src) > 0; num++ {
		var raw string
		if i := strings.IndexByte(src, '\n'); i >= 0 {
			raw, src = src[:i], src[i+1:]
		} else {
			raw, src = src, ""
		}
		indent := 0
		for indent < len(raw) && raw[indent] == ' ' {
			indent++
		}
		text := stripComment(raw[indent:])
		// Comments may hold any text the library reads (valid UTF-8
		// without control characters); what is read, printable ASCII.
		for i := indent + len(text); i < len(raw); i++ {
			if c := raw[i]; c < 0x20 || c == 0x7f {
				return nil, false
			}
		}
		for i := 0; i < len(text); i++ {
			if c := text[i]; c < 0x20 || c >= 0x7f {
				return nil, false
			}
		}
		if text == "" {
			continue
		}
		switch text[0] {
		case '%', '?', '&', '*', '!', '|', '>', '[', '@', '`', ']', '}', ',':
			return nil, false
		}
		if indent == 0 && (strings.HasPrefix(text, "---") || strings.HasPrefix(text, "...")) {
			return nil, false
		}
		out = append(out, line{num: num, indent: indent, text: text})
	}
	return out, true
}

// stripComment removes a comment (a '#' at the start or after a space,
// outside a single-quoted scalar) and trailing spaces.
func stripComment(s string) string {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			quoted = !quoted // '' inside a quoted scalar toggles twice
		case c == '#' && !quoted && (i == 0 || s[i-1] == ' '):
			s = s[:i]
		}
	}
	return strings.TrimRight(s, " ")
}

// block reads the node whose lines start at the current line, indented by
// indent: a sequence when the line is a list item, a mapping otherwise.
func (r *subsetReader) block(indent int) (*rnode, bool) {
	l := r.lines[r.pos]
	if l.indent != indent {
		return nil, false
	}
	if isItem(l.text) {
		return r.sequence(indent)
	}
	return r.mapping(indent)
}

// isItem reports whether text is a block sequence item.
func isItem(text string) bool { return text == "-" || strings.HasPrefix(text, "- ") }

// sequence reads the items at indent.
func (r *subsetReader) sequence(indent int) (*rnode, bool) {
	seq := r.node(rnode{Kind: yaml.SequenceNode, Tag: "!!seq", Line: r.lines[r.pos].num})
	for r.pos < len(r.lines) {
		l := r.lines[r.pos]
		if l.indent < indent || l.indent == indent && !isItem(l.text) {
			break // the next key of the mapping the sequence is in, if any
		}
		if l.indent > indent {
			return nil, false
		}
		rest := strings.TrimLeft(l.text[1:], " ")
		if rest == "" {
			// The item's node is on the lines below, indented deeper.
			r.pos++
			if r.pos >= len(r.lines) || r.lines[r.pos].indent <= indent {
				seq.Content = append(seq.Content, r.nullNode(l.num))
				continue
			}
			n, ok := r.block(r.lines[r.pos].indent)
			if !ok {
				return nil, false
			}
			seq.Content = append(seq.Content, n)
			continue
		}
		if isItem(rest) || rest[0] == '"' {
			return nil, false // a nested item on one line, or an escape
		}
		// The item's first line is read again as the first key of a
		// mapping (or a scalar) indented to where it starts.
		col := indent + len(l.text) - len(rest)
		r.lines[r.pos] = line{num: l.num, indent: col, text: rest}
		if _, _, isKey := splitKey(rest); !isKey {
			v, ok := r.scalar(rest, l.num, false)
			if !ok {
				return nil, false
			}
			seq.Content = append(seq.Content, v)
			r.pos++
			if r.pos < len(r.lines) && r.lines[r.pos].indent > indent {
				return nil, false // a scalar continued on the next line
			}
			continue
		}
		n, ok := r.mapping(col)
		if !ok {
			return nil, false
		}
		seq.Content = append(seq.Content, n)
	}
	return seq, true
}

// mapping reads the keys at indent.
func (r *subsetReader) mapping(indent int) (*rnode, bool) {
	m := r.node(rnode{Kind: yaml.MappingNode, Tag: "!!map", Line: r.lines[r.pos].num})
	for r.pos < len(r.lines) {
		l := r.lines[r.pos]
		if l.indent < indent {
			break
		}
		if l.indent > indent || isItem(l.text) {
			return nil, false
		}
		key, rest, isKey := splitKey(l.text)
		if !isKey {
			return nil, false
		}
		k, ok := r.scalar(key, l.num, false)
		if !ok || k.Tag == "!!null" {
			return nil, false
		}
		r.pos++
		var v *rnode
		switch {
		case rest != "":
			if v, ok = r.value(rest, l.num); !ok {
				return nil, false
			}
			if r.pos < len(r.lines) && r.lines[r.pos].indent > indent {
				return nil, false // a value continued on the next line
			}
		case r.pos < len(r.lines) && r.lines[r.pos].indent > indent:
			if v, ok = r.block(r.lines[r.pos].indent); !ok {
				return nil, false
			}
		case r.pos < len(r.lines) && r.lines[r.pos].indent == indent && isItem(r.lines[r.pos].text):
			// A sequence may sit at its key's indentation.
			if v, ok = r.sequence(indent); !ok {
				return nil, false
			}
		default:
			v = r.nullNode(l.num)
		}
		m.Content = append(m.Content, k, v)
	}
	return m, true
}

// splitKey splits "key: value" and "key:" at the key's colon; isKey is
// false for a line that is not a key.
func splitKey(text string) (key, rest string, isKey bool) {
	if text[0] == '\'' || text[0] == '"' {
		end, ok := quotedEnd(text)
		if !ok {
			return "", "", false
		}
		after := text[end:]
		if after == ":" || strings.HasPrefix(after, ": ") {
			return text[:end], strings.TrimLeft(after[1:], " "), true
		}
		return "", "", false
	}
	for i := 0; i < len(text); i++ {
		if text[i] == ':' && (i+1 == len(text) || text[i+1] == ' ') {
			return text[:i], strings.TrimLeft(text[i+1:], " "), true
		}
	}
	return "", "", false
}

// quotedEnd returns the index just past the quoted scalar s starts with:
// single-quoted, or double-quoted without an escape (the library's
// encoder quotes keys such as "0" so, which a leaf's running file written
// by it has by the hundred); a double-quoted scalar with an escape is the
// library's to read.
func quotedEnd(s string) (int, bool) {
	if s[0] == '"' {
		i := strings.IndexAny(s[1:], "\\\"")
		if i < 0 || s[1+i] == '\\' {
			return 0, false
		}
		return i + 2, true
	}
	for i := 1; i < len(s); i++ {
		if s[i] != '\'' {
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			i++
			continue
		}
		return i + 1, true
	}
	return 0, false
}

// value reads a value on a key's line: a flow mapping or a scalar.
func (r *subsetReader) value(s string, num int) (*rnode, bool) {
	if s[0] != '{' {
		return r.scalar(s, num, false)
	}
	n, rest, ok := r.flowMapping(s, num)
	if !ok || rest != "" {
		return nil, false
	}
	return n, true
}

// flowMapping reads a one-line flow mapping, {a: 1, b: {}}, at the start
// of s and returns what follows it.
func (r *subsetReader) flowMapping(s string, num int) (*rnode, string, bool) {
	m := r.node(rnode{Kind: yaml.MappingNode, Tag: "!!map", Line: num})
	s = strings.TrimLeft(s[1:], " ")
	if strings.HasPrefix(s, "}") {
		return m, strings.TrimLeft(s[1:], " "), true
	}
	for {
		end := flowToken(s)
		if end <= 0 || end >= len(s) || s[end] != ':' || end+1 >= len(s) || s[end+1] != ' ' {
			return nil, "", false
		}
		k, ok := r.scalar(strings.TrimRight(s[:end], " "), num, true)
		if !ok || k.Tag == "!!null" {
			return nil, "", false
		}
		s = strings.TrimLeft(s[end+1:], " ")
		var v *rnode
		if strings.HasPrefix(s, "{") {
			if v, s, ok = r.flowMapping(s, num); !ok {
				return nil, "", false
			}
		} else {
			end = flowToken(s)
			if end <= 0 {
				return nil, "", false
			}
			if v, ok = r.scalar(strings.TrimRight(s[:end], " "), num, true); !ok {
				return nil, "", false
			}
			s = s[end:]
		}
		m.Content = append(m.Content, k, v)
		switch {
		case strings.HasPrefix(s, ", "):
			s = strings.TrimLeft(s[2:], " ")
		case strings.HasPrefix(s, "}"):
			return m, strings.TrimLeft(s[1:], " "), true
		default:
			return nil, "", false
		}
	}
}

// flowToken returns the length of the scalar s starts with inside a flow
// mapping: up to a ':', ',' or '}', or past a quoted scalar; -1 when none.
func flowToken(s string) int {
	if s == "" {
		return -1
	}
	if s[0] == '\'' || s[0] == '"' {
		end, ok := quotedEnd(s)
		if !ok {
			return -1
		}
		return end
	}
	return strings.IndexAny(s, ":,}")
}

// nullNode is an absent value, `key:` with nothing after it.
func (r *subsetReader) nullNode(num int) *rnode {
	return r.node(rnode{Kind: yaml.ScalarNode, Tag: "!!null", Line: num})
}

// scalar reads a whole single-quoted or plain scalar. Plain scalars are
// limited to what cannot be taken for anything but a string (or a number,
// a boolean or a null, which the library keeps as text too): letters,
// digits and a few punctuation marks, with inner spaces and (outside a
// flow mapping) colons not followed by a space.
func (r *subsetReader) scalar(s string, num int, flow bool) (*rnode, bool) {
	if s == "" {
		return nil, false
	}
	if s[0] == '"' {
		end, ok := quotedEnd(s)
		if !ok || end != len(s) {
			return nil, false
		}
		return r.node(rnode{Kind: yaml.ScalarNode, Tag: "!!str", Value: s[1 : end-1], Line: num}), true
	}
	if s[0] == '\'' {
		end, ok := quotedEnd(s)
		if !ok || end != len(s) {
			return nil, false
		}
		v := s[1 : end-1]
		if strings.Contains(v, "''") {
			v = strings.ReplaceAll(v, "''", "'")
		}
		return r.node(rnode{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Line: num}), true
	}
	if !plainStart(s) {
		return nil, false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '_', c == '.', c == '/', c == '-', c == '+', c == '=', c == '(', c == ')', c == '@':
		case c == ' ':
			if i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '#' {
				return nil, false
			}
		case c == ':' && !flow:
			if i+1 == len(s) || s[i+1] == ' ' {
				return nil, false
			}
		case c == ',' && !flow:
		default:
			return nil, false
		}
	}
	tag := "!!str"
	switch s {
	case "null", "Null", "NULL":
		tag = "!!null"
	}
	return r.node(rnode{Kind: yaml.ScalarNode, Tag: tag, Value: s, Line: num}), true
}

// plainStart reports whether s may start a plain scalar of the subset:
// a letter, a digit, '_', '/', or a '-', '.' or '+' before a digit or a
// letter (not "- ", "-1e3" reads as a number either way and stays text).
func plainStart(s string) bool {
	c := s[0]
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '/':
		return true
	case c == '-' || c == '.' || c == '+':
		if len(s) < 2 {
			return false
		}
		d := s[1]
		return d >= 'a' && d <= 'z' || d >= 'A' && d <= 'Z' || d >= '0' && d <= '9'
	}
	return false
}
