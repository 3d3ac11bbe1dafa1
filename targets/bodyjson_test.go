package targets

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/rocefab/rocefab/renderers"
)

// refRemediation is a remediation as encoding/json writes it through the
// struct its JSON is declared by.
type refRemediation Remediation

func (r refRemediation) MarshalJSON() ([]byte, error) {
	j := remediationJSON{Format: r.Format}
	if utf8.Valid(r.Content) {
		j.Text = new(string(r.Content))
	} else {
		j.Base64 = new(base64.StdEncoding.EncodeToString(r.Content))
	}
	return json.Marshal(j)
}

// refBody is a body that encoding/json encodes.
type refBody struct {
	Changes     []renderers.Change `json:"changes"`
	Remediation *refRemediation    `json:"remediation"`
}

// FuzzBodyJSON holds the body's encoder, and Remediation.MarshalJSON, to
// encoding/json's bytes: whatever the strings (quotes, HTML, control
// bytes, invalid UTF-8, U+2028), nil and empty lists, absent values and
// remediations.
func FuzzBodyJSON(f *testing.F) {
	f.Add("PORT|Ethernet0|mtu", "9100", "<9216>", "port-mtu", "apply-patch", "text", []byte("interface Ethernet1\n  mtu 9216\n"), uint8(0))
	f.Add("a\"b\\c", "", "\u2028", "", "", "json", []byte{0xff, '\n', 0}, uint8(7))
	f.Add("é\t", "x&y", "\x00", "k", "m", "proto", []byte(nil), uint8(2))
	f.Fuzz(func(t *testing.T, path, before, after, kind, method, format string, content []byte, shape uint8) {
		b := fuzzBody(path, before, after, kind, method, format, content, shape)
		ref := refBody{Changes: b.Changes, Remediation: (*refRemediation)(b.Remediation)}
		want, err := json.Marshal(ref)
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.encode()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("body:\n got %s\nwant %s", got, want)
		}
		if b.Remediation != nil {
			got, _ := b.Remediation.MarshalJSON()
			want, _ := refRemediation(*b.Remediation).MarshalJSON()
			if !bytes.Equal(got, want) {
				t.Fatalf("remediation:\n got %s\nwant %s", got, want)
			}
		}
	})
}

// valuesByTokens is shape.values as it reads when both bodies are
// tokenized whole: the definition the walk must agree with.
func valuesByTokens(s *shape, raw []byte) []string {
	at := tokenize(raw)
	if len(at) != len(s.at) {
		panic("token counts differ")
	}
	var values []string
	size := 0
	for i := range len(at) - 1 {
		t := raw[at[i]:at[i+1]]
		if string(t) == string(s.token(i)) {
			continue
		}
		v := fmt.Sprint(i) + ":" + string(t)
		values = append(values, v)
		if size += len(v) + 8; size > len(raw)/4 {
			return nil
		}
	}
	if values == nil {
		values = []string{}
	}
	return values
}

// FuzzShapeValues holds the side-by-side walk of a body and its shape to
// the token-by-token comparison, on a body edited from the shape's
// (bytes replaced, inserted, deleted) with as many tokens.
func FuzzShapeValues(f *testing.F) {
	long := bytes.Repeat([]byte(`{"path":"PORT|Ethernet0|mtu","before":null,"after":"9216"},`), 8)
	f.Add(long, []byte{0, 9, 'X', 1, 100, '7', 2, 200, 0})
	f.Add([]byte("leaf-r0-00 Ethernet1/1 to spine-00"), []byte{0, 5, '3', 0, 6, '1'})
	f.Add([]byte("aa,bb"), []byte{0, 2, 'c'})
	f.Fuzz(func(t *testing.T, shapeRaw, edits []byte) {
		raw := bytes.Clone(shapeRaw)
		for j := 0; j+2 < len(edits) && len(raw) > 0; j += 3 {
			pos := int(edits[j+1]) % len(raw)
			switch edits[j] % 3 {
			case 0:
				raw[pos] = edits[j+2]
			case 1:
				raw = append(raw[:pos], append([]byte{edits[j+2]}, raw[pos:]...)...)
			case 2:
				raw = append(raw[:pos], raw[pos+1:]...)
			}
		}
		if countTokens(shapeRaw) != len(tokenize(shapeRaw))-1 || countTokens(raw) != len(tokenize(raw))-1 {
			t.Fatalf("countTokens differs from tokenize")
		}
		if countTokens(raw) != countTokens(shapeRaw) {
			return
		}
		s := &shape{raw: shapeRaw, at: tokenize(shapeRaw)}
		if got, want := s.values(raw), valuesByTokens(s, raw); !reflect.DeepEqual(got, want) {
			t.Fatalf("shape %q, body %q: walk %q, tokens %q", shapeRaw, raw, got, want)
		}
	})
}

