package eos_test

import (
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// TestVerifyMarksAsMarkVerifyCLI holds the marks the renderer writes line by
// line to what renderers.MarkVerifyCLI puts in the unmarked text: with the
// marks taken out, marking the whole text again gives the same bytes
// (clitreetest).
func TestVerifyMarksAsMarkVerifyCLI(t *testing.T) {
	isVerify := func(form string) bool { return platforms.IsVerify(ir.PlatformEOS, form) }
	h.VerifyMarks(t, isVerify, true, irtest.Fabric().Device("leaf-eos"), tomahawk(), eosSpine())
}
