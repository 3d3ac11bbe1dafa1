package eos_test

import (
	"fmt"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers/eos"
)

// leaf64 is a 64-port Tomahawk leaf with 2x400G breakouts (ports
// EthernetN/1 and EthernetN/5), the shape a 1,000-leaf build repeats: the
// per-port block dominates.
func leaf64() *ir.Device {
	d := tomahawk()
	base := d.Switch.Ports[0]
	d.Switch.Ports = nil
	for i := range 64 {
		p := base
		p.Name, p.SpeedGbps = fmt.Sprintf("Ethernet%d/%d", i/2+1, 1+4*(i%2)), 400
		d.Switch.Ports = append(d.Switch.Ports, p)
	}
	return d
}

// BenchmarkRender renders leaf64's eos.cfg.
func BenchmarkRender(b *testing.B) {
	d := leaf64()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (eos.Renderer{}).Render(d); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderDesired is what plan asks of each EOS switch: its
// artifact and its desired state, from one model.
func BenchmarkRenderDesired(b *testing.B) {
	d := leaf64()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := (eos.Renderer{}).RenderDesired(d); err != nil {
			b.Fatal(err)
		}
	}
}
