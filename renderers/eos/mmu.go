package eos

import (
	"fmt"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
)

// mmu is the buffer architecture family of an EOS switch. It decides which
// buffer statements exist (only the Broadcom XGS "trident" MMU takes
// headroom statements), which queue sub-mode holds the scheduler
// (uc-tx-queue on XGS, which splits unicast and multicast queues; tx-queue
// on the VOQ platforms) and whether dynamic load balancing is documented.
type mmu int

const (
	mmuUnknown mmu = iota
	mmuXGS         // Trident, Tomahawk: 7050X, 7060X, 7260X, 7300X, 7368X, 7388X
	mmuSand        // Jericho, Qumran (VOQ, deep buffer): 7020R, 7280R, 7500R, 7800R
)

// mmuOf classifies d by the ASIC the buffer plan names and, failing that,
// by the model number's series.
func mmuOf(d *ir.Device) mmu {
	if b := d.Switch.Buffers; b != nil {
		a := strings.ToLower(b.ASIC)
		switch {
		case strings.Contains(a, "tomahawk"), strings.Contains(a, "trident"):
			return mmuXGS
		case strings.Contains(a, "jericho"), strings.Contains(a, "qumran"):
			return mmuSand
		}
	}
	m := strings.TrimPrefix(strings.ToUpper(d.Model), "DCS-")
	for _, p := range []string{"7050", "7060", "7260", "7300X", "7368", "7388"} {
		if strings.HasPrefix(m, p) {
			return mmuXGS
		}
	}
	for _, p := range []string{"7020R", "7280", "7500R", "7800"} {
		if strings.HasPrefix(m, p) {
			return mmuSand
		}
	}
	return mmuUnknown
}

// queueKeyword is the sub-mode that configures one egress queue's
// scheduler and ECN profile.
func (m mmu) queueKeyword() string {
	if m == mmuXGS {
		return "uc-tx-queue"
	}
	return "tx-queue"
}

func (m mmu) describe(b *ir.BufferPlan) string {
	var s string
	switch m {
	case mmuXGS:
		s = "Broadcom XGS (Trident/Tomahawk) MMU"
	case mmuSand:
		s = "Broadcom DNX (Jericho) VOQ"
	default:
		s = "unknown MMU family (scheduler under tx-queue)"
	}
	if b != nil {
		s += fmt.Sprintf("; ASIC %s, %d B buffer", b.ASIC, b.TotalBytes)
		if b.CellBytes > 0 {
			s += fmt.Sprintf(" in %d B cells", b.CellBytes)
		}
	}
	return s
}
