package oc

import (
	"sync"

	"github.com/openconfig/goyang/pkg/yang"
)

// schemaTree unzips the generated schema once, on first use. ygot's
// generator unzips it in init, which every start of rocefab paid (about
// 60 ms and 8 MB) although only validation and unmarshalling read it; gen.sh
// rewrites the generated code to call SchemaTree instead.
var schemaTree = sync.OnceValue(func() map[string]*yang.Entry {
	t, err := UnzipSchema()
	if err != nil {
		// The schema is a constant of the binary, so this cannot happen in a
		// sound build; a nil tree makes each validation and unmarshal report
		// a missing schema instead of panicking.
		return nil
	}
	return t
})

// SchemaTree returns the schema's yang.Entry nodes, keyed by the name of the
// struct each describes. The map is shared: callers must not modify it.
func SchemaTree() map[string]*yang.Entry { return schemaTree() }
