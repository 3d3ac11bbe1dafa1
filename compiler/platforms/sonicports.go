package platforms

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The port maps of the catalog's SONiC SKUs, one file per SKU, generated
// from the vendor's own files by compiler/platforms/internal/sonicsku.
//
//go:embed sonic
var sonicFS embed.FS

// A SONiCSKU is the port map of one SONiC hardware SKU: the ports SONiC
// creates on the switch, with the lanes, aliases and breakout modes the
// vendor's files give them. SONiC builds its PORT table from platform.json
// (the platform's parent ports and their breakout modes) and hwsku.json
// (each parent's default breakout mode) whenever the SKU ships both
// (sonic-py-common device_info.get_path_to_port_config_file), so those two
// files are the data; port_config.ini is kept beside them as the vendor's
// own rendering of the default modes, which a test compares against.
type SONiCSKU struct {
	Model    string           `json:"model"`    // catalog model, e.g. "DS5000"
	HWSKU    string           `json:"hwsku"`    // SONiC HWSKU directory name, e.g. "DS5000"
	Platform string           `json:"platform"` // SONiC platform string, e.g. "x86_64-cls_ds5000-r0"
	Source   SKUSource        `json:"source"`
	Ports    []SONiCParent    `json:"ports"`      // parent ports in platform.json order, those hwsku.json lists
	Default  []SONiCPortEntry `json:"portConfig"` // port_config.ini rows as the vendor wrote them
}

// SKUSource says where a SKU's port map was read.
type SKUSource struct {
	Repo   string   `json:"repo"`          // "sonic-net/sonic-buildimage"
	Commit string   `json:"commit"`        // full commit hash the files were read at
	Ref    string   `json:"ref,omitempty"` // branch or pull request holding the commit when it is not on master
	Files  []string `json:"files"`         // repository paths read
}

// A SONiCParent is one parent port of platform.json: a front-panel cage
// with its SerDes lanes and the breakout modes SONiC accepts on it.
type SONiCParent struct {
	Name        string         `json:"name"`              // e.g. "Ethernet0"
	Lanes       []int          `json:"lanes"`             // the cage's lanes in platform.json order
	Index       []int          `json:"index"`             // front-panel index per lane
	DefaultMode string         `json:"defaultMode"`       // hwsku.json default_brkout_mode
	FEC         string         `json:"fec,omitempty"`     // hwsku.json fec, applied to every child port
	Autoneg     string         `json:"autoneg,omitempty"` // hwsku.json autoneg, applied to every child port
	Modes       []BreakoutMode `json:"breakoutModes"`     // platform.json breakout_modes, in file order
}

// A BreakoutMode is one entry of a parent's breakout_modes: the mode string
// (e.g. "2x400G", "1x800G[400G]") and the aliases of the ports it creates.
type BreakoutMode struct {
	Mode    string   `json:"mode"`
	Aliases []string `json:"aliases"`
}

// A SONiCPortEntry is one row of the PORT table SONiC creates for a SKU:
// the port_config.ini columns, and for ports derived from a breakout mode
// the parent and mode they come from.
type SONiCPortEntry struct {
	Name      string `json:"name"`
	Lanes     []int  `json:"lanes"`
	Alias     string `json:"alias"`
	Index     int    `json:"index"`
	SpeedMbps int    `json:"speed,omitempty"` // 0 where port_config.ini has no speed column
	FEC       string `json:"fec,omitempty"`
	Subport   int    `json:"-"` // 0 for an unsplit port, else 1.. within the parent
	Parent    string `json:"-"`
	Mode      string `json:"-"`
}

var sonicSKUs = sync.OnceValues(func() (map[string]SONiCSKU, error) {
	return decodeSKUs(sonicFS)
})

// decodeSKUs reads every SKU file, strictly, and checks that each belongs to
// a catalog model that runs SONiC and that each parent's default mode
// derives ports.
func decodeSKUs(fsys fs.FS) (map[string]SONiCSKU, error) {
	files, err := fs.Glob(fsys, "sonic/*.json")
	if err != nil {
		return nil, err
	}
	out := map[string]SONiCSKU{}
	var errs []error
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sku, err := DecodeSONiCSKU(data)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f, err))
			continue
		}
		key := strings.ToLower(sku.Model)
		if _, dup := out[key]; dup {
			errs = append(errs, fmt.Errorf("%s: a second port map for model %s", f, sku.Model))
		}
		out[key] = sku
	}
	return out, errors.Join(errs...)
}

