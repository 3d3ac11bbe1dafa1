package nvue

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/renderers"
)

// randomElements returns up to n elements with paths from a small
// alphabet of keys ('-' sorts before '/', so that "a-x" falls between "a"
// and "a/b"), sorted with unique paths.
func randomElements(r *rand.Rand, n int) []renderers.Element {
	keys := []string{"a", "a-x", "b", "swp1", "swp10", "qos"}
	kinds := []string{"", "pfc", "mtu", "breakout", "bogus"}
	var es []renderers.Element
	for range n {
		segs := make([]string, 1+r.IntN(3))
		for i := range segs {
			segs[i] = keys[r.IntN(len(keys))]
		}
		es = append(es, renderers.Element{Path: strings.Join(segs, "/"), Value: fmt.Sprint(r.IntN(3)), Kind: kinds[r.IntN(len(kinds))]})
	}
	return newState(es).elements
}

// TestDiffSorted: the merge gives DiffElements' changes, and wantedAt
// answers as a map of every wanted path and its ancestors does.
func TestDiffSorted(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ds := renderers.Disruptions{"pfc": "traffic-pause", "mtu": "port-flap", "bogus": "sometimes"}
	for range 2000 {
		have, want := randomElements(r, r.IntN(12)), randomElements(r, r.IntN(12))
		got, exp := diffSorted(have, want, ds), renderers.DiffElements(have, want, ds)
		if !reflect.DeepEqual(got, exp) {
			t.Fatalf("diff of\n%v\n%v:\nmerge %v\nDiffElements %v", have, want, got, exp)
		}
		wanted := map[string]bool{}
		for _, e := range want {
			segs := splitPath(e.Path)
			for i := 1; i <= len(segs); i++ {
				wanted[joinPath(segs[:i])] = true
			}
		}
		for _, e := range append(slices.Clone(have), randomElements(r, 5)...) {
			segs := splitPath(e.Path)
			for i := 1; i <= len(segs); i++ {
				p := joinPath(segs[:i])
				if wantedAt(want, p) != wanted[p] {
					t.Fatalf("wantedAt(%v, %q) = %v", want, p, !wanted[p])
				}
			}
		}
	}
}

// TestElementsOfUnsorted: a state whose elements are out of order or
// repeat a path is diffed as its sorted form, the later element winning.
func TestElementsOfUnsorted(t *testing.T) {
	s := renderers.Elements{{Path: "b", Value: "1"}, {Path: "a", Value: "1"}, {Path: "a", Value: "2"}}
	got := elementsOf(unsortedState(s))
	want := []renderers.Element{{Path: "a", Value: "2"}, {Path: "b", Value: "1"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("elementsOf = %v, want %v", got, want)
	}
}

// unsortedState returns its elements as given.
type unsortedState []renderers.Element

func (u unsortedState) Elements() []renderers.Element { return slices.Clone(u) }
