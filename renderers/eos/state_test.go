package eos_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers/eos"
	"github.com/rocefab/rocefab/renderers/internal/clitree/clitreetest"
)

// h runs the properties EOS shares with the other CLI platforms
// (clitreetest) with EOS's renderer and foreign configuration.
var h = &clitreetest.Harness{
	Platform:    eos.Renderer{},
	Foreign:     eos.Foreign,
	Name:        ir.PlatformEOS,
	Label:       "EOS",
	File:        eos.FileName,
	ForeignHead: foreignHead,
	ForeignTail: foreignTail,
	PortForeign: "   no switchport\n   ip address 10.1.0.0/31\n",
	Reorder:     reorder,
	OtherPort:   "interface Ethernet99/1\n   mtu 1500\n   service-profile OTHER\n",
	// EOS resets a line by its default form, so one round converges.
	Rounds: 1,
}

// foreignHead and foreignTail are configuration rocefab does not own, in
// the form `show running-config` prints it: the pod-2048 leaves' own lines
// (runningHead and runningTail) as leaf 1 has them, the device name left
// for the harness to fill in.
var (
	foreignHead = strings.NewReplacer("%[2]d", "1", "%[3]d", "10").Replace(runningHead)
	foreignTail = fmt.Sprintf(runningTail, 65101, 1)
)

// reorder reverses the order of the top-level sections, which EOS
// separates by "!" lines.
func reorder(text []byte) []byte {
	sections := strings.Split(string(text), "\n!\n")
	slices.Reverse(sections)
	shuffled := strings.Join(sections, "\n!\n")
	if !strings.HasSuffix(shuffled, "\n") {
		shuffled += "\n"
	}
	return []byte(shuffled)
}

// TestProperties checks the properties EOS shares with the other CLI
// platforms (clitreetest): every EOS switch's printed model reads back
// into its owned model with the elements the renderer named, a hand edit
// of the model is what the diff shows, foreign configuration parses to
// the owned model, applying a diff converges and keeps every foreign
// line, a remediation line outside the owned scope is refused, and a
// running file that is not text is an error with its position.
func TestProperties(t *testing.T) { h.Properties(t) }

// TestRemediation pins the CLI lines of small changes: a modified MTU is
// one line in its interface, a changed DSCP list is negated first, and a
// queue section that goes is removed after the lines that change.
func TestRemediation(t *testing.T) {
	h.MTURemediation(t, func(_ *ir.Device, text, port string) string {
		run := strings.Replace(text, "interface "+port+"\n", "interface "+port+"\n   mtu 1500\n", 1)
		return strings.Replace(run, "   mtu 9214\n", "", 1)
	}, func(_ *ir.Device, port string) string { return "interface " + port + "\n   mtu 9214\n   exit\n" })
}

// FuzzParse feeds arbitrary text to the parser, the diff and the Applier:
// none may panic, and applying diffs converges (clitreetest).
func FuzzParse(f *testing.F) {
	h.Fuzz(f,
		[]byte("qos profile ROCEFAB\n\t!\n   uc-tx-queue 1\n no priority\n\r\n!\n"),
		[]byte("interface Ethernet1/1\n   mtu 1500\n   mtu 1600\nno qos map dscp 1 to traffic-class 1\n"),
	)
}

// BenchmarkParseDiff64 measures what plan does per EOS device (clitreetest).
func BenchmarkParseDiff64(b *testing.B) { h.BenchmarkParseDiff64(b) }
