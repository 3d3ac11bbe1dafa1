package sonic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/rendertest"
)

// sonicDevices returns the devices of the test fabric this renderer
// handles.
func sonicDevices(t *testing.T, f *ir.Fabric) []*ir.Device {
	t.Helper()
	out := rendertest.Devices(f, ir.PlatformSONiC)
	if len(out) == 0 {
		t.Fatal("the test fabric has no SONiC switch")
	}
	return out
}

func render(t *testing.T, d *ir.Device) []byte {
	t.Helper()
	return rendertest.RenderOne(t, Renderer{}, d, FileName, renderers.JSON).Content
}

// decode parses an artifact as CONFIG_DB, failing on anything but a string
// value (CONFIG_DB holds strings only).
func decode(t *testing.T, b []byte) configDB {
	t.Helper()
	var db configDB
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&db); err != nil {
		t.Fatalf("artifact is not CONFIG_DB JSON of strings: %v", err)
	}
	return db
}

func field(t *testing.T, db configDB, table, key, f string) string {
	t.Helper()
	e, ok := db[table][key]
	if !ok {
		t.Fatalf("no %s|%s", table, key)
	}
	v, ok := e[f]
	if !ok {
		t.Fatalf("%s|%s has no field %s: %v", table, key, f, e)
	}
	return v
}

func TestGolden(t *testing.T) {
	f := irtest.Fabric()
	for _, d := range sonicDevices(t, f) {
		t.Run(d.Name, func(t *testing.T) {
			rendertest.Golden(t, filepath.Join("testdata", d.Name, "config_db.json"), render(t, d))
			gaps := strings.Join(Gaps(d), "\n") + "\n"
			rendertest.Golden(t, filepath.Join("testdata", d.Name, "gaps.txt"), []byte(gaps))
		})
	}
	for name, d := range variants(t) {
		t.Run(name, func(t *testing.T) {
			rendertest.Golden(t, filepath.Join("testdata", "variant-"+name, "config_db.json"), render(t, d))
		})
	}
}

func TestDeterministic(t *testing.T) {
	for _, d := range sonicDevices(t, irtest.Fabric()) {
		a := rendertest.Deterministic(t, func() *ir.Device { return irtest.Fabric().Device(d.Name) }, func(d *ir.Device) []byte { return render(t, d) })
		if !bytes.HasSuffix(a, []byte("}\n")) || bytes.Contains(a, []byte("\t")) {
			t.Errorf("%s: want four-space indented JSON with a trailing newline", d.Name)
		}
	}
}

