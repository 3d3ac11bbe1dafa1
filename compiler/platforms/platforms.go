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

//go:embed catalog.json
var catalogJSON []byte

// A Switch is one switch model of the catalog.
type Switch struct {
	Model             string         `json:"model"`             // canonical model name, e.g. "7060X6-64PE"
	Vendor            string         `json:"vendor"`            // e.g. "Arista"
	ASIC              string         `json:"asic"`              // switching ASIC, e.g. "Broadcom Tomahawk 5 (BCM78900)"
	Aliases           []string       `json:"aliases,omitempty"` // other names the model is known by (order codes)
	Platforms         []string       `json:"platforms"`         // which of "eos", "nvue", "sonic", "nxos" run on it
	BufferBytes       int64          `json:"bufferBytes"`       // total packet buffer, B
	CellBytes         int            `json:"cellBytes"`         // buffer cell size, B; 0 = unknown
	Ports             map[string]int `json:"ports"`             // front-panel ports by speed "100G".."1.6T", breakouts included
	HeadroomPoolBytes int64          `json:"headroomPoolBytes"` // dedicated headroom pool, B; 0 when headroom comes from the shared buffer
	AlphaLog2         int            `json:"alphaLog2"`         // dynamic-threshold alpha for lossless PGs (α = 2^AlphaLog2)
	MaxHeadroomBytes  int64          `json:"maxHeadroomBytes"`  // largest per-PG headroom the ASIC accepts, B; 0 = unknown
	// SDKReservedBytes is the buffer the ASIC's SDK keeps for itself, out
	// of every pool SONiC configures (Broadcom: the cells the vendors' SKU
	// files leave out of ingress_lossless_pool); 0 where none is known.
	// Sources["sdkReservedBytes"] names the files it is derived from.
	SDKReservedBytes int64             `json:"sdkReservedBytes,omitempty"`
	Sources          map[string]string `json:"sources"` // figure (JSON name) → source; "verify: ..." where it is an estimate
	// Native is the buffer each platform that holds no share of the buffer
	// for one class (the catalog's pool-percent is "no": EOS, NX-OS) runs
	// the switch with, by platform name. Every such platform the switch
	// runs has an entry: rocefab renders no pool there, so the switch's
	// own defaults are what the lossless priority groups get.
	Native map[string]NativeBuffer `json:"native,omitempty"`
	// HeadroomTable is the vendor's own lossless headroom per speed and
	// cable length, where the vendor publishes one for the model (NVIDIA's
	// pg_profile_lookup.ini of the SKU SONiC installs by default). The
	// switch's headroom follows it instead of the family's formula
	// (compiler/physics TableHeadroom); Sources["headroomTable"] names it.
	HeadroomTable []HeadroomRow `json:"headroomTable,omitempty"`
}

// HeadroomRow is one row of a vendor headroom table: the size, xon and
// xoff of a lossless priority group at a port speed and cable length.
type HeadroomRow struct {
	SpeedGbps int   `json:"speedGbps"`
	CableM    int   `json:"cableM"`
	Size      int64 `json:"size"`
	Xon       int64 `json:"xon"`
	Xoff      int64 `json:"xoff"`
}

// NativeBuffer is a platform's own buffer defaults on one switch model,
// where rocefab renders no per-class pool: lossless priority groups draw on
// the shared pool (the buffer less the headroom carved from it) with the
// platform's default dynamic threshold.
type NativeBuffer struct {
	// AlphaLog2 is the default dynamic-threshold exponent of a lossless
	// priority group on the shared pool (α = 2^AlphaLog2).
	AlphaLog2 int `json:"alphaLog2"`
	// Source says where AlphaLog2 and the pool model come from; "verify:
	// ..." where no public source gives the default.
	Source string `json:"source"`
}

// NativeFor returns the platform's own buffer defaults on the switch, and
// false when the catalog has none for that platform (a platform that holds
// a reserve, or one the switch does not run).
func (s Switch) NativeFor(platform string) (NativeBuffer, bool) {
	n, ok := s.Native[strings.ToLower(platform)]
	return n, ok
}

// HoldsReserve reports whether platform can hold a share of the shared
// buffer for one class (the catalog's pool-percent element is not "no").
// An unknown platform holds none.
func HoldsReserve(platform string) bool {
	c, ok := PlatformCapabilities(platform)
	if !ok {
		return false
	}
	s, ok := c.Elements[ElementPoolPercent]
	return ok && s.Level != LevelNo
}

