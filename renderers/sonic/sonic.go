package sonic

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// FileName is the name of the artifact under the device's directory.
const FileName = "config_db.json"

// BreakoutFileName is the device's breakout artifact: the BREAKOUT_CFG
// entries (parent port → breakout mode) its ports need, the state CONFIG_DB
// holds once `config interface breakout <parent> <mode>` has run. It is a
// file of its own because a breakout is not a merge: dynamic port breakout
// deletes the parent's ports and creates the mode's ports with the lanes
// platform.json gives them (PORT lanes are create-only), so it runs, port
// by port, before config_db.json is applied. It is written only for
// devices whose ports come from a SKU port map.
const BreakoutFileName = "breakout_cfg.json"

// Renderer renders SONiC switches. It is stateless.
type Renderer struct{}

var _ renderers.Renderer = Renderer{}

// Names of the objects the artifact creates. The QoS maps get a name of
// their own rather than SONiC's "AZURE": binding them per port (and on
// PORT_QOS_MAP|global) is what overrides the default map, which sends DSCP 26
// to lossy TC 1 (switches.md §3.4, §3.6), without rewriting a map that ports
// outside the model may still use. CABLE_LENGTH keeps "AZURE" because
// buffermgrd reads every list of that table: a second list would give a port
// two lengths.
const (
	mapName   = "ROCEFAB"
	cableList = "AZURE"

	poolIngressLossless = "ingress_lossless_pool"
	poolIngressLossy    = "ingress_lossy_pool"
	poolEgressLossless  = "egress_lossless_pool"
	poolEgressLossy     = "egress_lossy_pool"

	profileIngressLossy   = "ingress_lossy_profile"
	profileEgressLossless = "egress_lossless_profile"
	profileEgressLossy    = "egress_lossy_profile"
)

// Dynamic-threshold exponents (α = 2^n) of the profiles the model has no
// number for, as SONiC's own buffer templates set them
// (sonic-config-engine sample buffers-mellanox4600c-t1.json): lossy
// priority groups and queues 3 (α = 8); egress lossless queues 7 (α = 128),
// so that a lossless queue is never dropped at egress and PFC, which acts at
// ingress, stays the only back-pressure.
const (
	lossyDynamicTh          = "3"
	egressLosslessDynamicTh = "7"
)

// Ranges of SONiC's YANG models (shared/yang/sonic).
const (
	minDetectMs, maxDetectMs   = 100, 5000  // sonic-pfcwd detection_time
	minRestoreMs, maxRestoreMs = 100, 60000 // sonic-pfcwd restoration_time
	minPollMs, maxPollMs       = 100, 1000  // sonic-pfcwd POLL_INTERVAL
	minMTU, maxMTU             = 68, 9216   // sonic-port mtu
	maxSpeedMbps               = 1_600_000  // sonic-port speed
	minDynamicTh, maxDynamicTh = -8, 7      // sonic-buffer-profile dynamic_th
	maxWREDName                = 32         // sonic-wred-profile name length
)

// defaultPollMs is the PFC watchdog poll interval of SONiC's
// `config pfcwd start_default` (sonic-utilities pfcwd/main.py,
// switches.md §3.4). The model has no poll interval; the YANG wants it no
// larger than detection_time and restoration_time.
const defaultPollMs = 200

// Render returns the device's config_db.json. It refuses devices that are
// not SONiC switches and models it cannot express as valid CONFIG_DB.
func (Renderer) Render(d *ir.Device) ([]renderers.Artifact, error) {
	if d == nil {
		return nil, errors.New("sonic: no device")
	}
	if err := renderers.CheckDevice(d); err != nil {
		return nil, err
	}
	buf := entryBufs.Get().(*[]entry)
	// Not cleared: the next switch overwrites the entries it sets, and
	// clearing strings while the collector marks costs a write barrier
	// each.
	defer entryBufs.Put(buf)
	t, _, err := buildTables(d, (*buf)[:0])
	if err != nil {
		return nil, err
	}
	es := t.e
	*buf = es
	var db, breakout []byte
	switch lo, hi := tableRange(es, tableBreakout); {
	case t.shape != nil && lo < 0:
		db = t.shape.print(configs.Get(0), es, 0, len(es))
	case t.shape != nil && lo == 0:
		// BREAKOUT_CFG sorts first.
		breakout = t.shape.print(breakouts.Get(0), es, 0, hi)
		db = t.shape.print(configs.Get(0), es, hi, len(es))
	default:
		in, out := split(es, tableBreakout)
		db = appendJSON(configs.Get(0), out)
		if len(in) > 0 {
			breakout = appendJSON(breakouts.Get(0), in)
		}
	}
	arts := []renderers.Artifact{configs.Artifact(d.Name+"/"+FileName, renderers.JSON, db)}
	if len(breakout) > 0 {
		arts = append(arts, breakouts.Artifact(d.Name+"/"+BreakoutFileName, renderers.JSON, breakout))
	}
	return arts, nil
}

