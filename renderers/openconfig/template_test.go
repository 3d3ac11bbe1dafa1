package openconfig

import (
	"bytes"
	"sync"
	"testing"

	"github.com/openconfig/ygot/ygot"

	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
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

// FuzzPlanChecksWhatTheSchemaChecks: whatever plan accepts, the schema
// compiled into the generated code accepts too (types, ranges, patterns,
// leafrefs), so that a build need not load the schema to validate each
// shape: every value a tree holds was checked on its way in.
func FuzzPlanChecksWhatTheSchemaChecks(f *testing.F) {
	f.Add(9216, 400, int64(150000), int64(1500000), 20, 26, 50, int64(178176), 3, 1, "roce", "Ethernet1/1", "leaf-00")
	f.Add(-1, 0, int64(-1), int64(0), -5, 64, -1, int64(-1), 9, 8, "", "", "")
	f.Add(65535, 800, int64(0), int64(0), 0, 0, 0, int64(0), 0, 0, "a b", "x/y:z", "é")
	f.Fuzz(func(t *testing.T, mtu, speed int, emin, emax int64, prob, dscp, weight int, headroom int64, tc, queue int, class, port, peer string) {
		d := irtest.Fabric().Device("leaf-eos")
		s := d.Switch
		s.MTU = mtu
		s.Ports[0].SpeedGbps = speed
		s.Ports[0].Name = port
		s.Ports[1].Peer = peer
		q := &s.QoS.Queues[2]
		q.ECN.MinBytes, q.ECN.MaxBytes, q.ECN.Probability = emin, emax, prob
		s.QoS.Queues[1].Weight = weight
		s.QoS.Queues[0].ID = queue
		s.QoS.Queues[1].Class.Name = class
		s.Ports[0].Headroom.Size = headroom
		if dscp >= 0 && dscp < 64 {
			s.QoS.DSCPToTC[dscp] = tc
		}
		if renderers.CheckDevice(d) != nil {
			return
		}
		c, err := plan(d)
		if err != nil {
			return
		}
		tree, err := build(c)
		if err != nil {
			t.Fatalf("plan accepted, build refused: %v", err)
		}
		if err := ygot.ValidateGoStruct(tree); err != nil {
			t.Fatalf("plan accepted a tree the schema refuses: %v", err)
		}
	})
}
