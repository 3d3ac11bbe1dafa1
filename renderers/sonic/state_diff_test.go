package sonic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// TestDiffEntriesIsDiffElements checks the merge diff against the shared
// map diff over the flattened states: the same changes, values,
// disruptions and path order, on random pairs of states whose tables
// include names that are prefixes of others; and the remediation of each
// pair against encoding/json.
func TestDiffEntriesIsDiffElements(t *testing.T) {
	tables := []string{"PORT", "PORT_QOS_MAP", "QUEUE", "BUFFER_PG", "CABLE_LENGTH", tableBreakout}
	keys := []string{"Ethernet0", "Ethernet0|3", "Ethernet8", "AZURE", "global", "a/b~c"}
	fields := []string{"mtu", "speed", "profile", "pfc_enable", "Ethernet0", "brkout_mode"}
	values := []string{"9100", "800000", "lossless", "", `a"b\c`, "<&>", "\u2028\x01ü"}
	ds := renderers.Disruptions{kindMTU: "port-flap", kindPFC: "traffic-pause", renderers.KindPortSpeed: "reboot"}
	r := rand.New(rand.NewPCG(1, 2))
	state := func() *State {
		seen := map[entry]bool{}
		var es []entry
		for range r.IntN(40) {
			e := entry{tables[r.IntN(len(tables))], keys[r.IntN(len(keys))], fields[r.IntN(len(fields))], ""}
			if seen[e] {
				continue
			}
			seen[e] = true
			e.value = values[r.IntN(len(values))]
			es = append(es, e)
		}
		slices.SortFunc(es, compareEntry)
		return &State{es: es}
	}
	for i := range 500 {
		have, want := state(), state()
		if i%7 == 0 {
			want = &State{es: slices.Clone(have.es)}
		}
		got := diffEntries(have.es, want.es, ds)
		exp := renderers.DiffElements(have.Elements(), want.Elements(), ds)
		if !reflect.DeepEqual(got, exp) {
			t.Fatalf("case %d: merge diff\n%s\nmap diff\n%s", i, show(got), show(exp))
		}
		var apply ir.SONiCApply
		if i%2 == 1 {
			apply = queueReload{}
		}
		rem := remediation(have, want, apply)
		checkEncoding(t, i, rem)
	}
}

// queueReload applies QUEUE by config reload and the rest by patch.
type queueReload struct{}

func (queueReload) Method(_ string, path, _ []string) string {
	if path[0] == "QUEUE" {
		return methodReload
	}
	return methodPatch
}

func (queueReload) Disruption(string) string { return "hitless" }

func show(cs []renderers.Change) string {
	var s string
	for _, c := range cs {
		v := func(p *string) string {
			if p == nil {
				return "-"
			}
			return *p
		}
		s += fmt.Sprintf("%s %s -> %s %s %s\n", c.Path, v(c.Before), v(c.After), c.Kind, c.Disruption)
	}
	return s
}

// checkEncoding checks that rem's values are what encoding/json makes of
// them (a map's keys sorted) and that rem.encode prints what
// json.Encoder with two-space indentation prints.
func checkEncoding(t *testing.T, i int, rem Remediation) {
	t.Helper()
	for _, op := range append(slices.Clone(rem.ApplyPatch), rem.ConfigReload...) {
		if op.Value == nil {
			continue
		}
		var v any
		if err := json.Unmarshal(op.Value, &v); err != nil {
			t.Fatalf("case %d: %s %s: value %s: %v", i, op.Op, op.Path, op.Value, err)
		}
		if want := mustJSON(v); !bytes.Equal(op.Value, want) {
			t.Fatalf("case %d: %s %s: value\n%s\nencoding/json\n%s", i, op.Op, op.Path, op.Value, want)
		}
	}
	want, err := encodingJSON(rem, "  ")
	if err != nil {
		t.Fatal(err)
	}
	if got := rem.encode(); !bytes.Equal(got, want) {
		t.Fatalf("case %d: encoded\n%s\nencoding/json\n%s", i, got, want)
	}
}
