package openconfig

import (
	"bytes"
	"sync"
	"testing"

	"github.com/openconfig/ygot/ygot"

	"github.com/rocefab/rocefab/compiler/ir/irtest"
)

// TestTemplateMatchesYgot checks that the per-shape template gives, for
// every switch, exactly the bytes ygot emits for that switch's own tree.
func TestTemplateMatchesYgot(t *testing.T) {
	f := irtest.Fabric()
	for _, d := range f.Switches() {
		c, err := plan(d)
		if err != nil {
			t.Fatal(err)
		}
		want, err := emitYgot(c)
		if err != nil {
			t.Fatal(err)
		}
		compact, err := compactJSON(want)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second call comes from the cached template
			got, err := emit(c, false)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: template output differs from ygot's", d.Name)
			}
			got, err = emit(c, true)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, compact) {
				t.Fatalf("%s: compact template output differs from ygot's, compacted", d.Name)
			}
			if bytes.Count(got, []byte("\n")) != 1 || bytes.Contains(got, []byte(": ")) {
				t.Fatalf("%s: compact output has white space", d.Name)
			}
		}
	}
}

// TestShapesValidateWithLeafrefs checks what validate leaves out at run
// time: every switch's tree, leafrefs included, passes ygot's whole
// validation.
func TestShapesValidateWithLeafrefs(t *testing.T) {
	f := irtest.Fabric()
	seen := map[string]bool{}
	for _, d := range f.Switches() {
		c, err := plan(d)
		if err != nil {
			t.Fatal(err)
		}
		if seen[shape(c)] {
			continue
		}
		seen[shape(c)] = true
		tree, err := build(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := ygot.ValidateGoStruct(tree); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
	}
	if len(seen) == 0 {
		t.Fatal("no switch shapes")
	}
}

// TestTemplateConcurrentCallers renders a new shape from many goroutines at
// once: every caller gets the same, complete bytes.
func TestTemplateConcurrentCallers(t *testing.T) {
	d := irtest.Fabric().Switches()[0]
	c, err := plan(d)
	if err != nil {
		t.Fatal(err)
	}
	templates.Delete("false|" + shape(c))
	var wg sync.WaitGroup
	outs := make([][]byte, 8)
	for i := range outs {
		wg.Go(func() { outs[i], _ = emit(c, false) })
	}
	wg.Wait()
	want, err := emitYgot(c)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range outs {
		if !bytes.Equal(o, want) {
			t.Errorf("caller %d got other bytes than ygot emits", i)
		}
	}
}
