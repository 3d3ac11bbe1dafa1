package openconfig

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/rocefab/rocefab/renderers"
)

// jnode is one JSON value of a document, with the byte span it occupies,
// so that a running configuration can be read without decoding what
// rocefab does not own and edited without re-encoding it (apply.go keeps
// every byte outside the owned scope). It is RFC 8259 JSON, checked
// strictly: what encoding/json rejects, this rejects.
type jnode struct {
	kind       byte // '{', '[', '"', '0' (number), 't', 'f', 'n'
	start, end int  // src[start:end] is the value
	members    []jmember
	elems      []*jnode
}

// jmember is one member of an object: its decoded name and where the
// member starts (its name's opening quote).
type jmember struct {
	name  string
	start int
	value *jnode
}

// maxDepth bounds nesting: an OpenConfig tree is about 15 deep, and a
// hostile document must not exhaust the stack.
const maxDepth = 128

// parseJSON reads src as one JSON value, with white space around it.
func parseJSON(src []byte) (*jnode, error) {
	p := &jparser{src: src}
	p.space()
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(src) {
		return nil, p.errorf("unexpected %q after the document", src[p.i])
	}
	return n, nil
}

type jparser struct {
	src []byte
	i   int
}

// errorf reports a syntax error at the current offset, as line:column.
func (p *jparser) errorf(format string, args ...any) error {
	line, col := lineCol(p.src, p.i)
	return fmt.Errorf("line %d, column %d: %s", line, col, fmt.Sprintf(format, args...))
}

// lineCol gives the 1-based line and column (in bytes) of offset i.
func lineCol(src []byte, i int) (int, int) {
	line, col := 1, 1
	for _, c := range src[:min(i, len(src))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

func (p *jparser) space() { p.i = renderers.SkipJSONSpace(p.src, p.i) }

func (p *jparser) value(depth int) (*jnode, error) {
	if depth > maxDepth {
		return nil, p.errorf("nested deeper than %d", maxDepth)
	}
	if p.i >= len(p.src) {
		return nil, p.errorf("unexpected end of the document")
	}
	start := p.i
	switch c := p.src[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		if _, err := p.str(); err != nil {
			return nil, err
		}
		return &jnode{kind: '"', start: start, end: p.i}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		if err := p.number(); err != nil {
			return nil, err
		}
		return &jnode{kind: '0', start: start, end: p.i}, nil
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if len(p.src)-p.i >= len(lit) && string(p.src[p.i:p.i+len(lit)]) == lit {
				p.i += len(lit)
				return &jnode{kind: lit[0], start: start, end: p.i}, nil
			}
		}
		return nil, p.errorf("unexpected %q", c)
	}
}

func (p *jparser) object(depth int) (*jnode, error) {
	return p.container(depth, '{', '}', "an object", func(n *jnode) error {
		if p.i >= len(p.src) || p.src[p.i] != '"' {
			return p.errorf("want a member name")
		}
		at := p.i
		name, err := p.str()
		if err != nil {
			return err
		}
		p.space()
		if p.i >= len(p.src) || p.src[p.i] != ':' {
			return p.errorf("want ':' after member %q", name)
		}
		p.i++
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return err
		}
		n.members = append(n.members, jmember{name: name, start: at, value: v})
		return nil
	})
}

func (p *jparser) array(depth int) (*jnode, error) {
	return p.container(depth, '[', ']', "an array", func(n *jnode) error {
		v, err := p.value(depth + 1)
		if err != nil {
			return err
		}
		n.elems = append(n.elems, v)
		return nil
	})
}

// container reads the object or array (what) of kind at p.i up to its
// closing byte, each member or element with item, which p.i meets at the
// item's first byte (after white space) and which adds it to n.
func (p *jparser) container(depth int, kind, close byte, what string, item func(n *jnode) error) (*jnode, error) {
	n := &jnode{kind: kind, start: p.i}
	p.i++
	p.space()
	if p.i < len(p.src) && p.src[p.i] == close {
		p.i++
		n.end = p.i
		return n, nil
	}
	for {
		p.space()
		if err := item(n); err != nil {
			return nil, err
		}
		done, err := p.next(close, what)
		if err != nil {
			return nil, err
		}
		if done {
			n.end = p.i
			return n, nil
		}
	}
}

