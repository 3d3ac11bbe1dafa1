package openconfig_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/openconfig"
)

// TestParseEscapedIsParsePlain: a value written plainly reads to what the
// same value with an escaped first character reads to. The reader takes
// plain enumerations, identities, 64-bit integers and strings as they are
// written and decodes escaped ones through the checked path, so this holds
// only if both paths give the same canonical values; it also covers member
// names and list keys written with escapes.
func TestParseEscapedIsParsePlain(t *testing.T) {
	d64 := leaf64()
	ecn := intents(d64)["ecn"]
	for _, d := range []*openconfigDevice{
		// The artifact: qualified identities, 64-bit integers as strings.
		{"rendered", d64, render(t, d64)},
		// A device's answer: unqualified identities, numbers, foreign trees.
		{"running", d64, running(t, d64, false)},
		{"running ecn", ecn, running(t, ecn, true)},
	} {
		plain := d.js
		escaped := escapeFirst(plain)
		if string(escaped) == string(plain) {
			t.Fatalf("%s: nothing escaped", d.name)
		}
		a, err := platform.Parse(d.d, []renderers.Artifact{{Path: d.d.Name + "/" + openconfig.FileName, Content: plain}})
		if err != nil {
			t.Fatalf("%s: %v", d.name, err)
		}
		b, err := platform.Parse(d.d, []renderers.Artifact{{Path: d.d.Name + "/" + openconfig.FileName, Content: escaped}})
		if err != nil {
			t.Fatalf("%s escaped: %v", d.name, err)
		}
		ea, eb := a.Elements(), b.Elements()
		if len(ea) < 500 {
			t.Fatalf("%s: only %d elements read", d.name, len(ea))
		}
		if !reflect.DeepEqual(ea, eb) {
			for i := range min(len(ea), len(eb)) {
				if ea[i] != eb[i] {
					t.Fatalf("%s: element %d plain %+v, escaped %+v", d.name, i, ea[i], eb[i])
				}
			}
			t.Fatalf("%s: %d elements plain, %d escaped", d.name, len(ea), len(eb))
		}
	}
}

type openconfigDevice struct {
	name string
	d    *ir.Device
	js   []byte
}

// escapeFirst writes the first character of every JSON string in js that
// starts with a letter or digit as a \u escape.
func escapeFirst(js []byte) []byte {
	out := make([]byte, 0, len(js)*2)
	for i := 0; i < len(js); i++ {
		c := js[i]
		out = append(out, c)
		if c != '"' {
			continue
		}
		if i+1 < len(js) && isAlnum(js[i+1]) {
			out = fmt.Appendf(out, `\u%04x`, js[i+1])
			i++
		}
		// Copy the rest of the string, escapes included.
		for i++; i < len(js); i++ {
			out = append(out, js[i])
			if js[i] == '\\' && i+1 < len(js) {
				i++
				out = append(out, js[i])
				continue
			}
			if js[i] == '"' {
				break
			}
		}
	}
	return out
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