// configs and breakouts hold the buffers config_db.json and
// breakout_cfg.json are printed into.
var configs, breakouts renderers.ContentPool

// entryBufs holds the entries of switches already printed: Render needs
// them only until config_db.json is written, and the next switch of a
// fabric sets about as many.
var entryBufs = sync.Pool{New: func() any { return new([]entry) }}

// tableBreakout is SONiC's dynamic port breakout table: BREAKOUT_CFG|<parent>
// brkout_mode (sonic-yang-models sonic-breakout_cfg.yang at
// sonic-net/sonic-buildimage@086b03bd; sonic-utilities `config interface
// breakout`, which checks the mode against platform.json).
const tableBreakout = "BREAKOUT_CFG"

// Gaps lists what the model says about d that its config_db.json does not
// say, or says differently, each with what is rendered instead. JSON has no
// comments, so this list is where those gaps are recorded. It is nil for a
// device Render refuses.
func Gaps(d *ir.Device) []string {
	if d == nil || renderers.CheckDevice(d) != nil {
		return nil
	}
	_, gaps, err := build(d)
	if err != nil {
		return nil
	}
	return gaps
}

// builder carries what build computes once and uses for every port.
type builder struct {
	d    *ir.Device
	sw   *ir.Switch
	qos  *ir.QoS
	t    tables
	gaps []string

	breakouts map[string]string // parent port → BREAKOUT_CFG brkout_mode

	losslessPGs []int // ingress priority groups of the lossless priorities
	lossyPGs    []int // priority groups of every other traffic class
	losslessQs  []int // egress queues of the lossless priorities

	profiles map[*ir.Headroom]string // port class → BUFFER_PROFILE name
}

func (b *builder) gapf(format string, args ...any) {
	b.gaps = append(b.gaps, fmt.Sprintf(format, args...))
}

// build computes the tables of d, as sorted entries, and its gap list.
func build(d *ir.Device) ([]entry, []string, error) {
	t, gaps, err := buildTables(d, nil)
	if err != nil {
		return nil, nil, err
	}
	return t.e, gaps, nil
}

// buildTables is build appending the entries to dst[:0], whose array it
// reuses when it is large enough; the tables say what order they were put
// in.
func buildTables(d *ir.Device, dst []entry) (*tables, []string, error) {
	b, err := newBuilder(d)
	if err != nil {
		return nil, nil, err
	}
	// About 30 fields per port and 150 for the rest: one allocation for
	// the common switch.
	b.t.e = slices.Grow(dst[:0], 32*len(d.Switch.Ports)+160)
	steps := []func() error{
		b.classify,
		b.maps,
		b.pools,
		b.headroomProfiles,
		b.schedulersAndECN,
		b.ports,
		b.watchdog,
		b.loadBalancing,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, nil, fmt.Errorf("sonic: %s: %w", d.Name, err)
		}
	}
	if err := b.t.finish(); err != nil {
		return nil, nil, fmt.Errorf("sonic: %s: %w", d.Name, err)
	}
	return &b.t, b.gaps, nil
}