// TestLosslessClass checks, without the golden file, that the lossless class
// stays lossless on this hop and that every number lands in SONiC's units.
func TestLosslessClass(t *testing.T) {
	f := irtest.Fabric()
	d := f.Device("leaf-sonic")
	db := decode(t, render(t, d))
	roce := f.Class("roce")
	prio := strconv.Itoa(roce.Priority)

	// Every DSCP is mapped explicitly, the lossless one to its priority:
	// nothing is left to SONiC's AZURE map, which sends 26 to lossy TC 1.
	dscp := db["DSCP_TO_TC_MAP"][mapName]
	if len(dscp) != 64 {
		t.Errorf("DSCP_TO_TC_MAP has %d entries, want 64", len(dscp))
	}
	for v := range 64 {
		want := strconv.Itoa(d.Switch.QoS.DSCPToTC[v])
		if got := dscp[strconv.Itoa(v)]; got != want {
			t.Errorf("DSCP %d -> TC %q, want %q", v, got, want)
		}
	}
	if dscp["26"] != "3" || dscp["48"] != "6" || dscp["10"] != "1" || dscp["18"] != "1" || dscp["0"] != "0" {
		t.Errorf("DSCP map of the reference classes wrong: %v", dscp)
	}
	if got := field(t, db, "TC_TO_QUEUE_MAP", mapName, prio); got != prio {
		t.Errorf("TC %s -> queue %s", prio, got)
	}
	if got := field(t, db, "TC_TO_PRIORITY_GROUP_MAP", mapName, prio); got != prio {
		t.Errorf("TC %s -> PG %s", prio, got)
	}
	if got := field(t, db, "MAP_PFC_PRIORITY_TO_QUEUE", mapName, prio); got != prio {
		t.Errorf("PFC priority %s pauses queue %s", prio, got)
	}
	if got := field(t, db, "PORT_QOS_MAP", "global", "dscp_to_tc_map"); got != mapName {
		t.Errorf("global DSCP map %q", got)
	}
	for key, e := range db["PORT_QOS_MAP"] {
		if key == "global" {
			continue
		}
		// PFC on exactly the lossless priorities; the watchdog on them too.
		if e["pfc_enable"] != "3" || e["pfcwd_sw_enable"] != "3" {
			t.Errorf("PORT_QOS_MAP|%s pfc_enable %q pfcwd_sw_enable %q, want \"3\"", key, e["pfc_enable"], e["pfcwd_sw_enable"])
		}
		for _, m := range []string{"dscp_to_tc_map", "tc_to_queue_map", "tc_to_pg_map", "pfc_to_queue_map"} {
			if e[m] != mapName {
				t.Errorf("PORT_QOS_MAP|%s %s = %q", key, m, e[m])
			}
		}
	}

	bp := d.Switch.Buffers
	if got := field(t, db, "BUFFER_POOL", "ingress_lossless_pool", "size"); got != strconv.FormatInt(bp.LosslessBytes, 10) {
		t.Errorf("ingress_lossless_pool size %s, want %d", got, bp.LosslessBytes)
	}
	if got := field(t, db, "BUFFER_POOL", "egress_lossy_pool", "size"); got != strconv.FormatInt(bp.LossyBytes, 10) {
		t.Errorf("egress_lossy_pool size %s, want %d", got, bp.LossyBytes)
	}

	if len(d.Switch.Ports) != 3 {
		t.Fatalf("test fabric changed: leaf-sonic has %d ports", len(d.Switch.Ports))
	}
	for _, p := range d.Switch.Ports {
		// The lossless PG takes the headroom of the port's class, in bytes.
		prof := field(t, db, "BUFFER_PG", p.Name+"|3", "profile")
		h := p.Headroom
		for k, want := range map[string]int64{"xoff": h.Xoff, "xon": h.Xon, "size": h.Size} {
			if got := field(t, db, "BUFFER_PROFILE", prof, k); got != strconv.FormatInt(want, 10) {
				t.Errorf("%s: profile %s %s = %s, want %d", p.Name, prof, k, got, want)
			}
		}
		if got := field(t, db, "BUFFER_PROFILE", prof, "pool"); got != "ingress_lossless_pool" {
			t.Errorf("%s: lossless profile in pool %s", p.Name, got)
		}
		// α = 1: the XOFF point of the plan is half the lossless pool.
		if got := field(t, db, "BUFFER_PROFILE", prof, "dynamic_th"); got != "0" {
			t.Errorf("%s: dynamic_th %s, want 0", p.Name, got)
		}
		if got := field(t, db, "BUFFER_PG", p.Name+"|0", "profile"); got != "ingress_lossy_profile" {
			t.Errorf("%s: PG 0 profile %s", p.Name, got)
		}
		pgs := 0
		for key := range db["BUFFER_PG"] {
			if strings.HasPrefix(key, p.Name+"|") {
				pgs++
			}
		}
		if pgs != 2 {
			t.Errorf("%s: %d priority groups, want 2 (lossy 0, lossless 3)", p.Name, pgs)
		}
		if got := field(t, db, "BUFFER_QUEUE", p.Name+"|3", "profile"); got != "egress_lossless_profile" {
			t.Errorf("%s: queue 3 buffer profile %s", p.Name, got)
		}
		for _, r := range []string{"0-2", "4-7"} {
			if got := field(t, db, "BUFFER_QUEUE", p.Name+"|"+r, "profile"); got != "egress_lossy_profile" {
				t.Errorf("%s: queues %s buffer profile %s", p.Name, r, got)
			}
		}
		if got, want := field(t, db, "CABLE_LENGTH", "AZURE", p.Name), fmt.Sprintf("%gm", p.CableM); got != want {
			t.Errorf("%s: cable %s, want %s", p.Name, got, want)
		}

		// ECN on the lossless queue, in bytes, below the XOFF point.
		wred := field(t, db, "QUEUE", p.Name+"|3", "wred_profile")
		if got := field(t, db, "WRED_PROFILE", wred, "ecn"); got != "ecn_all" {
			t.Errorf("WRED %s ecn %s", wred, got)
		}
		minB, _ := strconv.ParseInt(field(t, db, "WRED_PROFILE", wred, "green_min_threshold"), 10, 64)
		maxB, _ := strconv.ParseInt(field(t, db, "WRED_PROFILE", wred, "green_max_threshold"), 10, 64)
		if minB != 150_000 || maxB != 1_500_000 {
			t.Errorf("ECN %d..%d B, want 150000..1500000", minB, maxB)
		}
		if !(minB < maxB && maxB < bp.XoffPoint) {
			t.Errorf("ECN max %d B not below the XOFF point %d B", maxB, bp.XoffPoint)
		}
		if got := field(t, db, "WRED_PROFILE", wred, "green_drop_probability"); got != "20" {
			t.Errorf("ECN probability %s, want 20", got)
		}

		// ETS: DWRR weights of the classes, CNP strict and unmarked.
		weights := 0
		for q, want := range map[string]string{"0": "20", "1": "30", "3": "50"} {
			s := field(t, db, "QUEUE", p.Name+"|"+q, "scheduler")
			if field(t, db, "SCHEDULER", s, "type") != "DWRR" || field(t, db, "SCHEDULER", s, "weight") != want {
				t.Errorf("%s queue %s: scheduler %v, want DWRR %s", p.Name, q, db["SCHEDULER"][s], want)
			}
			w, _ := strconv.Atoi(want)
			weights += w
		}
		if weights != 100 {
			t.Errorf("ETS weights sum to %d", weights)
		}
		cnp := field(t, db, "QUEUE", p.Name+"|6", "scheduler")
		if s := db["SCHEDULER"][cnp]; s["type"] != "STRICT" || s["weight"] != "" {
			t.Errorf("CNP queue scheduler %v, want STRICT", s)
		}
		if _, ok := db["QUEUE"][p.Name+"|6"]["wred_profile"]; ok {
			t.Errorf("CNP queue marks ECN")
		}

		// Watchdog, in ms.
		for k, want := range map[string]string{"action": "drop", "detection_time": "200", "restoration_time": "400"} {
			if got := field(t, db, "PFC_WD", p.Name, k); got != want {
				t.Errorf("PFC_WD|%s %s = %s, want %s", p.Name, k, got, want)
			}
		}

		// Port: MTU in bytes, speed in Mb/s.
		for k, want := range map[string]string{"mtu": "9216", "speed": "400000", "admin_status": "up",
			"description": p.Peer + ":" + p.PeerPort} {
			if got := field(t, db, "PORT", p.Name, k); got != want {
				t.Errorf("PORT|%s %s = %s, want %s", p.Name, k, got, want)
			}
		}
		if _, ok := db["PORT"][p.Name]["lanes"]; ok {
			t.Errorf("PORT|%s has lanes: they belong to the platform, the model has none", p.Name)
		}
	}
	if got := field(t, db, "PFC_WD", "GLOBAL", "POLL_INTERVAL"); got != "200" {
		t.Errorf("POLL_INTERVAL %s, want 200", got)
	}
	if len(db["PFC_WD"]["GLOBAL"]) != 1 {
		t.Errorf("PFC_WD|GLOBAL takes only POLL_INTERVAL: %v", db["PFC_WD"]["GLOBAL"])
	}
	if got := field(t, db, "BUFFER_PG", "Ethernet0|3", "profile"); got != "pg_lossless_400000_3m_profile" {
		t.Errorf("host port profile %s", got)
	}
	if got := field(t, db, "BUFFER_PG", "Ethernet256|3", "profile"); got != "pg_lossless_400000_30m_profile" {
		t.Errorf("uplink profile %s", got)
	}
}