// DecodeSONiCSKU parses one SKU port map strictly and checks it: every
// parent's default mode must be one of its breakout modes and derive ports.
func DecodeSONiCSKU(data []byte) (SONiCSKU, error) {
	var s SONiCSKU
	if err := decodeStrict(data, &s); err != nil {
		return s, err
	}
	var errs []error
	if s.Model == "" || s.HWSKU == "" || s.Platform == "" {
		errs = append(errs, errors.New("model, hwsku and platform are required"))
	}
	if s.Source.Repo == "" || len(s.Source.Commit) != 40 || len(s.Source.Files) == 0 {
		errs = append(errs, fmt.Errorf("%s: source needs repo, a 40-digit commit and the files read", s.Model))
	}
	if len(s.Ports) == 0 {
		errs = append(errs, fmt.Errorf("%s: no ports", s.Model))
	}
	for _, p := range s.Ports {
		if _, err := p.Breakout(p.DefaultMode); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.Model, err))
		}
	}
	return s, errors.Join(errs...)
}

// LookupSONiCSKU returns the port map of the SONiC SKU the catalog uses for
// model (a model name or alias, as [LookupSwitch] takes it). A model
// without one has no known port layout: its ports get no lanes, and lint
// reports the gap.
func LookupSONiCSKU(model string) (SONiCSKU, bool) {
	skus, err := sonicSKUs()
	if err != nil {
		return SONiCSKU{}, false
	}
	name := model
	if sw, ok := LookupSwitch(model); ok {
		name = sw.Model
	}
	s, ok := skus[strings.ToLower(strings.TrimSpace(name))]
	return s, ok
}

// SONiCSKUModels returns the catalog models that have a SONiC port map,
// sorted.
func SONiCSKUModels() []string {
	skus, _ := sonicSKUs()
	var out []string
	for _, s := range skus {
		out = append(out, s.Model)
	}
	slices.Sort(out)
	return out
}

// ValidateSONiCSKUs reports whether every embedded port map decodes and
// names a catalog model that runs SONiC.
func ValidateSONiCSKUs() error {
	skus, err := sonicSKUs()
	if err != nil {
		return err
	}
	var errs []error
	for _, s := range skus {
		sw, ok := LookupSwitch(s.Model)
		if !ok || sw.Model != s.Model || !sw.RunsPlatform("sonic") {
			errs = append(errs, fmt.Errorf("port map %s: %q is not a catalog model that runs SONiC", s.HWSKU, s.Model))
		}
	}
	return errors.Join(errs...)
}

// brkoutPattern is SONiC's breakout mode grammar, one group of a mode
// ("2x400G", "1x800G[400G]", "2x25G(2)"); groups are joined by "+"
// (sonic-config-engine portconfig.py BRKOUT_PATTERN).
var brkoutPattern = regexp.MustCompile(`^(\d{1,6})x(\d{1,6}G?)(\[((\d{1,6}G?,?)*)\])?(\((\d{1,6})\))?$`)

type modeGroup struct {
	ports     int
	speedMbps int   // default speed
	supported []int // default speed and the bracketed alternatives, Mb/s
	lanes     int   // lanes the group takes
}

func speedMbps(s string) (int, error) {
	s = strings.TrimSpace(s)
	if g, ok := strings.CutSuffix(s, "G"); ok {
		n, err := strconv.Atoi(g)
		return n * 1000, err
	}
	return strconv.Atoi(s)
}

