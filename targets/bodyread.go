package targets

import (
	"bytes"
	"encoding/base64"

	"github.com/rocefab/rocefab/renderers"
)

// decodeBody reads a body in the canonical form appendBody writes, as
// json.Unmarshal would, and reports false for anything else (whitespace,
// another field order, an escape appendBody does not write), which the
// caller then gives to encoding/json. Apply rebuilds every device's body
// before checking and pushing it: on a hyperscale plan that is gigabytes
// of JSON, which encoding/json decodes by reflection and, for the
// remediation's UnmarshalJSON, scans twice.
func decodeBody(raw []byte) (body, bool) {
	r := bodyReader{b: raw}
	var out body
	if !r.lit(`{"changes":`) {
		return body{}, false
	}
	if !r.lit("null") {
		if !r.lit("[") {
			return body{}, false
		}
		out.Changes = []renderers.Change{}
		for first := true; !r.lit("]"); first = false {
			if !first && !r.lit(",") {
				return body{}, false
			}
			c, ok := r.change()
			if !ok {
				return body{}, false
			}
			out.Changes = append(out.Changes, c)
		}
	}
	if !r.lit(`,"remediation":`) {
		return body{}, false
	}
	if !r.lit("null") {
		rem, ok := r.remediation()
		if !ok {
			return body{}, false
		}
		out.Remediation = rem
	}
	if !r.lit("}") || r.i != len(raw) {
		return body{}, false
	}
	return out, true
}

// bodyReader is a cursor over a body's JSON.
type bodyReader struct {
	b []byte
	i int
}

// lit consumes s when the input continues with it.
func (r *bodyReader) lit(s string) bool {
	if len(r.b)-r.i >= len(s) && string(r.b[r.i:r.i+len(s)]) == s {
		r.i += len(s)
		return true
	}
	return false
}

func (r *bodyReader) change() (renderers.Change, bool) {
	var c renderers.Change
	var ok bool
	if !r.field(`{"path":`, &c.Path) || !r.lit(`,"before":`) {
		return c, false
	}
	if c.Before, ok = r.optStr(); !ok || !r.lit(`,"after":`) {
		return c, false
	}
	if c.After, ok = r.optStr(); !ok || !r.optField(`,"element":`, &c.Kind) {
		return c, false
	}
	var d string
	if !r.field(`,"disruption":`, &d) || !r.optField(`,"method":`, &c.Method) {
		return c, false
	}
	c.Disruption = renderers.Disruption(d)
	return c, r.lit("}")
}

// field reads a string that follows key (`,"name":`) into s.
func (r *bodyReader) field(key string, s *string) bool {
	return r.lit(key) && r.fieldValue(s)
}

// optField reads a string that follows key into s when key is there (a
// field encoding/json omits when empty); false for a key without its
// string.
func (r *bodyReader) optField(key string, s *string) bool {
	return !r.lit(key) || r.fieldValue(s)
}

// fieldValue reads a string into s.
func (r *bodyReader) fieldValue(s *string) bool {
	v, ok := r.str()
	*s = v
	return ok
}

func (r *bodyReader) remediation() (*Remediation, bool) {
	if !r.lit(`{"format":`) {
		return nil, false
	}
	f, ok := r.str()
	if !ok {
		return nil, false
	}
	rem := &Remediation{Format: renderers.Format(f)}
	switch {
	case r.lit(`,"text":`):
		if rem.Content, ok = r.strBytes(); !ok {
			return nil, false
		}
	case r.lit(`,"base64":`):
		s, ok := r.strBytes()
		if !ok {
			return nil, false
		}
		if rem.Content, ok = decodeBase64(s); !ok {
			return nil, false
		}
	}
	return rem, r.lit("}")
}

func decodeBase64(s []byte) ([]byte, bool) {
	out := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(out, s)
	return out[:n], err == nil
}

func (r *bodyReader) optStr() (*string, bool) {
	if r.lit("null") {
		return nil, true
	}
	s, ok := r.str()
	return &s, ok
}

func (r *bodyReader) str() (string, bool) {
	b, _, ok := r.strRaw()
	return string(b), ok
}

// strBytes reads a JSON string into bytes of its own.
func (r *bodyReader) strBytes() ([]byte, bool) {
	b, own, ok := r.strRaw()
	if ok && !own {
		b = bytes.Clone(b)
	}
	return b, ok
}

// strRaw reads a JSON string as renderers.ReadJSONString does.
func (r *bodyReader) strRaw() (s []byte, own, ok bool) {
	s, n, own, ok := renderers.ReadJSONString(r.b[r.i:])
	r.i += n
	return s, own, ok
}

// decodeElements reads a recorded desired state in the canonical form
// appendElements writes, as json.Unmarshal would, and reports false for
// anything else, which the caller then gives to encoding/json: apply
// rebuilds the state of every device it pushes to, for its gate.
func decodeElements(raw []byte) ([]renderers.Element, bool) {
	r := bodyReader{b: raw}
	if !r.lit("[") {
		return nil, false
	}
	out := []renderers.Element{}
	for first := true; !r.lit("]"); first = false {
		if !first && !r.lit(",") {
			return nil, false
		}
		var e renderers.Element
		if !r.field(`{"path":`, &e.Path) || !r.field(`,"value":`, &e.Value) || !r.optField(`,"element":`, &e.Kind) || !r.lit("}") {
			return nil, false
		}
		out = append(out, e)
	}
	return out, r.i == len(raw)
}