func TestGaps(t *testing.T) {
	f := irtest.Fabric()
	d := f.Device("leaf-sonic")
	// test-64 has no SONiC port map: its ports carry no lanes, and that is
	// a gap of its own, naming the ports.
	all := Gaps(d)
	if len(all) == 0 || !strings.Contains(all[0], "no SONiC port map") || !strings.Contains(all[0], "Ethernet256") {
		t.Fatalf("no port-map gap first: %q", all)
	}
	gaps := all[1:]
	if len(gaps) != 1 || !strings.Contains(gaps[0], `"adaptive"`) || !strings.Contains(gaps[0], "ECMP") {
		t.Errorf("gaps of an adaptive leaf: %q", gaps)
	}
	d.Switch.LoadBalancing = "spray"
	if g := Gaps(d)[1:]; len(g) != 1 || !strings.Contains(g[0], `"spray"`) {
		t.Errorf("gaps of a spraying leaf: %q", g)
	}
	d.Switch.LoadBalancing = "ecmp"
	if g := Gaps(d)[1:]; len(g) != 0 {
		t.Errorf("gaps of an ECMP leaf: %q", g)
	}
	for i := range d.Switch.Ports {
		d.Switch.Ports[i].SKU = &ir.SKUPort{SerDes: []int{i*8 + 1}}
	}
	if g := Gaps(d); len(g) != 0 {
		t.Errorf("gaps of an ECMP leaf whose ports have lanes: %q", g)
	}
	if g := Gaps(f.Device("leaf-eos")); g != nil {
		t.Errorf("gaps of a device the renderer refuses: %q", g)
	}
	if g := Gaps(nil); g != nil {
		t.Errorf("gaps of nil: %q", g)
	}

	v := variants(t)["two-lossless"]
	g := strings.Join(Gaps(v), "\n")
	for _, want := range []string{"detection time 50 ms", "rendered 100 ms", "cable 2.5 m", "CABLE_LENGTH 3m",
		"share the SONiC headroom profile pg_lossless_400000_3m_profile", "weight 0", "load balancing"} {
		if !strings.Contains(g, want) {
			t.Errorf("variant gaps lack %q:\n%s", want, g)
		}
	}
}

