package platforms

import (
	"embed"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// sonicApplyJSON says how each CONFIG_DB table the SONiC renderer writes
// is applied to a running switch and what applying it does to traffic,
// and which sonic-utilities release branches the validators in
// sonic_gcu come from.
//
//go:embed sonic_apply.json
var sonicApplyJSON []byte

// sonicGCUFS holds each release branch's
// generic_config_updater/gcu_field_operation_validators.conf.json as
// sonic-utilities ships it, named <release>.json.
//
//go:embed sonic_gcu
var sonicGCUFS embed.FS

// Apply methods of a SONiC change.
const (
	// ApplyPatch: `config apply-patch` (GCU) takes the change.
	ApplyPatch = "apply-patch"
	// ApplyReload: GCU refuses the change; it is written to
	// /etc/sonic/config_db.json and applied by `config reload`, after a
	// checkpoint of the running CONFIG_DB.
	ApplyReload = "config-reload"
	// ApplyBreakout: `config interface breakout <parent> <mode>`.
	ApplyBreakout = "breakout"
)

// ReloadDisruption is the class of a change applied by `config reload`:
// it stops sonic.target, which holds swss and syncd, and starts it again
// (sonic-utilities@ac66b67e config/main.py reload, _stop_services and
// _restart_services), so the ASIC is programmed anew and every port drops
// its traffic meanwhile.
const ReloadDisruption = Reboot

// A SONiCTableApply is how changes to one CONFIG_DB table are applied.
type SONiCTableApply struct {
	Table string `json:"table"`
	// Disruption is the class of a change GCU or a breakout applies:
	// Hitless, PortFlap, TrafficPause or Reboot.
	Disruption string `json:"disruption"`
	// Apply is ApplyPatch for a table GCU takes changes of (subject to
	// the release's field validators and Sorter), or ApplyBreakout.
	Apply  string `json:"apply"`
	Source string `json:"source"`
	// Sorter, when set, lists the changes GCU's patch sorter is known to
	// take in the table; any other goes by config reload.
	Sorter *SorterLimit `json:"sorter,omitempty"`
}

// A SorterLimit is what the sonic-utilities maintainers found the patch
// sorter takes in one table (sonic-utilities PR #4219's table): the
// changes Admit lists, none when it is empty.
type SorterLimit struct {
	Admit  []SorterRule `json:"admit"`
	Source string       `json:"source"`
}

// A SorterRule admits operations, on the fields it names (any when none)
// at the levels it names ("table", "row", "field"; any when none).
type SorterRule struct {
	Operations []string `json:"operations"`
	Fields     []string `json:"fields,omitempty"`
	Levels     []string `json:"levels,omitempty"`
}

// A SONiCRelease is one sonic-utilities release branch whose GCU rules
// rocefab plans with.
type SONiCRelease struct {
	Release string `json:"release"` // "202411"
	Commit  string `json:"commit"`  // the branch head read
	// Image is the lowest 8-digit build version of the branch's images
	// ("20241100"), which GCU compares with a rule's first version.
	Image string `json:"image"`
	// MellanoxASICs are the helper_data mellanox_asics entries the
	// branch's get_asic_name checks, in its order.
	MellanoxASICs []string `json:"mellanoxASICs"`
	// IllegalRemove are the paths gu_common.py validate_field_operation
	// never lets a patch remove.
	IllegalRemove []string `json:"illegalRemove"`
	Source        string   `json:"source"`
}

type sonicApply struct {
	GCUSource      string            `json:"gcuSource"`
	DefaultRelease string            `json:"defaultRelease"`
	Releases       []SONiCRelease    `json:"releases"`
	Tables         []SONiCTableApply `json:"tables"`
}

type sonicApplyData struct {
	tables   map[string]SONiCTableApply
	releases map[string]SONiCRelease
	gcu      map[string]*gcuConf
	def      string
}

var loadSONiCApply = sync.OnceValues(func() (*sonicApplyData, error) {
	var a sonicApply
	if err := decodeStrict(sonicApplyJSON, &a); err != nil {
		return nil, fmt.Errorf("sonic_apply.json: %w", err)
	}
	out := &sonicApplyData{tables: map[string]SONiCTableApply{}, releases: map[string]SONiCRelease{}, gcu: map[string]*gcuConf{}, def: a.DefaultRelease}
	var errs []error
	for _, t := range a.Tables {
		if _, dup := out.tables[t.Table]; dup || t.Table == "" || strings.TrimSpace(t.Source) == "" {
			errs = append(errs, fmt.Errorf("sonic_apply.json: table %q: a unique name and a source are required", t.Table))
		}
		if !slices.Contains([]string{Hitless, PortFlap, TrafficPause, Reboot}, t.Disruption) {
			errs = append(errs, fmt.Errorf("sonic_apply.json: table %s: disruption %q", t.Table, t.Disruption))
		}
		if !slices.Contains([]string{ApplyPatch, ApplyBreakout}, t.Apply) {
			errs = append(errs, fmt.Errorf("sonic_apply.json: table %s: apply %q, allowed: %s, %s", t.Table, t.Apply, ApplyPatch, ApplyBreakout))
		}
		if t.Sorter != nil && strings.TrimSpace(t.Sorter.Source) == "" {
			errs = append(errs, fmt.Errorf("sonic_apply.json: table %s: a sorter limit needs a source", t.Table))
		}
		out.tables[t.Table] = t
	}
	for _, r := range a.Releases {
		if _, dup := out.releases[r.Release]; dup || len(r.Release) != 6 || len(r.Commit) != 40 || len(r.Image) != 8 || !strings.HasPrefix(r.Image, r.Release) || strings.TrimSpace(r.Source) == "" {
			errs = append(errs, fmt.Errorf("sonic_apply.json: release %q: a unique YYYYMM name, a 40-digit commit, an image YYYYMMDD of the release and a source are required", r.Release))
			continue
		}
		raw, err := sonicGCUFS.ReadFile("sonic_gcu/" + r.Release + ".json")
		if err != nil {
			errs = append(errs, fmt.Errorf("sonic_apply.json: release %s: %w", r.Release, err))
			continue
		}
		c, err := decodeGCUConf(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("sonic_gcu/%s.json: %w", r.Release, err))
			continue
		}
		out.releases[r.Release] = r
		out.gcu[r.Release] = c
	}
	if _, ok := out.releases[a.DefaultRelease]; !ok {
		errs = append(errs, fmt.Errorf("sonic_apply.json: defaultRelease %q is not a listed release", a.DefaultRelease))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
})

// SONiCApply returns how changes to table are applied, and whether the
// catalog knows the table.
func SONiCApply(table string) (SONiCTableApply, bool) {
	d, err := loadSONiCApply()
	if err != nil {
		return SONiCTableApply{}, false
	}
	t, ok := d.tables[table]
	return t, ok
}

// SONiCReleases lists the SONiC releases whose GCU rules the catalog
// holds, oldest first.
func SONiCReleases() []SONiCRelease {
	d, err := loadSONiCApply()
	if err != nil {
		return nil
	}
	return slices.SortedFunc(maps.Values(d.releases), func(a, b SONiCRelease) int { return strings.Compare(a.Release, b.Release) })
}

// DefaultSONiCRelease is the release a SONiC tier that names none is
// planned for.
func DefaultSONiCRelease() string {
	d, err := loadSONiCApply()
	if err != nil {
		return ""
	}
	return d.def
}

// A SONiCApplier says how one SONiC switch, of one HWSKU running one
// release, takes each change: what `config apply-patch` admits there, and
// what else goes by `config reload` or `config interface breakout`.
type SONiCApplier struct {
	release SONiCRelease
	conf    *gcuConf
	tables  map[string]SONiCTableApply
	// asic is GCU's name of the switch's ASIC ("th5", "spc4"), or
	// "unknown" when get_asic_name finds the HWSKU in no list.
	asic string
}

// NewSONiCApplier returns the rules of release ("" for the default) for
// a switch of the catalog model, whose HWSKU and ASIC vendor the catalog
// knows. The error, for a release the catalog lacks, names those it has.
func NewSONiCApplier(release, model string) (*SONiCApplier, error) {
	d, err := loadSONiCApply()
	if err != nil {
		return nil, err
	}
	if release == "" {
		release = d.def
	}
	r, ok := d.releases[release]
	if !ok {
		return nil, fmt.Errorf("SONiC release %q: allowed: %s", release, strings.Join(slices.Sorted(maps.Keys(d.releases)), ", "))
	}
	// A model without a port map (lint reports it) or outside the
	// catalog has no HWSKU GCU could find: its ASIC is "unknown".
	sku, _ := LookupSONiCSKU(model)
	sw, _ := LookupSwitch(model)
	return &SONiCApplier{release: r, conf: d.gcu[release], tables: d.tables, asic: d.gcu[release].asicName(sonicASICType(sw), sku.HWSKU, r.MellanoxASICs)}, nil
}

// sonicASICType is the asic_type /etc/sonic/sonic_version.yml gives the
// switch's image, from its ASIC vendor: "mellanox" for NVIDIA Spectrum,
// "broadcom" for Broadcom (sonic-buildimage builds one image per
// platform/<vendor> directory, platform/mellanox and platform/broadcom).
func sonicASICType(sw Switch) string {
	switch {
	case strings.Contains(sw.ASIC, "Spectrum"):
		return "mellanox"
	case strings.Contains(sw.ASIC, "Broadcom"):
		return "broadcom"
	}
	return strings.ToLower(sw.Vendor)
}

// Release is the release the applier's rules are of.
func (a *SONiCApplier) Release() SONiCRelease { return a.release }

// ASIC is GCU's name of the switch's ASIC, "unknown" when its HWSKU is
// in none of the release's lists (then every change a validator gates is
// refused).
func (a *SONiCApplier) ASIC() string { return a.asic }

// Disruption is the class of a change to table applied by apply-patch or
// a breakout; Reboot for a table the catalog does not know.
func (a *SONiCApplier) Disruption(table string) string {
	t, ok := a.tables[table]
	if !ok {
		return Reboot
	}
	return t.Disruption
}

// Method returns how the RFC 6902 operation op ("add", "replace",
// "remove") at path (the CONFIG_DB pointer's tokens: table, row key,
// field) is applied; members are the member names of an object value (a
// whole row or table added), in order. It is ApplyBreakout for
// BREAKOUT_CFG; ApplyPatch when gu_common.py's illegal removals, every
// field validator the release's file names for the table and the table's
// sorter limit admit it; ApplyReload otherwise, and for a table the
// catalog does not know.
func (a *SONiCApplier) Method(op string, path, members []string) string {
	if len(path) == 0 {
		return ApplyReload
	}
	t, ok := a.tables[path[0]]
	if !ok {
		return ApplyReload
	}
	if t.Apply == ApplyBreakout {
		return ApplyBreakout
	}
	if op == "remove" && slices.Contains(a.release.IllegalRemove, "/"+strings.Join(path, "/")) {
		return ApplyReload
	}
	if !a.conf.admits(a.asic, a.release.Image, op, path, members) {
		return ApplyReload
	}
	if t.Sorter != nil && !t.Sorter.admits(op, path) {
		return ApplyReload
	}
	return ApplyPatch
}

func (s *SorterLimit) admits(op string, path []string) bool {
	level := [...]string{"table", "row", "field"}[min(len(path), 3)-1]
	for _, r := range s.Admit {
		if !slices.Contains(r.Operations, op) || len(r.Levels) > 0 && !slices.Contains(r.Levels, level) {
			continue
		}
		if len(r.Fields) > 0 && (level != "field" || !slices.Contains(r.Fields, path[len(path)-1])) {
			continue
		}
		return true
	}
	return false
}
