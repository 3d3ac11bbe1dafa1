package hosttest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
)

// NIC is what one NIC's QoS tools report: the state the stand-ins of
// mlnx_qos and dcb print.
type NIC struct {
	HostDCBX bool
	Trust    string
	DSCP     [64]int // priority of each DSCP; -1: not mapped
	PrioTC   [8]int
	TSA      [8]string
	BW       [8]int
	PFC      [8]bool
	Cable    int // meters, as mlnx_qos --cable_len and the dcb pfc delay take it
	MTU      int
	Rate     [8]int64 // per traffic class, kbit/s; 0 = unlimited
}

// DesiredNIC is a NIC that holds p's settings, with a cable length of
// cable meters (what the renderer makes of p.CableM).
func DesiredNIC(p *ir.HostProfile, cable int) NIC {
	s := NIC{HostDCBX: true, Trust: "dscp", DSCP: p.DSCPToPrio, PrioTC: p.PrioToTC, TSA: p.TSA,
		BW: p.ETS, PFC: p.PFC, Cable: cable, MTU: p.MTU}
	for _, sh := range p.Shaping {
		if sh.Transport == ir.TransportRDMA {
			s.Rate[p.PrioToTC[sh.Class.Priority]] = sh.RateBits / 1000
		}
	}
	return s
}

// DriftedNIC is a NIC fresh from a driver load: firmware DCBX, PCP trust,
// every TC strict, no PFC, the default cable length, MTU 1500.
func DriftedNIC() NIC {
	s := NIC{Trust: "pcp", Cable: 7, MTU: 1500}
	for i := range s.DSCP {
		s.DSCP[i] = -1
	}
	for i := range 8 {
		s.PrioTC[i] = 0
		s.TSA[i] = "strict"
	}
	s.PrioTC[0], s.PrioTC[1] = 1, 0 // mlx5's default prio 0 -> tc 1
	return s
}

// MlnxQos prints s as mlnx_qos -i prints it (mlnx-tools python/mlnx_qos
// pretty_print; docs/hosts.md 1.3).
func (s NIC) MlnxQos() string {
	var b strings.Builder
	if s.HostDCBX {
		b.WriteString("DCBX mode: OS controlled\n")
	} else {
		b.WriteString("DCBX mode: Firmware controlled\n")
	}
	fmt.Fprintf(&b, "Priority trust state: %s\n", s.Trust)
	if s.Trust == "dscp" {
		b.WriteString("dscp2prio mapping:\n")
		var per [8]string
		for d := 63; d >= 0; d-- {
			if p := s.DSCP[d]; p >= 0 {
				per[p] += fmt.Sprintf("%02d,", d)
			}
		}
		for p, list := range per {
			for len(list) > 24 {
				fmt.Fprintf(&b, "\tprio:%d dscp:%s\n", p, list[:24])
				list = list[24:]
			}
			if list != "" {
				fmt.Fprintf(&b, "\tprio:%d dscp:%s\n", p, list)
			}
		}
	}
	b.WriteString("default priority:\n")
	b.WriteString("Receive buffer size (bytes): 130944,130944,0,0,0,0,0,0,max_buffer_size=1027776\n")
	fmt.Fprintf(&b, "Cable len: %d\n", s.Cable)
	b.WriteString("PFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n\tenabled     ")
	for _, on := range s.PFC {
		fmt.Fprintf(&b, "%d   ", b2i(on))
	}
	b.WriteString("\n\tbuffer      ")
	for _, on := range s.PFC {
		fmt.Fprintf(&b, "%d   ", b2i(on))
	}
	b.WriteString("\n")
	var order []int
	byTC := map[int][]int{}
	for p, tc := range s.PrioTC {
		if _, ok := byTC[tc]; !ok {
			order = append(order, tc)
		}
		byTC[tc] = append(byTC[tc], p)
	}
	for _, tc := range order {
		if r := s.Rate[tc]; r > 0 {
			fmt.Fprintf(&b, "tc: %d ratelimit: %.1f Gbps, tsa: ", tc, float64(r)/1e6)
		} else {
			fmt.Fprintf(&b, "tc: %d ratelimit: unlimited, tsa: ", tc)
		}
		if s.TSA[tc] == "ets" {
			fmt.Fprintf(&b, "ets, bw: %d%%\n", s.BW[tc])
		} else {
			b.WriteString(s.TSA[tc] + "\n")
		}
		for _, p := range byTC[tc] {
			fmt.Fprintf(&b, "\t priority:  %d\n", p)
		}
	}
	return b.String()
}

// DCB prints s as `dcb -j OBJECT show dev DEV` prints each object, by
// object (iproute2 dcb-app, dcb-dcbx, dcb-ets, dcb-maxrate, dcb-pfc;
// docs/hosts.md 2.1).
func (s NIC) DCB() map[string]string {
	itoa := strconv.Itoa
	var apps []string
	for d, p := range s.DSCP {
		if p >= 0 {
			apps = append(apps, fmt.Sprintf(`[%d,%d," "]`, d, p))
		}
	}
	var pfc, tsa, bw, ptc, rate []string
	for i := range 8 {
		rate = append(rate, fmt.Sprint(s.Rate[i]*125))
		pfc = append(pfc, fmt.Sprint(s.PFC[i]))
		tsa = append(tsa, `"`+s.TSA[i]+`"`)
		bw = append(bw, itoa(s.BW[i]))
		ptc = append(ptc, itoa(s.PrioTC[i]))
	}
	dcbx := `{"ieee":true}`
	if s.HostDCBX {
		dcbx = `{"host":true,"ieee":true}`
	}
	return map[string]string{
		"dcbx": dcbx,
		"app":  `{"dscp_prio":[` + strings.Join(apps, ",") + `]}`,
		"ets": `{"willing":false,"ets_cap":8,"cbs":false,"tc_bw":[` + strings.Join(bw, ",") + `],"pg_bw":[0,0,0,0,0,0,0,0],"tc_tsa":[` +
			strings.Join(tsa, ",") + `],"prio_tc":[` + strings.Join(ptc, ",") + `],"reco_tc_bw":[0,0,0,0,0,0,0,0],` +
			`"reco_tc_tsa":["strict","strict","strict","strict","strict","strict","strict","strict"],"reco_prio_tc":[0,0,0,0,0,0,0,0]}`,
		"maxrate": `{"tc_maxrate":[` + strings.Join(rate, ",") + `]}`,
		"pfc":     fmt.Sprintf(`{"pfc_cap":8,"macsec_bypass":false,"delay":%d,"prio_pfc":[%s]}`, s.Cable, strings.Join(pfc, ",")),
	}
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}