// variants are devices that exercise what the test fabric does not: two
// lossless priorities (a PG range), out-of-range watchdog timers, a
// fractional cable whose class shares a profile, a zero ETS weight; and no
// lossless class with the watchdog off.
func variants(t *testing.T) map[string]*ir.Device {
	t.Helper()
	f := irtest.Fabric()
	d := f.Device("leaf-sonic")
	sw := *d.Switch
	qos := *sw.QoS
	roce2 := &ir.Class{Name: "roce.v2.b", Priority: 4, DSCP: []int{46}, Lossless: true, Bandwidth: 0,
		ECN: &ir.ECN{MinBytes: 100_000, MaxBytes: 1_000_000, Probability: 100}}
	qos.DSCPToTC[46] = 4
	qos.TCToPG[4] = 4
	qos.PFC = []int{3, 4}
	qos.Queues = append(append([]ir.Queue(nil), qos.Queues...), ir.Queue{ID: 4, Class: roce2, Lossless: true, ECN: roce2.ECN})
	qos.Watchdog = ir.Watchdog{Enabled: true, DetectMs: 50, RestoreMs: 100_000, Action: "forward"}
	sw.QoS = &qos
	short := &ir.Headroom{Name: "400G-2.5m", SpeedGbps: 400, CableM: 2.5, Xoff: 150_000, Xon: 18432, Size: 168_432}
	sw.Headrooms = append([]*ir.Headroom{short}, sw.Headrooms...)
	sw.Ports = append([]ir.Port(nil), sw.Ports...)
	sw.Ports[1].CableM, sw.Ports[1].Headroom = 2.5, short
	two := *d
	two.Switch = &sw

	f2 := irtest.Fabric()
	d2 := f2.Device("leaf-sonic")
	sw2 := *d2.Switch
	q2 := *sw2.QoS
	q2.PFC = nil
	q2.TCToPG = [8]int{}
	q2.Watchdog.Enabled = false
	q2.Queues = nil
	for _, q := range sw2.QoS.Queues {
		q.Lossless = false
		q2.Queues = append(q2.Queues, q)
	}
	sw2.QoS = &q2
	sw2.LoadBalancing = "ecmp"
	lossy := *d2
	lossy.Switch = &sw2
	// A Broadcom XGS leaf: the plan charges each lossless PG a reserved
	// minimum and the xoffs as the shared headroom pool.
	f3 := irtest.Fabric()
	d3 := f3.Device("leaf-sonic")
	sw3 := *d3.Switch
	bp := *sw3.Buffers
	bp.Convention, bp.PGMinBytes = "broadcom-xgs", 9398
	bp.MinimumBytes = bp.PGMinBytes * int64(len(sw3.Ports)*len(sw3.QoS.PFC))
	bp.HeadroomBytes = 0
	for _, p := range sw3.Ports {
		bp.HeadroomBytes += p.Headroom.Xoff * int64(len(sw3.QoS.PFC))
	}
	bp.LossyBytes = bp.TotalBytes - bp.LosslessBytes - bp.MinimumBytes - bp.HeadroomBytes
	sw3.Buffers = &bp
	brcm := *d3
	brcm.Switch = &sw3
	return map[string]*ir.Device{"two-lossless": &two, "lossy": &lossy, "broadcom": &brcm}
}

