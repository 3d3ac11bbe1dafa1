package nvue

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// File is the name of the artifact in the device's output directory.
const File = "nvue.yaml"

// Renderer renders NVIDIA Cumulus Linux switches (platform "nvue") into an
// NVUE YAML document for `nv config patch`. It keeps no state.
type Renderer struct{}

var _ renderers.Renderer = Renderer{}

// Render returns the device's nvue.yaml. It refuses devices that are not
// nvue switches and devices whose names could escape into the document.
func (Renderer) Render(d *ir.Device) ([]renderers.Artifact, error) {
	r, err := newRender(d)
	if err != nil {
		return nil, err
	}
	content, err := r.document()
	if err != nil {
		return nil, fmt.Errorf("nvue: %s: %w", d.Name, err)
	}
	return []renderers.Artifact{documents.Artifact(d.Name+"/"+File, renderers.YAML, content)}, nil
}

// newRender checks that d is an NVUE switch the renderer can write and
// readies its render.
func newRender(d *ir.Device) (*render, error) {
	if d == nil {
		return nil, errors.New("nvue: nil device")
	}
	if err := renderers.CheckDevice(d); err != nil {
		return nil, fmt.Errorf("nvue: %w", err)
	}
	switch {
	case d.Platform != ir.PlatformNVUE:
		return nil, fmt.Errorf("nvue: device %s has platform %q, not %q", d.Name, d.Platform, ir.PlatformNVUE)
	case d.Switch == nil || d.Host != nil:
		return nil, fmt.Errorf("nvue: device %s is not a switch", d.Name)
	case d.Role == ir.RoleHost:
		return nil, fmt.Errorf("nvue: device %s has role %q", d.Name, d.Role)
	case d.Switch.QoS == nil:
		return nil, fmt.Errorf("nvue: switch %s has no QoS policy", d.Name)
	case d.Switch.Buffers == nil:
		return nil, fmt.Errorf("nvue: switch %s has no buffer plan", d.Name)
	}
	rel, err := parseRelease(d.Release)
	if err != nil {
		return nil, fmt.Errorf("nvue: %s: %w", d.Name, err)
	}
	return &render{d: d, s: d.Switch, q: d.Switch.QoS, b: d.Switch.Buffers, rel: rel}, nil
}

// render holds one device while its document is built.
type render struct {
	d *ir.Device
	s *ir.Switch
	q *ir.QoS
	b *ir.BufferPlan
	// pfc is the sorted set of lossless switch priorities.
	pfc []int
	// byPrio is the class of each priority, nil where none.
	byPrio [8]*ir.Class
	// gaps are what the platform cannot express, for the header.
	gaps []string
	// rel is the Cumulus Linux release whose spelling is written.
	rel release
}

// NewestRelease is the newest Cumulus Linux release the renderer follows
// the documentation of, written when the intent names none.
const NewestRelease = "5.16"

// oldestMinor is the minor version of the first release with every key the renderer writes
// (NVUE reference, Version History: qos pfc-watchdog 5.6.0, link breakout
// 5.4.0, qos congestion-control and egress-scheduler 5.3.0).
const oldestMinor = 6

// release is a Cumulus Linux 5.x release.
type release struct {
	name  string
	minor int
}

// stateEnabled reports whether the release spells on/off leaves as
// `state: enabled|disabled`: Cumulus Linux 5.15 renamed `qos roce enable
// on|off`, `router adaptive-routing enable on|off` and `interface <id>
// router adaptive-routing enable on|off` (CumulusNetworks/docs@07d58d4b
// content/cumulus-linux-515/Whats-New/New-and-Changed-NVUE-Commands.md,
// "On/Off" table). The QoS leaves taking enable|disable (pfc tx/rx,
// congestion-control ecn/red, interface pfc-watchdog state) keep their
// spelling in the 5.16 QoS guide (CumulusNetworks/docs@057503ed
// content/cumulus-linux-516/Layer-1-and-Switch-Ports/Quality-of-Service/_index.md).
func (r release) stateEnabled() bool { return r.minor >= 15 }

