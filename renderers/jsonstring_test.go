package renderers_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/renderers"
)

// FuzzAppendJSONString holds AppendJSONString to encoding/json, with and
// without HTML escaping.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "leaf-r0-00:Ethernet1/1", "to gpu-0001:eth2", `a"b\c`, "<&>", "tab\there", "é", "\xff", "\u2028", "\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		marshalled, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := renderers.AppendJSONString([]byte("x"), s, true); !bytes.Equal(got, append([]byte("x"), marshalled...)) {
			t.Errorf("escapeHTML: %q -> %s, json.Marshal %s", s, got[1:], marshalled)
		}
		var sb strings.Builder
		enc := json.NewEncoder(&sb)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got, want := string(renderers.AppendJSONString(nil, s, false)), strings.TrimSuffix(sb.String(), "\n"); got != want {
			t.Errorf("no escapeHTML: %q -> %s, Encoder %s", s, got, want)
		}
	})
}

// FuzzAppendJSONBytes holds AppendJSONBytes to AppendJSONString.
func FuzzAppendJSONBytes(f *testing.F) {
	for _, s := range []string{"", "a\nb", "<&>", "\xff\xfe", "\u2029x", "é\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{true, false} {
			if got, want := renderers.AppendJSONBytes([]byte("x"), []byte(s), html), renderers.AppendJSONString([]byte("x"), s, html); !bytes.Equal(got, want) {
				t.Errorf("%q (escapeHTML %v): bytes %s, string %s", s, html, got, want)
			}
		}
	})
}
