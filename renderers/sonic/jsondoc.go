package sonic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/renderers"
)

// maxDepth bounds the nesting of a running config_db.json: CONFIG_DB is
// three levels deep and foreign tables hold at most lists of strings, so
// a deeper document is not one, and a bound keeps a hostile file from
// exhausting the stack.
const maxDepth = 32

// jmember is one member of a JSON object as it stands in the text: its
// decoded name, and the byte ranges of its name and value.
type jmember struct {
	name                 string
	nameStart, nameEnd   int
	valueStart, valueEnd int
	valueKind            byte // '{', '[', '"', or 'v' for a number or literal
}

// scanner reads a JSON text keeping byte offsets, so that the running
// configuration can be read within the owned scope and edited without
// touching a byte outside it.
type scanner struct {
	src []byte
	pos int
	// text, when set, is src as a string: a string without escapes is
	// then a slice of it rather than a copy of its own.
	text string
}

func (s *scanner) errorf(at int, format string, args ...any) error {
	line, col := 1, 1
	for i := 0; i < at && i < len(s.src); i++ {
		if s.src[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Errorf("line %d, column %d: %s", line, col, fmt.Sprintf(format, args...))
}

func (s *scanner) ws() { s.pos = renderers.SkipJSONSpace(s.src, s.pos) }

// object reads the object at s.pos (after white space) and returns its
// members; their values are skipped, not read.
func (s *scanner) object(depth int) ([]jmember, int, int, error) {
	return s.objectInto(depth, nil, true)
}

// objectInto is object appending the members to dst, or, without collect,
// only reading over the object.
func (s *scanner) objectInto(depth int, dst []jmember, collect bool) ([]jmember, int, int, error) {
	s.ws()
	start := s.pos
	empty, err := s.open(depth, '{', '}', "an object")
	if err != nil {
		return nil, 0, 0, err
	}
	ms := dst
	if empty {
		return ms, start, s.pos, nil
	}
	for {
		m, err := s.member(collect)
		if err != nil {
			return nil, 0, 0, err
		}
		if err := s.skip(depth + 1); err != nil {
			return nil, 0, 0, err
		}
		m.valueEnd = s.pos
		if collect {
			ms = append(ms, m)
		}
		done, err := s.next('}', "object")
		if err != nil {
			return nil, 0, 0, err
		}
		if done {
			return ms, start, s.pos, nil
		}
	}
}

// open reads the opening byte of a container (what: an object or a list)
// at s.pos (after white space), refusing one nested deeper than maxDepth,
// and, when the container is empty, its closing byte too (empty true).
func (s *scanner) open(depth int, open, close byte, what string) (empty bool, err error) {
	s.ws()
	if s.pos >= len(s.src) || s.src[s.pos] != open {
		return false, s.errorf(s.pos, "want %s", what)
	}
	if depth > maxDepth {
		return false, s.errorf(s.pos, "nested more than %d levels", maxDepth)
	}
	s.pos++
	s.ws()
	if s.pos < len(s.src) && s.src[s.pos] == close {
		s.pos++
		return true, nil
	}
	return false, nil
}

// member reads a member's name and the colon after it, leaving s.pos at
// its value (after white space), which the member's valueStart and
// valueKind describe. Without decode the name is read over, not decoded.
func (s *scanner) member(decode bool) (jmember, error) {
	s.ws()
	m := jmember{nameStart: s.pos}
	if decode {
		name, err := s.str()
		if err != nil {
			return m, err
		}
		m.name = name
	} else if err := s.skipString(); err != nil {
		return m, err
	}
	m.nameEnd = s.pos
	s.ws()
	if s.pos >= len(s.src) || s.src[s.pos] != ':' {
		return m, s.errorf(s.pos, "want ':' after a member name")
	}
	s.pos++
	s.ws()
	m.valueStart = s.pos
	if s.pos < len(s.src) {
		switch m.valueKind = s.src[s.pos]; m.valueKind {
		case '{', '[', '"':
		default:
			m.valueKind = 'v'
		}
	}
	return m, nil
}

// next reads what follows a member or an element of a container (what:
// object or list): a comma, done false, or its closing byte, done true.
func (s *scanner) next(close byte, what string) (done bool, err error) {
	s.ws()
	if s.pos >= len(s.src) {
		return false, s.errorf(s.pos, "the %s is not closed", what)
	}
	switch s.src[s.pos] {
	case ',':
		s.pos++
		return false, nil
	case close:
		s.pos++
		return true, nil
	}
	return false, s.errorf(s.pos, "want ',' or '%c'", close)
}

// skip reads over one value.
func (s *scanner) skip(depth int) error {
	s.ws()
	if s.pos >= len(s.src) {
		return s.errorf(s.pos, "want a value")
	}
	switch c := s.src[s.pos]; {
	case c == '{':
		_, _, _, err := s.objectInto(depth, nil, false)
		return err
	case c == '[':
		if empty, err := s.open(depth, '[', ']', "a list"); empty || err != nil {
			return err
		}
		for {
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			if done, err := s.next(']', "list"); done || err != nil {
				return err
			}
		}
	case c == '"':
		return s.skipString()
	default:
		start := s.pos
		for s.pos < len(s.src) && strings.IndexByte("+-.0123456789eEtruefalsn", s.src[s.pos]) >= 0 {
			s.pos++
		}
		if !json.Valid(s.src[start:s.pos]) {
			return s.errorf(start, "not a JSON value")
		}
		return nil
	}
}

// skipString reads over a string, checking it is well formed.
func (s *scanner) skipString() error {
	start := s.pos
	for i := s.pos + 1; i < len(s.src); i++ {
		switch c := s.src[i]; {
		case c == '"':
			s.pos = i + 1
			return nil
		case c == '\\' || c >= 0x80:
			// Escapes and UTF-8 are checked by decoding.
			_, err := s.str()
			return err
		case c < 0x20:
			return s.errorf(i, "a control character in a string")
		}
	}
	return s.errorf(start, "the string is not closed")
}

// str reads a string and returns it decoded.
func (s *scanner) str() (string, error) {
	if s.pos >= len(s.src) || s.src[s.pos] != '"' {
		return "", s.errorf(s.pos, "want a string")
	}
	start := s.pos
	s.pos++
	plain := true
	for s.pos < len(s.src) {
		switch c := s.src[s.pos]; {
		case c == '"':
			s.pos++
			if plain {
				if len(s.text) == len(s.src) && s.text != "" {
					return s.text[start+1 : s.pos-1], nil
				}
				return string(s.src[start+1 : s.pos-1]), nil
			}
			var out string
			if err := json.Unmarshal(s.src[start:s.pos], &out); err != nil {
				return "", s.errorf(start, "a malformed string")
			}
			return out, nil
		case c == '\\':
			plain = false
			s.pos += 2
		case c < 0x20:
			return "", s.errorf(s.pos, "a control character in a string")
		case c >= 0x80:
			plain = false
			s.pos++
		default:
			s.pos++
		}
	}
	return "", s.errorf(start, "the string is not closed")
}

// document is a config_db.json being edited: the text, its top-level
// object, and the changes made to it. Objects that no operation touches
// are printed from the original bytes; an object an operation changes is
// printed member by member, its untouched members again from the original
// bytes, with the document's own indentation. A document in the form
// `config save` writes (sorted keys, four-space indent) comes out
// byte-identical outside the changed members.
type document struct {
	src        []byte
	head, tail []byte // the bytes before and after the top-level object
	root       *object
	unit       string // one indentation step; "" for a compact document
}

// object is an object of the document, parsed when an operation first
// reaches into it.
type object struct {
	members []*member
	touched bool
	raw     []byte // the original text, printed while untouched
}

// member is one member: the name's original text, and the value as the
// original bytes, a parsed object, or a new string.
type member struct {
	name    string
	nameRaw []byte
	raw     []byte  // the original value, when not parsed
	obj     *object // the value, once parsed or created
}

// parseDocument reads a config_db.json for editing.
func parseDocument(src []byte) (*document, error) {
	sc := &scanner{src: src}
	sc.ws()
	first := sc.pos
	ms, start, end, err := sc.object(0)
	if err != nil {
		return nil, err
	}
	sc.ws()
	if sc.pos != len(src) {
		return nil, sc.errorf(sc.pos, "data after the top-level object")
	}
	d := &document{src: src, head: src[:first], tail: src[end:], unit: indentUnit(src[start:end])}
	d.root = objectOf(src[start:end], ms, start)
	return d, nil
}

// indentUnit is the white space before the first member of an object's
// text, or "" when the object is on one line.
func indentUnit(obj []byte) string {
	i := bytes.IndexByte(obj, '\n')
	if i < 0 {
		return ""
	}
	j := i + 1
	for j < len(obj) && (obj[j] == ' ' || obj[j] == '\t') {
		j++
	}
	return string(obj[i+1 : j])
}

// objectOf is the object whose text is text, its members ms with offsets
// base bytes before text.
func objectOf(text []byte, ms []jmember, base int) *object {
	o := &object{raw: text}
	for _, m := range ms {
		o.members = append(o.members, &member{name: m.name, nameRaw: text[m.nameStart-base : m.nameEnd-base],
			raw: text[m.valueStart-base : m.valueEnd-base]})
	}
	return o
}

// get returns the member named name of o.
func (o *object) get(name string) (int, *member) {
	for i, m := range o.members {
		if m.name == name {
			return i, m
		}
	}
	return -1, nil
}

// open returns m's value as an object, parsing it the first time.
func open(m *member) (*object, error) {
	if m.obj != nil {
		return m.obj, nil
	}
	sc := &scanner{src: m.raw}
	ms, _, end, err := sc.object(1)
	if err != nil || end != len(m.raw) {
		return nil, fmt.Errorf("%s is not an object", m.name)
	}
	m.obj = objectOf(m.raw, ms, 0)
	return m.obj, nil
}

// sorted reports whether o's members are in byte order, the order
// `config save` writes; a member added to such an object goes where the
// order puts it, else at the end.
func (o *object) sorted() bool {
	return slices.IsSortedFunc(o.members, func(a, b *member) int { return strings.Compare(a.name, b.name) })
}

// put sets o's member name to a new value (a string or an object),
// replacing the member if it exists.
func (o *object) put(name string, raw []byte, obj *object) {
	o.touched = true
	if _, m := o.get(name); m != nil {
		m.raw, m.obj = raw, obj
		return
	}
	m := &member{name: name, nameRaw: appendString(nil, name), raw: raw, obj: obj}
	at := len(o.members)
	if o.sorted() {
		at, _ = slices.BinarySearchFunc(o.members, name, func(a *member, n string) int { return strings.Compare(a.name, n) })
	}
	o.members = slices.Insert(o.members, at, m)
}

// remove deletes o's member name; it reports whether there was one.
func (o *object) remove(name string) bool {
	i, m := o.get(name)
	if m == nil {
		return false
	}
	o.touched = true
	o.members = slices.Delete(o.members, i, i+1)
	return true
}

// bytes prints the document.
func (d *document) bytes() []byte {
	b := slices.Clone(d.head)
	b = d.write(b, d.root, 0)
	return append(b, d.tail...)
}

func (d *document) write(b []byte, o *object, depth int) []byte {
	if !o.touched {
		return append(b, o.raw...)
	}
	if len(o.members) == 0 {
		return append(b, "{}"...)
	}
	b = append(b, '{')
	for i, m := range o.members {
		if i > 0 {
			b = append(b, ',')
		}
		if d.unit == "" {
			if i > 0 {
				b = append(b, ' ')
			}
		} else {
			b = append(b, '\n')
			b = append(b, strings.Repeat(d.unit, depth+1)...)
		}
		b = append(b, m.nameRaw...)
		b = append(b, ": "...)
		if m.obj != nil {
			b = d.write(b, m.obj, depth+1)
		} else {
			b = append(b, m.raw...)
		}
	}
	if d.unit != "" {
		b = append(b, '\n')
		b = append(b, strings.Repeat(d.unit, depth)...)
	}
	return append(b, '}')
}

// newObject builds the object a JSON patch value gives: members in byte
// order, each a string or an object of the same kind.
func newObject(v map[string]any) (*object, error) {
	o := &object{touched: true}
	names := make([]string, 0, len(v))
	for n := range v {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		m := &member{name: n, nameRaw: appendString(nil, n)}
		switch x := v[n].(type) {
		case string:
			m.raw = appendString(nil, x)
		case map[string]any:
			c, err := newObject(x)
			if err != nil {
				return nil, err
			}
			m.obj = c
		default:
			return nil, fmt.Errorf("member %q: CONFIG_DB holds strings and objects of strings, not %T", n, v[n])
		}
		o.members = append(o.members, m)
	}
	return o, nil
}