// parseRelease reads the intent's release ("" for the newest documented).
func parseRelease(s string) (release, error) {
	if s == "" {
		s = NewestRelease
	}
	newest, _ := strconv.Atoi(strings.TrimPrefix(NewestRelease, "5."))
	minor, err := strconv.Atoi(strings.TrimPrefix(s, "5."))
	if !strings.HasPrefix(s, "5.") || err != nil || minor < oldestMinor || minor > newest || strconv.Itoa(minor) != strings.TrimPrefix(s, "5.") {
		return release{}, fmt.Errorf("release %q: the renderer writes Cumulus Linux 5.%d to %s", s, oldestMinor, NewestRelease)
	}
	return release{name: s, minor: minor}, nil
}

// onOff sets an on/off leaf in the release's spelling: `enable: 'on'`
// through 5.14, `state: enabled` from 5.15.
func (r *render) onOff(n *node, on bool) *node {
	if r.rel.stateEnabled() {
		v := "disabled"
		if on {
			v = "enabled"
		}
		return n.set("state", v)
	}
	v := "off"
	if on {
		v = "on"
	}
	return n.set("enable", v)
}

// gap records what NVUE cannot express and returns the comment that goes
// next to the element.
func (r *render) gap(format string, args ...any) string {
	msg := fmt.Sprintf(format, args...)
	r.gaps = append(r.gaps, msg)
	return "platform gap: " + msg
}

func (r *render) document() ([]byte, error) {
	set, err := r.tree()
	if err != nil {
		return nil, err
	}
	// Forms no source confirms get a "# verify:" line above their key, from
	// the statement table the device carries (ir.Device.Verify). Without
	// such a form there is nothing to mark, and the forms of a thousand
	// leaves are not worth computing.
	if len(r.d.Verify) > 0 {
		markVerify(set, []string{"set"}, renderers.NVUEKeyForm([]string{"set"}), func(form string) bool { return r.d.Verify[form] })
	}
	out, err := emit(r.header(), set)
	// The document is written: the tree's nodes go to the next switch.
	set.slab.release()
	return out, err
}

// tree builds the document's `set` tree: what the artifact prints and what
// Desired flattens, so that the two cannot disagree.
func (r *render) tree() (*node, error) {
	if err := r.index(); err != nil {
		return nil, err
	}
	set := newNode("")
	qos := set.child("qos")
	r.roce(qos)
	r.mapping(qos)
	r.queues(qos)
	r.scheduler(qos)
	r.ecn(qos)
	profiles, err := r.pfcProfiles(qos)
	if err != nil {
		return nil, err
	}
	r.watchdog(qos)
	if err := r.pools(qos); err != nil {
		return nil, err
	}
	if err := r.routing(set); err != nil {
		return nil, err
	}
	if err := r.interfaces(set, profiles); err != nil {
		return nil, err
	}
	return set, nil
}

// index checks the ranges NVUE takes and indexes classes by priority.
func (r *render) index() error {
	if err := renderers.CheckQoSRanges(r.q); err != nil {
		return err
	}
	seen := map[int]bool{}
	for _, qu := range r.q.Queues {
		if seen[qu.ID] {
			return fmt.Errorf("queue %d listed twice", qu.ID)
		}
		seen[qu.ID] = true
		if qu.Class != nil && qu.Class.Priority >= 0 && qu.Class.Priority <= 7 {
			r.byPrio[qu.Class.Priority] = qu.Class
		}
	}
	for _, p := range r.q.PFC {
		if !slices.Contains(r.pfc, p) {
			r.pfc = append(r.pfc, p)
		}
	}
	slices.Sort(r.pfc)
	return nil
}

// label names the class of a priority for the comments beside the lines
// that carry it.
func (r *render) label(prio int) string {
	c := r.byPrio[prio]
	if c == nil {
		return "no class"
	}
	var tags []string
	for _, t := range []struct {
		on  bool
		tag string
	}{{c.Lossless, "lossless"}, {c.CNP, "cnp"}, {c.Strict, "strict"}, {c.Default, "default"}} {
		if t.on && t.tag != c.Name {
			tags = append(tags, t.tag)
		}
	}
	if len(tags) == 0 {
		return c.Name
	}
	return c.Name + ", " + strings.Join(tags, ", ")
}