// TestBroadcomConvention: on a Broadcom XGS ASIC a lossless profile's size
// is the reserved minimum and xoff the headroom, from the ingress pool's
// shared headroom (xoff); lossy PGs share the one ingress pool.
func TestBroadcomConvention(t *testing.T) {
	d := variants(t)["broadcom"]
	db := decode(t, render(t, d))
	bp := d.Switch.Buffers
	h := d.Switch.Ports[0].Headroom
	prof := db["BUFFER_PROFILE"]["pg_lossless_400000_3m_profile"]
	if prof["size"] != "9398" || prof["xoff"] != strconv.FormatInt(h.Xoff, 10) || prof["xon_offset"] != strconv.FormatInt(h.Xon, 10) {
		t.Errorf("lossless profile %v: want size 9398 (the minimum), xoff %d, xon_offset %d", prof, h.Xoff, h.Xon)
	}
	pool := db["BUFFER_POOL"]["ingress_lossless_pool"]
	if pool["xoff"] != strconv.FormatInt(bp.HeadroomBytes, 10) || pool["size"] != strconv.FormatInt(bp.TotalBytes-bp.MinimumBytes, 10) {
		t.Errorf("ingress pool %v: want xoff %d (headroom pool), size %d", pool, bp.HeadroomBytes, bp.TotalBytes-bp.MinimumBytes)
	}
	if _, ok := db["BUFFER_POOL"]["ingress_lossy_pool"]; ok {
		t.Error("Broadcom SKU files have one ingress pool; an ingress_lossy_pool is rendered")
	}
	// The lossless PGs' dynamic threshold sees the ingress pool less its
	// shared headroom and less what lossy traffic can hold, the egress
	// lossy pool: the plan's XOFF point is computed on that pool
	// (compiler/physics BroadcomLosslessPool).
	num := func(key, f string) int64 {
		n, err := strconv.ParseInt(db["BUFFER_POOL"][key][f], 10, 64)
		if err != nil {
			t.Fatalf("BUFFER_POOL|%s %s: %v", key, f, err)
		}
		return n
	}
	if got := num("ingress_lossless_pool", "size") - num("ingress_lossless_pool", "xoff") - num("egress_lossy_pool", "size"); got != bp.PoolBytes {
		t.Errorf("ingress size − xoff − egress lossy size = %d B, the plan's XOFF point is computed on %d B", got, bp.PoolBytes)
	}
	if got := db["BUFFER_PROFILE"]["ingress_lossy_profile"]["pool"]; got != "ingress_lossless_pool" {
		t.Errorf("lossy PGs in pool %q", got)
	}
	// The Spectrum leaf keeps size = xoff + xon and no pool xoff.
	spec := decode(t, render(t, irtest.Fabric().Device("leaf-sonic")))
	if sp := spec["BUFFER_PROFILE"]["pg_lossless_400000_3m_profile"]; sp["size"] != strconv.FormatInt(h.Size, 10) || sp["xon_offset"] != "" {
		t.Errorf("spectrum profile %v", sp)
	}
}

