package openconfig

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/openconfig/goyang/pkg/yang"

	"github.com/rocefab/rocefab/renderers"
)

// read flattens src, an RFC 7951 document (a whole device tree or any
// part of it), within the owned scope: every configuration leaf below
// /qos, and the owned leaves of the interfaces named in ports.
//
// It reads the bytes in one pass guided by the schema, skipping what is
// outside the scope without decoding it (a device's tree is mostly
// foreign: other interfaces, network instances, state), and allocates
// little beyond the elements it returns: a 64-port leaf reads in well
// under the 2 ms a plan may spend per device.
func read(src []byte, ports map[string]bool) (*State, error) {
	root, err := schema()
	if err != nil {
		return nil, err
	}
	r := &reader{sc: scanner{src: src}, ports: ports, out: make([]renderers.Element, 0, 32*len(ports)+256)}
	s := &State{}
	r.sc.ws()
	if r.sc.peek() != '{' {
		return nil, r.sc.errorf("the document is not a JSON object")
	}
	err = r.sc.object(func(name []byte) error {
		mod, local := splitQNameB(name)
		n := root.children[string(local)]
		if n == nil || (len(mod) > 0 && string(mod) != n.module) {
			return r.sc.skip() // not a tree rocefab owns
		}
		r.path = append(r.path[:0], '/')
		r.path = append(r.path, local...)
		switch n.name {
		case "qos":
			return r.container(n, inQoS)
		case "interfaces":
			return r.container(n, inInterfaces)
		}
		return r.sc.skip()
	})
	if err != nil {
		return nil, err
	}
	r.sc.ws()
	if r.sc.i != len(src) {
		return nil, r.sc.errorf("unexpected %q after the document", src[r.sc.i])
	}
	slices.SortFunc(r.out, func(a, b renderers.Element) int { return strings.Compare(a.Path, b.Path) })
	for i := 1; i < len(r.out); i++ {
		if r.out[i].Path == r.out[i-1].Path {
			return nil, fmt.Errorf("%s is given twice", r.out[i].Path)
		}
	}
	s.elements = r.out
	return s, nil
}

// errKeysRead stops the scan of a list entry for its keys once they are
// all read.
var errKeysRead = errors.New("keys read")

// reader is one read: the scanner, the path of the node being read, and
// the elements found so far.
type reader struct {
	sc    scanner
	ports map[string]bool
	path  []byte
	out   []renderers.Element
	items []string // scratch for leaf-lists
}

// scope is the part of the owned scope a read is in.
type scope uint8

const (
	inQoS        scope = iota // everything configured
	inInterfaces              // the interface list: the switch's ports only
	inPort                    // a port's entry: its owned leaves only
)

// container reads the object at the scanner as container (or list entry)
// n.
func (r *reader) container(n *snode, sc scope) error {
	if r.sc.peek() != '{' {
		return r.errorf("want an object")
	}
	return r.sc.object(func(name []byte) error {
		mod, local := splitQNameB(name)
		c := n.children[string(local)]
		if c == nil || c.readOnly || (len(mod) > 0 && string(mod) != c.module) {
			return r.sc.skip() // state, or a vendor's augmentation: not configuration rocefab owns
		}
		if sc == inPort && !c.portOwned {
			return r.sc.skip()
		}
		mark := len(r.path)
		r.path = append(append(r.path, '/'), local...)
		defer func() { r.path = r.path[:mark] }()
		switch c.kind {
		case kContainer:
			return r.container(c, sc)
		case kList:
			return r.list(c, sc)
		case kLeaf:
			return r.leaf(c)
		}
		return r.leafList(c)
	})
}

// list reads the array at the scanner as the entries of list n; each
// entry's path carries its keys sorted by name (gnmi-path-strings.md).
// The keys may follow other members, so an entry is scanned for them
// first.
func (r *reader) list(n *snode, sc scope) error {
	if r.sc.peek() != '[' {
		return r.errorf("a list is a JSON array")
	}
	names := n.sortedKeys()
	vals := make([]string, len(n.keys))
	have := make([]bool, len(n.keys))
	return r.sc.array(func() error {
		if r.sc.peek() != '{' {
			return r.errorf("a list entry is a JSON object")
		}
		start := r.sc.i
		clear(have)
		found := 0
		err := r.sc.object(func(name []byte) error {
			_, local := splitQNameB(name)
			for i, k := range n.keys {
				if k == string(local) && !have[i] {
					v, err := r.sc.scalarText()
					if err != nil {
						return err
					}
					vals[i], have[i] = v, true
					if found++; found == len(n.keys) {
						return errKeysRead
					}
					return nil
				}
			}
			return r.sc.skip()
		})
		end := -1 // the entry is read again from start in any case
		switch {
		case err == errKeysRead:
			// The rest of the entry (its state, subinterfaces) is
			// passed over once, by container, not twice.
		case err != nil:
			return err
		default:
			end = r.sc.i
		}
		if found < len(n.keys) {
			r.sc.i = start
			return r.errorf("a list entry without its key %q", strings.Join(n.keys, " "))
		}
		if sc == inInterfaces {
			if !r.ports[vals[0]] {
				// An interface that is not one of the switch's ports.
				if end < 0 {
					r.sc.i = start
					return r.sc.skip()
				}
				return nil
			}
			sc = inPort
			defer func() { sc = inInterfaces }()
		}
		mark := len(r.path)
		r.path = n.appendKeys(r.path, names, vals)
		r.sc.i = start
		err = r.container(n, sc)
		r.path = r.path[:mark]
		if err == nil && end >= 0 && r.sc.i != end {
			err = fmt.Errorf("internal error: list entry read to %d, scanned to %d", r.sc.i, end)
		}
		return err
	})
}