func (r *render) roce(qos *node) {
	roce := qos.child("roce")
	r.onOff(roce, true)
	mode := "lossy"
	if len(r.pfc) > 0 {
		mode = "lossless"
	}
	roce.set("mode", mode)
	roce.comment("qos roce installs NVIDIA's RoCE profile (DSCP>>3 to switch priority, PFC on SP3, ECN on TC3,")
	roce.comment("ETS 50/50, SP6 strict, roce-lossless pool); the entries below override it with the fabric's policy.")
	roce.comment("NVIDIA: RoCE can only be configured with NVUE, and a RoCE configuration is specific to one ASIC generation.")
	if len(r.pfc) > 0 && r.pfc[0] != 3 {
		roce.comment("qos roce advertises the LLDP application TLV UDP 4791 on priority 3; the fabric's lossless priority is %d,", r.pfc[0])
		roce.comment("and NVUE offers no key for the TLV's priority: hosts are configured statically (host.sh), not by DCBX.")
	}
}

func (r *render) mapping(qos *node) {
	m := qos.child("mapping").child("default-global")
	m.set("trust", "l3").note("classify on DSCP only")
	dscp := m.child("dscp")
	dscp.comment("Every DSCP is listed: qos roce maps DSCP>>3 (46 to SP5, 48-55 to SP6), and a patch only adds.")
	for i, tc := range r.q.DSCPToTC {
		dscp.child(strconv.Itoa(i)).note("%s", r.label(tc)).set("switch-priority", tc)
	}
}

func (r *render) queues(qos *node) {
	sp := qos.child("egress-queue-mapping").child("default-global").child("switch-priority")
	sp.comment("Switch priority to egress queue (traffic class); qos roce would send every priority but 3 and 6 to TC0.")
	for p, tc := range r.q.TCToQueue {
		sp.child(strconv.Itoa(p)).note("%s", r.label(p)).set("traffic-class", tc)
	}
}

func (r *render) scheduler(qos *node) {
	tcs := qos.child("egress-scheduler").child("default-global").child("traffic-class")
	var used []int
	for _, qu := range r.q.Queues {
		used = append(used, qu.ID)
		t := tcs.child(strconv.Itoa(qu.ID))
		name := r.queueLabel(qu)
		switch {
		case qu.Strict:
			t.set("mode", "strict")
			t.note("%s", name)
		case qu.Weight > 0:
			t.set("mode", "dwrr")
			t.set("bw-percent", qu.Weight)
			t.note("%s", name)
		default:
			t.set("mode", "dwrr")
			t.comment("%s", r.gap("queue %d (%s) has ETS weight 0; NVUE bw-percent takes 1..100, so its weight is left unset (DWRR 0)", qu.ID, name))
		}
	}
	if unused := unusedQueues(used); len(unused) > 0 {
		tcs.comment("Traffic classes %s carry no class and are not scheduled here.", renderers.JoinInts(unused, ","))
	}
}

func (r *render) queueLabel(qu ir.Queue) string {
	if qu.Class == nil {
		return "no class"
	}
	return r.label(qu.Class.Priority)
}

func unusedQueues(used []int) []int {
	var out []int
	for tc := range 8 {
		if !slices.Contains(used, tc) {
			out = append(out, tc)
		}
	}
	return out
}