// RunsPlatform reports whether platform is one of the switch's platforms.
func (s Switch) RunsPlatform(platform string) bool {
	return slices.Contains(s.Platforms, strings.ToLower(platform))
}

// A NIC is one host NIC model of the catalog.
type NIC struct {
	Model         string   `json:"model"`             // canonical model name, e.g. "connectx-7"
	Vendor        string   `json:"vendor"`            // e.g. "NVIDIA"
	Aliases       []string `json:"aliases,omitempty"` // other names the model is known by
	OutOfOrder    bool     `json:"outOfOrder"`        // can place out-of-order packets (needed for adaptive routing / spraying)
	DefaultCableM float64  `json:"defaultCableM"`     // headroom cable length the driver assumes, m (mlx5: 7)
	MaxSpeedGbps  int      `json:"maxSpeedGbps"`      // fastest port speed, Gbit/s
	// AdaptiveRoutingFirmware is the firmware (NV config) parameter that
	// lets RDMA QPs take adaptively routed, out-of-order packets
	// (ROCE_ADAPTIVE_ROUTING_EN, off by default); "" when none is known,
	// and then per-packet adaptive routing cannot be used (RF109).
	AdaptiveRoutingFirmware string `json:"adaptiveRoutingFirmware"`
	// ReorderNative says the NIC places out-of-order packets on every QP
	// by itself (multipath, spraying), with no setting to turn on.
	ReorderNative bool `json:"reorderNative,omitempty"`
	// Driver names the kernel netdev and RDMA drivers, e.g. "bnxt_en +
	// bnxt_re".
	Driver string `json:"driver"`
	// RDMADevice is the name the RDMA driver registers its devices under,
	// %d the index ("mlx5_%d"): the default NCCL_IB_HCA of NIC i.
	RDMADevice string `json:"rdmaDevice"`
	// Tools are the hosts.nic.tool values that configure the NIC's trust,
	// DSCP map, ETS and PFC, the first the default; none when rocefab
	// knows no documented way (then gaps["nic-qos"] says so).
	Tools []string `json:"tools"`
	// CongestionControl is the algorithm the runtime turns on ("dcqcn",
	// "dcqcn-p") and CCInterface where it does: "mlx5" (MLNX_OFED sysfs or
	// inbox debugfs), "bnxt_re-configfs", "irdma-configfs", "ionic-sysfs".
	CongestionControl string `json:"congestionControl"`
	CCInterface       string `json:"ccInterface"`
	// MaxTrafficClasses and MaxLossless are the traffic classes the NIC
	// schedules and the lossless (PFC) priorities it takes.
	MaxTrafficClasses int `json:"maxTrafficClasses"`
	MaxLossless       int `json:"maxLossless"`
	// TCLayout is the traffic-class layout the driver requires, "" for
	// rocefab's priority p on class p. "roce-tc1-cnp-tc2" (bnxt_re):
	// traffic class 0 the other traffic (ETS), 1 the RoCE priority (ETS),
	// 2 the CNP priority and strict traffic (strict).
	TCLayout string `json:"tcLayout,omitempty"`
	// Gaps are the rocefab settings the NIC cannot take, by NIC element
	// (NICElements), each saying what is done instead; RF117 reports them.
	Gaps    map[string]string `json:"gaps,omitempty"`
	Sources map[string]string `json:"sources"` // figure (JSON name) → source; "verify: ..." where it is an estimate
}

// NICElements are the rocefab host settings a NIC model may lack, the
// keys of NIC.Gaps: "nic-qos" (trust, DSCP map, ETS, PFC at all),
// "cable-length" (the headroom cable length, ieee_pfc.delay),
// "dcqcn-parameters" (hosts.dcqcn.parameters), "ecn-priority" (ECN per
// priority), "cnp-dscp" (the CNP class's DSCP and priority),
// "traffic-classes" (eight traffic classes, priority p on class p),
// "roce-dscp" (more than one DSCP in the lossless class) and
// "software-dcb" (the DCB settings taking effect once written: a NIC whose
// firmware DCBX agent overrides them until the operator turns it off).
var NICElements = []string{"nic-qos", "cable-length", "dcqcn-parameters", "ecn-priority", "cnp-dscp", "traffic-classes", "roce-dscp", "software-dcb"}

// ccInterfaces are the congestion-control interfaces the host runtime
// drives.
var ccInterfaces = []string{"mlx5", "bnxt_re-configfs", "irdma-configfs", "ionic-sysfs"}

