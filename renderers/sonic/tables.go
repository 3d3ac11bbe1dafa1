package sonic

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

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
// it field by field, puts it in order once and prints it in one pass, so
// that a switch costs one slice rather than a map per row; the desired
// state is the same entries.
type tables struct {
	e []entry
	// shape is the kept order the entries were put in by, nil when they
	// were sorted on their own.
	shape *orderedShape
}

// set adds the fields of table|key, given as field, value pairs.
func (t *tables) set(table, key string, fieldValues ...string) {
	for i := 0; i+1 < len(fieldValues); i += 2 {
		t.e = append(t.e, entry{table, key, fieldValues[i], fieldValues[i+1]})
	}
}

// row is a run of consecutive entries of one table|key: the fields one or
// more calls of set gave in a row.
type row struct{ lo, hi int32 }

// finish puts the entries in order and refuses a field set twice, which
// would make the printed object ambiguous.
//
// The renderer sets a row's fields together, so the entries come as rows
// of a few fields each: sorting the rows by table and key (a third as many
// elements as entries, and the table most often the same string) and then
// each row's few fields costs a fraction of sorting the entries whole.
func (t *tables) finish() error {
	if len(t.e) > math.MaxInt32 {
		return fmt.Errorf("internal error: %d CONFIG_DB fields, more than this renderer orders", len(t.e))
	}
	if o := orders.find(t.e); o != nil {
		// Another switch set the same fields in the same sequence: the
		// same order puts them in place, and it had no field set twice.
		scratch := orderScratch.Get().(*[]int32)
		idx := append((*scratch)[:0], o.idx...)
		t.permute(idx)
		*scratch = idx
		orderScratch.Put(scratch)
		t.shape = o
		return nil
	}
	idx, err := t.order()
	if err != nil {
		return err
	}
	t.shape = orders.add(t.e, idx)
	t.permute(idx)
	return nil
}

// order returns the permutation that puts the entries in order: place k
// takes entry idx[k]. It refuses a field set twice.
func (t *tables) order() ([]int32, error) {
	rows := make([]row, 0, len(t.e)/2+1)
	for i := 0; i < len(t.e); {
		j := i + 1
		for j < len(t.e) && t.e[j].key == t.e[i].key && t.e[j].table == t.e[i].table {
			j++
		}
		rows = append(rows, row{int32(i), int32(j)})
		i = j
	}
	// Rows of one table|key set in two places keep the order they were set
	// in (a total order, so the unstable sort is deterministic).
	slices.SortFunc(rows, func(a, b row) int {
		ea, eb := &t.e[a.lo], &t.e[b.lo]
		if c := strings.Compare(ea.table, eb.table); c != 0 {
			return c
		}
		if c := strings.Compare(ea.key, eb.key); c != 0 {
			return c
		}
		return int(a.lo - b.lo)
	})
	// idx[k] is the entry that goes to place k: the rows in order, the
	// fields of each table|key sorted by insertion (a row has a handful).
	idx := make([]int32, 0, len(t.e))
	for r := 0; r < len(rows); {
		start := len(idx)
		first := &t.e[rows[r].lo]
		for ; r < len(rows) && t.e[rows[r].lo].key == first.key && t.e[rows[r].lo].table == first.table; r++ {
			for i := rows[r].lo; i < rows[r].hi; i++ {
				idx = append(idx, i)
			}
		}
		fields := idx[start:]
		for i := 1; i < len(fields); i++ {
			for j := i; j > 0; j-- {
				c := strings.Compare(t.e[fields[j-1]].field, t.e[fields[j]].field)
				if c == 0 {
					a, b := t.e[fields[j-1]], t.e[fields[j]]
					return nil, fmt.Errorf("internal error: %s|%s field %s is set twice (%q, %q)", a.table, a.key, a.field, a.value, b.value)
				}
				if c < 0 {
					break
				}
				fields[j-1], fields[j] = fields[j], fields[j-1]
			}
		}
	}
	return idx, nil
}

// permute puts entry idx[k] in place k, in place, cycle by cycle; it
// overwrites idx. Moving indices while sorting and each entry once here
// spares the garbage collector's write barrier a move of four strings per
// swap.
func (t *tables) permute(idx []int32) {
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
}

// An orderedShape is a sequence of fields as a switch set them (table, key
// and field of each entry; no values) and the permutation that puts them
// in order. Switches of one shape (model, ports, QoS) set the same fields
// in the same sequence, only some values differ, so the rows are sorted
// once per shape rather than once per switch: on a fabric of a thousand
// leaves the sort was most of rendering one.
type orderedShape struct {
	fields []entry
	idx    []int32
	// layouts are the printed forms of ranges of the ordered fields
	// ([2]int of the range, *layout).
	layouts sync.Map
}