// newBuilder checks that d is a SONiC switch with what rendering needs.
func newBuilder(d *ir.Device) (*builder, error) {
	if d.Switch == nil {
		return nil, fmt.Errorf("sonic: %s is not a switch (role %q)", d.Name, d.Role)
	}
	if d.Platform != ir.PlatformSONiC {
		return nil, fmt.Errorf("sonic: %s runs %q, not %q", d.Name, d.Platform, ir.PlatformSONiC)
	}
	if d.Role == ir.RoleHost {
		return nil, fmt.Errorf("sonic: %s is a host", d.Name)
	}
	sw := d.Switch
	if sw.QoS == nil {
		return nil, fmt.Errorf("sonic: %s has no QoS policy", d.Name)
	}
	if sw.Buffers == nil {
		return nil, fmt.Errorf("sonic: %s has no buffer plan", d.Name)
	}
	return &builder{d: d, sw: sw, qos: sw.QoS, profiles: map[*ir.Headroom]string{}, breakouts: map[string]string{}}, nil
}

// classify splits priority groups and queues into lossless and lossy.
func (b *builder) classify() error {
	q := b.qos
	if err := renderers.CheckQoSRanges(q); err != nil {
		return err
	}
	for tc, v := range q.TCToPG {
		if v < 0 || v > 7 {
			return fmt.Errorf("traffic class %d maps to priority group %d, outside 0..7", tc, v)
		}
	}
	lossless := map[int]bool{}
	for _, p := range q.PFC {
		lossless[p] = true
	}
	pgs, lossyPGs, queues := map[int]bool{}, map[int]bool{}, map[int]bool{}
	for tc := range 8 {
		if lossless[tc] {
			pgs[q.TCToPG[tc]] = true
			queues[q.TCToQueue[tc]] = true
		} else {
			lossyPGs[q.TCToPG[tc]] = true
		}
	}
	for pg := range pgs {
		if lossyPGs[pg] {
			// Lossy traffic in a PFC-enabled group would be paused, and its
			// headroom would absorb lossy bursts.
			return fmt.Errorf("priority group %d carries both lossless and lossy traffic classes", pg)
		}
	}
	for _, qq := range q.Queues {
		if qq.Lossless != queues[qq.ID] {
			return fmt.Errorf("queue %d is lossless=%t but the lossless priorities map to queues %v", qq.ID, qq.Lossless, sortedKeys(queues))
		}
	}
	b.losslessPGs = sortedKeys(pgs)
	b.lossyPGs = sortedKeys(lossyPGs)
	b.losslessQs = sortedKeys(queues)
	return nil
}

// maps writes the four QoS maps, each with every key, so that nothing falls
// back to a platform default.
func (b *builder) maps() error {
	q := b.qos
	for v, tc := range q.DSCPToTC {
		b.t.set("DSCP_TO_TC_MAP", mapName, strconv.Itoa(v), strconv.Itoa(tc))
	}
	for tc := range 8 {
		k := strconv.Itoa(tc)
		b.t.set("TC_TO_QUEUE_MAP", mapName, k, strconv.Itoa(q.TCToQueue[tc]))
		b.t.set("TC_TO_PRIORITY_GROUP_MAP", mapName, k, strconv.Itoa(q.TCToPG[tc]))
		// A priority is also a traffic class (ir.Class): a PFC frame for
		// priority p pauses the queue that TC p is sent on.
		b.t.set("MAP_PFC_PRIORITY_TO_QUEUE", mapName, k, strconv.Itoa(q.TCToQueue[tc]))
	}
	// The global binding is the switch-wide DSCP map; without it SONiC keeps
	// AZURE there (switches.md §3.6).
	b.t.set("PORT_QOS_MAP", "global", "dscp_to_tc_map", mapName)
	return nil
}