func (r *reader) leaf(n *snode) error {
	if n.typ != nil && n.typ.Kind == yang.Yempty {
		start := r.sc.i
		if err := r.sc.skip(); err != nil {
			return err
		}
		if compact(r.sc.src[start:r.sc.i]) != "[null]" {
			r.sc.i = start
			return r.errorf("an empty leaf is written [null]")
		}
		r.emit(n, "[null]")
		return nil
	}
	start := r.sc.i
	v, err := r.scalar(n)
	if err != nil {
		r.sc.i = start
		return r.errorf("%v", err)
	}
	if n.hasDflt && v == n.dflt {
		return nil // the default in use either way (canonicalDefaults)
	}
	r.emit(n, v)
	return nil
}

func (r *reader) leafList(n *snode) error {
	if r.sc.peek() != '[' {
		return r.errorf("a leaf-list is a JSON array")
	}
	start := r.sc.i
	r.items = r.items[:0]
	err := r.sc.array(func() error {
		v, err := r.scalar(n)
		if err != nil {
			return err
		}
		r.items = append(r.items, v)
		return nil
	})
	if err != nil {
		r.sc.i = start
		return r.errorf("%v", err)
	}
	if !n.userOrdered {
		// A set: the device may list it in any order.
		slices.SortFunc(r.items, compareScalars)
		r.items = slices.Compact(r.items)
	}
	r.emit(n, "["+strings.Join(r.items, ",")+"]")
	return nil
}

func (r *reader) emit(n *snode, v string) {
	r.out = append(r.out, renderers.Element{Path: string(r.path), Value: v, Kind: n.element})
}

// scalar reads one scalar at the scanner as a value of leaf n.
func (r *reader) scalar(n *snode) (string, error) {
	start := r.sc.i
	kind := r.sc.peek()
	switch kind {
	case '{', '[':
		return "", fmt.Errorf("an object or array where a value is wanted")
	}
	if err := r.sc.skip(); err != nil {
		return "", err
	}
	raw := jnode{kind: kind, start: start, end: r.sc.i}
	switch {
	case kind >= '0' && kind <= '9', kind == '-':
		raw.kind = '0'
	case kind == '"', kind == 't', kind == 'f', kind == 'n':
	default:
		return "", fmt.Errorf("not a JSON value")
	}
	return scalar(n, &raw, r.sc.src)
}

func (r *reader) errorf(format string, args ...any) error {
	line, col := lineCol(r.sc.src, r.sc.i)
	return fmt.Errorf("line %d, column %d: %s: %s", line, col, r.path, fmt.Sprintf(format, args...))
}

// sortedKeys is the list's keys sorted by name.
func (n *snode) sortedKeys() []string {
	if slices.IsSorted(n.keys) {
		return n.keys
	}
	return slices.Sorted(slices.Values(n.keys))
}

// appendKeys appends the keys of an entry of list n to path b: names
// are n's keys sorted (sortedKeys), vals their values in schema order.
func (n *snode) appendKeys(b []byte, names, vals []string) []byte {
	for _, k := range names {
		b = append(b, '[')
		b = append(b, k...)
		b = append(b, '=')
		b = appendKey(b, vals[slices.Index(n.keys, k)])
		b = append(b, ']')
	}
	return b
}

// appendKey escapes a key value for a gNMI path string: ']' and '\'
// with a backslash, newlines and carriage returns as \n and \r
// (gnmi-path-strings.md).
func appendKey(b []byte, s string) []byte { return renderers.AppendEscaped(b, s, keySpecial) }

// keySpecial are the bytes a gNMI path's key value escapes.
const keySpecial = "]\\\n\r"

// compact is a short value without white space, for comparing "[null]".
func compact(b []byte) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			out = append(out, c)
		}
	}
	return string(out)
}

// scanner walks JSON text without building a tree. Every value it passes
// over, read or skipped, is checked as RFC 8259 JSON (jsontree.go's rules).
type scanner struct {
	src   []byte
	i     int
	depth int
}

// errorf is an error at the scanner's position, as jparser's are.
func (s *scanner) errorf(format string, args ...any) error {
	return (&jparser{src: s.src, i: s.i}).errorf(format, args...)
}

