package renderers

import "unicode/utf8"

// AppendJSONString appends s to b as a JSON string, quotes included, byte
// for byte as encoding/json writes it: with escapeHTML as json.Marshal
// does (<, > and & as \u003c, \u003e, \u0026), without as an Encoder with
// SetEscapeHTML(false). It is encoding/json's own string encoder
// (encode.go, appendString), kept here because going through
// encoding/json costs a reflection and a compaction of its output per
// call, which hyperscale plans pay on gigabytes of remediation text; a
// fuzz test holds the two to the same bytes.
func AppendJSONString(b []byte, s string, escapeHTML bool) []byte {
	return appendJSONString(b, s, escapeHTML)
}

// AppendJSONBytes is AppendJSONString of string(s), without the copy.
func AppendJSONBytes(b, s []byte, escapeHTML bool) []byte {
	return appendJSONString(b, s, escapeHTML)
}

const hexDigits = "0123456789abcdef"

func appendJSONString[T string | []byte](b []byte, s T, escapeHTML bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!escapeHTML || c != '<' && c != '>' && c != '&') {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				// The other control bytes, and <, > and & when escaping
				// HTML.
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		// At most four bytes as a string: it stays on the stack.
		n := min(len(s)-i, utf8.UTFMax)
		r, size := utf8.DecodeRuneInString(string(s[i : i+n]))
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029 are valid in JSON but not in JavaScript:
		// encoding/json escapes them always.
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
