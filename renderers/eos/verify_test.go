package eos_test

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/compiler/platforms"
	"github.com/rocefab/rocefab/renderers"
)

// TestVerifyMarksAsMarkVerifyCLI holds the marks the renderer writes line by
// line to what renderers.MarkVerifyCLI puts in the unmarked text: with the
// marks taken out, marking the whole text again gives the same bytes.
func TestVerifyMarksAsMarkVerifyCLI(t *testing.T) {
	isVerify := func(form string) bool { return platforms.IsVerify(ir.PlatformEOS, form) }
	marks := 0
	for _, d := range []*ir.Device{irtest.Fabric().Device("leaf-eos"), tomahawk(), eosSpine()} {
		cfg := render(t, d)
		ls := strings.SplitAfter(cfg, "\n")
		var unmarked strings.Builder
		for i, l := range ls {
			if i+1 < len(ls) {
				if form, ok := renderers.CLIForm(ls[i+1]); ok && isVerify(form) && strings.TrimSpace(l) == "! "+renderers.VerifyMark(form) {
					marks++
					continue
				}
			}
			unmarked.WriteString(l)
		}
		if got := string(renderers.MarkVerifyCLI([]byte(unmarked.String()), isVerify, true)); got != cfg {
			t.Errorf("%s: the marks differ from MarkVerifyCLI's:\n%s", d.Name, firstDiff(cfg, got))
		}
	}
	if marks == 0 {
		t.Error("no verify mark in any rendering: the test checks nothing")
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "line " + al[i] + "\nwant " + bl[i]
		}
	}
	return "lengths differ"
}