// FuzzDecodeBody holds decodeBody to json.Unmarshal: every body it
// encodes is read back as encoding/json reads it, and whatever other
// bytes it accepts, encoding/json reads the same.
func FuzzDecodeBody(f *testing.F) {
	f.Add("PORT|Ethernet0|mtu", "9100", "<9216>", "port-mtu", "apply-patch", "text", []byte("interface Ethernet1\n  mtu 9216\n"), uint8(0), []byte(`{"changes":[],"remediation":null}`))
	f.Add("a\"b\\c", "", "\u2028", "", "", "json", []byte{0xff, '\n', 0}, uint8(7), []byte(`{"changes":[{"path":"\ud800","before":null,"after":"x","disruption":""}],"remediation":{"format":"t"}}`))
	f.Add("é\t\x01", "x&y", "\x00", "k", "m", "proto", []byte(nil), uint8(10), []byte(`{"changes":null,"remediation":{"format":"t","text":"a\/b\u00e9"}}`))
	f.Fuzz(func(t *testing.T, path, before, after, kind, method, format string, content []byte, shape uint8, other []byte) {
		b := fuzzBody(path, before, after, kind, method, format, content, shape)
		raw, _ := b.encode()
		got, ok := decodeBody(raw)
		var want body
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		if !ok || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: decodeBody %v %+v, json.Unmarshal %+v", raw, ok, got, want)
		}
		if got, ok := decodeBody(other); ok {
			var want body
			if err := json.Unmarshal(other, &want); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: decodeBody %+v, json.Unmarshal %+v (%v)", other, got, want, err)
			}
		}
	})
}

// fuzzBody is a body made of a fuzzer's values; shape's bits say which
// values are absent and whether the changes are nil, empty or two.
func fuzzBody(path, before, after, kind, method, format string, content []byte, shape uint8) body {
	c := renderers.Change{Path: path, Before: &before, After: &after, Kind: kind, Disruption: renderers.Disruption(method + kind), Method: method}
	if shape&1 != 0 {
		c.Before = nil
	}
	if shape&2 != 0 {
		c.After = nil
	}
	var b body
	switch shape >> 2 & 3 {
	case 1:
		b.Changes = []renderers.Change{}
	case 2, 3:
		b.Changes = []renderers.Change{c, {Path: kind, Disruption: renderers.Hitless}}
	}
	if shape&16 == 0 {
		b.Remediation = &Remediation{Format: renderers.Format(format), Content: content}
	}
	return b
}

// FuzzElementsJSON holds a recorded desired state's encoder to
// encoding/json's bytes, and its reader to json.Unmarshal: whatever the
// strings, an element without a kind, none at all; and whatever other
// bytes the reader accepts, encoding/json reads the same.
func FuzzElementsJSON(f *testing.F) {
	f.Add("PORT|Ethernet0|mtu", "9100", "port-mtu", uint8(2), []byte(`[]`))
	f.Add("a\"b\\c<", "\u2028&", "", uint8(1), []byte(`[{"path":"\ud800","value":"a\/b"}]`))
	f.Add("é\t\x01", "\xff", "k", uint8(0), []byte(`[{"value":"x","path":"p"}]`))
	f.Fuzz(func(t *testing.T, path, value, kind string, n uint8, other []byte) {
		es := []renderers.Element{}
		for i := range int(n % 4) {
			es = append(es, renderers.Element{Path: fmt.Sprint(path, i), Value: value, Kind: kind[:len(kind)*(i%2)]})
		}
		want, err := json.Marshal(es)
		if err != nil {
			t.Fatal(err)
		}
		raw := encodeElements(es)
		if !bytes.Equal(raw, want) {
			t.Fatalf("elements:\n got %s\nwant %s", raw, want)
		}
		got, ok := decodeElements(raw)
		var back []renderers.Element
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatal(err)
		}
		if !ok || !reflect.DeepEqual(got, back) {
			t.Fatalf("%s: decodeElements %v %+v, json.Unmarshal %+v", raw, ok, got, back)
		}
		if got, ok := decodeElements(other); ok {
			var want []renderers.Element
			if err := json.Unmarshal(other, &want); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: decodeElements %+v, json.Unmarshal %+v (%v)", other, got, want, err)
			}
		}
	})
}
