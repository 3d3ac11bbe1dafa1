package lint

import (
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
)

// hostProfile returns the NIC profile every server shares, and a server
// with it, or nil.
func hostProfile(f *ir.Fabric) (*ir.HostProfile, *ir.Device) {
	for _, d := range f.Devices {
		if d.Host != nil && d.Host.Profile != nil {
			return d.Host.Profile, d
		}
	}
	return nil, nil
}

// shapingChecks is RF114: a shaping rate at or above the speed of the
// link the traffic leaves by, a lossless class shaped, and a shape whose
// traffic leaves by an interface the model does not have. Kernel (tcp)
// traffic is shaped by tc on one interface, which must be the frontend the
// intent declares (hosts.frontend) or an RDMA netdev; RDMA traffic
// bypasses tc (hosts.md §0.7) and is limited in the NICs per traffic
// class, so an rdma shape names RDMA netdevs.
func shapingChecks(p *Pass) {
	prof, d := hostProfile(p.Fabric)
	if prof == nil {
		return
	}
	speed := p.Fabric.Topology.NICSpeedGbps
	nicSpeed := map[string]int{}
	var netdevs []string
	for _, n := range d.Host.NICs {
		netdevs = append(netdevs, n.Port)
		nicSpeed[n.Port] = cmpOr(n.SpeedGbps, speed) // an explicit topology gives each link's speed
	}
	known := strings.Join(netdevs, ", ")
	if prof.Frontend != "" {
		known = prof.Frontend + " (hosts.frontend), " + known
	}
	rateAbove := func(s ir.Shape, ifname string, gbps int) {
		if gbps > 0 && s.RateBits >= int64(gbps)*1_000_000_000 {
			p.Reportf(s.Pos, "hosts.shape.%s: rate %s is at or above the %s link speed of %s", s.Class.Name,
				strconv.FormatFloat(float64(s.RateBits)/1e9, 'f', -1, 64)+"Gbit", speedStr(gbps), ifname)
		}
	}
	unmarked := map[string]string{} // interface -> the class that takes unmarked traffic
	limited := map[string]string{}  // RDMA netdev and traffic class -> class
	for _, s := range prof.Shaping {
		if s.Transport == ir.TransportRDMA {
			// mlnx_qos -r takes whole Gbit/s, the kernel's DCB maxrate kbit/s
			// (hosts.md 1.2, 2).
			unit, what := int64(1000), "whole kbit/s"
			if prof.Tool == "mlnx_qos" {
				unit, what = 1_000_000_000, "whole Gbit/s (mlnx_qos -r)"
			}
			if s.RateBits%unit != 0 {
				p.Reportf(s.Pos, "hosts.shape.%s: rate %s: the NIC limits RDMA traffic in %s", s.Class.Name,
					strconv.FormatFloat(float64(s.RateBits)/1e9, 'f', -1, 64)+"Gbit", what)
			}
			tc := prof.PrioToTC[max(0, min(7, s.Class.Priority))]
			for _, n := range s.NICs {
				k := n + "/" + strconv.Itoa(tc)
				if other, ok := limited[k]; ok {
					p.Reportf(s.Pos, "hosts.shape.%s: classes %s and %s share traffic class %d: the NIC limits a traffic class, not a class", s.Class.Name, other, s.Class.Name, tc)
					break
				}
				limited[k] = s.Class.Name
			}
		} else if s.Unmarked {
			if other, ok := unmarked[s.Interface]; ok {
				p.Reportf(s.Pos, "hosts.shape.%s: classes %s and %s both take unmarked traffic on %s: set unmarked: false on one", s.Class.Name, other, s.Class.Name, s.Interface)
			}
			unmarked[s.Interface] = s.Class.Name
		}
		if s.Class.Lossless {
			p.Reportf(s.Pos, "hosts.shape.%s: class %s is lossless: do not shape it", s.Class.Name, s.Class.Name)
		}
		switch s.Transport {
		case ir.TransportRDMA:
			for _, n := range s.NICs {
				if !slices.Contains(netdevs, n) {
					p.Reportf(s.Pos, "hosts.shape.%s: %s is not an RDMA netdev of the servers (%s): an rdma limit is set in the NICs that carry the class",
						s.Class.Name, n, strings.Join(netdevs, ", "))
					continue
				}
				rateAbove(s, n, nicSpeed[n])
			}
		default:
			switch {
			case s.Interface == prof.Frontend && prof.Frontend != "":
				rateAbove(s, s.Interface, prof.FrontendGbps)
			case slices.Contains(netdevs, s.Interface):
				rateAbove(s, s.Interface, nicSpeed[s.Interface])
			default:
				p.Reportf(s.Pos, "hosts.shape.%s: interface %s is in no link of the model, so nothing says the class's traffic leaves by it: declare it as hosts.frontend.interface, or shape a netdev the model has (%s)",
					s.Class.Name, s.Interface, known)
			}
		}
	}
}

// cmpOr returns a when it is not 0, else b.
func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// lossyTenantNCCL is part of RF113: a tenant on a lossy class is kept off
// RDMA (NCCL_IB_DISABLE=1 in its environment), so an NCCL_IB_* setting of
// its own contradicts its class.
func lossyTenantNCCL(p *Pass) {
	for _, t := range p.Fabric.Tenants {
		if !t.NoRDMA {
			continue
		}
		for _, e := range t.StatedEnv {
			if k := e.Name; strings.HasPrefix(k, "NCCL_IB_") && !(k == "NCCL_IB_DISABLE" && e.Value == "1") {
				p.Reportf(p.At("tenants", t.Name, "nccl", "env", k),
					"tenant %s: class %s is lossy, so its NCCL is kept off RDMA (NCCL_IB_DISABLE=1), but it sets %s: give the tenant a lossless class, or drop the setting",
					t.Name, t.Class.Name, k)
			}
		}
	}
}

// rdmaCMStorage is part of RF115: rdma_cm QPs (NVMe-oF, iSER) are marked
// with one class's DSCP (cma_roce_tos, hosts.md §1.4). When storage leaves
// the servers over RDMA, rdma_cm carries it, so a lossless rdma_cm class
// puts that storage on a lossless priority.
func rdmaCMStorage(p *Pass) {
	prof, _ := hostProfile(p.Fabric)
	if prof == nil || prof.RDMACMClass == nil {
		return
	}
	var storage []string
	for _, s := range prof.Shaping {
		if s.Transport == ir.TransportRDMA {
			storage = append(storage, s.Class.Name)
		}
	}
	cm := prof.RDMACMClass
	if len(storage) == 0 || !cm.Lossless {
		return
	}
	at := p.Pos("hosts.rdmaCM.class")
	if !prof.RDMACMStated {
		at = p.Pos("hosts")
	}
	p.Reportf(at, "hosts.rdmaCM.class: rdma_cm QPs (NVMe-oF, iSER) carry the storage shaped over rdma (%s), but cma_roce_tos marks them with lossless class %s (ToS %d): give rdma_cm the storage class",
		strings.Join(storage, ", "), cm.Name, prof.RoCETOS)
}