// pools writes the four buffer pools of the model's buffer plan. Lossless
// and lossy ingress traffic get pools of their own so that the reserve is
// the lossless class's alone, and so that a lossless priority group is the
// only user of its pool, the case the plan's XOFF point is computed for
// (α/(1+α)·pool, compiler/physics XoffPoint). Per-PG headroom
// (BUFFER_PROFILE size) is reserved outside the shared pools, which is how
// the plan counts it (HeadroomBytes apart from LosslessBytes).
func (b *builder) pools() error {
	bp := b.sw.Buffers
	if bp.LosslessBytes < 0 || bp.TotalBytes <= 0 {
		return fmt.Errorf("buffer plan of %s has no usable size (total %d B, lossless %d B)", bp.Model, bp.TotalBytes, bp.LosslessBytes)
	}
	if !bp.Fits() {
		return fmt.Errorf("buffer plan of %s is over budget by %d B (RF104): no lossy pool size can be programmed", bp.Model, -bp.LossyBytes)
	}
	if bp.Convention == conventionBroadcomXGS {
		return b.poolsBroadcom()
	}
	b.pool(poolIngressLossless, "ingress", bp.LosslessBytes)
	b.pool(poolIngressLossy, "ingress", bp.LossyBytes)
	// Egress accounting of lossless traffic spans the whole buffer: PFC
	// holds it back at ingress, and an egress limit would only drop it.
	b.pool(poolEgressLossless, "egress", bp.TotalBytes)
	b.pool(poolEgressLossy, "egress", bp.LossyBytes)

	b.t.set("BUFFER_PROFILE", profileIngressLossy, "pool", poolIngressLossy, "size", "0", "dynamic_th", lossyDynamicTh)
	b.t.set("BUFFER_PROFILE", profileEgressLossless, "pool", poolEgressLossless, "size", "0", "dynamic_th", egressLosslessDynamicTh)
	b.t.set("BUFFER_PROFILE", profileEgressLossy, "pool", poolEgressLossy, "size", "0", "dynamic_th", lossyDynamicTh)
	return nil
}

// conventionBroadcomXGS is the buffer convention of Broadcom XGS ASICs
// (compiler/physics ConventionBroadcomXGS).
const conventionBroadcomXGS = "broadcom-xgs"

// poolsBroadcom writes the pools and fixed profiles in the form the
// Tomahawk SKU files use (sonic-net/sonic-buildimage@086b03bd
// device/arista/x86_64-arista_7060x6_64pe/Arista-7060X6-64PE-O128S2 and
// device/common/profiles/th4/gen/BALANCED buffers_defaults_t1.j2; the
// DS5000's in pull request 28275): one ingress pool that lossy and
// lossless priority groups share, whose xoff is the shared headroom pool
// the lossless profiles' xoff draws from; an egress lossless pool with a
// static limit, so that egress never drops what PFC holds back; and an
// egress lossy pool. The ingress pool's size holds its xoff (SAI:
// SAI_BUFFER_POOL_ATTR_XOFF_SIZE is part of SAI_BUFFER_POOL_ATTR_SIZE,
// opencomputeproject/SAI pull request 980; in both SKU files size + xoff
// exceeds the buffer), and size is the buffer less the cells the ASIC's
// SDK keeps for itself (the vendors' files leave them out: catalog
// sdkReservedBytes) and the reserved minimums.
// The class reserve becomes the bound on lossy egress: lossy traffic can
// hold at most the egress lossy pool, which leaves the reserve, the
// headroom pool and the minimums to lossless traffic. The plan's XOFF
// point is computed on size − xoff − the egress lossy pool, the pool a
// lossless priority group's dynamic threshold sees when lossy traffic
// holds all it can (compiler/physics BroadcomLosslessPool).
func (b *builder) poolsBroadcom() error {
	bp := b.sw.Buffers
	shared := bp.TotalBytes - bp.SDKReservedBytes - bp.MinimumBytes
	b.pool(poolIngressLossless, "ingress", shared)
	b.t.set("BUFFER_POOL", poolIngressLossless, "xoff", strconv.FormatInt(bp.HeadroomBytes, 10))
	b.pool(poolEgressLossless, "egress", shared)
	b.pool(poolEgressLossy, "egress", bp.LossyBytes)
	b.t.set("BUFFER_PROFILE", profileIngressLossy, "pool", poolIngressLossless, "size", "0", "dynamic_th", lossyDynamicTh)
	b.t.set("BUFFER_PROFILE", profileEgressLossless, "pool", poolEgressLossless, "size", "0", "static_th", strconv.FormatInt(shared, 10))
	b.t.set("BUFFER_PROFILE", profileEgressLossy, "pool", poolEgressLossy, "size", "0", "dynamic_th", lossyDynamicTh)
	return nil
}

// pool writes a dynamic buffer pool of size bytes.
func (b *builder) pool(name, typ string, size int64) {
	b.t.set("BUFFER_POOL", name, "type", typ, "mode", "dynamic", "size", strconv.FormatInt(size, 10))
}