func (r *render) ecn(qos *node) {
	tcs := qos.child("congestion-control").child("default-global").child("traffic-class")
	tcs.comment("ECN thresholds in bytes (Spectrum programs whole cells: 150000 B reads back as 159744 B on Spectrum-4);")
	tcs.comment("probability is the marking percentage reached at max-threshold. RED stays off: mark, never drop early.")
	for _, qu := range r.q.Queues {
		t := tcs.child(strconv.Itoa(qu.ID))
		name := r.queueLabel(qu)
		e := qu.ECN
		if e == nil {
			t.set("ecn", "disable")
			t.note("%s: no marking", name)
			if qu.Lossless {
				t.comment("%s is lossless without ECN: PFC alone controls congestion on this queue.", name)
			}
			continue
		}
		t.set("ecn", "enable")
		t.set("red", "disable")
		t.set("min-threshold", e.MinBytes)
		t.set("max-threshold", e.MaxBytes)
		t.set("probability", e.Probability)
		switch {
		case !qu.Lossless:
			t.comment("%s: marks %d B to %d B.", name, e.MinBytes, e.MaxBytes)
		case e.MaxBytes < r.b.XoffPoint:
			t.comment("%s: marks %d B to %d B, below the PFC XOFF point %d B: DCQCN slows senders before PFC pauses.",
				name, e.MinBytes, e.MaxBytes, r.b.XoffPoint)
		default:
			t.comment("%s: ECN max %d B is at or above the PFC XOFF point %d B: PFC pauses before ECN marks (RF102).",
				name, e.MaxBytes, r.b.XoffPoint)
		}
	}
}

// pfcProfile is what an interface binds to: the profile of its port class.
type pfcProfile struct {
	name string
	h    *ir.Headroom
}