// MLX5 reports whether the NIC runs NVIDIA's mlx5 driver, whose tools
// (mlnx_qos, mlxconfig) and knobs (cable length in metres, DCQCN
// parameter names) the intent's defaults are written for.
func (n NIC) MLX5() bool { return n.CCInterface == "mlx5" }

// Gap returns what the NIC does instead of the rocefab element, and
// whether it lacks it.
func (n NIC) Gap(element string) (string, bool) {
	g, ok := n.Gaps[element]
	return g, ok
}

// Capabilities says what one configuration platform can express.
type Capabilities struct {
	Platform string             `json:"platform"` // "eos", "nvue", "sonic", "nxos", "openconfig" or "linux"
	Elements map[string]Support `json:"elements"` // by intent element, see Elements
	// MaxMTU is the largest port MTU the platform takes, B; 0 when the
	// catalog knows none below the schema's own limit. A larger switch MTU
	// is configured as MaxMTU.
	MaxMTU int `json:"maxMTU,omitempty"`
	// MaxHeadroomPoolBytes is the largest headroom pool the platform can
	// be configured with, B; 0 when it takes any size (or none). A larger
	// need is configured as this much, and lint reports the rest.
	MaxHeadroomPoolBytes int64 `json:"maxHeadroomPoolBytes,omitempty"`
}

// Support is how well a platform expresses one intent element.
type Support struct {
	Level      string `json:"level"`                // LevelYes, LevelPartial or LevelNo
	Rendered   string `json:"rendered,omitempty"`   // what is rendered instead when partial or no
	Note       string `json:"note,omitempty"`       // syntax hints, limits and sources
	Disruption string `json:"disruption,omitempty"` // what changing the element does; Hitless when omitted in the catalog
}

// Support levels.
const (
	LevelYes     = "yes"
	LevelPartial = "partial"
	LevelNo      = "no"
)

// Disruption classes: what applying a change to an element does to traffic.
const (
	Hitless      = "hitless"       // no traffic impact
	PortFlap     = "port-flap"     // the link goes down and up
	TrafficPause = "traffic-pause" // buffers are reprogrammed; traffic stops or drops briefly
	Reboot       = "reboot"        // the change takes effect only after a reload
)

// Intent elements a platform's capabilities are described for.
const (
	ElementDSCPMap             = "dscp-map"
	ElementTCQueue             = "tc-queue"
	ElementPFC                 = "pfc"
	ElementPoolPercent         = "pool-percent"
	ElementHeadroomCable       = "headroom-cable"
	ElementXoffXon             = "xoff-xon"
	ElementPFCWatchdog         = "pfc-watchdog"
	ElementECN                 = "ecn"
	ElementETS                 = "ets"
	ElementStrict              = "strict"
	ElementShaping             = "shaping"
	ElementAdaptiveRouting     = "adaptive-routing"
	ElementSpray               = "spray"
	ElementMTU                 = "mtu"
	ElementWatchdogActionAlert = "watchdog-action-alert"
)

var elements = []string{
	ElementDSCPMap, ElementTCQueue, ElementPFC, ElementPoolPercent, ElementHeadroomCable,
	ElementXoffXon, ElementPFCWatchdog, ElementECN, ElementETS, ElementStrict, ElementShaping,
	ElementAdaptiveRouting, ElementSpray, ElementMTU, ElementWatchdogActionAlert,
}

// Elements returns the intent element keys every platform's capabilities
// cover, in a fixed order.
func Elements() []string { return slices.Clone(elements) }

var platformNames = []string{"eos", "nvue", "sonic", "nxos", "openconfig", "linux"}

// Platforms returns the configuration platform names the catalog describes,
// in a fixed order.
func Platforms() []string { return slices.Clone(platformNames) }

// switchFigures and nicFigures are the JSON names of the figures each entry
// must cite in its Sources.
var (
	switchFigures = []string{"asic", "platforms", "bufferBytes", "cellBytes", "ports", "headroomPoolBytes", "alphaLog2", "maxHeadroomBytes"}
	nicFigures    = []string{"outOfOrder", "defaultCableM", "maxSpeedGbps", "adaptiveRoutingFirmware",
		"driver", "rdmaDevice", "tools", "congestionControl", "maxTrafficClasses", "maxLossless"}
)

// portSpeeds are the keys allowed in Switch.Ports.
var portSpeeds = []string{"100G", "200G", "400G", "800G", "1.6T"}