// TestVariants: fields of the variant fabrics' CONFIG_DB, each with why
// it must hold that value.
func TestVariants(t *testing.T) {
	v := variants(t)
	dbs := map[string]configDB{}
	for _, name := range []string{"two-lossless", "lossy"} {
		dbs[name] = decode(t, render(t, v[name]))
	}
	for _, c := range []struct{ variant, table, key, field, want, why string }{
		{"two-lossless", "PORT_QOS_MAP", "Ethernet8", "pfc_enable", "3,4", "both lossless priorities pause"},
		// The range buffermgrd itself would write, so that it finds its key.
		{"two-lossless", "BUFFER_PG", "Ethernet8|3-4", "profile", "pg_lossless_400000_3m_profile", "PG 3-4 as buffermgrd keys it"},
		{"two-lossless", "BUFFER_PROFILE", "pg_lossless_400000_3m_profile", "xoff", "159744", "the shared profile keeps the larger xoff"},
		{"two-lossless", "BUFFER_QUEUE", "Ethernet8|3-4", "profile", "egress_lossless_profile", "queues 3-4 are lossless"},
		{"two-lossless", "CABLE_LENGTH", "AZURE", "Ethernet8", "3m", "a 2.5 m cable is rounded up"},
		{"two-lossless", "QUEUE", "Ethernet8|4", "wred_profile", "queue4_ecn", "a class with '.' and '/' names its WRED profile by queue"},
		{"two-lossless", "SCHEDULER", "scheduler.roce.v2.b", "weight", "1", "a zero weight is the least one"},
		{"two-lossless", "PFC_WD", "Ethernet8", "action", "forward", "the watchdog's action"},
		{"two-lossless", "PFC_WD", "Ethernet8", "detection_time", "100", "the watchdog's detection"},
		{"two-lossless", "PFC_WD", "Ethernet8", "restoration_time", "60000", "the watchdog's restoration"},
		{"two-lossless", "PFC_WD", "GLOBAL", "POLL_INTERVAL", "100", "not above detection_time"},
		{"lossy", "PORT_QOS_MAP", "Ethernet0", "pfc_enable", "", "no lossless class"},
		{"lossy", "BUFFER_QUEUE", "Ethernet0|0-7", "profile", "egress_lossy_profile", "every queue is lossy"},
	} {
		if got := field(t, dbs[c.variant], c.table, c.key, c.field); got != c.want {
			t.Errorf("%s: %s|%s %s = %q, want %q (%s)", c.variant, c.table, c.key, c.field, got, c.want, c.why)
		}
	}
	db := dbs["lossy"]
	if _, ok := db["PFC_WD"]; ok {
		t.Errorf("PFC_WD rendered with the watchdog off")
	}
	for key := range db["BUFFER_PROFILE"] {
		if strings.HasPrefix(key, "pg_lossless") {
			t.Errorf("lossless profile %s without a lossless class", key)
		}
	}
}

func TestRefusesUnsafeNames(t *testing.T) {
	bad := []string{"leaf\nsonic", "leaf;reboot", "leaf$(reboot)", "leaf`reboot`", `leaf"x`, "leaf'x", "leaf|x"}
	for _, s := range bad {
		set := map[string]func(d *ir.Device){
			"device": func(d *ir.Device) { d.Name = s },
			"port":   func(d *ir.Device) { d.Switch.Ports[0].Name = s },
			"peer":   func(d *ir.Device) { d.Switch.Ports[0].Peer = s },
			"class":  func(d *ir.Device) { d.Switch.QoS.Queues[0].Class.Name = s },
			"profile": func(d *ir.Device) {
				d.Switch.Headrooms[0].Name = s
			},
		}
		for what, mutate := range set {
			d := irtest.Fabric().Device("leaf-sonic")
			mutate(d)
			if _, err := (Renderer{}).Render(d); err == nil {
				t.Errorf("%s %q: rendered, want an error", what, s)
			}
			if g := Gaps(d); g != nil {
				t.Errorf("%s %q: gaps %q for a refused device", what, s, g)
			}
		}
	}
}

