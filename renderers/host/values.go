package host

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// settings are a server's settings, derived once from the model: host.conf
// and host.sh print them (writeSettings) and the desired state is what the
// runtime makes of them, as its --check --json reports them
// (desiredElements). Neither reads the model for a value of its own, so
// the two cannot disagree.
type settings struct {
	tool string
	// netdevs are the RDMA netdevs, NIC i on rail i; hcas their RDMA
	// devices, "" for one found at run time.
	netdevs, hcas []string
	mtu           int
	trust         string
	dscp2prio     [64]int
	prioTC        [8]int
	tsa           [8]string
	tcbw          [8]int
	// pfc and ecn are enables per priority, index = priority.
	pfc, ecn []int
	// cableLen is in whole metres, 0 for none.
	cableLen         int
	cnpDSCP, cnpPrio int
	// dcqcn are the explicit DCQCN parameters, by name.
	dcqcn []ir.Param
	cc    []ir.CCKnob
	tos   int
	// maxrate is each netdev's rate limit per traffic class, kbit/s.
	maxrate [][8]int64
	shaping []shapedIface
}

// settingsOf derives d's settings from its host profile.
func settingsOf(d *ir.Device) *settings {
	p := d.Host.Profile
	s := &settings{
		tool: p.Tool, mtu: p.MTU, trust: p.Trust, dscp2prio: p.DSCPToPrio,
		prioTC: p.PrioToTC, tsa: p.TSA, tcbw: p.ETS,
		pfc: pfcVector(p), ecn: ecnVector(p), cableLen: cableLen(p.CableM),
		cnpDSCP: p.CNPDSCP, cnpPrio: p.CNPPriority,
		dcqcn: slices.Clone(p.DCQCN.Params), cc: slices.Clone(p.CCKnobs), tos: p.RoCETOS,
		maxrate: maxrates(d), shaping: shapingPlan(p),
	}
	for _, n := range d.Host.NICs {
		s.netdevs = append(s.netdevs, n.Port)
		s.hcas = append(s.hcas, n.HCA)
	}
	slices.SortFunc(s.dcqcn, func(a, b ir.Param) int { return strings.Compare(a.Name, b.Name) })
	return s
}

// pfcVector is PFC enable per priority, index = priority: the PFC array.
func pfcVector(p *ir.HostProfile) []int {
	out := make([]int, len(p.PFC))
	for prio, on := range p.PFC {
		out[prio] = b2i(on)
	}
	return out
}

// ecnVector is ECN reaction and notification enable per priority, index =
// priority: on for the ECN priorities while DCQCN is on. The ECN_ENABLE
// array.
func ecnVector(p *ir.HostProfile) []int {
	out := make([]int, 8)
	for prio := range 8 {
		out[prio] = b2i(p.DCQCN.Enabled && slices.Contains(p.ECNPriorities, prio))
	}
	return out
}

// maxrates is the rate limit of each traffic class of each RDMA netdev, in
// d.Host.NICs order, kbit/s (0 = unlimited): the TC_MAXRATE records.
func maxrates(d *ir.Device) [][8]int64 {
	p := d.Host.Profile
	rates := map[string]*[8]int64{}
	for _, s := range p.Shaping {
		if s.Transport != ir.TransportRDMA {
			continue
		}
		tc := p.PrioToTC[s.Class.Priority]
		for _, n := range s.NICs {
			if rates[n] == nil {
				rates[n] = &[8]int64{}
			}
			rates[n][tc] = s.RateBits / 1000
		}
	}
	out := make([][8]int64, len(d.Host.NICs))
	for i, n := range d.Host.NICs {
		if r := rates[n.Port]; r != nil {
			out[i] = *r
		}
	}
	return out
}

// tcRateText is a rate in bytes/s as tc prints it and the runtime compares
// it (tc_rate_text, after iproute2 print_color_rate): bits/s in the largest
// unit that keeps it exact, or that leaves less than 1000000 of it.
func tcRateText(bytesPerSec int64) string {
	r := bytesPerSec * 8
	units := []string{"", "K", "M", "G", "T"}
	i := 0
	for i < 4 {
		if r < 1000 || (r%1000 != 0 && r < 1000000) {
			break
		}
		r /= 1000
		i++
	}
	return strconv.FormatInt(r, 10) + units[i] + "bit"
}

// u32Filter is the filter that sends dscp to classID as the runtime's
// u32_filter prints it: "protocol pref flowid value/mask@offset", the DSCP
// in the top six bits of the IPv4 ToS byte or the IPv6 traffic class.
func u32Filter(proto string, dscp int, cid string) string {
	tos := dscp << 2
	if proto == "ip" {
		return fmt.Sprintf("ip 1 %s %08x/%08x@0", cid, tos<<16, 0xfc<<16)
	}
	return fmt.Sprintf("ipv6 2 %s %08x/%08x@0", cid, tos<<20, 0xfc<<20)
}

// dscpRuns encodes a DSCP table as the runtime's runs does: "D:V" pairs in
// DSCP order, consecutive DSCPs of one value merged into "FIRST-LAST:V".
func dscpRuns(v []string) string {
	var out []string
	for first := 0; first < len(v); {
		last := first
		for last+1 < len(v) && v[last+1] == v[first] && v[first] != "" {
			last++
		}
		if first == last {
			out = append(out, fmt.Sprintf("%d:%s", first, v[first]))
		} else {
			out = append(out, fmt.Sprintf("%d-%d:%s", first, last, v[first]))
		}
		first = last + 1
	}
	return strings.Join(out, " ")
}

// etsValue is the prio->tc map and each traffic class's TSA and share as
// the runtime compares them: mlnx_qos prints only the traffic classes
// that have a priority, so with it only those count.
func (s *settings) etsValue() string {
	used := map[int]bool{}
	for prio := range 8 {
		used[s.prioTC[prio]] = true
	}
	parts := []string{"prio_tc=" + renderers.JoinInts(s.prioTC[:], ",")}
	for tc := range 8 {
		if s.tool == "dcb" || used[tc] {
			parts = append(parts, fmt.Sprintf("tc%d=%s/%d", tc, s.tsa[tc], s.tcbw[tc]))
		}
	}
	return strings.Join(parts, " ")
}
