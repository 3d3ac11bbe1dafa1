package openconfig

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/renderers"
)

// TestDiffElementsIsDiffElements checks the merge diff against the
// shared map diff on random pairs of states: paths that sort around each
// other ("[name=Ethernet1]" before "[name=Ethernet10]", a prefix of
// another path), equal and different values, kinds with and without a
// disruption class, and states given as a State or as another sorted or
// unsorted list.
func TestDiffElementsIsDiffElements(t *testing.T) {
	paths := []string{
		"/interfaces/interface[name=Ethernet1]/config/mtu",
		"/interfaces/interface[name=Ethernet10]/config/mtu",
		"/interfaces/interface[name=Ethernet1]/config/description",
		"/interfaces/interface[name=Ethernet1]/ethernet/config/port-speed",
		"/interfaces/interface[name=Ethernet2]/ethernet/config/enable-flow-control",
		"/qos/queues/queue[name=3]/config/name",
		"/qos/queues/queue[name=3]/config/name2",
		"/qos/classifiers/classifier[name=dscp]/terms/term[id=0]/config/id",
		"/qos/interfaces/interface[interface-id=Ethernet1]/output/queues/queue[name=3]/config/name",
	}
	kinds := []string{"mtu", "", renderers.KindPortSpeed, "pfc", "tc-queue", "dscp-map", "unknown"}
	values := []string{"9214", "\"9214\"", "true", "false", "[null]", "\"a\\\"b\"", "[1,2]", ""}
	ds := renderers.Disruptions{"mtu": "port-flap", "pfc": "traffic-pause", "tc-queue": "bad class", renderers.KindPortSpeed: "reboot"}
	r := rand.New(rand.NewPCG(10, 64))
	state := func() []renderers.Element {
		var es []renderers.Element
		for _, p := range paths {
			if r.IntN(3) == 0 {
				continue
			}
			es = append(es, renderers.Element{Path: p, Value: values[r.IntN(len(values))], Kind: kinds[r.IntN(len(kinds))]})
		}
		slices.SortFunc(es, byPath)
		return es
	}
	for i := range 2000 {
		have, want := state(), state()
		if i%5 == 0 {
			want = slices.Clone(have)
		}
		exp := renderers.DiffElements(have, want, ds)
		if got := diffElements(have, want, ds); !reflect.DeepEqual(got, exp) {
			t.Fatalf("case %d: merge diff\n%s\nmap diff\n%s", i, showChanges(got), showChanges(exp))
		}
		// The same through Diff's choice of lists: a State as it is, any
		// other state sorted first.
		var running renderers.State = &State{elements: have}
		if i%2 == 1 {
			shuffled := slices.Clone(have)
			r.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
			running = renderers.Elements(shuffled)
		}
		es, ok := sortedElements(running)
		if !ok {
			t.Fatalf("case %d: a state without repeated paths reported as repeating one", i)
		}
		if got := diffElements(es, want, ds); !reflect.DeepEqual(got, exp) {
			t.Fatalf("case %d (running as %T): merge diff\n%s\nmap diff\n%s", i, running, showChanges(got), showChanges(exp))
		}
	}
	if _, ok := sortedElements(renderers.Elements{{Path: "/a"}, {Path: "/a"}}); ok {
		t.Fatal("a state with a path given twice is not left to the map diff")
	}
	if es, ok := sortedElements((*State)(nil)); !ok || es != nil {
		t.Fatal("a nil State is not an empty list")
	}
}

func showChanges(cs []renderers.Change) string {
	var b strings.Builder
	for _, c := range cs {
		v := func(p *string) string {
			if p == nil {
				return "-"
			}
			return *p
		}
		fmt.Fprintf(&b, "%s %s -> %s %s %s\n", c.Path, v(c.Before), v(c.After), c.Kind, c.Disruption)
	}
	return b.String()
}
