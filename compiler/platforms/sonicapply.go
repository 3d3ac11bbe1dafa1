package platforms

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
)

// sonicApplyJSON says how each CONFIG_DB table the SONiC renderer writes
// is applied to a running switch and what applying it does to traffic.
//
//go:embed sonic_apply.json
var sonicApplyJSON []byte

// Apply methods of a SONiC change.
const (
	// ApplyPatch: `config apply-patch` (GCU) takes the change.
	ApplyPatch = "apply-patch"
	// ApplyReload: GCU refuses the change; it is written to
	// /etc/sonic/config_db.json and applied by `config reload`.
	ApplyReload = "config-reload"
	// ApplyBreakout: `config interface breakout <parent> <mode>`.
	ApplyBreakout = "breakout"
)

// A SONiCTableApply is how changes to one CONFIG_DB table are applied.
type SONiCTableApply struct {
	Table      string `json:"table"`
	Disruption string `json:"disruption"` // Hitless, PortFlap, TrafficPause or Reboot
	// Apply is the method for a change no Patch rule admits.
	Apply  string `json:"apply"`
	Source string `json:"source"`
	// Patch lists the field changes GCU's field validators admit, by ASIC
	// (GCU's ASIC names: spc4, th5, ...) with the first image version
	// (YYYYMMDD of the release branch) that takes them.
	Patch []PatchRule `json:"patch,omitempty"`
}

// A PatchRule admits changes of some fields by some operations on some
// ASICs through `config apply-patch`.
type PatchRule struct {
	Fields     []string          `json:"fields"`
	Operations []string          `json:"operations"`
	ASICs      map[string]string `json:"asics"`
}

type sonicApply struct {
	GCUSource string            `json:"gcuSource"`
	Tables    []SONiCTableApply `json:"tables"`
}

var loadSONiCApply = sync.OnceValues(func() (map[string]SONiCTableApply, error) {
	dec := json.NewDecoder(bytes.NewReader(sonicApplyJSON))
	dec.DisallowUnknownFields()
	var a sonicApply
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("sonic_apply.json: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("sonic_apply.json: data after the top-level object")
	}
	out := map[string]SONiCTableApply{}
	var errs []error
	for _, t := range a.Tables {
		if _, dup := out[t.Table]; dup || t.Table == "" || strings.TrimSpace(t.Source) == "" {
			errs = append(errs, fmt.Errorf("sonic_apply.json: table %q: a unique name and a source are required", t.Table))
		}
		if !slices.Contains([]string{Hitless, PortFlap, TrafficPause, Reboot}, t.Disruption) {
			errs = append(errs, fmt.Errorf("sonic_apply.json: table %s: disruption %q", t.Table, t.Disruption))
		}
		if !slices.Contains([]string{ApplyPatch, ApplyReload, ApplyBreakout}, t.Apply) {
			errs = append(errs, fmt.Errorf("sonic_apply.json: table %s: apply %q", t.Table, t.Apply))
		}
		out[t.Table] = t
	}
	return out, errors.Join(errs...)
})

// SONiCApply returns how changes to table are applied, and whether the
// catalog knows the table.
func SONiCApply(table string) (SONiCTableApply, bool) {
	m, err := loadSONiCApply()
	if err != nil {
		return SONiCTableApply{}, false
	}
	t, ok := m[table]
	t.Patch = slices.Clone(t.Patch)
	return t, ok
}

// SONiCApplyTables lists the tables the catalog describes, sorted.
func SONiCApplyTables() []string {
	m, _ := loadSONiCApply()
	return slices.Sorted(maps.Keys(m))
}

// Method returns how a change of field by operation ("add", "remove",
// "replace") on a switch whose ASIC GCU calls asic, running an image of
// release branch image (YYYYMMDD), is applied: ApplyPatch when a patch
// rule admits it, else the table's method. GCU compares the image's
// branch with the rule's (field_operation_validators.py
// rdma_config_update_validator_common).
func (t SONiCTableApply) Method(field, operation, asic, image string) string {
	for _, r := range t.Patch {
		min, ok := r.ASICs[asic]
		if ok && min != "" && image >= min && slices.Contains(r.Fields, field) && slices.Contains(r.Operations, operation) {
			return ApplyPatch
		}
	}
	return t.Apply
}
