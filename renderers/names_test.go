package renderers

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/schema"
)

func TestNamePatternIsTheSchemas(t *testing.T) {
	if NamePattern != schema.NamePattern {
		t.Fatalf("renderers.NamePattern %q differs from schema.NamePattern %q", NamePattern, schema.NamePattern)
	}
	if InterfacePattern != schema.InterfacePattern {
		t.Fatalf("renderers.InterfacePattern %q differs from schema.InterfacePattern %q", InterfacePattern, schema.InterfacePattern)
	}
}

func FuzzValidName(f *testing.F) {
	for _, s := range []string{"", "a", "gpu-0000", "Ethernet1/1", "-a", "a;b", "x$(y)", "a\nb", "a b", "é", "a.b_c/d-e", "..", "a/../b", `a\b`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if validName(s, false) != nameRE.MatchString(s) {
			t.Fatalf("validName(%q) = %v, the pattern says %v", s, validName(s, false), nameRE.MatchString(s))
		}
		if validName(s, true) != interfaceRE.MatchString(s) {
			t.Fatalf("validName(%q, slash) = %v, the interface pattern says %v", s, validName(s, true), interfaceRE.MatchString(s))
		}
	})
}

func TestValidNameAgrees(t *testing.T) {
	long := "a123456789012345678901234567890123456789012345678901234567890123"
	for _, s := range []string{"", "a", long, long + "4", "-a", "a-", "a;b", "x$(y)", "a`b`", "a'b", "a\"b", "a\nb", "a b", "é",
		"a/b", "Ethernet1/1", ".", "..", "./x", "a/../../x", "/abs", `a\b`} {
		if validName(s, false) != nameRE.MatchString(s) {
			t.Errorf("validName(%q) = %v, the pattern says %v", s, validName(s, false), nameRE.MatchString(s))
		}
		if validName(s, true) != interfaceRE.MatchString(s) {
			t.Errorf("validName(%q, slash) = %v, the interface pattern says %v", s, validName(s, true), interfaceRE.MatchString(s))
		}
	}
}

// A name that would lead a path anywhere but one entry below the output
// directory is refused; interfaces keep their '/'.
func TestNamesCannotBePaths(t *testing.T) {
	for _, s := range []string{".", "..", "./x", "x/..", "a/../../x", "/abs", `a\b`, `..\x`, "a/b"} {
		if CheckName("tenant", s) == nil {
			t.Errorf("CheckName(%q) accepted a path", s)
		}
	}
	if err := CheckInterface("port", "Ethernet1/1"); err != nil {
		t.Errorf("CheckInterface(Ethernet1/1): %v", err)
	}
	d := &ir.Device{Name: "leaf-00", Switch: &ir.Switch{Ports: []ir.Port{{Name: "Ethernet1/1", Peer: "spine-00", PeerPort: "Ethernet2/1"}}}}
	if err := CheckDevice(d); err != nil {
		t.Errorf("CheckDevice with slashed ports: %v", err)
	}
	d.Switch.Ports[0].Peer = "../x"
	if err := CheckDevice(d); err == nil || !strings.Contains(err.Error(), "peer") {
		t.Errorf("CheckDevice with peer ../x: %v", err)
	}
	d.Switch.Ports[0].Peer = "spine-00"
	d.Name = "a/b"
	if err := CheckDevice(d); err == nil {
		t.Error("CheckDevice accepted device name a/b")
	}
}
