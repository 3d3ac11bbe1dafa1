package sonic

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir/irtest"
)

// TestWriteJSONMatchesEncodingJSON: the streamed config_db.json is the
// bytes encoding/json writes for the same tables, for the test fabric's
// switches and for names and values that need escaping.
func TestWriteJSONMatchesEncodingJSON(t *testing.T) {
	dbs := []configDB{{}, {"T": {"b|1": {"x": "<&>", "a": "q\"uote", "c": "tab\there", "d": "é\u2028\x01"}, "a": {"z": "1"}}, "B": {"k": {"f": "v"}}}}
	for _, d := range irtest.Fabric().Switches() {
		if d.Platform != "sonic" {
			continue
		}
		es, _, err := build(d)
		if err != nil {
			t.Fatal(err)
		}
		dbs = append(dbs, toConfigDB(es))
	}
	for i, db := range dbs {
		got := writeJSON(entriesOf(db))
		want, err := db.marshalReflect()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("case %d: writeJSON differs from encoding/json:\n%s\n---\n%s", i, got, want)
		}
	}
}

// TestFinishRefusesDuplicates: a field set twice is an error, never a
// silent choice between two values.
func TestFinishRefusesDuplicates(t *testing.T) {
	var tb tables
	tb.set("PORT", "Ethernet0", "mtu", "9100")
	tb.set("PORT", "Ethernet0", "mtu", "9216")
	if err := tb.finish(); err == nil {
		t.Fatal("a field set twice was accepted")
	}
}

// configDB is CONFIG_DB as nested maps, table → key → field → value: the
// form encoding/json reads config_db.json into, which tests compare with.
type configDB map[string]map[string]map[string]string

// toConfigDB returns es as nested maps.
func toConfigDB(es []entry) configDB {
	db := configDB{}
	for _, e := range es {
		t := db[e.table]
		if t == nil {
			t = map[string]map[string]string{}
			db[e.table] = t
		}
		k := t[e.key]
		if k == nil {
			k = map[string]string{}
			t[e.key] = k
		}
		k[e.field] = e.value
	}
	return db
}

// entriesOf flattens db into sorted entries. A key without fields has no
// entry.
func entriesOf(db configDB) []entry {
	var es []entry
	for table, rows := range db {
		for key, fields := range rows {
			for f, v := range fields {
				es = append(es, entry{table, key, f, v})
			}
		}
	}
	slices.SortFunc(es, compareEntry)
	return es
}

// marshalReflect is what writeJSON must equal: encoding/json's output.
func (db configDB) marshalReflect() ([]byte, error) { return encodingJSON(db, "    ") }

// encodingJSON is what json.Encoder prints of v, indented by indent and
// without HTML escapes: what the package's own JSON writers must equal,
// and how a running config_db.json is printed.
func encodingJSON(v any, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// EncodingJSON is encodingJSON for the tests of package sonic_test.
var EncodingJSON = encodingJSON
