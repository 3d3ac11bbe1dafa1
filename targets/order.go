package targets

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
)

// Size is how many devices a wave holds: N devices, or Percent of the
// devices the plan changes (rounded up, at least one).
type Size struct {
	N       int
	Percent int
}

// ParseSize reads a wave size: "N" (a count of at least 1) or "P%" (1 to
// 100).
func ParseSize(s string) (Size, error) {
	if p, ok := strings.CutSuffix(s, "%"); ok {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 100 {
			return Size{}, fmt.Errorf("wave %q: a percentage is 1%% to 100%%", s)
		}
		return Size{Percent: n}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return Size{}, fmt.Errorf("wave %q: allowed are a number of devices (1 or more) or a percentage (1%% to 100%%)", s)
	}
	return Size{N: n}, nil
}

// String writes s as ParseSize reads it.
func (s Size) String() string {
	if s.Percent > 0 {
		return strconv.Itoa(s.Percent) + "%"
	}
	return strconv.Itoa(s.N)
}

// of returns the number of devices in a wave when total devices change.
func (s Size) of(total int) int {
	if s.Percent > 0 {
		return max(1, (total*s.Percent+99)/100)
	}
	return max(1, s.N)
}

// tier is where a device stands in the rollout: the edge (servers and
// leaves) first, then spines, then superspines.
func tier(r ir.Role) int {
	switch r {
	case ir.RoleSpine:
		return 1
	case ir.RoleSuperspine:
		return 2
	}
	return 0
}

// roleRank orders roles within a tier: leaves before servers.
func roleRank(r ir.Role) int {
	if r == ir.RoleLeaf {
		return 0
	}
	return 1
}

// Waves cuts the devices a plan changes into the waves apply pushes one
// after the other. The order is the fabric's, from the edge in:
//
//  1. the edge tier: leaves, rail by rail (rail 0's leaves first, then
//     rail 1's, ...; leaves without a rail after), then servers, by name;
//  2. spines, by name;
//  3. superspines, by name.
//
// A wave never spans two tiers, so no spine changes before every leaf and
// server below it has converged and been confirmed: a lossless setting
// (PFC priorities, DSCP maps, ECN thresholds, MTU) reaches both ends of
// every edge link (a server and its rail's leaf) before the links above
// it, which carry the edge's traffic between leaves, depend on it; and a
// failed edge wave stops the rollout before the core is touched. Within
// the edge, leaves go before servers so that a switch port already
// honours a lossless priority when its server starts to send on it.
//
// The first wave is the canary: the first canary devices of that order
// (none when canary is 0). The rest of each tier is cut into waves of
// size devices.
func Waves(p *Plan, canary int, size Size) [][]DevicePlan {
	var change []DevicePlan
	for _, d := range p.Devices {
		if d.Action.Changes() {
			change = append(change, d)
		}
	}
	slices.SortStableFunc(change, func(a, b DevicePlan) int {
		return cmp.Or(
			cmp.Compare(tier(a.Role), tier(b.Role)),
			cmp.Compare(roleRank(a.Role), roleRank(b.Role)),
			cmp.Compare(railKey(a), railKey(b)),
			strings.Compare(a.Device, b.Device))
	})
	n := size.of(len(change))
	var waves [][]DevicePlan
	if canary > 0 && len(change) > 0 {
		k := 0
		for k < len(change) && k < canary && tier(change[k].Role) == tier(change[0].Role) {
			k++
		}
		waves = append(waves, change[:k])
		change = change[k:]
	}
	for len(change) > 0 {
		k := 0
		for k < len(change) && k < n && tier(change[k].Role) == tier(change[0].Role) {
			k++
		}
		waves = append(waves, change[:k])
		change = change[k:]
	}
	return waves
}

// railKey orders leaves by rail, those without one last.
func railKey(d DevicePlan) int {
	if d.Rail == nil {
		return 1 << 30
	}
	return *d.Rail
}