// alphaLog2 returns the dynamic-threshold exponent the buffer plan's XOFF
// point was computed with, read from its derivation (input "k" of the
// "xoff-point" derivation), and whether it was recorded. The XOFF point that
// lint compares ECN against holds only if the lossless profiles use the same
// α.
func alphaLog2(bp *ir.BufferPlan) (int, bool) {
	for _, dv := range bp.Derived {
		if dv.Field != "xoff-point" {
			continue
		}
		for _, in := range dv.Inputs {
			if in.Name == "k" {
				if k, err := strconv.Atoi(strings.TrimSpace(in.Value)); err == nil {
					return k, true
				}
			}
		}
	}
	return 0, false
}

// cableMetres is the cable length as CABLE_LENGTH takes it: whole metres
// (sonic-cable-length pattern [0-9]+m), rounded up so that a length SONiC
// itself computes headroom from is never shorter than the cable.
func cableMetres(m float64) (int, error) {
	if math.IsNaN(m) || m < 0 || m > 1_000_000 {
		return 0, fmt.Errorf("cable length %g m cannot be rendered", m)
	}
	return int(math.Ceil(m)), nil
}

func speedMbps(gbps int) (int, error) {
	if gbps <= 0 || gbps > maxSpeedMbps/1000 {
		return 0, fmt.Errorf("port speed %d Gbit/s outside SONiC's 1..%d Mb/s", gbps, maxSpeedMbps)
	}
	return gbps * 1000, nil
}

// headroomProfiles writes one ingress lossless profile per port class.
func (b *builder) headroomProfiles() error {
	if len(b.losslessPGs) == 0 {
		return nil
	}
	k, ok := alphaLog2(b.sw.Buffers)
	if !ok {
		// The plan's XOFF point in the model is α/(1+α)·pool with α = 1
		// unless the plan records otherwise.
		k = 0
	}
	if k < minDynamicTh || k > maxDynamicTh {
		c := max(minDynamicTh, min(k, maxDynamicTh))
		b.gapf("lossless dynamic threshold exponent %d is outside SONiC's dynamic_th %d..%d; rendered %d, which moves the XOFF point the ECN thresholds were checked against",
			k, minDynamicTh, maxDynamicTh, c)
		k = c
	}
	// Port classes in a stable order: those the switch lists, then any a
	// port refers to that the list lacks.
	for _, p := range b.sw.Ports {
		if p.Headroom == nil {
			return fmt.Errorf("port %s has no headroom for its lossless priorities", p.Name)
		}
	}
	classes := renderers.HeadroomClasses(b.sw.Headrooms, b.sw.Ports)
	byName := map[string]*ir.Headroom{}
	var names []string
	for _, h := range classes {
		if h.Xoff < 0 || h.Xon < 0 || h.Size < 0 {
			return fmt.Errorf("headroom %s has a negative size", h.Name)
		}
		mbps, err := speedMbps(h.SpeedGbps)
		if err != nil {
			return fmt.Errorf("headroom %s: %w", h.Name, err)
		}
		cable, err := cableMetres(h.CableM)
		if err != nil {
			return fmt.Errorf("headroom %s: %w", h.Name, err)
		}
		name := fmt.Sprintf("pg_lossless_%d_%dm_profile", mbps, cable)
		b.profiles[h] = name
		prev, dup := byName[name]
		if !dup {
			byName[name] = h
			names = append(names, name)
			continue
		}
		// Two classes whose cables round to the same whole metres share
		// SONiC's (speed, cable) profile: keep the larger headroom, which
		// covers both cables.
		keep, drop := prev, h
		if h.Size > prev.Size || (h.Size == prev.Size && h.Xoff > prev.Xoff) {
			keep, drop = h, prev
		}
		byName[name] = keep
		b.gapf("port classes %s and %s share the SONiC headroom profile %s (CABLE_LENGTH takes whole metres); both get the headroom of %s (xoff %d B, size %d B) instead of %s's (xoff %d B, size %d B)",
			prev.Name, h.Name, name, keep.Name, keep.Xoff, keep.Size, drop.Name, drop.Xoff, drop.Size)
	}
	for _, name := range names {
		h := byName[name]
		xon := strconv.FormatInt(h.Xon, 10)
		b.t.set("BUFFER_PROFILE", name, "pool", poolIngressLossless, "xoff", strconv.FormatInt(h.Xoff, 10),
			"xon", xon, "dynamic_th", strconv.Itoa(k))
		if b.sw.Buffers.Convention == conventionBroadcomXGS {
			// size is the reserved minimum; xoff alone is the headroom,
			// from the pool's shared headroom; XON comes xon_offset below
			// the XOFF point (pg_profile_lookup.ini of the Tomahawk SKUs:
			// size, xon, xoff, threshold, xon_offset, with xon = xon_offset
			// in th4/gen and the DS5000).
			b.t.set("BUFFER_PROFILE", name, "size", strconv.FormatInt(b.sw.Buffers.PGMinBytes, 10), "xon_offset", xon)
		} else {
			b.t.set("BUFFER_PROFILE", name, "size", strconv.FormatInt(h.Size, 10))
		}
	}
	return nil
}

