package lint

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// nicGaps is the part of RF117 about the servers' NICs: each rocefab host
// setting a NIC model of the fabric cannot take (the catalog's gaps, with
// what is done instead), more lossless classes than the NIC pauses, and
// NICs of one fabric running different congestion control, which share
// every rail (NIC i of each server is on rail i) and so every congested
// queue.
func nicGaps(p *Pass) {
	hosts := p.Fabric.Hosts()
	if len(hosts) == 0 || hosts[0].Host.Profile == nil {
		return
	}
	prof := hosts[0].Host.Profile
	byModel := map[string][]*ir.Device{}
	for _, d := range hosts {
		m := prof.NICModel
		if d.Model != "" && !strings.EqualFold(d.Model, prof.NICModelStated) {
			m = d.Model
		}
		nic, ok := p.lookupNIC(m)
		if !ok {
			continue // RF109 and the renderer name unknown models
		}
		byModel[nic.Model] = append(byModel[nic.Model], d)
	}
	at := p.Pos("hosts.nic.model")
	ccs := map[string][]string{}
	for _, m := range slices.Sorted(maps.Keys(byModel)) {
		nic, _ := platforms.LookupNIC(m)
		ds := byModel[m]
		ccs[nic.CongestionControl] = append(ccs[nic.CongestionControl], m)
		who := fmt.Sprintf("linux (%s, %s)", plural(len(ds), "server", "servers"), nic.Model)
		prof := ds[0].Host.Profile // a mixed fleet's servers of one model share one
		for _, el := range platforms.NICElements {
			note, gap := nic.Gap(el)
			if !gap || !nicElementUsed(prof, el) {
				continue
			}
			p.ReportDevice(at, ds[0].Name, "", "%s: %s is not supported there: %s", who, el, note)
		}
		if n := len(pfcPriorities(prof)); n > nic.MaxLossless {
			p.ReportDevice(at, ds[0].Name, "", "%s: %d lossless priorities, but the NIC pauses at most %d (%s); the others are rendered and the driver refuses them",
				who, n, nic.MaxLossless, nic.Sources["maxLossless"])
		}
	}
	if len(ccs) > 1 {
		var parts []string
		for _, cc := range slices.Sorted(maps.Keys(ccs)) {
			parts = append(parts, fmt.Sprintf("%s (%s)", cc, strings.Join(ccs[cc], ", ")))
		}
		p.Report(diag.Diagnostic{Pos: at, Severity: diag.Warning, Rule: p.Analyzer.ID, Name: p.Analyzer.Name, Device: hosts[0].Name,
			Message: fmt.Sprintf("linux: the servers' NICs run different congestion control on the same rails: %s; flows of one kind yield to the other's at a shared queue",
				strings.Join(parts, "; "))})
	}
}

// rcclMissing are NCCL variables RCCL, the collective library of AMD
// GPUs, does not read: ROCm/rccl src/transport/net_ib.cc (commit 0cbce2a)
// defines IB_TC, IB_SL, IB_GID_INDEX, IB_TIMEOUT, IB_RETRY_CNT,
// IB_ADAPTIVE_ROUTING, IB_QPS_PER_CONNECTION and IB_SPLIT_DATA_ON_QPS as
// NVIDIA NCCL does, but neither of these (NVIDIA/nccl net_ib: the FIFO
// queue's traffic class, out-of-order receive queues).
var rcclMissing = []string{"NCCL_IB_FIFO_TC", "NCCL_IB_OOO_RQ"}

// rcclEnv reports, as part of RF117, a variable an RCCL tenant's
// environment sets that RCCL does not read.
func rcclEnv(p *Pass) {
	for _, t := range p.Fabric.Tenants {
		if t.Library != ir.LibraryRCCL {
			continue
		}
		for _, e := range t.Env {
			if slices.Contains(rcclMissing, e.Name) {
				p.Reportf(t.Pos, "tenant %s runs RCCL (hosts.gpu \"amd\"), which does not read %s (ROCm/rccl src/transport/net_ib.cc has no such parameter): it is written and ignored",
					t.Name, e.Name)
			}
		}
	}
}

// nicElementUsed reports whether the model asks the NICs for a setting
// that a NIC gap (platforms.NICElements) would leave out.
func nicElementUsed(prof *ir.HostProfile, el string) bool {
	switch el {
	case "dcqcn-parameters":
		return len(prof.DCQCN.Params) > 0
	case "ecn-priority":
		return prof.DCQCN.Enabled && len(prof.ECNPriorities) > 0
	case "cnp-dscp":
		return prof.CNPDSCP >= 0
	case "software-dcb":
		return true // the trust, ETS and PFC rocefab writes with dcb always need it
	case "roce-dscp":
		return slices.ContainsFunc(pfcPriorities(prof), func(prio int) bool {
			n := 0
			for _, q := range prof.DSCPToPrio {
				if q == prio {
					n++
				}
			}
			return n > 1
		})
	}
	return true // nic-qos, cable-length and traffic-classes: every host profile has them
}

// pfcPriorities are the priorities the hosts enable PFC on.
func pfcPriorities(prof *ir.HostProfile) []int {
	var out []int
	for prio, on := range prof.PFC {
		if on {
			out = append(out, prio)
		}
	}
	return out
}
