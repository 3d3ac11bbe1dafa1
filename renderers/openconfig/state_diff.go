package openconfig

import (
	"slices"
	"strings"

	"github.com/rocefab/rocefab/renderers"
)

// diffElements is renderers.DiffElements for two element lists sorted by
// path without repeats (what read returns): one merge walk, no maps, and
// every change's before and after values in one backing array. A plan
// diffs every device, so the per-device cost matters; a randomized test
// checks it against renderers.DiffElements.
func diffElements(running, desired []renderers.Element, ds renderers.Disruptions) []renderers.Change {
	n := 0
	i, j := 0, 0
	for i < len(running) && j < len(desired) {
		switch c := strings.Compare(running[i].Path, desired[j].Path); {
		case c < 0:
			n++
			i++
		case c > 0:
			n++
			j++
		default:
			if running[i].Value != desired[j].Value {
				n++
			}
			i++
			j++
		}
	}
	n += len(running) - i + len(desired) - j
	if n == 0 {
		return nil
	}
	out := make([]renderers.Change, 0, n)
	// values holds every Before and After the changes point to.
	values := make([]string, 0, 2*n)
	val := func(v string) *string {
		values = append(values, v)
		return &values[len(values)-1]
	}
	// Disruptions.Of parses the class each time; the kinds are few.
	var kinds []string
	var classes []renderers.Disruption
	of := func(kind string) renderers.Disruption {
		if k := slices.Index(kinds, kind); k >= 0 {
			return classes[k]
		}
		d := ds.Of(kind)
		kinds, classes = append(kinds, kind), append(classes, d)
		return d
	}
	del := func(h renderers.Element) {
		out = append(out, renderers.Change{Path: h.Path, Before: val(h.Value), Kind: h.Kind, Disruption: of(h.Kind)})
	}
	set := func(h *renderers.Element, w renderers.Element) {
		c := renderers.Change{Path: w.Path, After: val(w.Value), Kind: w.Kind, Disruption: of(w.Kind)}
		if h != nil {
			c.Before = val(h.Value)
		}
		out = append(out, c)
	}
	i, j = 0, 0
	for i < len(running) || j < len(desired) {
		switch {
		case j == len(desired):
			del(running[i])
			i++
		case i == len(running):
			set(nil, desired[j])
			j++
		default:
			switch c := strings.Compare(running[i].Path, desired[j].Path); {
			case c < 0:
				del(running[i])
				i++
			case c > 0:
				set(nil, desired[j])
				j++
			default:
				if running[i].Value != desired[j].Value {
					set(&running[i], desired[j])
				}
				i++
				j++
			}
		}
	}
	return out
}

// sortedElements is s's elements in path order without copying them when
// s is a State (whose elements read keeps sorted and unique), and a sorted
// copy of another state's; ok is false when a path is given twice, which
// only the map diff can take.
func sortedElements(s renderers.State) (es []renderers.Element, ok bool) {
	if s == nil {
		return nil, true
	}
	if st, isState := s.(*State); isState {
		if st == nil {
			return nil, true
		}
		return st.elements, true
	}
	es = s.Elements()
	if !slices.IsSortedFunc(es, byPath) {
		es = slices.Clone(es)
		slices.SortFunc(es, byPath)
	}
	for k := 1; k < len(es); k++ {
		if es[k].Path == es[k-1].Path {
			return es, false
		}
	}
	return es, true
}

func byPath(a, b renderers.Element) int { return strings.Compare(a.Path, b.Path) }