// schedulerName names the scheduler of queue q after its class.
func schedulerName(q ir.Queue) string {
	if q.Class != nil {
		return "scheduler." + q.Class.Name
	}
	return "scheduler." + strconv.Itoa(q.ID)
}

// wredName names the ECN profile of queue q after its class when the class
// name fits SONiC's WRED name pattern [a-zA-Z0-9][-a-zA-Z0-9_]{0,31}, after
// its queue otherwise (class names may hold '.' and '/').
func wredName(q ir.Queue) string {
	if q.Class != nil {
		n := q.Class.Name + "_ecn"
		if len(n) <= maxWREDName && wredNameOK(n) {
			return n
		}
	}
	return "queue" + strconv.Itoa(q.ID) + "_ecn"
}

func wredNameOK(s string) bool {
	for i, r := range s {
		alnum := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !alnum && (i == 0 || r != '-' && r != '_') {
			return false
		}
	}
	return s != ""
}

// schedulersAndECN writes one scheduler per queue and one WRED/ECN profile
// per marking queue.
func (b *builder) schedulersAndECN() error {
	wredOwner := map[string]int{}
	for _, q := range b.qos.Queues {
		switch {
		case q.Strict:
			b.t.set("SCHEDULER", schedulerName(q), "type", "STRICT")
		case q.Weight < 1 || q.Weight > 100:
			w := max(1, min(q.Weight, 100))
			b.gapf("queue %d: ETS weight %d is outside SONiC's DWRR weight 1..100; rendered %d", q.ID, q.Weight, w)
			b.t.set("SCHEDULER", schedulerName(q), "type", "DWRR", "weight", strconv.Itoa(w))
		default:
			b.t.set("SCHEDULER", schedulerName(q), "type", "DWRR", "weight", strconv.Itoa(q.Weight))
		}
		if q.ECN == nil {
			continue
		}
		e := q.ECN
		if e.MinBytes < 0 || e.MaxBytes < e.MinBytes || e.Probability < 0 || e.Probability > 100 {
			return fmt.Errorf("queue %d: ECN min %d B, max %d B, probability %d %% cannot be programmed (RF101)", q.ID, e.MinBytes, e.MaxBytes, e.Probability)
		}
		name := wredName(q)
		if other, dup := wredOwner[name]; dup {
			return fmt.Errorf("queues %d and %d would share the WRED profile name %s", other, q.ID, name)
		}
		wredOwner[name] = q.ID
		// ecn_all marks instead of dropping for every colour; traffic is not
		// coloured here, so green thresholds are the ones that act
		// (sonic-wred-profile; switches.md §3.3).
		b.t.set("WRED_PROFILE", name,
			"ecn", "ecn_all",
			"wred_green_enable", "true",
			"green_min_threshold", strconv.FormatInt(e.MinBytes, 10),
			"green_max_threshold", strconv.FormatInt(e.MaxBytes, 10),
			"green_drop_probability", strconv.Itoa(e.Probability))
	}
	return nil
}

// idRanges groups sorted IDs into the "a-b" ranges of consecutive IDs that
// SONiC keys priority groups and queues with, the way buffermgrd derives
// lossless PG keys from pfc_enable (sonic-swss orchagent/orch.cpp
// generateIdListFromMap): {3,4} → "3-4", {1,2,5} → "1-2","5".
func idRanges(ids []int) []string {
	var out []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if i == j {
			out = append(out, strconv.Itoa(ids[i]))
		} else {
			out = append(out, strconv.Itoa(ids[i])+"-"+strconv.Itoa(ids[j]))
		}
		i = j + 1
	}
	return out
}