// A layout is config_db.json of a range of a shape's ordered fields with
// the values left out: text, and where in it each value goes. The names,
// the punctuation and the indentation, most of the file, are then copied
// rather than printed for each switch of the shape.
type layout struct {
	text []byte
	at   []int32 // value i goes at text[at[i]]
}

// print appends config_db.json of es[lo:hi], es being ordered by o.
func (o *orderedShape) print(b []byte, es []entry, lo, hi int) []byte {
	part := es[lo:hi]
	l, ok := o.layouts.Load([2]int{lo, hi})
	if !ok {
		var at []int32
		text := writeEntries(nil, part, func(b []byte, _ int) []byte {
			at = append(at, int32(len(b)))
			return b
		})
		l, _ = o.layouts.LoadOrStore([2]int{lo, hi}, &layout{text: text, at: at})
	}
	return l.(*layout).fill(b, part)
}

// fill appends the layout's text with the values of es put in.
func (l *layout) fill(b []byte, es []entry) []byte {
	n := len(l.text)
	for _, e := range es {
		n += len(e.value) + 2
	}
	b = slices.Grow(b, n)
	prev := int32(0)
	for i, e := range es {
		b = append(b, l.text[prev:l.at[i]]...)
		b = appendString(b, e.value)
		prev = l.at[i]
	}
	return append(b, l.text[prev:]...)
}

// matches reports whether es sets exactly o's fields in o's sequence.
func (o *orderedShape) matches(es []entry) bool {
	if len(o.fields) != len(es) {
		return false
	}
	for i := range es {
		a, b := &o.fields[i], &es[i]
		if a.field != b.field || a.key != b.key || a.table != b.table {
			return false
		}
	}
	return true
}

// minOrderedShape is the fewest fields whose order is kept: a small table
// sorts in less time than matching it takes.
const minOrderedShape = 256

// maxOrderedShapes bounds the orders kept, and the memory they hold: a
// fabric has a few switch shapes, not hundreds.
const maxOrderedShapes = 32

// orders are the orders of the shapes rendered so far in this process.
var orders orderCache

// orderScratch holds the copies of a kept order that permute overwrites.
var orderScratch = sync.Pool{New: func() any { return new([]int32) }}

type orderCache struct {
	mu     sync.RWMutex
	shapes []*orderedShape
}

// find returns the kept order of es's sequence of fields, or nil.
func (c *orderCache) find(es []entry) *orderedShape {
	if len(es) < minOrderedShape {
		return nil
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.match(es)
}

// match returns the kept order of es's sequence of fields, or nil; the
// caller holds mu.
func (c *orderCache) match(es []entry) *orderedShape {
	for _, o := range c.shapes {
		if o.matches(es) {
			return o
		}
	}
	return nil
}

// add keeps the order idx of es's sequence of fields, while there is
// room, and returns the kept order, or nil.
func (c *orderCache) add(es []entry, idx []int32) *orderedShape {
	if len(es) < minOrderedShape {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if o := c.match(es); o != nil {
		return o
	}
	if len(c.shapes) >= maxOrderedShapes {
		return nil
	}
	o := &orderedShape{fields: make([]entry, len(es)), idx: slices.Clone(idx)}
	for i, e := range es {
		o.fields[i] = entry{table: e.table, key: e.key, field: e.field}
	}
	c.shapes = append(c.shapes, o)
	return o
}

// tableRange returns where table's entries are in the ordered es: es[lo:hi],
// lo < 0 when there are none.
func tableRange(es []entry, table string) (lo, hi int) {
	lo = slices.IndexFunc(es, func(e entry) bool { return e.table == table })
	if lo < 0 {
		return -1, -1
	}
	hi = lo
	for hi < len(es) && es[hi].table == table {
		hi++
	}
	return lo, hi
}

// split returns the entries of table and the others, both in order.
func split(es []entry, table string) (in, out []entry) {
	lo, hi := tableRange(es, table)
	if lo < 0 {
		return nil, es
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
func writeJSON(es []entry) []byte { return appendJSON(nil, es) }

// appendJSON is writeJSON appending to b.
func appendJSON(b []byte, es []entry) []byte {
	return writeEntries(b, es, func(b []byte, i int) []byte { return appendString(b, es[i].value) })
}

// writeEntries appends config_db.json of es with value(b, i) writing the
// value of es[i]: the one printer of the file, with the values or, for a
// layout, without.
func writeEntries(b []byte, es []entry, value func(b []byte, i int) []byte) []byte {
	if len(es) == 0 {
		return append(b, "{}\n"...)
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
	b = slices.Grow(b, n)
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
		b = value(b, i)
	}
	return append(b, "\n        }\n    }\n}\n"...)
}

// appendString appends s as a JSON string the way encoding/json writes it
// without HTML escaping.
func appendString(b []byte, s string) []byte { return renderers.AppendJSONString(b, s, false) }
