package openconfig

import (
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
)

// BenchmarkDesired measures what plan spends on a switch's desired state:
// "device" is one switch of a shape seen before (what nearly every switch
// of a large fabric costs), "shape" what the first switch of a new shape
// costs, nothing of its shape made before.
func BenchmarkDesired(b *testing.B) {
	d := irtest.EOSLeaf(64)
	var p Platform
	b.Run("device", func(b *testing.B) {
		b.ReportAllocs()
		if _, err := p.Desired(d); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := p.Desired(d); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("shape", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			// Nothing of this shape made yet: not its artifact's
			// template either, as in a plan that renders no artifact.
			templates.Clear()
			desiredTemplates.Clear()
			if _, err := p.Desired(d); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fabric", func(b *testing.B) {
		b.ReportAllocs()
		var sw []*ir.Device
		sw = append(sw, irtest.Fabric().Switches()...)
		for b.Loop() {
			for _, d := range sw {
				if _, err := p.Desired(d); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
