package sonic

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// The SONiC platform of plan and apply: a switch's desired state is the
// CONFIG_DB fields config_db.json and breakout_cfg.json hold, its running
// configuration the switch's config_db.json (`show runningconfiguration
// all`, or /etc/sonic/config_db.json as `config save` writes it) read
// within the owned scope ([Renderer.Parse]), and a remediation the
// breakouts, the JSON patch `config apply-patch` takes and the part that
// needs `config reload` ([Renderer.Diff]). docs/ownership.md lists the
// scope.
var (
	_ renderers.Platform = Renderer{}
	_ renderers.Applier  = Renderer{}
)

// tk names a row of CONFIG_DB.
type tk struct{ table, key string }

// fieldKey names a field of CONFIG_DB.
type fieldKey struct{ table, key, field string }

// State is a SONiC switch's configuration within the owned scope: the
// owned fields, sorted by table, key and field. A state read from a
// running configuration also records which tables and rows exist there
// and which rows hold fields outside the scope, so that a patch adds a
// row or table that is missing whole, and never removes one that keeps
// foreign fields: whether a row or table exists is all that is read of
// what lies outside the scope.
type State struct {
	es    []entry
	elems []renderers.Element // es as elements, sorted by path, once asked for

	parsed    bool
	tables    map[string]bool
	tableRows map[string]int // rows per table
	// rowsOf holds the rows of each owned table, sorted by key: a sorted
	// list per table costs a parse less than a set of all rows, and a
	// diff looks up only the rows that change.
	rowsOf map[string][]rowInfo
}

// rowInfo is a row of an owned table as the running configuration has it.
type rowInfo struct {
	key string
	// foreign: the row has fields outside the scope, or none at all.
	foreign bool
	at      int // offset of its name, for errors
}

// row finds r in the running configuration.
func (s *State) row(r tk) (rowInfo, bool) {
	rows := s.rowsOf[r.table]
	i, ok := slices.BinarySearchFunc(rows, r.key, func(x rowInfo, k string) int { return strings.Compare(x.key, k) })
	if !ok {
		return rowInfo{}, false
	}
	return rows[i], true
}

// Elements returns the state's fields, path "TABLE|key|field", sorted by
// path.
func (s *State) Elements() []renderers.Element {
	if s.elems == nil {
		s.elems = s.elements()
	}
	return slices.Clone(s.elems)
}

func (s *State) elements() []renderers.Element {
	paths := make([]string, len(s.es))
	idx := make([]int32, len(s.es))
	for i, e := range s.es {
		paths[i], idx[i] = e.table+"|"+e.key+"|"+e.field, int32(i)
	}
	// Sort indices, not elements: an element is three strings, and each
	// move of one passes the garbage collector's write barrier.
	slices.SortFunc(idx, func(a, b int32) int { return strings.Compare(paths[a], paths[b]) })
	out := make([]renderers.Element, len(s.es))
	for i, j := range idx {
		e := s.es[j]
		out[i] = renderers.Element{Path: paths[j], Value: e.value, Kind: kindOf(e.table, e.field)}
	}
	return out
}

// Catalog elements (compiler/platforms Elements) of what the tables
// realise; a port's speed (renderers.KindPortSpeed) is not one, and
// changes as a port flap.
const (
	kindDSCPMap     = "dscp-map"
	kindTCQueue     = "tc-queue"
	kindPFC         = "pfc"
	kindPool        = "pool-percent"
	kindCable       = "headroom-cable"
	kindXoffXon     = "xoff-xon"
	kindWatchdog    = "pfc-watchdog"
	kindECN         = "ecn"
	kindETS         = "ets"
	kindMTU         = "mtu"
	kindDescription = ""
)

// kindOf names the catalog element a field realises.
func kindOf(table, field string) string {
	switch table {
	case "DSCP_TO_TC_MAP":
		return kindDSCPMap
	case "TC_TO_QUEUE_MAP":
		return kindTCQueue
	case "TC_TO_PRIORITY_GROUP_MAP", "MAP_PFC_PRIORITY_TO_QUEUE":
		return kindPFC
	case "PORT_QOS_MAP":
		switch field {
		case "dscp_to_tc_map":
			return kindDSCPMap
		case "tc_to_queue_map":
			return kindTCQueue
		case "pfcwd_sw_enable":
			return kindWatchdog
		}
		return kindPFC
	case "BUFFER_POOL":
		return kindPool
	case "BUFFER_PROFILE", "BUFFER_PG", "BUFFER_QUEUE":
		return kindXoffXon
	case "CABLE_LENGTH":
		return kindCable
	case "PFC_WD":
		return kindWatchdog
	case "WRED_PROFILE":
		return kindECN
	case "SCHEDULER":
		return kindETS
	case "QUEUE":
		if field == "wred_profile" {
			return kindECN
		}
		return kindETS
	case "PORT":
		switch field {
		case "mtu":
			return kindMTU
		case "speed", "lanes":
			return renderers.KindPortSpeed
		}
		return kindDescription
	case tableBreakout:
		return renderers.KindPortSpeed
	}
	return ""
}