// TestRefusesBadValues checks that a SONiC switch whose model holds what
// the platform cannot take is refused; what every renderer refuses of
// any device is renderers' TestRefusesOtherDevices.
func TestRefusesBadValues(t *testing.T) {
	f := irtest.Fabric()
	noBuf := irtest.WithSwitch(f.Device("leaf-sonic"), func(sw *ir.Switch) { sw.Buffers = nil })
	over := irtest.WithSwitch(f.Device("leaf-sonic"), func(sw *ir.Switch) {
		bp := *sw.Buffers
		bp.LossyBytes = -1
		sw.Buffers = &bp
	})
	mtu := irtest.WithSwitch(f.Device("leaf-sonic"), func(sw *ir.Switch) { sw.MTU = 9600 })
	for name, d := range map[string]*ir.Device{"no buffers": noBuf, "over budget": over, "MTU 9600": mtu} {
		if arts, err := (Renderer{}).Render(d); err == nil {
			t.Errorf("%s: rendered %d artifacts, want an error", name, len(arts))
		}
	}
}

// sharedDir finds ../shared next to the module root, walking up to go.mod.
func sharedDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test directory")
		}
		dir = parent
	}
}

// validator returns the command line of SONiC's independent validator, or
// skips the test with the reason it cannot run.
func validator(t *testing.T) []string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: cannot run shared/tools/validate/sonic-validate.py")
	}
	if _, err := exec.LookPath("yanglint"); err != nil {
		t.Skip("yanglint not found (Debian package libyang2-tools): cannot validate against SONiC's YANG")
	}
	shared, err := sharedDir()
	if err != nil {
		t.Skipf("cannot locate ../shared: %v", err)
	}
	script := filepath.Join(shared, "tools", "validate", "sonic-validate.py")
	if _, err := os.Stat(script); err != nil {
		t.Skipf("validator not found at %s: %v", script, err)
	}
	if _, err := os.Stat(filepath.Join(shared, "yang", "sonic")); err != nil {
		t.Skipf("SONiC YANG models not found: %v", err)
	}
	return []string{py, script}
}

// portBase is the part of each port's PORT entry that the platform owns and
// the artifact leaves alone: lanes, which SONiC's YANG makes mandatory.
// On a switch they come from the SKU's port_config.ini; here a stand-in of
// the same shape (lanes from the port's number, eight per port) fills them.
func portBase(t *testing.T, db configDB) []byte {
	t.Helper()
	var base tables
	for name := range db["PORT"] {
		n, err := strconv.Atoi(strings.TrimPrefix(name, "Ethernet"))
		if err != nil {
			t.Fatalf("port %s is not a SONiC port name", name)
		}
		lanes := make([]string, 8)
		for i := range lanes {
			lanes[i] = strconv.Itoa(n + i)
		}
		base.set("PORT", name, "lanes", strings.Join(lanes, ","))
	}
	if err := base.finish(); err != nil {
		t.Fatal(err)
	}
	return writeJSON(base.e)
}

func runValidator(t *testing.T, cmd []string, files ...string) (string, error) {
	t.Helper()
	c := exec.Command(cmd[0], append(cmd[1:], files...)...)
	out, err := c.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running %v: %v", c.Args, err)
	}
	return string(out), err
}

