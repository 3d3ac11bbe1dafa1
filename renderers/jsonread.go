package renderers

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// ReadJSONString reads the JSON string b starts with (its opening quote
// at b[0]) and returns its value and how many bytes of b it took. The
// value is b's own bytes when the string has no escape (own false), new
// ones otherwise. ok is false for what encoding/json would read
// differently or refuse (invalid UTF-8, which it replaces; control bytes;
// surrogate escapes, which it pairs), so that a reader of rocefab's own
// documents can take the fast way and leave anything else to
// encoding/json, with the same result.
func ReadJSONString(b []byte) (s []byte, n int, own, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, 0, false, false
	}
	rest := b[1:]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return nil, 0, false, false
	}
	if bytes.IndexByte(rest[:end], '\\') < 0 {
		s := rest[:end]
		for _, c := range s {
			if c < 0x20 {
				return nil, 0, false, false
			}
		}
		if !utf8.Valid(s) {
			return nil, 0, false, false
		}
		return s, end + 2, false, true
	}
	out := make([]byte, 0, end)
	for i := 0; i < len(rest); {
		c := rest[i]
		switch {
		case c == '"':
			// Escapes write whole runes: out is valid UTF-8 exactly when
			// the input's unescaped bytes are.
			if !utf8.Valid(out) {
				return nil, 0, false, false
			}
			return out, i + 2, true, true
		case c < 0x20:
			return nil, 0, false, false
		case c == '\\':
			if i+1 >= len(rest) {
				return nil, 0, false, false
			}
			switch e := rest[i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				if i+6 > len(rest) {
					return nil, 0, false, false
				}
				v := 0
				for _, h := range rest[i+2 : i+6] {
					d, ok := hexValue(h)
					if !ok {
						return nil, 0, false, false
					}
					v = v<<4 | d
				}
				if utf16.IsSurrogate(rune(v)) {
					return nil, 0, false, false
				}
				out = utf8.AppendRune(out, rune(v))
				i += 6
				continue
			default:
				return nil, 0, false, false
			}
			i += 2
		default:
			out = append(out, c)
			i++
		}
	}
	return nil, 0, false, false
}

func hexValue(c byte) (int, bool) {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0'), true
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10, true
	}
	return 0, false
}

// SkipJSONSpace returns the index of the first byte at or after i in b
// that is not JSON white space (RFC 8259: space, tab, line feed, carriage
// return), or len(b): the step between tokens of every hand-written JSON
// reader of the renderers.
func SkipJSONSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}