func (s *scanner) ws() { s.i = renderers.SkipJSONSpace(s.src, s.i) }

// peek is the next value's first byte (0 at the end).
func (s *scanner) peek() byte {
	s.ws()
	if s.i >= len(s.src) {
		return 0
	}
	return s.src[s.i]
}

// object reads an object, calling member with each member's name (valid
// until member returns); member reads or skips the value.
func (s *scanner) object(member func(name []byte) error) error {
	if done, err := s.open('{', '}', "an object"); done || err != nil {
		return err
	}
	defer func() { s.depth-- }()
	for {
		if s.peek() != '"' {
			return s.errorf("want a member name")
		}
		name, err := s.rawName()
		if err != nil {
			return err
		}
		if s.peek() != ':' {
			return s.errorf("want ':' after member %q", name)
		}
		s.i++
		s.ws()
		at := s.i
		if err := member(name); err != nil {
			return err
		}
		if s.i == at {
			return s.errorf("internal error: member %q not read", name)
		}
		if done, err := s.next('}', "an object"); done || err != nil {
			return err
		}
	}
}

// array reads an array, calling elem for each element; elem reads or
// skips it.
func (s *scanner) array(elem func() error) error {
	if done, err := s.open('[', ']', "an array"); done || err != nil {
		return err
	}
	defer func() { s.depth-- }()
	for {
		s.ws()
		at := s.i
		if err := elem(); err != nil {
			return err
		}
		if s.i == at {
			return s.errorf("internal error: element not read")
		}
		if done, err := s.next(']', "an array"); done || err != nil {
			return err
		}
	}
}

// open enters a container that opens with c (what names it), one level
// deeper, refusing one nested deeper than maxDepth; done is true for an
// empty one, read whole and left again. Otherwise the caller leaves the
// level when it is read.
func (s *scanner) open(c, close byte, what string) (done bool, err error) {
	if s.peek() != c {
		return false, s.errorf("want %s", what)
	}
	if s.depth++; s.depth > maxDepth {
		return false, s.errorf("nested deeper than %d", maxDepth)
	}
	s.i++
	if s.peek() == close {
		s.i++
		s.depth--
		return true, nil
	}
	return false, nil
}

// next reads what follows a member or element of a container (what): a
// comma, done false, or its closing byte, done true (jparser's next).
func (s *scanner) next(close byte, what string) (done bool, err error) {
	p := jparser{src: s.src, i: s.i}
	done, err = p.next(close, what)
	s.i = p.i
	return done, err
}

// name reads a member name, decoded.
func (s *scanner) name() (string, error) {
	p := jparser{src: s.src, i: s.i}
	v, err := p.str()
	s.i = p.i
	return v, err
}

// scalarText reads a scalar as a key's text: a string's content, a
// number's or literal's text.
func (s *scanner) scalarText() (string, error) {
	switch c := s.peek(); c {
	case '"':
		return s.name()
	case '{', '[', 'n':
		return "", s.errorf("a key is a string, number or boolean")
	}
	start := s.i
	if err := s.skip(); err != nil {
		return "", err
	}
	return string(s.src[start:s.i]), nil
}

// skip passes over one value, checking it.
func (s *scanner) skip() error {
	switch s.peek() {
	case '{':
		return s.object(func([]byte) error { return s.skip() })
	case '[':
		return s.array(s.skip)
	case 0:
		return s.errorf("unexpected end of the document")
	}
	if s.src[s.i] == '"' {
		_, err := s.rawName()
		return err
	}
	// A number or a literal: checked where they lie, without a node.
	if c := s.src[s.i]; c == '-' || (c >= '0' && c <= '9') {
		p := jparser{src: s.src, i: s.i}
		err := p.number()
		s.i = p.i
		return err
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if bytes.HasPrefix(s.src[s.i:], []byte(lit)) {
			s.i += len(lit)
			return nil
		}
	}
	return s.errorf("unexpected %q", s.src[s.i])
}

// rawName reads a string and returns its content: the bytes themselves
// when it has no escapes (every name of an OpenConfig tree), decoded
// otherwise. It checks the string as jparser.str does.
func (s *scanner) rawName() ([]byte, error) {
	start := s.i
	ascii := true
	for j := s.i + 1; j < len(s.src); j++ {
		switch c := s.src[j]; {
		case c >= utf8.RuneSelf:
			ascii = false
		case c == '"':
			raw := s.src[start+1 : j]
			if !ascii && !utf8.Valid(raw) {
				return nil, s.errorf("string is not UTF-8")
			}
			s.i = j + 1
			return raw, nil
		case c == '\\':
			v, err := s.name()
			return []byte(v), err
		case c < 0x20:
			s.i = j
			return nil, s.errorf("control character in a string")
		}
	}
	s.i = len(s.src)
	return nil, s.errorf("unterminated string")
}

// splitQNameB splits an RFC 7951 member name "module:name".
func splitQNameB(s []byte) (module, name []byte) {
	if i := bytes.IndexByte(s, ':'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return nil, s
}