// pfcProfiles writes one PFC profile per port class, since headroom and
// thresholds are per port class and NVUE sets them per profile.
func (r *render) pfcProfiles(qos *node) (map[*ir.Headroom]string, error) {
	byName := map[string]*ir.Headroom{}
	add := func(h *ir.Headroom) error {
		if h == nil {
			return nil
		}
		if o, ok := byName[h.Name]; ok && o != h && !sameHeadroom(o, h) {
			return fmt.Errorf("two port classes are named %q", h.Name)
		}
		if _, ok := byName[h.Name]; !ok {
			byName[h.Name] = h
		}
		return nil
	}
	for _, h := range r.s.Headrooms {
		if err := add(h); err != nil {
			return nil, err
		}
	}
	for _, p := range r.s.Ports {
		if err := add(p.Headroom); err != nil {
			return nil, err
		}
	}
	profiles := map[*ir.Headroom]string{}
	if len(r.pfc) == 0 {
		return profiles, nil
	}
	pfc := qos.child("pfc")
	pfc.comment("One PFC profile per port class (speed and cable length); port-buffer is the model's headroom per port")
	pfc.comment("and lossless priority, cable-length what Cumulus Linux sizes the pause latency from.")
	pfc.comment("xoff-threshold and xon-threshold are left to the switch: Cumulus Linux derives the limits that start and")
	pfc.comment("stop PFC frames itself, and NVIDIA recommends not setting them by hand (QoS guide 5.14/5.16, PFC; NVUE")
	pfc.comment("reference, qos pfc xon-threshold); the intent gives none.")
	pfc.comment("NVUE places these switch priorities in its lossless priority group and the rest in the lossy bulk group,")
	pfc.comment("which is the model's priority-group map (a lossless class in its own group, the others in group 0).")
	if len(r.pfc) > 1 {
		pfc.comment("%s", r.gap("lossless priorities %s share one lossless priority group: NVUE supports a single lossless group, the model gives each its own", renderers.JoinInts(r.pfc, ",")))
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	slices.SortFunc(names, naturalCompare)
	for _, n := range names {
		h := byName[n]
		p := pfc.child(n)
		sp := p.child("switch-priority")
		for _, pr := range r.pfc {
			sp.child(strconv.Itoa(pr)).note("%s", r.label(pr))
		}
		p.set("tx", "enable")
		p.set("rx", "enable")
		cable := int(math.Ceil(h.CableM))
		if cable < 1 {
			cable = 1
		}
		cl := p.set("cable-length", cable)
		if float64(cable) != h.CableM {
			cl.note("metres, whole: %g m rounded up", h.CableM)
		} else {
			cl.note("metres")
		}
		// xoff-threshold (the reserved bytes consumed before XOFF) and
		// xon-threshold (the drop below it before XON) stay unset: the
		// intent names neither, and Cumulus Linux "derives all other PFC
		// settings, such as the buffer limits that trigger PFC frames
		// transmit to start and stop" (QoS guide, PFC: CumulusNetworks/docs
		// @0d142afe content/cumulus-linux-514/.../Quality-of-Service/_index.md
		// and @057503ed cumulus-linux-516), with NVIDIA's recommendation not
		// to set them by hand (NVUE reference, qos pfc xoff-threshold and
		// xon-threshold; qos_features.conf xoff_size and xon_delta default to
		// "Disabled, allowing dynamic allocation").
		p.set("port-buffer", h.Size).note("bytes")
		p.comment("Port class %s: %d Gbit/s over %g m; headroom %d B (xoff %d B, xon %d B; physics needs %d B).",
			h.Name, h.SpeedGbps, h.CableM, h.Size, h.Xoff, h.Xon, h.Required)
		if h.Size < h.Xoff+h.Xon {
			p.comment("Headroom %d B is below xoff + xon = %d B: thresholds are clamped (RF103).", h.Size, h.Xoff+h.Xon)
		}
		profiles[h] = n
	}
	return profiles, nil
}

// sameHeadroom compares the values NVUE receives, so that two equal port
// classes held by different pointers share one profile.
func sameHeadroom(a, b *ir.Headroom) bool {
	return a.SpeedGbps == b.SpeedGbps && a.CableM == b.CableM && a.Xoff == b.Xoff && a.Xon == b.Xon && a.Size == b.Size
}

// watchdogTimers maps the intent's detect and restore times onto NVUE's
// polling interval and robustness. NVUE mitigates a storm after robustness
// polling intervals of continuous pause and restores after the first
// polling interval without pause frames (Cumulus Linux QoS guide, PFC
// Watchdog), so detect = polling-interval x robustness and restore is one
// polling interval. The interval is the shorter of the two times, which
// keeps detection exact when restore divides it and restore no later than
// asked.
func watchdogTimers(detectMs, restoreMs int) (pollMs, robustness int) {
	if detectMs <= 0 {
		return 100, 3 // NVUE's defaults
	}
	pollMs = detectMs
	if restoreMs > 0 && restoreMs < pollMs {
		pollMs = restoreMs
	}
	robustness = max((detectMs+pollMs-1)/pollMs, 1)
	return pollMs, robustness
}

func (r *render) watchdog(qos *node) {
	w := r.q.Watchdog
	if len(r.pfc) == 0 || !w.Enabled {
		return
	}
	poll, rob := watchdogTimers(w.DetectMs, w.RestoreMs)
	wd := qos.child("pfc-watchdog")
	wd.set("polling-interval", poll).note("ms")
	wd.set("robustness", rob).note("polling intervals")
	wd.comment("PFC watchdog: detect %d ms = polling-interval %d ms x robustness %d (storm seen for %d ms).",
		w.DetectMs, poll, rob, poll*rob)
	if w.RestoreMs != poll {
		wd.comment("%s", r.gap("PFC watchdog restore %d ms: NVUE restores after one polling interval without pause frames, so restore is %d ms", w.RestoreMs, poll))
	} else {
		wd.comment("Restore %d ms: NVUE restores after one polling interval without pause frames.", w.RestoreMs)
	}
	if w.Action != "drop" {
		wd.comment("%s", r.gap("PFC watchdog action %q: NVUE's watchdog always drops (it ignores pause frames and discards the queue's packets); drop is rendered", w.Action))
	}
}

// pools splits the buffer between the lossless reserve and the lossy pool.
func (r *render) pools(qos *node) error {
	b := r.b
	if b.ReservePercent < 0 || b.ReservePercent > 100 {
		return fmt.Errorf("buffer reserve %d %% outside 0..100", b.ReservePercent)
	}
	summary := fmt.Sprintf("Buffer plan %s (%s): %d B in %d-B cells; lossless pool %d B, headroom %d B, lossy %d B; XOFF point %d B.",
		b.Model, b.ASIC, b.TotalBytes, b.CellBytes, b.LosslessBytes, b.HeadroomBytes, b.LossyBytes, b.XoffPoint)
	// NVUE keeps one lossless traffic pool: the reserves of the lossless
	// classes add up into it; a reserve for a lossy class has no pool.
	pct, reserved := 0, []string{}
	var lossyReserves []string
	for _, rs := range b.Reserves {
		if rs.Lossless {
			pct += rs.Percent
			reserved = append(reserved, rs.Class)
		} else if rs.Percent > 0 {
			lossyReserves = append(lossyReserves, fmt.Sprintf("%d %% for %s", rs.Percent, rs.Class))
		}
	}
	if pct == 0 && len(lossyReserves) == 0 {
		qos.comment("%s", summary)
		qos.comment("No buffer reserve in the intent: the qos roce pool split stays as NVIDIA sets it.")
		return nil
	}
	tp := qos.child("traffic-pool")
	tp.comment("%s", summary)
	if !b.Fits() {
		tp.comment("Reserves and headroom exceed the buffer by %d B (RF104).", -b.LossyBytes)
	}
	if len(lossyReserves) > 0 {
		tp.comment("%s", r.gap("the reserve %s is not rendered: NVUE reserves buffer as traffic pools, and only lossless classes have one (roce-lossless)", strings.Join(lossyReserves, ", ")))
	}
	if pct == 0 {
		return nil
	}
	if pct > 100 {
		return fmt.Errorf("lossless buffer reserves add up to %d %%, more than the buffer", pct)
	}
	lossless := tp.child("roce-lossless")
	lossless.set("memory-percent", pct)
	lsp := lossless.child("switch-priority")
	for _, p := range r.pfc {
		lsp.child(strconv.Itoa(p))
	}
	lossless.comment("%d %% of the buffer held for %s (the lossless priorities %s); NVUE keeps one lossless pool.",
		pct, strings.Join(reserved, ", "), renderers.JoinInts(r.pfc, ","))
	lossy := tp.child("default-lossy")
	lossy.set("memory-percent", 100-pct)
	ysp := lossy.child("switch-priority")
	for p := range 8 {
		if !slices.Contains(r.pfc, p) {
			ysp.child(strconv.Itoa(p))
		}
	}
	lossy.comment("The rest, so that the pools sum to 100 %%.")
	return nil
}

// arSpeeds are the port speeds Spectrum-4 runs adaptive routing at
// (Cumulus Linux ECMP guide, Adaptive Routing: 200G and 400G, not 800G).
var arSpeeds = []int{200, 400}

func (r *render) adaptive() bool {
	return r.s.LoadBalancing == "adaptive" || r.s.LoadBalancing == "spray"
}

func (r *render) routing(set *node) error {
	ar := set.child("router").child("adaptive-routing")
	switch r.s.LoadBalancing {
	case "ecmp":
		r.onOff(ar, false)
		ar.comment("ECMP hashing; adaptive routing off.")
		return nil
	case "adaptive":
		r.onOff(ar, true)
		ar.comment("Adaptive routing: Spectrum-4 picks the less loaded ECMP member per packet (decision every 1 us).")
	case "spray":
		r.onOff(ar, true)
		ar.comment("%s", r.gap("packet spraying: Cumulus Linux (5.14 user guide) documents no random or round-robin spray mode; adaptive routing (per packet, by port load) is rendered instead"))
	default:
		return fmt.Errorf("unknown load balancing %q", r.s.LoadBalancing)
	}
	ar.comment("Enabled per interface on switch-facing 200/400G L3 ports (the ECMP members); host-facing ports have one path.")
	ar.comment("Enabling or disabling it reloads switchd (restarts it on 5.12 and earlier): traffic pauses while it does.")
	ar.comment("The receivers must place out-of-order packets (RF109).")
	return nil
}

func (r *render) interfaces(set *node, profiles map[*ir.Headroom]string) error {
	ifs := set.child("interface")
	ports := slices.Clone(r.s.Ports)
	slices.SortFunc(ports, func(a, b ir.Port) int { return naturalCompare(a.Name, b.Name) })
	for i := 1; i < len(ports); i++ {
		if ports[i].Name == ports[i-1].Name {
			return fmt.Errorf("port %s listed twice", ports[i].Name)
		}
	}
	r.breakouts(ifs, ports)
	w := r.q.Watchdog
	// Per port, the same note and states: made once, not per port.
	pfcNote := "lossless priorities " + renderers.JoinInts(r.pfc, ",")
	wdState := "disable"
	if w.Enabled {
		wdState = "enable"
	}
	// The strings ports of one kind share (comment, speed, PFC profile)
	// are made once per kind, not per port.
	type kind struct {
		facing   ir.Role
		gbps     int
		cable    float64
		headroom *ir.Headroom
	}
	comments := map[kind]string{}
	speeds := map[int]string{}
	quoted := map[string]string{}
	mtu := strconv.Itoa(r.s.MTU)
	var noClass, noAR []string
	for _, p := range ports {
		n := ifs.child(p.Name)
		k := kind{p.Facing, p.SpeedGbps, p.CableM, p.Headroom}
		c, ok := comments[k]
		if !ok {
			c = portComment(p)
			comments[k] = c
		}
		n.above = append(n.above, c)
		if p.Peer != "" {
			desc := "to " + p.Peer
			if p.PeerPort != "" {
				desc += ":" + p.PeerPort
			}
			n.set("description", desc)
		}
		link := n.child("link")
		link.setScalar("mtu", mtu, mtu)
		if p.SpeedGbps > 0 {
			s, ok := speeds[p.SpeedGbps]
			if !ok {
				s = speed(p.SpeedGbps)
				speeds[p.SpeedGbps] = s
			}
			link.setScalar("speed", quoteOnce(quoted, s), s)
		}
		if len(r.pfc) > 0 {
			if name, ok := profiles[p.Headroom]; ok {
				qos := n.child("qos")
				qos.child("pfc").setScalar("profile", quoteOnce(quoted, name), name).trailing = pfcNote
				qos.child("pfc-watchdog").set("state", wdState)
			} else {
				noClass = append(noClass, p.Name)
				n.comment("platform gap: no port class, so no PFC profile: PFC stays as the default-global profile sets it")
			}
		}
		if r.adaptive() {
			ar := n.child("router").child("adaptive-routing")
			switch {
			case p.Facing == ir.RoleHost:
				r.onOff(ar, false)
			case slices.Contains(arSpeeds, p.SpeedGbps):
				r.onOff(ar, true)
			default:
				r.onOff(ar, false)
				ar.comment("platform gap: Spectrum-4 runs adaptive routing at 200G and 400G only; this %s port keeps ECMP hashing", speed(p.SpeedGbps))
				noAR = append(noAR, p.Name)
			}
		}
	}
	if len(noClass) > 0 {
		r.gap("ports without a port class get no PFC profile: %s", strings.Join(noClass, ","))
	}
	if len(noAR) > 0 {
		r.gap("adaptive routing runs at 200G and 400G only (Spectrum-4); these switch-facing ports keep ECMP hashing: %s", strings.Join(noAR, ","))
	}
	return nil
}

// quoteOnce returns quote(s), made once per s of the document (in m).
func quoteOnce(m map[string]string, s string) string {
	q, ok := m[s]
	if !ok {
		q = quote(s)
		m[s] = q
	}
	return q
}

// splitRE matches a split port, swp<parent>s<child>: Cumulus Linux names the
// ports of a broken-out cage after the parent port and the child's index.
var splitRE = regexp.MustCompile(`^(swp[0-9]+)s([0-9]+)$`)

// splitPort reads a split port name as splitRE does, without a regexp,
// since every port of every switch passes here: it returns the parent port
// and the child's index.
func splitPort(name string) (parent string, idx int, ok bool) {
	if !strings.HasPrefix(name, "swp") {
		return "", 0, false
	}
	i := 3
	for i < len(name) && isDigit(name[i]) {
		i++
	}
	if i == 3 || i == len(name) || name[i] != 's' || i+1 == len(name) {
		return "", 0, false
	}
	for j := i + 1; j < len(name); j++ {
		if !isDigit(name[j]) {
			return "", 0, false
		}
	}
	idx, err := strconv.Atoi(name[i+1:])
	if err != nil {
		return "", 0, false
	}
	return name[:i], idx, true
}

// breakoutModes are the modes `nv set interface <id> link breakout` takes
// for splitting a port (NVUE command reference, Interface, "link breakout":
// 1x, 2x, 4x, 8x; Cumulus Linux 5.4 and later).
var breakoutModes = []int{2, 4, 8}

// breakouts writes `link breakout <n>x` on every parent port whose split
// children the model uses: the children exist only once their parent is
// broken out, so without it their configuration lands on ports the switch
// does not have. The mode is the smallest that has a child of the highest
// index used (swp1s1 needs 2x, swp1s3 needs 4x).
func (r *render) breakouts(ifs *node, ports []ir.Port) {
	children := map[string]int{}
	var parents []string
	for _, p := range ports {
		parent, idx, ok := splitPort(p.Name)
		if !ok {
			continue
		}
		if _, ok := children[parent]; !ok {
			parents = append(parents, parent)
		}
		children[parent] = max(children[parent], idx+1)
	}
	slices.SortFunc(parents, naturalCompare)
	for _, parent := range parents {
		n := ifs.child(parent)
		need := children[parent]
		mode := 0
		for _, m := range breakoutModes {
			if m >= need {
				mode = m
				break
			}
		}
		if mode == 0 {
			n.comment("%s", r.gap("%s has split port index %d, beyond the 8x breakout NVUE offers: no breakout rendered", parent, need-1))
			continue
		}
		n.comment("Parent of the split ports %ss0..%ss%d: they exist only once the parent is broken out.", parent, parent, mode-1)
		n.comment("change: port-flap (breaking a port out recreates its split ports).")
		n.child("link").child("breakout").child(fmt.Sprintf("%dx", mode))
	}
}

// portComment says what the port faces and its class. It reads as
// fmt's "%s-facing, %s over %g m", built without fmt since every port of
// every switch passes here (%g with no precision is FormatFloat's 'g', -1).
func portComment(p ir.Port) string {
	s := string(p.Facing) + "-facing, " + speed(p.SpeedGbps) + " over " + strconv.FormatFloat(p.CableM, 'g', -1, 64) + " m"
	if p.Headroom != nil {
		s += ", port class " + p.Headroom.Name
	}
	return s
}

// speed writes a port speed as NVUE's link speed takes it (400G).
func speed(gbps int) string { return strconv.Itoa(gbps) + "G" }

// releaseLine says which release's spelling the document follows.
func (r *render) releaseLine() string {
	if r.rel.stateEnabled() {
		return fmt.Sprintf("Keys are spelled as Cumulus Linux %s takes them: on/off leaves as state: enabled|disabled (5.15 and later).", r.rel.name)
	}
	return fmt.Sprintf("Keys are spelled as Cumulus Linux %s takes them: on/off leaves as enable: 'on'|'off' (5.14 and earlier).", r.rel.name)
}

func (r *render) header() []string {
	d := r.d
	h := []string{
		fmt.Sprintf("rocefab NVUE configuration for %s (%s, model %s).", d.Name, d.Role, d.Model),
		"Rendered from the compiled fabric: change the intent, not this file.",
		"",
		"Merge into a pending revision, review, then apply with a confirm timer:",
		"  nv config patch nvue.yaml; nv config diff; nv config apply --confirm 600s -y",
		"A patch only adds and changes: what the model drops (a switch priority, a port) is unset by plan.",
		r.releaseLine(),
		"",
		"Disruption when an element changes (Cumulus Linux QoS and ECMP guides):",
		"  qos roce, traffic-pool, pfc: switchd reprograms ASIC buffers: traffic-pause (momentary loss)",
		"  mapping, egress-queue-mapping, egress-scheduler, congestion-control, pfc-watchdog: hitless",
		"  router adaptive-routing: switchd reload (5.13+) or restart (5.12 and earlier): traffic-pause",
		"  link speed, link breakout: port-flap; link mtu: not documented, treat as port-flap; description: hitless",
	}
	if len(r.gaps) > 0 {
		h = append(h, "", "Platform gaps (rendered as the comment at each element says):")
		for _, g := range r.gaps {
			h = append(h, "  - "+g)
		}
	}
	return h
}
