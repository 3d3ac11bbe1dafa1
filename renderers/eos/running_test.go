package eos_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers/internal/clitree/clitreetest"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/schema"
)

// before is the pod-2048 fabric as its EOS leaves ran before rocefab: no
// lossless reservation (no MMU headroom pool or queue profile), the
// storage queue unshaped, and the ECN thresholds of an old template.
func before(sw *ir.Switch, q *ir.QoS) {
	sw.Buffers, sw.Headrooms = nil, nil
	for i := range sw.Ports {
		sw.Ports[i].Headroom = nil
	}
	for i := range q.Queues {
		if c := q.Queues[i].Class; c != nil && c.Name == "storage" {
			q.Queues[i].Weight = 0
		}
		if e := q.Queues[i].ECN; e != nil {
			e.MinBytes, e.MaxBytes, e.Probability = 150_000, 1_500_000, 100
		}
	}
}

// runningHead and runningTail are what the leaves run besides rocefab's
// lines, in the form `show running-config` prints it (the forms of
// aristanetworks/avd's eos_cli_config_gen example configurations:
// users, VRF instance, Management1, ACL, router bgp, management api).
const runningHead = `! Command: show running-config
! device: %[1]s (DCS-7060X6-64PE, EOS-4.33.1F)
!
! boot system flash:/EOS-4.33.1F.swi
!
no aaa root
!
username admin privilege 15 role network-admin secret sha512 $6$rocefabexample$0000000000000000
!
service routing protocols model multi-agent
!
hostname %[1]s
ip name-server vrf MGMT 192.168.0.1
!
spanning-tree mode none
!
vrf instance MGMT
!
interface Loopback0
   description ROUTER_ID
   ip address 10.255.0.%[2]d/32
!
interface Management1
   description oob_management
   vrf MGMT
   ip address 192.168.0.%[3]d/24
!
ip access-list ACL-MGMT
   10 permit ip 192.168.0.0/24 any
   20 deny ip any any
!
`

const runningTail = `!
ip routing
no ip routing vrf MGMT
!
ip route vrf MGMT 0.0.0.0/0 192.168.0.1
!
router bgp %[1]d
   router-id 10.255.0.%[2]d
   maximum-paths 64
   neighbor SPINES peer group
   neighbor SPINES remote-as 65001
   neighbor SPINES send-community
   redistribute connected
!
management api http-commands
   protocol https
   no shutdown
   !
   vrf MGMT
      no shutdown
!
end
`

// runningOf returns the running configuration of leaf number i: the
// lines Render prints for the "before" intent, its comments dropped as
// EOS drops them (the bare "!" separators stay, as EOS prints them), in
// the foreign configuration above; each port gets a routed address.
func runningOf(t *testing.T, d *ir.Device, i int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, runningHead, d.Name, i+1, i+10)
	for _, l := range strings.SplitAfter(string(h.RenderText(t, clitreetest.Variant(d, before))), "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "! ") {
			continue
		}
		b.WriteString(l)
		if strings.HasPrefix(l, "interface Ethernet") {
			b.WriteString("   no switchport\n")
		}
	}
	fmt.Fprintf(&b, runningTail, 65101+i, i+1)
	return b.Bytes()
}

// TestPod2048Running checks examples/pod-2048/running/<leaf>/eos.cfg, the
// "before" state plan reads for the EOS leaves, against what runningOf
// makes; ROCEFAB_UPDATE=1 rewrites them. It also checks the story they
// tell: every leaf has changes, all within the owned scope.
func TestPod2048Running(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	in, ds, err := schema.Load(filepath.Join(root, "examples", "pod-2048"))
	if err != nil || in == nil || ds.HasErrors() {
		t.Fatalf("loading pod-2048: %v %v", err, ds)
	}
	f, _ := compiler.Compile(in)
	if f == nil {
		t.Fatal("pod-2048 does not compile")
	}
	n := 0
	for _, d := range f.Switches() {
		if d.Platform != ir.PlatformEOS {
			continue
		}
		text := runningOf(t, d, n)
		n++
		path := filepath.Join(root, "examples", "pod-2048", "running", d.Name, "eos.cfg")
		rendertest.Golden(t, path, text)
		if t.Failed() {
			t.FailNow()
		}
		got := text
		ch, rem := h.Diff(t, d, h.Parse(t, d, got), h.Desired(t, d))
		if len(ch) == 0 {
			t.Fatalf("%s: the before state has no change", d.Name)
		}
		if bytes.Contains(rem.Content, []byte("router bgp")) || bytes.Contains(rem.Content, []byte("Management1")) {
			t.Fatalf("%s: the remediation reaches foreign configuration:\n%s", d.Name, rem.Content)
		}
	}
	if n == 0 {
		t.Fatal("pod-2048 has no EOS leaf")
	}
}
