package sonic

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/renderers"
)

// entry is one field of CONFIG_DB: the value of table|key|field. CONFIG_DB
// holds strings only.
type entry struct {
	table, key, field, value string
}

// compareEntry orders entries by table, key and field, byte-wise, the
// order `config save` (sonic-cfggen --print-data, Python's json.dumps with
// sort_keys) and encoding/json print object members in.
func compareEntry(a, b entry) int {
	if c := strings.Compare(a.table, b.table); c != 0 {
		return c
	}
	if c := strings.Compare(a.key, b.key); c != 0 {
		return c
	}
	return strings.Compare(a.field, b.field)
}

// tables is CONFIG_DB flattened: one entry per field. The renderer builds
// it field by field, sorts it once and prints it in one pass, so that a
// switch costs one slice rather than a map per row; the desired state is
// the same entries.
type tables struct {
	e []entry
}

// set adds the fields of table|key, given as field, value pairs.
func (t *tables) set(table, key string, fieldValues ...string) {
	for i := 0; i+1 < len(fieldValues); i += 2 {
		t.e = append(t.e, entry{table, key, fieldValues[i], fieldValues[i+1]})
	}
}

// finish sorts the entries and refuses a field set twice, which would
// make the printed object ambiguous.
func (t *tables) finish() error {
	// Sorting indices moves four bytes per swap instead of an entry's four
	// strings, each move of which the garbage collector's write barrier
	// would see.
	idx := make([]int32, len(t.e))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int { return compareEntry(t.e[a], t.e[b]) })
	// Permute in place, cycle by cycle: entry k becomes the idx[k]th.
	for i := range idx {
		if idx[i] < 0 {
			continue
		}
		tmp, cur := t.e[i], i
		for {
			next := int(idx[cur])
			idx[cur] = -1
			if next == i {
				t.e[cur] = tmp
				break
			}
			t.e[cur] = t.e[next]
			cur = next
		}
	}
	for i := 1; i < len(t.e); i++ {
		if compareEntry(t.e[i-1], t.e[i]) == 0 {
			a := t.e[i]
			return fmt.Errorf("internal error: %s|%s field %s is set twice (%q, %q)", a.table, a.key, a.field, t.e[i-1].value, a.value)
		}
	}
	return nil
}

// split returns the entries of table and the others, both in order.
func split(es []entry, table string) (in, out []entry) {
	lo := slices.IndexFunc(es, func(e entry) bool { return e.table == table })
	if lo < 0 {
		return nil, es
	}
	hi := lo
	for hi < len(es) && es[hi].table == table {
		hi++
	}
	if lo == 0 {
		return es[:hi], es[hi:]
	}
	if hi == len(es) {
		return es[lo:], es[:lo]
	}
	return es[lo:hi], slices.Concat(es[:lo], es[hi:])
}

// writeJSON prints sorted entries the way `config save` writes
// config_db.json (sonic-cfggen --print-data: keys sorted, four-space
// indent, a final newline), so that a saved config_db.json and this file
// differ only where the configuration does. It streams into one buffer
// sized up front: encoding/json's reflection and re-indentation of a map
// per row cost more than the rest of rendering a switch. A test checks the
// bytes equal encoding/json's.
func writeJSON(es []entry) []byte {
	if len(es) == 0 {
		return []byte("{}\n")
	}
	n := 4
	for i, e := range es {
		n += len(e.field) + len(e.value) + 20
		if i == 0 || e.key != es[i-1].key || e.table != es[i-1].table {
			n += len(e.key) + 26
		}
		if i == 0 || e.table != es[i-1].table {
			n += len(e.table) + 18
		}
	}
	b := make([]byte, 0, n)
	b = append(b, "{\n"...)
	for i, e := range es {
		newTable := i == 0 || e.table != es[i-1].table
		newKey := newTable || e.key != es[i-1].key
		switch {
		case i == 0:
		case newTable:
			b = append(b, "\n        }\n    },\n"...)
		case newKey:
			b = append(b, "\n        },\n"...)
		default:
			b = append(b, ",\n"...)
		}
		if newTable {
			b = append(b, "    "...)
			b = appendString(b, e.table)
			b = append(b, ": {\n"...)
		}
		if newKey {
			b = append(b, "        "...)
			b = appendString(b, e.key)
			b = append(b, ": {\n"...)
		}
		b = append(b, "            "...)
		b = appendString(b, e.field)
		b = append(b, ": "...)
		b = appendString(b, e.value)
	}
	return append(b, "\n        }\n    }\n}\n"...)
}

// appendString appends s as a JSON string the way encoding/json writes it
// without HTML escaping.
func appendString(b []byte, s string) []byte { return renderers.AppendJSONString(b, s, false) }
