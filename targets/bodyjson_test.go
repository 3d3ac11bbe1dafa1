package targets

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
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
