package renderers

import "strings"

// AppendEscaped appends s to b with a backslash before each byte of s that
// is in special, a newline and a carriage return written as \n and \r: the
// escaping of a gNMI path's key values (special "]\\\n\r") and of a
// Prometheus label value (special "\\\"\n") alike.
func AppendEscaped(b []byte, s, special string) []byte {
	if !strings.ContainsAny(s, special) {
		return append(b, s...)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case strings.IndexByte(special, c) < 0:
			b = append(b, c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, '\\', c)
		}
	}
	return b
}