// PortSpeeds returns the keys Switch.Ports may have, slowest first.
func PortSpeeds() []string { return slices.Clone(portSpeeds) }

type catalog struct {
	Switches  []Switch       `json:"switches"`
	NICs      []NIC          `json:"nics"`
	Platforms []Capabilities `json:"platforms"`
}

type index struct {
	switches  map[string]Switch // by lower-case model and alias
	nics      map[string]NIC
	platforms map[string]Capabilities
	switchMod []string
	nicMod    []string
}

var load = sync.OnceValues(func() (*index, error) { return decode(catalogJSON) })

// decodeStrict decodes data, one JSON value, into v: a field v does not
// have, or anything after the value, is an error. Every embedded file of
// the catalog is read this way, so a misspelt key or a pasted second
// object fails the load instead of leaving a default in place.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the top-level object")
	}
	return nil
}

// decode parses and checks a catalog strictly.
func decode(data []byte) (*index, error) {
	var c catalog
	if err := decodeStrict(data, &c); err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	ix := &index{
		switches:  make(map[string]Switch),
		nics:      make(map[string]NIC),
		platforms: make(map[string]Capabilities),
	}
	var errs []error
	for _, s := range c.Switches {
		if err := checkSwitch(s); err != nil {
			errs = append(errs, err)
		}
		errs = append(errs, indexNames(ix.switches, "switch", s.Model, s.Aliases, s)...)
		ix.switchMod = append(ix.switchMod, s.Model)
	}
	for _, n := range c.NICs {
		if err := checkNIC(n); err != nil {
			errs = append(errs, err)
		}
		errs = append(errs, indexNames(ix.nics, "nic", n.Model, n.Aliases, n)...)
		ix.nicMod = append(ix.nicMod, n.Model)
	}
	for _, p := range c.Platforms {
		if _, dup := ix.platforms[p.Platform]; dup {
			errs = append(errs, fmt.Errorf("platform %q listed twice", p.Platform))
		}
		p, err := checkCapabilities(p)
		if err != nil {
			errs = append(errs, err)
		}
		ix.platforms[p.Platform] = p
	}
	for _, name := range platformNames {
		if _, ok := ix.platforms[name]; !ok {
			errs = append(errs, fmt.Errorf("platform %q missing", name))
		}
	}
	slices.Sort(ix.switchMod)
	slices.Sort(ix.nicMod)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return ix, nil
}

func checkSources(kind, model string, sources map[string]string, figures []string) error {
	var errs []error
	for _, f := range figures {
		if strings.TrimSpace(sources[f]) == "" {
			errs = append(errs, fmt.Errorf("%s %q: no source for %s", kind, model, f))
		}
	}
	for f := range sources {
		if !slices.Contains(figures, f) {
			errs = append(errs, fmt.Errorf("%s %q: source for unknown figure %q", kind, model, f))
		}
	}
	return errors.Join(errs...)
}

func checkSwitch(s Switch) error {
	var errs []error
	if s.Model == "" || s.Vendor == "" || s.ASIC == "" {
		errs = append(errs, fmt.Errorf("switch %q: model, vendor and asic are required", s.Model))
	}
	if len(s.Platforms) == 0 {
		errs = append(errs, fmt.Errorf("switch %q: no platforms", s.Model))
	}
	for _, p := range s.Platforms {
		if !slices.Contains([]string{"eos", "nvue", "sonic", "nxos"}, p) {
			errs = append(errs, fmt.Errorf("switch %q: unknown platform %q", s.Model, p))
		}
	}
	if s.BufferBytes < 0 || s.CellBytes < 0 || s.HeadroomPoolBytes < 0 || s.MaxHeadroomBytes < 0 || s.SDKReservedBytes < 0 || s.SDKReservedBytes >= max(s.BufferBytes, 1) {
		errs = append(errs, fmt.Errorf("switch %q: negative size, or an SDK reserve not below the buffer", s.Model))
	}
	if len(s.Ports) == 0 {
		errs = append(errs, fmt.Errorf("switch %q: no ports", s.Model))
	}
	for speed, n := range s.Ports {
		if !slices.Contains(portSpeeds, speed) || n <= 0 {
			errs = append(errs, fmt.Errorf("switch %q: ports %q: %d", s.Model, speed, n))
		}
	}
	figures := switchFigures
	if len(s.HeadroomTable) > 0 {
		// A vendor headroom table needs a source of its own.
		figures = append(slices.Clone(switchFigures), "headroomTable")
	}
	if s.SDKReservedBytes > 0 {
		figures = append(slices.Clone(figures), "sdkReservedBytes")
	}
	for _, r := range s.HeadroomTable {
		if r.SpeedGbps <= 0 || r.CableM <= 0 || r.Xon < 0 || r.Xoff <= 0 || r.Size < r.Xoff {
			errs = append(errs, fmt.Errorf("switch %q: headroom table row %+v: want a speed, a cable length, xon ≥ 0, xoff > 0 and size ≥ xoff", s.Model, r))
		}
	}
	errs = append(errs, checkSources("switch", s.Model, s.Sources, figures))
	errs = append(errs, checkNative(s))
	return errors.Join(errs...)
}

