package compiler

import (
	"testing"

	"github.com/rocefab/rocefab/compiler/topology"
	"github.com/rocefab/rocefab/schema"
)

// An explicit device list may hold as many links as an expansion may make:
// build writes an expansion as inventory.json, and it must read back.
func TestListedLinksLimitIsTheTopologys(t *testing.T) {
	if schema.MaxListedLinks != topology.MaxLinks {
		t.Errorf("schema.MaxListedLinks = %d, topology.MaxLinks = %d", schema.MaxListedLinks, topology.MaxLinks)
	}
}
