package platforms

import (
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

//go:embed asic_families.json
var familiesJSON []byte

// An ASICFamily holds the constants a switch ASIC family sizes PFC headroom
// with. Families differ in formula, not only in cell size: Spectrum's SONiC
// plugin and Arista's Tomahawk SKU files disagree by a factor of almost
// three at 400G (asic_families.json cites both).
type ASICFamily struct {
	Family string   `json:"family"` // "spectrum", "tomahawk", "cloudscale"
	Match  []string `json:"match"`  // a switch belongs to the family whose Match occurs in its ASIC
	// HeadroomModel is HeadroomSpectrum or HeadroomMinFrameCell.
	HeadroomModel      string            `json:"headroomModel"`
	PipelineLatencyKiB float64           `json:"pipelineLatencyKiB"` // ingress pipeline latency (Spectrum model's xon), KiB
	MACPHYDelayKiB     float64           `json:"macPhyDelayKiB"`     // MAC/PHY delay, KiB
	SmallPacketPercent int               `json:"smallPacketPercent"` // share of minimum-size packets assumed, 0..100
	ResponseTimeNs     int64             `json:"responseTimeNs"`     // fixed reaction time of the min-frame-cell model, ns
	XonBytes           int64             `json:"xonBytes"`           // XON hysteresis of the min-frame-cell model, B
	Sources            map[string]string `json:"sources"`            // figure (JSON name) → source

	// BufferConvention is how the family's SAI reads a SONiC lossless
	// BUFFER_PROFILE: "spectrum" (size = xoff + xon is the headroom) or
	// "broadcom-xgs" (size is the reserved minimum, xoff the headroom from
	// the pool's shared headroom); "" for a family no catalog SONiC switch
	// uses (compiler/physics bufferconv.go).
	BufferConvention string `json:"bufferConvention"`
}

// Headroom models an ASIC family may name.
const (
	HeadroomSpectrum     = "sonic-spectrum" // sonic-swss buffer_headroom_mellanox.lua
	HeadroomMinFrameCell = "min-frame-cell" // every frame minimum size, one cell each
)

var familyFigures = []string{"headroomModel", "pipelineLatencyKiB", "macPhyDelayKiB", "smallPacketPercent", "responseTimeNs", "xonBytes", "bufferConvention"}

var loadFamilies = sync.OnceValues(func() ([]ASICFamily, error) { return decodeFamilies(familiesJSON) })

func decodeFamilies(data []byte) ([]ASICFamily, error) {
	var c struct {
		Families []ASICFamily `json:"families"`
	}
	if err := decodeStrict(data, &c); err != nil {
		return nil, fmt.Errorf("asic families: %w", err)
	}
	var errs []error
	seen := map[string]bool{}
	for _, f := range c.Families {
		if f.Family == "" || len(f.Match) == 0 || seen[f.Family] {
			errs = append(errs, fmt.Errorf("asic family %q: a unique name and a match are required", f.Family))
		}
		seen[f.Family] = true
		switch f.HeadroomModel {
		case HeadroomSpectrum:
			if f.PipelineLatencyKiB <= 0 || f.MACPHYDelayKiB <= 0 {
				errs = append(errs, fmt.Errorf("asic family %q: the %s model needs pipelineLatencyKiB and macPhyDelayKiB", f.Family, f.HeadroomModel))
			}
		case HeadroomMinFrameCell:
			if f.ResponseTimeNs <= 0 || f.XonBytes < 0 {
				errs = append(errs, fmt.Errorf("asic family %q: the %s model needs responseTimeNs", f.Family, f.HeadroomModel))
			}
		default:
			errs = append(errs, fmt.Errorf("asic family %q: headroomModel %q, want %s or %s", f.Family, f.HeadroomModel, HeadroomSpectrum, HeadroomMinFrameCell))
		}
		if !slices.Contains([]string{"", "spectrum", "broadcom-xgs"}, f.BufferConvention) {
			errs = append(errs, fmt.Errorf("asic family %q: bufferConvention %q, want spectrum, broadcom-xgs or empty", f.Family, f.BufferConvention))
		}
		if f.SmallPacketPercent < 0 || f.SmallPacketPercent > 100 {
			errs = append(errs, fmt.Errorf("asic family %q: smallPacketPercent %d, want 0..100", f.Family, f.SmallPacketPercent))
		}
		errs = append(errs, checkSources("asic family", f.Family, f.Sources, familyFigures))
	}
	return c.Families, errors.Join(errs...)
}

// ValidateFamilies reports whether the embedded ASIC family table decodes
// strictly, every figure is sourced, and every catalog switch belongs to
// exactly one family.
func ValidateFamilies() error {
	fams, err := loadFamilies()
	if err != nil {
		return err
	}
	var errs []error
	for _, m := range SwitchModels() {
		sw, _ := LookupSwitch(m)
		n := 0
		for _, f := range fams {
			if matches(f, sw.ASIC) {
				n++
			}
		}
		if n != 1 {
			errs = append(errs, fmt.Errorf("switch %q (ASIC %q) matches %d ASIC families, want 1", sw.Model, sw.ASIC, n))
		}
	}
	return errors.Join(errs...)
}

func matches(f ASICFamily, asic string) bool {
	return slices.ContainsFunc(f.Match, func(m string) bool { return strings.Contains(asic, m) })
}

// FamilyOf returns the ASIC family of a catalog switch, found by its ASIC
// name, and whether there is one.
func FamilyOf(sw Switch) (ASICFamily, bool) {
	fams, err := loadFamilies()
	if err != nil {
		return ASICFamily{}, false
	}
	for _, f := range fams {
		if matches(f, sw.ASIC) {
			f.Match = slices.Clone(f.Match)
			f.Sources = maps.Clone(f.Sources)
			return f, true
		}
	}
	return ASICFamily{}, false
}
