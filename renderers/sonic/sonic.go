package sonic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

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
	db, _, err := build(d)
	if err != nil {
		return nil, err
	}
	breakout := configDB{}
	if t, ok := db[tableBreakout]; ok {
		breakout[tableBreakout] = t
		delete(db, tableBreakout)
	}
	content, err := db.marshal()
	if err != nil {
		return nil, fmt.Errorf("sonic: %s: %w", d.Name, err)
	}
	arts := []renderers.Artifact{{Path: d.Name + "/" + FileName, Format: renderers.JSON, Content: content}}
	if len(breakout) > 0 {
		b, err := breakout.marshal()
		if err != nil {
			return nil, fmt.Errorf("sonic: %s: %w", d.Name, err)
		}
		arts = append(arts, renderers.Artifact{Path: d.Name + "/" + BreakoutFileName, Format: renderers.JSON, Content: b})
	}
	return arts, nil
}

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

// configDB is CONFIG_DB as config_db.json holds it: table, key, field,
// value. Every value is a string, as in CONFIG_DB itself.
type configDB map[string]map[string]map[string]string

func (db configDB) set(table, key string, fields map[string]string) {
	t := db[table]
	if t == nil {
		t = map[string]map[string]string{}
		db[table] = t
	}
	t[key] = fields
}

// marshal writes db the way `config save` does (sonic-cfggen
// --print-data: keys sorted, four-space indent), so that a saved
// config_db.json and this file differ only where the configuration does.
// It writes the three fixed levels directly: encoding/json's reflection and
// re-indentation cost more than the rest of rendering a leaf. A test checks
// the bytes equal encoding/json's.
func (db configDB) marshal() ([]byte, error) {
	b := make([]byte, 0, 64<<10)
	str := func(s string) {
		plain := true
		for i := 0; i < len(s) && plain; i++ {
			plain = s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' && s[i] != '\\'
		}
		if plain {
			b = append(b, '"')
			b = append(b, s...)
			b = append(b, '"')
			return
		}
		q, _ := json.Marshal(s) // names and values are plain; this keeps odd ones right
		if bytes.Contains(q, []byte(`\u00`)) {
			q = bytes.ReplaceAll(q, []byte(`\u003c`), []byte("<"))
			q = bytes.ReplaceAll(q, []byte(`\u003e`), []byte(">"))
			q = bytes.ReplaceAll(q, []byte(`\u0026`), []byte("&"))
		}
		b = append(b, q...)
	}
	if len(db) == 0 {
		return []byte("{}\n"), nil
	}
	b = append(b, "{\n"...)
	for i, table := range slices.Sorted(maps.Keys(db)) {
		if i > 0 {
			b = append(b, ",\n"...)
		}
		b = append(b, "    "...)
		str(table)
		rows := db[table]
		if len(rows) == 0 {
			b = append(b, ": {}"...)
			continue
		}
		b = append(b, ": {\n"...)
		for j, key := range slices.Sorted(maps.Keys(rows)) {
			if j > 0 {
				b = append(b, ",\n"...)
			}
			b = append(b, "        "...)
			str(key)
			fields := rows[key]
			if len(fields) == 0 {
				b = append(b, ": {}"...)
				continue
			}
			b = append(b, ": {\n"...)
			for k, f := range slices.Sorted(maps.Keys(fields)) {
				if k > 0 {
					b = append(b, ",\n"...)
				}
				b = append(b, "            "...)
				str(f)
				b = append(b, ": "...)
				str(fields[f])
			}
			b = append(b, "\n        }"...)
		}
		b = append(b, "\n    }"...)
	}
	b = append(b, "\n}\n"...)
	return b, nil
}

// marshalReflect is what marshal must equal: encoding/json's output.
func (db configDB) marshalReflect() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "    ")
	if err := enc.Encode(db); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// builder carries what build computes once and uses for every port.
type builder struct {
	d    *ir.Device
	sw   *ir.Switch
	qos  *ir.QoS
	db   configDB
	gaps []string

	losslessPGs []int // ingress priority groups of the lossless priorities
	lossyPGs    []int // priority groups of every other traffic class
	losslessQs  []int // egress queues of the lossless priorities

	profiles map[*ir.Headroom]string // port class → BUFFER_PROFILE name
}

func (b *builder) gapf(format string, args ...any) {
	b.gaps = append(b.gaps, fmt.Sprintf(format, args...))
}