// floorDisruption is the least a change of a kind disrupts whatever the
// catalog says: a new port speed or lane set takes the link down while
// both ends retrain.
var floorDisruption = renderers.Floors{renderers.KindPortSpeed: renderers.PortFlap}

// Fields of shared rows that rocefab owns; the rest of those rows is the
// switch's.
var (
	portFields    = []string{"admin_status", "description", "mtu", "speed"}
	portSKUFields = []string{"alias", "index", "lanes"} // owned when rendered: the port has a SKU port map
	portQoSFields = []string{"dscp_to_tc_map", "pfc_enable", "pfc_to_queue_map", "pfcwd_sw_enable", "tc_to_pg_map", "tc_to_queue_map"}
	watchdogField = []string{"action", "detection_time", "restoration_time"}
)

// ownedTables are the tables rocefab writes; no other table is read.
var ownedTables = map[string]bool{
	"DSCP_TO_TC_MAP": true, "TC_TO_QUEUE_MAP": true, "TC_TO_PRIORITY_GROUP_MAP": true, "MAP_PFC_PRIORITY_TO_QUEUE": true,
	"PORT_QOS_MAP": true, "BUFFER_POOL": true, "BUFFER_PROFILE": true, "BUFFER_PG": true, "BUFFER_QUEUE": true,
	"CABLE_LENGTH": true, "WRED_PROFILE": true, "SCHEDULER": true, "QUEUE": true, "PFC_WD": true, "PORT": true,
	tableBreakout: true,
}

// scope is what rocefab owns on one switch, from its desired state: the
// rules of docs/ownership.md.
type scope struct {
	ports   map[string]bool
	desired map[tk]bool // named rows the desired state has
	// fields owned only while rendered: a port's SKU fields, the
	// watchdog's poll interval; keyed by row and field.
	rendered map[fieldKey]bool
	// fields is about how many fields the scope holds on the switch, to
	// size a parsed state's list; no bound.
	fields int
}

// scopeFor is the scope of d without rendering its per-port rows: the
// named rows come from the steps that write them, and what the scope
// takes of the ports (breakout parents, SKU fields, the watchdog's poll
// interval) from the ports as the ports step reads them. A test checks
// it equals the scope of the whole desired state.
func scopeFor(d *ir.Device) (*scope, error) {
	b, err := newBuilder(d)
	if err != nil {
		return nil, err
	}
	for _, step := range []func() error{b.classify, b.pools, b.headroomProfiles, b.schedulersAndECN} {
		if err := step(); err != nil {
			return nil, fmt.Errorf("sonic: %s: %w", d.Name, err)
		}
	}
	for _, p := range b.sw.Ports {
		sku := p.SKU
		if sku == nil {
			continue
		}
		if sku.BreakoutParent != "" && sku.BreakoutMode != "" {
			b.t.set(tableBreakout, sku.BreakoutParent, "brkout_mode", sku.BreakoutMode)
		}
		if len(sku.SerDes) > 0 {
			b.t.set("PORT", p.Name, "lanes", "")
			if sku.Alias != "" {
				b.t.set("PORT", p.Name, "alias", "")
			}
			if sku.Index > 0 {
				b.t.set("PORT", p.Name, "index", "")
			}
		}
	}
	if b.qos.Watchdog.Enabled && len(b.qos.PFC) > 0 {
		b.t.set("PFC_WD", "GLOBAL", "POLL_INTERVAL", "")
	}
	// scopeOf takes the rows in any order; a row named twice (a parent
	// named by several ports) repeats harmlessly.
	sc := scopeOf(d, b.t.e)
	// A rendered port owns about thirty fields (PORT, PORT_QOS_MAP, eight
	// QUEUE rows, priority groups, buffer queues, cable length, watchdog).
	sc.fields = len(b.t.e) + 32*len(sc.ports)
	return sc, nil
}