// parseMode splits a breakout mode into its groups, taking a group without
// an explicit lane count to use every lane of the port, as SONiC does.
func parseMode(mode string, lanes int) ([]modeGroup, error) {
	var out []modeGroup
	for part := range strings.SplitSeq(mode, "+") {
		m := brkoutPattern.FindStringSubmatch(part)
		if m == nil {
			return nil, fmt.Errorf("breakout mode %q: %q is not <ports>x<speed>[speeds](lanes)", mode, part)
		}
		g := modeGroup{lanes: lanes}
		var err error
		if g.ports, err = strconv.Atoi(m[1]); err != nil || g.ports < 1 {
			return nil, fmt.Errorf("breakout mode %q: port count %q", mode, m[1])
		}
		if g.speedMbps, err = speedMbps(m[2]); err != nil {
			return nil, fmt.Errorf("breakout mode %q: speed %q", mode, m[2])
		}
		g.supported = []int{g.speedMbps}
		if m[4] != "" {
			for s := range strings.SplitSeq(m[4], ",") {
				if s == "" {
					continue
				}
				v, err := speedMbps(s)
				if err != nil {
					return nil, fmt.Errorf("breakout mode %q: speed %q", mode, s)
				}
				g.supported = append(g.supported, v)
			}
		}
		if m[7] != "" {
			if g.lanes, err = strconv.Atoi(m[7]); err != nil {
				return nil, fmt.Errorf("breakout mode %q: lane count %q", mode, m[7])
			}
		}
		out = append(out, g)
	}
	return out, nil
}

// Breakout returns the ports mode creates on parent p, the way SONiC
// derives them (sonic-config-engine portconfig.py BreakoutCfg.get_config,
// used both at first boot from hwsku.json and by `config interface
// breakout`): the parent's lanes are taken in platform.json order, each
// child gets lanes/ports consecutive lanes; a child is named
// Ethernet<parent number + offset of its first lane>, takes its alias from
// the mode's alias list in order and its index from its first lane, runs
// the mode's default speed, and gets FEC "rs" when a lane runs at 50G or
// more. The mode must be one of p's breakout modes.
func (p SONiCParent) Breakout(mode string) ([]SONiCPortEntry, error) {
	var aliases []string
	found := false
	for _, m := range p.Modes {
		if m.Mode == mode {
			aliases, found = m.Aliases, true
			break
		}
	}
	if !found {
		return nil, fmt.Errorf("port %s: breakout mode %q is not one of %s", p.Name, mode, strings.Join(p.ModeNames(), ", "))
	}
	base, err := strconv.Atoi(strings.TrimPrefix(p.Name, "Ethernet"))
	if err != nil || !strings.HasPrefix(p.Name, "Ethernet") || base < 0 {
		return nil, fmt.Errorf("port %s: parent ports are named Ethernet<number>", p.Name)
	}
	if len(p.Index) != len(p.Lanes) {
		return nil, fmt.Errorf("port %s: %d lanes but %d index entries", p.Name, len(p.Lanes), len(p.Index))
	}
	groups, err := parseMode(mode, len(p.Lanes))
	if err != nil {
		return nil, fmt.Errorf("port %s: %w", p.Name, err)
	}
	used, total := 0, 0
	for _, g := range groups {
		used += g.lanes
		total += g.ports
	}
	if used > len(p.Lanes) {
		return nil, fmt.Errorf("port %s: breakout mode %q needs %d lanes, the port has %d", p.Name, mode, used, len(p.Lanes))
	}
	if len(aliases) < total {
		return nil, fmt.Errorf("port %s: breakout mode %q makes %d ports but lists %d aliases", p.Name, mode, total, len(aliases))
	}
	var out []SONiCPortEntry
	lane, alias := 0, 0
	for _, g := range groups {
		per := g.lanes / g.ports
		if per < 1 {
			return nil, fmt.Errorf("port %s: breakout mode %q gives a port less than one lane", p.Name, mode)
		}
		for range g.ports {
			e := SONiCPortEntry{
				Name:      "Ethernet" + strconv.Itoa(base+lane),
				Lanes:     slices.Clone(p.Lanes[lane : lane+per]),
				Alias:     aliases[alias],
				Index:     p.Index[lane],
				SpeedMbps: g.speedMbps,
				Parent:    p.Name,
				Mode:      mode,
			}
			if total > 1 {
				e.Subport = alias + 1
			}
			if g.speedMbps/per >= 50000 {
				e.FEC = "rs"
			}
			// hwsku.json's optional attributes apply to every child of the
			// parent (portconfig.py parse_platform_json_file).
			if p.FEC != "" {
				e.FEC = p.FEC
			}
			out = append(out, e)
			lane += per
			alias++
		}
	}
	return out, nil
}

