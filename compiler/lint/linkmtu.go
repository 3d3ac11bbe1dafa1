package lint

import (
	"fmt"

	"github.com/rocefab/rocefab/compiler/ir"
)

// programmedMTU is the port MTU a switch is configured with (Derived[0]),
// or 0 when the model holds none.
func programmedMTU(d *ir.Device) int64 {
	if d == nil || d.Switch == nil || len(d.Switch.Derived) == 0 || d.Switch.Derived[0].Field != "mtu" {
		return 0
	}
	return d.Switch.Derived[0].Value
}

// linkMTUGaps reports the switch-to-switch links whose two ends program
// different MTUs: a platform that takes less than mtu.switch (EOS at most
// 9214) against one that takes it (NVUE, SONiC 9216). RF112 holds both
// ends at or above the host MTU, so RoCE crosses; a frame between the two
// sizes (a routing protocol's, a tenant's jumbo TCP) is dropped at the
// smaller end, so the difference is a warning with both values and the
// setting that removes it. One finding per pair of platforms and values,
// with its links, reported at the smaller end.
func linkMTUGaps(p *Pass) {
	type end struct {
		platform string
		mtu      int64
	}
	type key struct{ small, large end }
	// The first link of each pair of ends, and how many there are: a
	// finding names one link and counts the others, and a fabric of
	// mixed platforms has a hundred thousand such links.
	type links struct {
		dev, peer *ir.Device
		port      *ir.Port
		n         int
	}
	var keys []key
	by := map[key]*links{}
	for _, d := range p.Fabric.Devices {
		a := programmedMTU(d)
		if a == 0 {
			continue
		}
		for i := range d.Switch.Ports {
			pt := &d.Switch.Ports[i]
			peer := p.Fabric.Device(pt.Peer)
			b := programmedMTU(peer)
			if b == 0 || a >= b {
				continue
			}
			k := key{end{d.Platform, a}, end{peer.Platform, b}}
			if l := by[k]; l != nil {
				l.n++
				continue
			}
			keys = append(keys, k)
			by[k] = &links{d, peer, pt, 1}
		}
	}
	for _, k := range keys {
		l := by[k]
		where := fmt.Sprintf("%s:%s to %s:%s", l.dev.Name, l.port.Name, l.peer.Name, l.port.PeerPort)
		if l.n > 1 {
			where += fmt.Sprintf(" and %d more links", l.n-1)
		}
		p.ReportDevice(p.Pos("mtu.switch"), l.dev.Name, l.port.Name,
			"%s programs MTU %d, %s %d at the other end of %s: frames between the two sizes drop at the smaller end (mtu.switch: %d programs it on both)",
			k.small.platform, k.small.mtu, k.large.platform, k.large.mtu, where, k.small.mtu)
	}
}