// next reads what follows a member or element of a container (what): a
// comma, done false, or its closing byte, done true.
func (p *jparser) next(close byte, what string) (done bool, err error) {
	p.space()
	if p.i >= len(p.src) {
		return false, p.errorf("unexpected end of the document in %s", what)
	}
	switch p.src[p.i] {
	case ',':
		p.i++
		return false, nil
	case close:
		p.i++
		return true, nil
	}
	return false, p.errorf("want ',' or '%c' in %s, not %q", close, what, p.src[p.i])
}

// str reads a string and returns it decoded. Strings without escapes (all
// of an OpenConfig tree's names) are not copied through encoding/json.
func (p *jparser) str() (string, error) {
	start := p.i
	p.i++
	escaped := false
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '"':
			p.i++
			raw := p.src[start:p.i]
			if !escaped {
				if !utf8.Valid(raw) {
					return "", p.errorf("string is not UTF-8")
				}
				return string(raw[1 : len(raw)-1]), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				p.i = start
				return "", p.errorf("bad string: %v", err)
			}
			return s, nil
		case c == '\\':
			escaped = true
			p.i += 2
		case c < 0x20:
			return "", p.errorf("control character in a string")
		default:
			p.i++
		}
	}
	p.i = len(p.src)
	return "", p.errorf("unterminated string")
}

// number reads an RFC 8259 number.
func (p *jparser) number() error {
	digits := func() int {
		n := 0
		for p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.src[p.i] == '-' {
		p.i++
	}
	first := p.i
	if n := digits(); n == 0 || (n > 1 && p.src[first] == '0') {
		return p.errorf("bad number")
	}
	if p.i < len(p.src) && p.src[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return p.errorf("bad number")
		}
	}
	if p.i < len(p.src) && (p.src[p.i] == 'e' || p.src[p.i] == 'E') {
		p.i++
		if p.i < len(p.src) && (p.src[p.i] == '+' || p.src[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return p.errorf("bad number")
		}
	}
	return nil
}

// text returns the string a '"' node holds, decoded; for other scalars,
// their JSON text.
func (n *jnode) text(src []byte) string {
	raw := src[n.start:n.end]
	if n.kind != '"' {
		return string(raw)
	}
	for _, c := range raw[1 : len(raw)-1] {
		if c == '\\' {
			var s string
			_ = json.Unmarshal(raw, &s) // checked when parsed
			return s
		}
	}
	return string(raw[1 : len(raw)-1])
}

// member returns the member of an object whose name, without its module
// prefix, is local, and that prefix ("" when unqualified).
func (n *jnode) member(local string) (jmember, string, bool) {
	for _, m := range n.members {
		prefix, name := splitQName(m.name)
		if name == local {
			return m, prefix, true
		}
	}
	return jmember{}, "", false
}

// splitQName splits an RFC 7951 member name "module:name".
func splitQName(s string) (module, name string) {
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			return s[:i], s[i+1:]
		}
	}
	return "", s
}

// quote encodes s as a JSON string, without the HTML escaping of
// encoding/json, as RFC 7951 writers do.
func quote(s string) string {
	simple := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			simple = false
			break
		}
	}
	if simple {
		return `"` + s + `"`
	}
	out := []byte{'"'}
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			out = append(out, '\\', byte(r))
		case r == '\n':
			out = append(out, '\\', 'n')
		case r == '\t':
			out = append(out, '\\', 't')
		case r == '\r':
			out = append(out, '\\', 'r')
		case r < 0x20:
			out = append(out, fmt.Sprintf(`\u%04x`, r)...)
		case r == utf8.RuneError:
			out = append(out, `\ufffd`...)
		default:
			out = utf8.AppendRune(out, r)
		}
	}
	return string(append(out, '"'))
}

// unquoteOrText is the scalar's value as a string: a string's content,
// or a number's or boolean's text.
func unquoteOrText(v string) string {
	if len(v) >= 2 && v[0] == '"' {
		if s, err := strconv.Unquote(v); err == nil {
			return s
		}
		var s string
		if json.Unmarshal([]byte(v), &s) == nil {
			return s
		}
	}
	return v
}