// ModeNames lists p's breakout modes in file order.
func (p SONiCParent) ModeNames() []string {
	out := make([]string, len(p.Modes))
	for i, m := range p.Modes {
		out[i] = m.Mode
	}
	return out
}

// ModeFor returns the breakout mode of p that splits it into ports ports of
// speedMbps each: a single-group mode with that port count whose default
// speed is speedMbps, else one that lists speedMbps among its supported
// speeds (the port is then configured to that speed). The default mode wins
// a tie, then file order.
func (p SONiCParent) ModeFor(ports, speedMbps int) (string, bool) {
	best, bestRank := "", 3
	for _, m := range p.Modes {
		gs, err := parseMode(m.Mode, len(p.Lanes))
		if err != nil || len(gs) != 1 || gs[0].ports != ports || gs[0].lanes != len(p.Lanes) {
			continue
		}
		rank := 3
		switch {
		case gs[0].speedMbps == speedMbps && m.Mode == p.DefaultMode:
			rank = 0
		case gs[0].speedMbps == speedMbps:
			rank = 1
		case slices.Contains(gs[0].supported, speedMbps):
			rank = 2
		}
		if rank < bestRank {
			best, bestRank = m.Mode, rank
		}
	}
	return best, bestRank < 3
}

// DefaultPorts returns the PORT rows SONiC creates from the SKU's default
// breakout modes, in parent order.
func (s SONiCSKU) DefaultPorts() ([]SONiCPortEntry, error) {
	var out []SONiCPortEntry
	for _, p := range s.Ports {
		ch, err := p.Breakout(p.DefaultMode)
		if err != nil {
			return nil, err
		}
		out = append(out, ch...)
	}
	return out, nil
}

// Layout returns the ports of the SKU when every front-panel cage whose
// lane count is the SKU's widest is split into perCage ports of speedGbps:
// the front-panel order of the SKU (parent order of platform.json) and,
// within a cage, the order of its breakout mode. Narrower ports (management
// and spare SFP ports) are left out: they are not fabric ports. It fails,
// naming the port, when a cage has no breakout mode for the split.
func (s SONiCSKU) Layout(speedGbps, perCage int) ([]SONiCPortEntry, error) {
	if speedGbps <= 0 || perCage <= 0 {
		return nil, fmt.Errorf("%s: no layout for %d ports of %d Gbit/s per cage", s.HWSKU, perCage, speedGbps)
	}
	widest := 0
	for _, p := range s.Ports {
		widest = max(widest, len(p.Lanes))
	}
	var out []SONiCPortEntry
	for _, p := range s.Ports {
		if len(p.Lanes) != widest {
			continue
		}
		mode, ok := p.ModeFor(perCage, speedGbps*1000)
		if !ok {
			return nil, fmt.Errorf("SONiC SKU %s: port %s has no breakout mode for %d x %dG (it has %s)",
				s.HWSKU, p.Name, perCage, speedGbps, strings.Join(p.ModeNames(), ", "))
		}
		ch, err := p.Breakout(mode)
		if err != nil {
			return nil, err
		}
		for i := range ch {
			ch[i].SpeedMbps = speedGbps * 1000
		}
		out = append(out, ch...)
	}
	return out, nil
}

// Parent returns the SKU's parent port of that name.
func (s SONiCSKU) Parent(name string) (SONiCParent, bool) {
	i := slices.IndexFunc(s.Ports, func(p SONiCParent) bool { return p.Name == name })
	if i < 0 {
		return SONiCParent{}, false
	}
	return s.Ports[i], true
}

// ModeSpeeds returns the speeds, Mb/s, a port mode makes on p can run:
// the default and bracketed speeds of the mode's groups, ascending.
func (p SONiCParent) ModeSpeeds(mode string) ([]int, error) {
	gs, err := parseMode(mode, len(p.Lanes))
	if err != nil {
		return nil, err
	}
	var out []int
	for _, g := range gs {
		out = append(out, g.supported...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