// ports writes everything keyed by port: PORT, CABLE_LENGTH, PORT_QOS_MAP,
// BUFFER_PG, BUFFER_QUEUE and QUEUE.
func (b *builder) ports() error {
	if b.sw.MTU < minMTU || b.sw.MTU > maxMTU {
		return fmt.Errorf("switch MTU %d outside SONiC's %d..%d", b.sw.MTU, minMTU, maxMTU)
	}
	pfc := renderers.JoinInts(slices.Sorted(slices.Values(b.qos.PFC)), ",")
	wd := ""
	if b.qos.Watchdog.Enabled {
		wd = pfc
	}
	var lossyQs []int
	for qid := range 8 {
		if !slices.Contains(b.losslessQs, qid) {
			lossyQs = append(lossyQs, qid)
		}
	}
	mtu := strconv.Itoa(b.sw.MTU)
	lossyPGs, losslessPGs := idRanges(b.lossyPGs), idRanges(b.losslessPGs)
	losslessQs, lossyQRanges := idRanges(b.losslessQs), idRanges(lossyQs)
	// The scheduler and WRED profile names of each queue, the same on
	// every port.
	queues := make([]struct{ scheduler, wred string }, len(b.qos.Queues))
	for i, q := range b.qos.Queues {
		queues[i].scheduler, queues[i].wred = schedulerName(q), wredName(q)
	}
	seen := make(map[string]bool, len(b.sw.Ports))
	var noMap []string
	for _, p := range b.sw.Ports {
		if seen[p.Name] {
			return fmt.Errorf("port %s is listed twice", p.Name)
		}
		seen[p.Name] = true
		mbps, err := speedMbps(p.SpeedGbps)
		if err != nil {
			return fmt.Errorf("port %s: %w", p.Name, err)
		}
		b.t.set("PORT", p.Name, "admin_status", "up", "mtu", mtu, "speed", strconv.Itoa(mbps))
		switch {
		case p.Peer != "" && p.PeerPort != "":
			b.t.set("PORT", p.Name, "description", ir.Endpoint{Device: p.Peer, Port: p.PeerPort}.String())
		case p.Peer != "":
			b.t.set("PORT", p.Name, "description", p.Peer)
		}
		sku := p.SKU
		if sku == nil {
			sku = &ir.SKUPort{}
		}
		if len(sku.SerDes) > 0 {
			// The SKU's own identity of the port: lanes, alias and index as
			// SONiC creates it from platform.json and the breakout mode, so
			// that a merge rewrites none of them (lanes are create-only).
			b.t.set("PORT", p.Name, "lanes", renderers.JoinInts(sku.SerDes, ","))
			if sku.Alias != "" {
				b.t.set("PORT", p.Name, "alias", sku.Alias)
			}
			if sku.Index > 0 {
				b.t.set("PORT", p.Name, "index", strconv.Itoa(sku.Index))
			}
		} else {
			noMap = append(noMap, p.Name)
		}
		if sku.BreakoutParent != "" && sku.BreakoutMode != "" {
			prev, ok := b.breakouts[sku.BreakoutParent]
			if ok && prev != sku.BreakoutMode {
				return fmt.Errorf("port %s: parent %s is in breakout mode %s for another port, not %s", p.Name, sku.BreakoutParent, prev, sku.BreakoutMode)
			}
			if !ok {
				b.breakouts[sku.BreakoutParent] = sku.BreakoutMode
				b.t.set(tableBreakout, sku.BreakoutParent, "brkout_mode", sku.BreakoutMode)
			}
		}

		cable, err := cableMetres(p.CableM)
		if err != nil {
			return fmt.Errorf("port %s: %w", p.Name, err)
		}
		if float64(cable) != p.CableM {
			b.gapf("port %s: cable %g m rendered as CABLE_LENGTH %dm (SONiC takes whole metres); headroom comes from the explicit xoff/xon/size of its profile, not from SONiC's cable lookup", p.Name, p.CableM, cable)
		}
		b.t.set("CABLE_LENGTH", cableList, p.Name, strconv.Itoa(cable)+"m")

		b.t.set("PORT_QOS_MAP", p.Name,
			"dscp_to_tc_map", mapName,
			"tc_to_queue_map", mapName,
			"tc_to_pg_map", mapName,
			"pfc_to_queue_map", mapName,
			"pfc_enable", pfc,
			"pfcwd_sw_enable", wd)

		for _, r := range lossyPGs {
			b.t.set("BUFFER_PG", p.Name+"|"+r, "profile", profileIngressLossy)
		}
		if len(losslessPGs) > 0 {
			prof, ok := b.profiles[p.Headroom]
			if !ok {
				return fmt.Errorf("port %s has no headroom for its lossless priorities", p.Name)
			}
			for _, r := range losslessPGs {
				b.t.set("BUFFER_PG", p.Name+"|"+r, "profile", prof)
			}
		}
		for _, r := range losslessQs {
			b.t.set("BUFFER_QUEUE", p.Name+"|"+r, "profile", profileEgressLossless)
		}
		for _, r := range lossyQRanges {
			b.t.set("BUFFER_QUEUE", p.Name+"|"+r, "profile", profileEgressLossy)
		}

		for i, q := range b.qos.Queues {
			key := p.Name + "|" + strconv.Itoa(q.ID)
			b.t.set("QUEUE", key, "scheduler", queues[i].scheduler)
			if q.ECN != nil {
				b.t.set("QUEUE", key, "wred_profile", queues[i].wred)
			}
		}
	}
	if len(noMap) > 0 {
		b.gapf("ports %s: %s has no SONiC port map in the catalog; PORT lanes, alias and index are not rendered (the switch's own PORT table keeps them) and breakouts are not rendered", strings.Join(noMap, ", "), b.d.Model)
	}
	return nil
}