// nativePlatforms are the switch platforms whose pool-percent is "no" in
// the catalog: a switch running one needs its native buffer defaults.
var nativePlatforms = []string{"eos", "nxos"}

func checkNative(s Switch) error {
	var errs []error
	for _, p := range nativePlatforms {
		if _, ok := s.Native[p]; s.RunsPlatform(p) && !ok {
			errs = append(errs, fmt.Errorf("switch %q: runs %s but has no native buffer defaults for it", s.Model, p))
		}
	}
	for p, n := range s.Native {
		if !slices.Contains(nativePlatforms, p) || !s.RunsPlatform(p) {
			errs = append(errs, fmt.Errorf("switch %q: native buffer defaults for %q, which is not a platform of it without a pool percentage", s.Model, p))
		}
		if strings.TrimSpace(n.Source) == "" {
			errs = append(errs, fmt.Errorf("switch %q: native %s: no source", s.Model, p))
		}
	}
	return errors.Join(errs...)
}

func checkNIC(n NIC) error {
	var errs []error
	if n.Model == "" || n.Vendor == "" {
		errs = append(errs, fmt.Errorf("nic %q: model and vendor are required", n.Model))
	}
	if _, none := n.Gaps["cable-length"]; n.DefaultCableM < 0 || (n.DefaultCableM == 0) != none || n.MaxSpeedGbps <= 0 {
		errs = append(errs, fmt.Errorf("nic %q: maxSpeedGbps must be positive, defaultCableM positive or 0 with a cable-length gap", n.Model))
	}
	if n.Driver == "" || !strings.Contains(n.RDMADevice, "%d") || strings.Count(n.RDMADevice, "%") != 1 {
		errs = append(errs, fmt.Errorf("nic %q: driver and an rdmaDevice pattern with one %%d are required", n.Model))
	}
	for _, t := range n.Tools {
		if t != "mlnx_qos" && t != "dcb" {
			errs = append(errs, fmt.Errorf("nic %q: tool %q: want mlnx_qos or dcb", n.Model, t))
		}
	}
	if _, none := n.Gaps["nic-qos"]; (len(n.Tools) == 0) != none {
		errs = append(errs, fmt.Errorf("nic %q: a NIC without tools needs a nic-qos gap, and only it", n.Model))
	}
	if !slices.Contains(ccInterfaces, n.CCInterface) || n.CongestionControl == "" {
		errs = append(errs, fmt.Errorf("nic %q: ccInterface %q: want one of %s, with a congestionControl", n.Model, n.CCInterface, strings.Join(ccInterfaces, ", ")))
	}
	if n.MaxTrafficClasses < 1 || n.MaxTrafficClasses > 8 || n.MaxLossless < 1 || n.MaxLossless > 8 {
		errs = append(errs, fmt.Errorf("nic %q: maxTrafficClasses and maxLossless must be 1..8", n.Model))
	}
	for e, note := range n.Gaps {
		if !slices.Contains(NICElements, e) || strings.TrimSpace(note) == "" {
			errs = append(errs, fmt.Errorf("nic %q: gap %q: want one of %s, with a note", n.Model, e, strings.Join(NICElements, ", ")))
		}
	}
	figures := nicFigures
	switch n.TCLayout {
	case "":
	case "roce-tc1-cnp-tc2":
		figures = append(slices.Clone(nicFigures), "tcLayout") // a layout other than rocefab's cites its source
	default:
		errs = append(errs, fmt.Errorf("nic %q: tcLayout %q: want \"\" or \"roce-tc1-cnp-tc2\"", n.Model, n.TCLayout))
	}
	errs = append(errs, checkSources("nic", n.Model, n.Sources, figures))
	return errors.Join(errs...)
}