// TestSONiCValidator runs SONiC's own YANG models, through the independent
// validator, over every rendered config_db.json merged over the platform's
// PORT lanes.
func TestSONiCValidator(t *testing.T) {
	cmd := validator(t)
	devices := map[string]*ir.Device{}
	for _, d := range sonicDevices(t, irtest.Fabric()) {
		devices[d.Name] = d
	}
	for name, d := range variants(t) {
		devices["variant-"+name] = d
	}
	dir := t.TempDir()
	for name, d := range devices {
		t.Run(name, func(t *testing.T) {
			content := render(t, d)
			art := filepath.Join(dir, name+".json")
			base := filepath.Join(dir, name+".port.json")
			if err := os.WriteFile(art, content, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(base, portBase(t, decode(t, content)), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := runValidator(t, cmd, "--strict", base, art)
			if err != nil {
				t.Fatalf("sonic-validate.py rejects %s: %v\n%s", name, err, out)
			}
			if !strings.Contains(out, "VALID: ") || !strings.Contains(out, "0 failed, 0 not validated") {
				t.Errorf("unexpected validator verdict:\n%s", out)
			}
		})
	}
}

// TestSONiCValidatorStandalone pins down why the artifact does not validate
// alone: the only errors are the platform's PORT lanes and the references
// to the ports they set aside.
func TestSONiCValidatorStandalone(t *testing.T) {
	cmd := validator(t)
	d := irtest.Fabric().Device("leaf-sonic")
	art := filepath.Join(t.TempDir(), "config_db.json")
	if err := os.WriteFile(art, render(t, d), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runValidator(t, cmd, "--all-errors", "--per-table", "1000", "--max-errors", "1000", art)
	if err == nil {
		t.Fatalf("validates without PORT lanes; if the model now carries lanes, drop the base file:\n%s", out)
	}
	errs := 0
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if !strings.Contains(line, ": ") || strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "ok") ||
			strings.HasPrefix(line, "sonic-validate:") || strings.HasPrefix(line, "INVALID:") {
			continue
		}
		errs++
		if !strings.Contains(line, `Mandatory node "lanes"`) && !strings.Contains(line, "PORT entry it refers to failed validation above") {
			t.Errorf("error other than missing lanes: %s", line)
		}
	}
	if errs == 0 {
		t.Errorf("no errors parsed from:\n%s", out)
	}
}

// TestSONiCValidatorCatchesErrors makes sure the validator test is not
// vacuous: a PFC priority SONiC does not have is refused.
func TestSONiCValidatorCatchesErrors(t *testing.T) {
	cmd := validator(t)
	db := decode(t, render(t, irtest.Fabric().Device("leaf-sonic")))
	db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] = "9"
	broken := writeJSON(entriesOf(db))
	dir := t.TempDir()
	art, base := filepath.Join(dir, "broken.json"), filepath.Join(dir, "port.json")
	if err := os.WriteFile(art, broken, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(base, portBase(t, db), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runValidator(t, cmd, base, art)
	if err == nil || !strings.Contains(out, "pfc_enable") {
		t.Errorf("validator accepted pfc_enable 9 (err %v):\n%s", err, out)
	}
}

// FuzzRender varies the numbers the renderer checks and converts: it must
// return an error or CONFIG_DB of strings, never panic.
func FuzzRender(f *testing.F) {
	f.Add(9216, 400, 3.0, int64(150_000), int64(1_500_000), 20, 3, 3, 50, int64(159_744), 200, 400, int64(49_500_000))
	f.Add(0, -1, -2.5, int64(-1), int64(0), 101, 9, -1, 0, int64(-5), 0, 1<<30, int64(-1))
	f.Fuzz(func(t *testing.T, mtu, speed int, cable float64, emin, emax int64, prob, tc, pg, weight int, xoff int64, detect, restore int, pool int64) {
		d := irtest.Fabric().Device("leaf-sonic")
		sw := d.Switch
		sw.MTU = mtu
		sw.Ports[0].SpeedGbps = speed
		sw.Ports[0].CableM = cable
		sw.Ports[0].Headroom.Xoff = xoff
		sw.Buffers.LosslessBytes = pool
		q := sw.QoS
		q.DSCPToTC[26] = tc
		q.TCToPG[3] = pg
		q.Watchdog.DetectMs, q.Watchdog.RestoreMs = detect, restore
		for i := range q.Queues {
			if q.Queues[i].ECN != nil {
				q.Queues[i].ECN.MinBytes, q.Queues[i].ECN.MaxBytes, q.Queues[i].ECN.Probability = emin, emax, prob
			}
			if !q.Queues[i].Strict {
				q.Queues[i].Weight = weight
			}
		}
		arts, err := Renderer{}.Render(d)
		_ = Gaps(d)
		if err != nil {
			return
		}
		var db configDB
		if err := json.Unmarshal(arts[0].Content, &db); err != nil {
			t.Fatalf("not CONFIG_DB JSON of strings: %v", err)
		}
	})
}
