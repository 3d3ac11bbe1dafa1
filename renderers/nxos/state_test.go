package nxos_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/platforms"
	"github.com/rocefab/rocefab/renderers/internal/clitree/clitreetest"
	"github.com/rocefab/rocefab/renderers/nxos"
)

// h runs the properties NX-OS shares with the other CLI platforms
// (clitreetest) with NX-OS's renderer and foreign configuration.
var h = &clitreetest.Harness{
	Platform:    nxos.Renderer{},
	Foreign:     nxos.Foreign,
	Name:        ir.PlatformNXOS,
	Label:       "NX-OS",
	File:        nxos.FileName,
	ForeignHead: foreignHead,
	ForeignTail: foreignTail,
	PortForeign: "  no switchport\n  ip address 10.1.0.0/31\n",
	Reorder:     reverseSections,
	OtherPort:   "interface Ethernet99/1\n  mtu 1500\n  priority-flow-control mode off\n",
	// NX-OS has no reset form: a `no X` line rocefab does not render is
	// removed by entering X, which the simulated device then prints until
	// the next round negates it. So convergence is checked within two
	// rounds.
	Rounds: 2,
}

// foreignHead and foreignTail are configuration rocefab does not own, in
// the form NX-OS prints `show running-config` (Cisco Nexus 9000 NX-OS
// Fundamentals Configuration Guide, "Working with Configuration Files").
const foreignHead = `!Command: show running-config
!Running configuration last done at: Mon Jan  6 10:00:00 2025
!Time: Mon Jan  6 10:00:01 2025

version 10.3(4a) Bios:version 01.09
hostname %[1]s

feature bgp
feature lldp

username admin password 5 $5$abc$def  role network-admin
ip access-list ACL-MGMT
  10 permit ip 192.168.0.0/24 any
  20 deny ip any any

vrf context management
  ip route 0.0.0.0/0 192.168.0.1

`

const foreignTail = `
interface mgmt0
  vrf member management
  ip address 192.168.0.20/24

interface loopback0
  ip address 10.255.1.1/32

router bgp 65001
  router-id 10.255.1.1
  neighbor 10.1.0.1
    remote-as 65101
    address-family ipv4 unicast
`

// reverseSections reverses the order of the top-level sections of text, a
// section being a top-level line with the lines indented below it.
func reverseSections(text []byte) []byte {
	var sections []string
	for _, l := range strings.SplitAfter(string(text), "\n") {
		if l == "" {
			continue
		}
		if len(sections) == 0 || (l[0] != ' ') {
			sections = append(sections, l)
			continue
		}
		sections[len(sections)-1] += l
	}
	slices.Reverse(sections)
	return []byte(strings.Join(sections, ""))
}

// TestProperties checks the properties NX-OS shares with the other CLI
// platforms (clitreetest): every NX-OS switch's printed model reads back
// into its owned model with the elements the renderer named, a hand edit
// of the model is what the diff shows, foreign configuration parses to
// the owned model, applying a diff converges and keeps every foreign
// line, a remediation line outside the owned scope is refused, and a
// running file that is not text is an error with its position.
func TestProperties(t *testing.T) { h.Properties(t) }

// TestVerifyMarksAsMarkVerifyCLI holds the marks the model puts above
// each block to what renderers.MarkVerifyCLI puts in the unmarked text
// (clitreetest).
func TestVerifyMarksAsMarkVerifyCLI(t *testing.T) {
	h.VerifyMarks(t, func(form string) bool { return platforms.IsVerify(ir.PlatformNXOS, form) }, false)
}

// TestRemediation pins the CLI lines of small changes: a modified MTU is
// one line in its interface, a changed DSCP list is negated first, and a
// queue section that goes is removed after the lines that change.
func TestRemediation(t *testing.T) {
	mtu := func(d *ir.Device) string { return fmt.Sprintf("  mtu %d\n", d.Switch.MTU) }
	h.MTURemediation(t, func(d *ir.Device, text, port string) string {
		i := strings.Index(text, "interface "+port+"\n")
		return text[:i] + strings.Replace(text[i:], mtu(d), "  mtu 1500\n", 1)
	}, func(d *ir.Device, port string) string { return "interface " + port + "\n" + mtu(d) + "  exit\n" })
}

// FuzzParse feeds arbitrary text to the parser, the diff and the Applier:
// none may panic, and applying diffs converges (clitreetest).
func FuzzParse(f *testing.F) {
	h.Fuzz(f,
		[]byte("policy-map type queuing ROCEFAB-QUEUING-OUT\n\t!\n  class type queuing c-out-8q-q1\n priority level 1\n\r\n!\n"),
		[]byte("interface Ethernet1/1\n  mtu 1500\n  mtu 1600\n  shutdown\nsystem qos\n  service-policy type network-qos OTHER\n"),
	)
}

// BenchmarkParseDiff64 measures what plan does per NX-OS device (clitreetest).
func BenchmarkParseDiff64(b *testing.B) { h.BenchmarkParseDiff64(b) }
