package targets

import (
	"encoding/base64"
	"unicode/utf8"

	"github.com/rocefab/rocefab/renderers"
)

// appendBody appends b's canonical JSON: the bytes json.Marshal writes for
// it, which digests, shapes and values are of. It is written by hand
// because a hyperscale plan encodes gigabytes of bodies, and
// encoding/json's reflection, and its compaction of what
// Remediation.MarshalJSON returns, took a sixth of the plan's time; a test
// holds the two to the same bytes.
func appendBody(out []byte, b body) []byte {
	out = append(out, `{"changes":`...)
	if b.Changes == nil {
		out = append(out, "null"...)
	} else {
		out = append(out, '[')
		for i := range b.Changes {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendChange(out, &b.Changes[i])
		}
		out = append(out, ']')
	}
	out = append(out, `,"remediation":`...)
	if b.Remediation == nil {
		out = append(out, "null"...)
	} else {
		out = b.Remediation.appendJSON(out)
	}
	return append(out, '}')
}

// bodySize is about the length of b's JSON, to size its buffer once.
func bodySize(b body) int {
	n := 64
	for i := range b.Changes {
		c := &b.Changes[i]
		n += 80 + len(c.Path) + len(c.Kind) + len(c.Disruption) + len(c.Method)
		if c.Before != nil {
			n += len(*c.Before)
		}
		if c.After != nil {
			n += len(*c.After)
		}
	}
	if b.Remediation != nil {
		// Newlines and quotes take two bytes: a little room for them.
		n += len(b.Remediation.Content) + len(b.Remediation.Content)/16 + len(b.Remediation.Format)
	}
	return n
}

// appendChange appends c as json.Marshal writes a renderers.Change.
func appendChange(out []byte, c *renderers.Change) []byte {
	out = append(out, `{"path":`...)
	out = renderers.AppendJSONString(out, c.Path, true)
	out = append(out, `,"before":`...)
	out = appendOptString(out, c.Before)
	out = append(out, `,"after":`...)
	out = appendOptString(out, c.After)
	if c.Kind != "" {
		out = append(out, `,"element":`...)
		out = renderers.AppendJSONString(out, c.Kind, true)
	}
	out = append(out, `,"disruption":`...)
	out = renderers.AppendJSONString(out, string(c.Disruption), true)
	if c.Method != "" {
		out = append(out, `,"method":`...)
		out = renderers.AppendJSONString(out, c.Method, true)
	}
	return append(out, '}')
}

func appendOptString(out []byte, s *string) []byte {
	if s == nil {
		return append(out, "null"...)
	}
	return renderers.AppendJSONString(out, *s, true)
}

// appendJSON appends r as MarshalJSON writes it: its content as text when
// it is UTF-8, as base64 otherwise.
func (r *Remediation) appendJSON(out []byte) []byte {
	out = append(out, `{"format":`...)
	out = renderers.AppendJSONString(out, string(r.Format), true)
	if utf8.Valid(r.Content) {
		out = append(out, `,"text":`...)
		out = renderers.AppendJSONBytes(out, r.Content, true)
	} else {
		out = append(out, `,"base64":"`...)
		out = base64.StdEncoding.AppendEncode(out, r.Content)
		out = append(out, '"')
	}
	return append(out, '}')
}

// appendElements appends a recorded desired state's canonical JSON: the
// bytes json.Marshal writes for es (a []renderers.Element), which its
// digest, shape and values are of. A hyperscale plan records every
// device's state, as many bytes as its bodies.
func appendElements(out []byte, es []renderers.Element) []byte {
	out = append(out, '[')
	for i := range es {
		if i > 0 {
			out = append(out, ',')
		}
		e := &es[i]
		out = append(out, `{"path":`...)
		out = renderers.AppendJSONString(out, e.Path, true)
		out = append(out, `,"value":`...)
		out = renderers.AppendJSONString(out, e.Value, true)
		if e.Kind != "" {
			out = append(out, `,"element":`...)
			out = renderers.AppendJSONString(out, e.Kind, true)
		}
		out = append(out, '}')
	}
	return append(out, ']')
}

// encodeElements is es's canonical JSON in a buffer sized once.
func encodeElements(es []renderers.Element) []byte {
	n := 2
	for i := range es {
		// Quotes and escapes take a little more than the strings.
		n += 40 + len(es[i].Path) + len(es[i].Value) + len(es[i].Kind)
	}
	return appendElements(make([]byte, 0, n), es)
}