// watchdog writes PFC_WD: the timers per port and the global poll
// interval, clamped into SONiC's ranges.
func (b *builder) watchdog() error {
	w := b.qos.Watchdog
	if !w.Enabled || len(b.qos.PFC) == 0 {
		return nil
	}
	switch w.Action {
	case "drop", "forward", "alert":
	default:
		return fmt.Errorf("PFC watchdog action %q is not one of drop, forward, alert", w.Action)
	}
	detect := max(minDetectMs, min(w.DetectMs, maxDetectMs))
	if detect != w.DetectMs {
		b.gapf("PFC watchdog detection time %d ms is outside SONiC's %d..%d ms; rendered %d ms", w.DetectMs, minDetectMs, maxDetectMs, detect)
	}
	restore := max(minRestoreMs, min(w.RestoreMs, maxRestoreMs))
	if restore != w.RestoreMs {
		b.gapf("PFC watchdog restoration time %d ms is outside SONiC's %d..%d ms; rendered %d ms", w.RestoreMs, minRestoreMs, maxRestoreMs, restore)
	}
	poll := max(minPollMs, min(defaultPollMs, detect, restore, maxPollMs))
	b.t.set("PFC_WD", "GLOBAL", "POLL_INTERVAL", strconv.Itoa(poll))
	detectMs, restoreMs := strconv.Itoa(detect), strconv.Itoa(restore)
	for _, p := range b.sw.Ports {
		b.t.set("PFC_WD", p.Name,
			"action", w.Action,
			"detection_time", detectMs,
			"restoration_time", restoreMs)
	}
	return nil
}

// loadBalancing records that community SONiC cannot express adaptive
// routing or spraying: the ARS_* tables (sonic-ars.yang, rev 2025-10-30)
// exist only off master (switches.md §0, §3.1).
func (b *builder) loadBalancing() error {
	switch lb := b.sw.LoadBalancing; lb {
	case "", "ecmp":
	case "adaptive", "spray":
		b.gapf("load balancing %q: community SONiC master has no adaptive routing or packet spraying (ARS tables exist only off master); not rendered, the switch keeps hash-based ECMP", lb)
	default:
		b.gapf("load balancing %q is unknown to this renderer; not rendered, the switch keeps hash-based ECMP", lb)
	}
	return nil
}

func sortedKeys(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