// checkCapabilities validates p and fills omitted disruptions with Hitless.
func checkCapabilities(p Capabilities) (Capabilities, error) {
	var errs []error
	if !slices.Contains(platformNames, p.Platform) {
		errs = append(errs, fmt.Errorf("platform %q: unknown", p.Platform))
	}
	filled := make(map[string]Support, len(p.Elements))
	for _, e := range elements {
		if _, ok := p.Elements[e]; !ok {
			errs = append(errs, fmt.Errorf("platform %q: element %q missing", p.Platform, e))
		}
	}
	for e, s := range p.Elements {
		if !slices.Contains(elements, e) {
			errs = append(errs, fmt.Errorf("platform %q: unknown element %q", p.Platform, e))
		}
		switch s.Level {
		case LevelYes:
		case LevelPartial, LevelNo:
			if s.Rendered == "" {
				errs = append(errs, fmt.Errorf("platform %q: element %q is %s but says nothing about what is rendered", p.Platform, e, s.Level))
			}
		default:
			errs = append(errs, fmt.Errorf("platform %q: element %q: level %q, want yes, partial or no", p.Platform, e, s.Level))
		}
		switch s.Disruption {
		case "":
			s.Disruption = Hitless
		case Hitless, PortFlap, TrafficPause, Reboot:
		default:
			errs = append(errs, fmt.Errorf("platform %q: element %q: disruption %q", p.Platform, e, s.Disruption))
		}
		filled[e] = s
	}
	p.Elements = filled
	return p, errors.Join(errs...)
}

// Validate reports whether the embedded catalog decodes strictly and is
// complete: every figure sourced, every platform listing every element,
// no name used twice. Lookups treat an invalid catalog as empty.
func Validate() error {
	_, err := load()
	return err
}

func get() *index {
	ix, err := load()
	if err != nil {
		return &index{}
	}
	return ix
}

// LookupSwitch returns the switch whose model or alias is model, ignoring
// case and surrounding space.
func LookupSwitch(model string) (Switch, bool) {
	s, ok := get().switches[strings.ToLower(strings.TrimSpace(model))]
	return cloneSwitch(s), ok
}

// LookupNIC returns the NIC whose model or alias is model, ignoring case and
// surrounding space.
func LookupNIC(model string) (NIC, bool) {
	n, ok := get().nics[strings.ToLower(strings.TrimSpace(model))]
	n.Aliases = slices.Clone(n.Aliases)
	n.Sources = maps.Clone(n.Sources)
	return n, ok
}

// SwitchModels returns the canonical switch model names, sorted, for
// "allowed: ..." messages.
func SwitchModels() []string { return slices.Clone(get().switchMod) }

// NICModels returns the canonical NIC model names, sorted.
func NICModels() []string { return slices.Clone(get().nicMod) }

// PlatformCapabilities returns what platform ("eos", "nvue", "sonic",
// "nxos", "openconfig", "linux"; case-insensitive) can express.
func PlatformCapabilities(platform string) (Capabilities, bool) {
	c, ok := get().platforms[strings.ToLower(strings.TrimSpace(platform))]
	c.Elements = maps.Clone(c.Elements)
	return c, ok
}

// Disruption returns what changing element on platform does: Hitless,
// PortFlap (e.g. the PFC bitmap on an mlx5 NIC), TrafficPause (buffer or
// pool reprogramming, adaptive routing on Cumulus, which reloads switchd) or
// Reboot (the NX-OS DLB hardware profile). The classes follow switches.md §6
// and hosts.md §0. It returns the empty string for an unknown platform or
// element.
func Disruption(platform, element string) string {
	c, ok := get().platforms[strings.ToLower(strings.TrimSpace(platform))]
	if !ok {
		return ""
	}
	return c.Elements[element].Disruption
}

func cloneSwitch(s Switch) Switch {
	s.Aliases = slices.Clone(s.Aliases)
	s.Platforms = slices.Clone(s.Platforms)
	s.Ports = maps.Clone(s.Ports)
	s.Sources = maps.Clone(s.Sources)
	s.Native = maps.Clone(s.Native)
	return s
}

// indexNames indexes v in m under its model and each alias, lower-cased as
// lookups are, and says which name of a kind is used twice.
func indexNames[T any](m map[string]T, kind, model string, aliases []string, v T) []error {
	var errs []error
	for _, name := range append([]string{model}, aliases...) {
		key := strings.ToLower(name)
		if _, dup := m[key]; dup {
			errs = append(errs, fmt.Errorf("%s %q: name %q used twice", kind, model, name))
		}
		m[key] = v
	}
	return errs
}
