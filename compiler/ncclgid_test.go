package compiler_test

import "testing"

// NCCL_IB_GID_INDEX is written only when the intent states it: NCCL picks
// the RoCE v2 GID itself otherwise (hosts.md §4.1).
func TestNCCLGIDIndexOnlyWhenStated(t *testing.T) {
	for _, c := range []struct {
		stated, want string
	}{{"", ""}, {"hosts: nccl: gidIndex: 5\n", "5"}, {"hosts: nccl: gidIndex: 3\n", "3"}} {
		f := compile(t, "name: \"x\"\ntopology: {servers: 16, rails: 2}\ntenants: train: class: \"roce\"\n"+c.stated)
		if len(f.Tenants) == 0 {
			t.Fatalf("%q: no tenant", c.stated)
		}
		for _, tn := range f.Tenants {
			got := ""
			for _, e := range tn.Env {
				if e.Name == "NCCL_IB_GID_INDEX" {
					got = e.Value
				}
			}
			if got != c.want {
				t.Errorf("%q: tenant %s NCCL_IB_GID_INDEX %q, want %q", c.stated, tn.Name, got, c.want)
			}
		}
	}
}