// build computes the tables and the gap list of d.
func build(d *ir.Device) (configDB, []string, error) {
	if d.Switch == nil {
		return nil, nil, fmt.Errorf("sonic: %s is not a switch (role %q)", d.Name, d.Role)
	}
	if d.Platform != ir.PlatformSONiC {
		return nil, nil, fmt.Errorf("sonic: %s runs %q, not %q", d.Name, d.Platform, ir.PlatformSONiC)
	}
	if d.Role == ir.RoleHost {
		return nil, nil, fmt.Errorf("sonic: %s is a host", d.Name)
	}
	sw := d.Switch
	if sw.QoS == nil {
		return nil, nil, fmt.Errorf("sonic: %s has no QoS policy", d.Name)
	}
	if sw.Buffers == nil {
		return nil, nil, fmt.Errorf("sonic: %s has no buffer plan", d.Name)
	}
	b := &builder{d: d, sw: sw, qos: sw.QoS, db: configDB{}, profiles: map[*ir.Headroom]string{}}
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
	return b.db, b.gaps, nil
}

// classify splits priority groups and queues into lossless and lossy.
func (b *builder) classify() error {
	q := b.qos
	for tc, v := range q.TCToPG {
		if v < 0 || v > 7 {
			return fmt.Errorf("traffic class %d maps to priority group %d, outside 0..7", tc, v)
		}
	}
	for tc, v := range q.TCToQueue {
		if v < 0 || v > 7 {
			return fmt.Errorf("traffic class %d maps to queue %d, outside 0..7", tc, v)
		}
	}
	lossless := map[int]bool{}
	for _, p := range q.PFC {
		if p < 0 || p > 7 {
			return fmt.Errorf("lossless priority %d outside 0..7", p)
		}
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
	dscp := map[string]string{}
	for v, tc := range q.DSCPToTC {
		if tc < 0 || tc > 7 {
			return fmt.Errorf("DSCP %d maps to traffic class %d, outside 0..7", v, tc)
		}
		dscp[strconv.Itoa(v)] = strconv.Itoa(tc)
	}
	b.db.set("DSCP_TO_TC_MAP", mapName, dscp)
	tcq, tcpg, pfcq := map[string]string{}, map[string]string{}, map[string]string{}
	for tc := range 8 {
		k := strconv.Itoa(tc)
		tcq[k] = strconv.Itoa(q.TCToQueue[tc])
		tcpg[k] = strconv.Itoa(q.TCToPG[tc])
		// A priority is also a traffic class (ir.Class): a PFC frame for
		// priority p pauses the queue that TC p is sent on.
		pfcq[k] = strconv.Itoa(q.TCToQueue[tc])
	}
	b.db.set("TC_TO_QUEUE_MAP", mapName, tcq)
	b.db.set("TC_TO_PRIORITY_GROUP_MAP", mapName, tcpg)
	b.db.set("MAP_PFC_PRIORITY_TO_QUEUE", mapName, pfcq)
	// The global binding is the switch-wide DSCP map; without it SONiC keeps
	// AZURE there (switches.md §3.6).
	b.db.set("PORT_QOS_MAP", "global", map[string]string{"dscp_to_tc_map": mapName})
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
	pool := func(typ string, size int64) map[string]string {
		return map[string]string{"type": typ, "mode": "dynamic", "size": strconv.FormatInt(size, 10)}
	}
	if bp.Convention == conventionBroadcomXGS {
		return b.poolsBroadcom(pool)
	}
	b.db.set("BUFFER_POOL", poolIngressLossless, pool("ingress", bp.LosslessBytes))
	b.db.set("BUFFER_POOL", poolIngressLossy, pool("ingress", bp.LossyBytes))
	// Egress accounting of lossless traffic spans the whole buffer: PFC
	// holds it back at ingress, and an egress limit would only drop it.
	b.db.set("BUFFER_POOL", poolEgressLossless, pool("egress", bp.TotalBytes))
	b.db.set("BUFFER_POOL", poolEgressLossy, pool("egress", bp.LossyBytes))

	b.db.set("BUFFER_PROFILE", profileIngressLossy, map[string]string{
		"pool": poolIngressLossy, "size": "0", "dynamic_th": lossyDynamicTh})
	b.db.set("BUFFER_PROFILE", profileEgressLossless, map[string]string{
		"pool": poolEgressLossless, "size": "0", "dynamic_th": egressLosslessDynamicTh})
	b.db.set("BUFFER_PROFILE", profileEgressLossy, map[string]string{
		"pool": poolEgressLossy, "size": "0", "dynamic_th": lossyDynamicTh})
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
// egress lossy pool. The ingress pool's size holds its xoff: in both SKU
// files size + xoff exceeds the buffer, and size is the buffer less the
// reserved minimums [inference from the files; Broadcom publishes no
// document]. The class reserve becomes the bound on lossy egress: lossy
// traffic can hold at most the egress lossy pool, which leaves the
// reserve, the headroom pool and the minimums to lossless traffic.
func (b *builder) poolsBroadcom(pool func(string, int64) map[string]string) error {
	bp := b.sw.Buffers
	shared := bp.TotalBytes - bp.MinimumBytes
	ingress := pool("ingress", shared)
	ingress["xoff"] = strconv.FormatInt(bp.HeadroomBytes, 10)
	b.db.set("BUFFER_POOL", poolIngressLossless, ingress)
	b.db.set("BUFFER_POOL", poolEgressLossless, pool("egress", shared))
	b.db.set("BUFFER_POOL", poolEgressLossy, pool("egress", bp.LossyBytes))
	b.db.set("BUFFER_PROFILE", profileIngressLossy, map[string]string{
		"pool": poolIngressLossless, "size": "0", "dynamic_th": lossyDynamicTh})
	b.db.set("BUFFER_PROFILE", profileEgressLossless, map[string]string{
		"pool": poolEgressLossless, "size": "0", "static_th": strconv.FormatInt(shared, 10)})
	b.db.set("BUFFER_PROFILE", profileEgressLossy, map[string]string{
		"pool": poolEgressLossy, "size": "0", "dynamic_th": lossyDynamicTh})
	return nil
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
	var classes []*ir.Headroom
	seen := map[*ir.Headroom]bool{}
	add := func(h *ir.Headroom) {
		if h != nil && !seen[h] {
			seen[h] = true
			classes = append(classes, h)
		}
	}
	for _, h := range b.sw.Headrooms {
		add(h)
	}
	for _, p := range b.sw.Ports {
		if p.Headroom == nil {
			return fmt.Errorf("port %s has no headroom for its lossless priorities", p.Name)
		}
		add(p.Headroom)
	}
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
		prof := map[string]string{
			"pool":       poolIngressLossless,
			"xoff":       strconv.FormatInt(h.Xoff, 10),
			"xon":        strconv.FormatInt(h.Xon, 10),
			"size":       strconv.FormatInt(h.Size, 10),
			"dynamic_th": strconv.Itoa(k),
		}
		if b.sw.Buffers.Convention == conventionBroadcomXGS {
			// size is the reserved minimum; xoff alone is the headroom,
			// from the pool's shared headroom; XON comes xon_offset below
			// the XOFF point (pg_profile_lookup.ini of the Tomahawk SKUs:
			// size, xon, xoff, threshold, xon_offset, with xon = xon_offset
			// in th4/gen and the DS5000).
			prof["size"] = strconv.FormatInt(b.sw.Buffers.PGMinBytes, 10)
			prof["xon_offset"] = strconv.FormatInt(h.Xon, 10)
		}
		b.db.set("BUFFER_PROFILE", name, prof)
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
		if q.ID < 0 || q.ID > 7 {
			return fmt.Errorf("queue %d outside 0..7", q.ID)
		}
		s := map[string]string{}
		switch {
		case q.Strict:
			s["type"] = "STRICT"
		case q.Weight < 1 || q.Weight > 100:
			w := max(1, min(q.Weight, 100))
			b.gapf("queue %d: ETS weight %d is outside SONiC's DWRR weight 1..100; rendered %d", q.ID, q.Weight, w)
			s["type"], s["weight"] = "DWRR", strconv.Itoa(w)
		default:
			s["type"], s["weight"] = "DWRR", strconv.Itoa(q.Weight)
		}
		b.db.set("SCHEDULER", schedulerName(q), s)
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
		b.db.set("WRED_PROFILE", name, map[string]string{
			"ecn":                    "ecn_all",
			"wred_green_enable":      "true",
			"green_min_threshold":    strconv.FormatInt(e.MinBytes, 10),
			"green_max_threshold":    strconv.FormatInt(e.MaxBytes, 10),
			"green_drop_probability": strconv.Itoa(e.Probability),
		})
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

func joinInts(ids []int) string {
	s := make([]string, len(ids))
	for i, v := range ids {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}

// ports writes everything keyed by port: PORT, CABLE_LENGTH, PORT_QOS_MAP,
// BUFFER_PG, BUFFER_QUEUE and QUEUE.
func (b *builder) ports() error {
	if b.sw.MTU < minMTU || b.sw.MTU > maxMTU {
		return fmt.Errorf("switch MTU %d outside SONiC's %d..%d", b.sw.MTU, minMTU, maxMTU)
	}
	pfc := joinInts(slices.Sorted(slices.Values(b.qos.PFC)))
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
	cables := map[string]string{}
	var noMap []string
	for _, p := range b.sw.Ports {
		mbps, err := speedMbps(p.SpeedGbps)
		if err != nil {
			return fmt.Errorf("port %s: %w", p.Name, err)
		}
		port := map[string]string{
			"admin_status": "up",
			"mtu":          strconv.Itoa(b.sw.MTU),
			"speed":        strconv.Itoa(mbps),
		}
		switch {
		case p.Peer != "" && p.PeerPort != "":
			port["description"] = ir.Endpoint{Device: p.Peer, Port: p.PeerPort}.String()
		case p.Peer != "":
			port["description"] = p.Peer
		}
		if len(p.SerDes) > 0 {
			// The SKU's own identity of the port: lanes, alias and index as
			// SONiC creates it from platform.json and the breakout mode, so
			// that a merge rewrites none of them (lanes are create-only).
			port["lanes"] = joinInts(p.SerDes)
			if p.Alias != "" {
				port["alias"] = p.Alias
			}
			if p.Index > 0 {
				port["index"] = strconv.Itoa(p.Index)
			}
		} else {
			noMap = append(noMap, p.Name)
		}
		if p.BreakoutParent != "" && p.BreakoutMode != "" {
			if prev, ok := b.db[tableBreakout][p.BreakoutParent]; ok && prev["brkout_mode"] != p.BreakoutMode {
				return fmt.Errorf("port %s: parent %s is in breakout mode %s for another port, not %s", p.Name, p.BreakoutParent, prev["brkout_mode"], p.BreakoutMode)
			}
			b.db.set(tableBreakout, p.BreakoutParent, map[string]string{"brkout_mode": p.BreakoutMode})
		}
		b.db.set("PORT", p.Name, port)

		cable, err := cableMetres(p.CableM)
		if err != nil {
			return fmt.Errorf("port %s: %w", p.Name, err)
		}
		if float64(cable) != p.CableM {
			b.gapf("port %s: cable %g m rendered as CABLE_LENGTH %dm (SONiC takes whole metres); headroom comes from the explicit xoff/xon/size of its profile, not from SONiC's cable lookup", p.Name, p.CableM, cable)
		}
		cables[p.Name] = strconv.Itoa(cable) + "m"

		b.db.set("PORT_QOS_MAP", p.Name, map[string]string{
			"dscp_to_tc_map":   mapName,
			"tc_to_queue_map":  mapName,
			"tc_to_pg_map":     mapName,
			"pfc_to_queue_map": mapName,
			"pfc_enable":       pfc,
			"pfcwd_sw_enable":  wd,
		})

		for _, r := range idRanges(b.lossyPGs) {
			b.db.set("BUFFER_PG", p.Name+"|"+r, map[string]string{"profile": profileIngressLossy})
		}
		if len(b.losslessPGs) > 0 {
			prof, ok := b.profiles[p.Headroom]
			if !ok {
				return fmt.Errorf("port %s has no headroom for its lossless priorities", p.Name)
			}
			for _, r := range idRanges(b.losslessPGs) {
				b.db.set("BUFFER_PG", p.Name+"|"+r, map[string]string{"profile": prof})
			}
		}
		for _, r := range idRanges(b.losslessQs) {
			b.db.set("BUFFER_QUEUE", p.Name+"|"+r, map[string]string{"profile": profileEgressLossless})
		}
		for _, r := range idRanges(lossyQs) {
			b.db.set("BUFFER_QUEUE", p.Name+"|"+r, map[string]string{"profile": profileEgressLossy})
		}

		for _, q := range b.qos.Queues {
			f := map[string]string{"scheduler": schedulerName(q)}
			if q.ECN != nil {
				f["wred_profile"] = wredName(q)
			}
			b.db.set("QUEUE", p.Name+"|"+strconv.Itoa(q.ID), f)
		}
	}
	if len(cables) > 0 {
		b.db.set("CABLE_LENGTH", cableList, cables)
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
	b.db.set("PFC_WD", "GLOBAL", map[string]string{"POLL_INTERVAL": strconv.Itoa(poll)})
	for _, p := range b.sw.Ports {
		b.db.set("PFC_WD", p.Name, map[string]string{
			"action":           w.Action,
			"detection_time":   strconv.Itoa(detect),
			"restoration_time": strconv.Itoa(restore),
		})
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
