package renderers

import (
	"encoding/json"
	"strings"
)

// AppendJSONString appends s to b as a JSON string, quotes included, byte
// for byte as encoding/json writes it: with escapeHTML as json.Marshal
// does (<, > and & as \u003c, \u003e, \u0026), without as an Encoder with
// SetEscapeHTML(false). Printable ASCII without quotes or backslashes,
// which every checked name is, is copied without an allocation; anything
// else goes through encoding/json, so an odd value is still written as it
// would be.
func AppendJSONString(b []byte, s string, escapeHTML bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || escapeHTML && (c == '<' || c == '>' || c == '&') {
			return appendEncoded(b, s, escapeHTML)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func appendEncoded(b []byte, s string, escapeHTML bool) []byte {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(s); err != nil {
		// A Go string always encodes; keep the output JSON regardless.
		return append(b, `""`...)
	}
	return append(b, strings.TrimSuffix(sb.String(), "\n")...)
}
