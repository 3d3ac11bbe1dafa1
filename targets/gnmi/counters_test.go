package gnmi_test

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/targets/gnmi/gnmitest"
)

// TestGetState: a Get of a port's state, as doctor --sample sends it,
// answered by a device that takes type STATE, and by one that answers
// every type but ALL with Unimplemented (google/gnxi's reference server),
// which is asked again with type ALL and reports its state then.
func TestGetState(t *testing.T) {
	d := irtest.EOSLeaf(2)
	port := d.Switch.Ports[0].Name
	for _, tc := range []struct {
		name   string
		faults gnmitest.Faults
		want   string
	}{
		{"state", gnmitest.Faults{}, `"name":"` + port + `"`},
		{"only ALL", gnmitest.Faults{OnlyTypeAll: true}, `"in-pkts":"7"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := serve(t, runningTree(t, d), gnmitest.Options{})
			srv.SetFaults(tc.faults)
			tg := targetOne(t, d, srv, nil)
			ns, err := tg.GetState(t.Context(), d, []string{"/interfaces/interface[name=" + port + "]"})
			if err != nil {
				t.Fatal(err)
			}
			if len(ns) != 1 || len(ns[0].GetUpdate()) != 1 {
				t.Fatalf("notifications %v, want one update", ns)
			}
			u := ns[0].GetUpdate()[0]
			if got := string(u.GetVal().GetJsonIetfVal()); !strings.Contains(strings.ReplaceAll(got, " ", ""), tc.want) {
				t.Errorf("value %s, want it to hold %s", got, tc.want)
			}
			if k := u.GetPath().GetElem()[1].GetKey()["name"]; k != port {
				t.Errorf("the update's path names %q, want %q", k, port)
			}
			if srv.Sets() != 0 {
				t.Errorf("%d Sets: reading counters changes nothing", srv.Sets())
			}
		})
	}
	tg := targetOne(t, d, serve(t, runningTree(t, d), gnmitest.Options{}), nil)
	if _, err := tg.GetState(t.Context(), d, []string{"/interfaces/interface[name="}); err == nil || !strings.Contains(err.Error(), "gNMI path") {
		t.Errorf("a path that does not parse: %v", err)
	}
}
