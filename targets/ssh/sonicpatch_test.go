package ssh

import (
	"strings"
	"testing"
)

// TestApplyPatch: add, replace and remove with RFC 6901 escapes and
// array indexes, the result printed as config save writes it, and an
// operation on a path that is not there refused with its number.
func TestApplyPatch(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"PORT": {"Ethernet0": {"mtu": "9100"}}, "VLAN": {"Vlan10": {"members": ["Ethernet0"]}}, "X": {"a/b": {"c~d": "1"}}}`)
	got, err := applyPatch(doc, []patchOp{
		{Op: "replace", Path: "/PORT/Ethernet0/mtu", Value: []byte(`"4200"`)},
		{Op: "add", Path: "/PORT/Ethernet4", Value: []byte(`{"mtu": "9100"}`)},
		{Op: "add", Path: "/VLAN/Vlan10/members/-", Value: []byte(`"Ethernet4"`)},
		{Op: "remove", Path: "/VLAN/Vlan10/members/0"},
		{Op: "remove", Path: "/X/a~1b/c~0d"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{
    "PORT": {
        "Ethernet0": {
            "mtu": "4200"
        },
        "Ethernet4": {
            "mtu": "9100"
        }
    },
    "VLAN": {
        "Vlan10": {
            "members": [
                "Ethernet4"
            ]
        }
    },
    "X": {
        "a/b": {}
    }
}
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, c := range []struct {
		op   patchOp
		want string
	}{
		{patchOp{Op: "replace", Path: "/PORT/Ethernet8/mtu", Value: []byte(`"1"`)}, `operation 1 (replace /PORT/Ethernet8/mtu): no member "Ethernet8" at /PORT`},
		{patchOp{Op: "remove", Path: "/PORT/Ethernet0/speed"}, "nothing to remove at /PORT/Ethernet0/speed"},
		{patchOp{Op: "replace", Path: "/PORT/Ethernet0/speed", Value: []byte(`"1"`)}, "nothing to replace"},
		{patchOp{Op: "move", Path: "/PORT"}, `the operation "move"`},
		{patchOp{Op: "remove", Path: "PORT"}, "does not start with /"},
		{patchOp{Op: "remove", Path: "/VLAN/Vlan10/members/1"}, "out of an array"},
		{patchOp{Op: "remove", Path: "/X/a~2b"}, "not ~0 or ~1"},
	} {
		if _, err := applyPatch(doc, []patchOp{c.op}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want %q", c.op.Op, c.op.Path, err, c.want)
		}
	}
}