func scopeOf(d *ir.Device, want []entry) *scope {
	s := &scope{ports: map[string]bool{}, desired: map[tk]bool{}, rendered: map[fieldKey]bool{}}
	if d != nil && d.Switch != nil {
		s.ports = make(map[string]bool, len(d.Switch.Ports))
		for _, p := range d.Switch.Ports {
			s.ports[p.Name] = true
		}
	}
	for i, e := range want {
		switch e.table {
		case "BUFFER_POOL", "BUFFER_PROFILE", "SCHEDULER", "WRED_PROFILE", tableBreakout:
			// Sorted entries name a row once in a run; others may repeat.
			if i == 0 || e.key != want[i-1].key || e.table != want[i-1].table {
				s.desired[tk{e.table, e.key}] = true
			}
		case "PORT":
			if slices.Contains(portSKUFields, e.field) {
				s.rendered[fieldKey{"PORT", e.key, e.field}] = true
			}
		case "PFC_WD":
			if e.key == "GLOBAL" {
				s.rendered[fieldKey{"PFC_WD", "GLOBAL", e.field}] = true
			}
		}
	}
	return s
}

// owns reports whether table|key|field is rocefab's on this switch.
func (s *scope) owns(table, key, field string) bool {
	switch table {
	case "DSCP_TO_TC_MAP", "TC_TO_QUEUE_MAP", "TC_TO_PRIORITY_GROUP_MAP", "MAP_PFC_PRIORITY_TO_QUEUE":
		return key == mapName
	case "BUFFER_POOL", "BUFFER_PROFILE", "SCHEDULER", "WRED_PROFILE", tableBreakout:
		// Named objects: those the switch's desired state defines, whole.
		// Other names (the SKU's defaults, profiles buffermgrd made for
		// ports rocefab does not render) may be in use by other ports.
		return s.desired[tk{table, key}]
	case "BUFFER_PG", "BUFFER_QUEUE", "QUEUE":
		// Every priority group and queue of a rendered port: rocefab lays
		// out all eight, and a range left from another layout would
		// overlap them.
		port, _, ok := strings.Cut(key, "|")
		return ok && s.ports[port]
	case "PORT":
		if !s.ports[key] {
			return false
		}
		return slices.Contains(portFields, field) || slices.Contains(portSKUFields, field) && s.rendered[fieldKey{table, key, field}]
	case "PORT_QOS_MAP":
		if key == "global" {
			return field == "dscp_to_tc_map"
		}
		return s.ports[key] && slices.Contains(portQoSFields, field)
	case "CABLE_LENGTH":
		return key == cableList && s.ports[field]
	case "PFC_WD":
		if key == "GLOBAL" {
			// Owned while rendered: config apply-patch refuses to remove
			// the poll interval (sonic-utilities@691b1bbc
			// generic_config_updater/gu_common.py validate_field_operation).
			return field == "POLL_INTERVAL" && s.rendered[fieldKey{table, key, field}]
		}
		return s.ports[key] && slices.Contains(watchdogField, field)
	}
	return false
}

// Desired returns the desired state of switch d: the fields its
// config_db.json and breakout_cfg.json are printed from.
func (Renderer) Desired(d *ir.Device) (renderers.State, error) {
	if d == nil {
		return nil, fmt.Errorf("sonic: no device")
	}
	if err := renderers.CheckDevice(d); err != nil {
		return nil, err
	}
	es, _, err := build(d)
	if err != nil {
		return nil, err
	}
	return &State{es: es}, nil
}

// Parse reads d's running config_db.json (the artifact of that name, as
// `show runningconfiguration all` prints CONFIG_DB or `config save`
// writes it) within the owned scope. Tables, rows and fields outside it
// (DEVICE_METADATA, BGP, LOOPBACK, INTERFACE, other ports, the PORT
// fields SONiC fills in such as fec and autoneg) are not read; only
// whether rows and tables exist is kept. A switch without the file runs
// nothing of rocefab's yet: an empty state. Other files are not read:
// a switch's BREAKOUT_CFG is in its config_db.json.
func (Renderer) Parse(d *ir.Device, running []renderers.Artifact) (renderers.State, error) {
	if d == nil {
		return nil, fmt.Errorf("sonic: no device")
	}
	if err := renderers.CheckDevice(d); err != nil {
		return nil, err
	}
	at, err := renderers.RunningFile(running, FileName)
	if err != nil {
		return nil, fmt.Errorf("sonic: %s: %w", d.Name, err)
	}
	var found *renderers.Artifact
	if at >= 0 {
		found = &running[at]
	}
	sc, err := scopeFor(d)
	if err != nil {
		return nil, err
	}
	if found == nil {
		return &State{parsed: true, tables: map[string]bool{}, tableRows: map[string]int{}, rowsOf: map[string][]rowInfo{}}, nil
	}
	s, err := parse(found.Content, sc)
	if err != nil {
		return nil, fmt.Errorf("sonic: %s: %w", found.Path, err)
	}
	return s, nil
}
