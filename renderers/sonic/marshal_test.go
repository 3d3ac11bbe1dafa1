package sonic

import (
	"bytes"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir/irtest"
)

func TestMarshalMatchesEncodingJSON(t *testing.T) {
	dbs := []configDB{{}, {"A": {}}, {"A": {"k": {}}}, {"T": {"b|1": {"x": "<&>", "a": "q\"uote"}, "a": {"z": "1"}}, "B": {"k": {"f": "v"}}}}
	for _, d := range irtest.Fabric().Switches() {
		if d.Platform != "sonic" {
			continue
		}
		db, _, err := build(d)
		if err != nil {
			t.Fatal(err)
		}
		dbs = append(dbs, db)
	}
	for i, db := range dbs {
		got, _ := db.marshal()
		want, _ := db.marshalReflect()
		if !bytes.Equal(got, want) {
			t.Errorf("case %d: marshal differs from encoding/json:\n%s\n---\n%s", i, got, want)
		}
	}
}
