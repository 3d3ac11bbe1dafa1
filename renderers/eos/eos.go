package eos

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/internal/clitree"
)

// FileName is the artifact's name inside the device's output directory.
const FileName = "eos.cfg"

// ProfileName names the QoS profile every port is given with
// service-profile, and the Trident MMU queue profile. It is a constant so
// that no name from the intent reaches a profile name and so that a re-render
// updates the profile in place instead of leaving an old one behind.
const ProfileName = "ROCEFAB"

// MaxMTU is the largest interface MTU EOS accepts (reference/switches.md
// §1.1: 9214 on most EOS platforms); a larger switch MTU is clamped to it.
const MaxMTU = 9214

// minMTU is the smallest IPv4 MTU; below it the model is broken, not merely
// beyond what EOS takes.
const minMTU = 68

// Limits EOS documents for the values this renderer writes.
const (
	// maxThreshold bounds ECN thresholds in any unit (avd
	// ethernet_interfaces schema: 1..256000000).
	maxThreshold = 256_000_000
	// maxHeadroomPool bounds `platform trident mmu headroom-pool limit
	// bytes` (CLI help quoted in aristanetworks/avd#4921).
	maxHeadroomPool = 33_554_432
	// minPollMs is the smallest watchdog polling interval written; the avd
	// schema's own example is 0.005 s.
	minPollMs = 5
)

// Renderer renders EOS switches: eos.cfg, printed from the model Model
// returns. It is also EOS's platform of plan, apply and quarantine, all
// through EOS's tables (cli): a switch's desired state is its model within
// the owned scope (docs/ownership.md), its running configuration is `show
// running-config` text, and a remediation is the CLI lines of a
// configuration session. The zero value is ready to use.
type Renderer struct{ clitree.Methods[tables] }

// tables names cli for the methods Renderer embeds.
type tables struct{}

// CLI returns EOS's plumbing (clitree.Tables).
func (tables) CLI() *clitree.Platform { return cli }

// model builds d's configuration model: the stanza tree of eos.cfg, each
// line naming the catalog element it realises, comments included. It
// refuses, with an error, a device that is not an EOS switch, that carries
// an unsafe name, or whose model holds a value EOS cannot take and lint
// would have rejected (a DSCP map entry outside 0..7, an ECN probability
// outside 1..100, an unknown watchdog action or load-balancing mode, an
// MTU below 68).
func model(d *ir.Device) (*clitree.Tree, error) {
	if d == nil {
		return nil, errors.New("eos: nil device")
	}
	if err := renderers.CheckDevice(d); err != nil {
		return nil, fmt.Errorf("eos: %w", err)
	}
	if d.Platform != ir.PlatformEOS {
		return nil, fmt.Errorf("eos: device %q is on platform %q, not %q", d.Name, d.Platform, ir.PlatformEOS)
	}
	if d.Switch == nil || d.Role == ir.RoleHost {
		return nil, fmt.Errorf("eos: device %q (role %q) is not a switch", d.Name, d.Role)
	}
	if d.Switch.QoS == nil {
		return nil, fmt.Errorf("eos: device %q has no QoS policy", d.Name)
	}
	if err := checkText(d); err != nil {
		return nil, fmt.Errorf("eos: device %q: %w", d.Name, err)
	}
	r := &render{d: d, s: d.Switch, q: d.Switch.QoS, mmu: mmuOf(d), b: clitree.NewBuilder(dialect.Indent)}
	if err := r.check(); err != nil {
		return nil, fmt.Errorf("eos: device %q: %w", d.Name, err)
	}
	// About 4 KB of preamble and under 400 B per port: one allocation for
	// the whole text instead of a dozen doublings.
	r.b.Grow(8<<10 + 400*len(r.s.Ports))
	r.header()
	r.classification()
	r.watchdog()
	r.buffers()
	r.loadBalancing()
	r.profile()
	r.interfaces()
	return r.b.Tree(), nil
}

// render holds one rendering: the device, what was derived from it, and
// the model so far.
type render struct {
	d   *ir.Device
	s   *ir.Switch
	q   *ir.QoS
	mmu mmu

	queues   []ir.Queue // by ID
	speeds   []string   // laneSpeed of each port of s.Ports, once computed
	lossless []int      // sorted, distinct
	b        *clitree.Builder
	scratch  []byte // the line being written
}

// check rejects values EOS has no way to take, before anything is written,
// and orders what is rendered from slices.
func (r *render) check() error {
	if err := renderers.CheckQoSRanges(r.q); err != nil {
		return err
	}
	r.queues = slices.Clone(r.q.Queues)
	slices.SortStableFunc(r.queues, func(a, b ir.Queue) int { return cmp.Compare(a.ID, b.ID) })
	for i, q := range r.queues {
		if i > 0 && r.queues[i-1].ID == q.ID {
			return fmt.Errorf("queue %d listed twice", q.ID)
		}
		if q.Weight < 0 || q.Weight > 100 {
			return fmt.Errorf("queue %d: bandwidth %d %% outside 0..100", q.ID, q.Weight)
		}
		if e := q.ECN; e != nil {
			if e.MinBytes < 1 || e.MaxBytes > maxThreshold || e.MinBytes > e.MaxBytes {
				return fmt.Errorf("queue %d: ECN thresholds %d..%d B outside 1..%d B or out of order", q.ID, e.MinBytes, e.MaxBytes, maxThreshold)
			}
			if e.Probability < 1 || e.Probability > 100 {
				return fmt.Errorf("queue %d: ECN probability %d %% outside 1..100", q.ID, e.Probability)
			}
		}
	}
	for _, p := range r.q.PFC {
		if !slices.Contains(r.lossless, p) {
			r.lossless = append(r.lossless, p)
		}
	}
	slices.Sort(r.lossless)
	if wd := r.q.Watchdog; wd.Enabled {
		if wd.DetectMs <= 0 || wd.RestoreMs <= 0 {
			return fmt.Errorf("PFC watchdog detect %d ms and restore %d ms must be positive", wd.DetectMs, wd.RestoreMs)
		}
		if _, _, err := watchdogAction(wd.Action); err != nil {
			return err
		}
	}
	switch r.s.LoadBalancing {
	case "ecmp", "adaptive", "spray":
	default:
		return fmt.Errorf("unknown load balancing %q", r.s.LoadBalancing)
	}
	if r.s.MTU < minMTU {
		return fmt.Errorf("switch MTU %d below %d", r.s.MTU, minMTU)
	}
	return nil
}

// checkText checks the strings this renderer writes that
// [renderers.CheckDevice] does not: the model, the ASIC and the class names
// the QoS policy and buffer plan hold outside the queues. The model and the
// ASIC only reach comments, so they may also hold spaces, "+" and
// parentheses; nothing that ends a line or means something to a shell does.
func checkText(d *ir.Device) error {
	free := map[string]string{"model": d.Model}
	names := map[string]string{}
	if b := d.Switch.Buffers; b != nil {
		free["ASIC"] = b.ASIC
		// ReserveName lists the reserving classes ("roce, storage"): each
		// is a name, and so is each class of a reserve the platform does
		// not hold (UnheldName), which the gap comment names.
		i := 0
		for _, n := range strings.Split(b.ReserveName+", "+b.UnheldName, ", ") {
			if n != "" {
				i++
				names[fmt.Sprintf("reserved class %d", i)] = n
			}
		}
	}
	if c := d.Switch.QoS.CNP; c != nil {
		names["CNP class"] = c.Name
	}
	if c := d.Switch.QoS.DefaultClass; c != nil {
		names["default class"] = c.Name
	}
	for _, what := range slices.Sorted(maps.Keys(names)) {
		if err := renderers.CheckName(what, names[what]); err != nil {
			return err
		}
	}
	for _, what := range slices.Sorted(maps.Keys(free)) {
		s := free[what]
		if len(s) > 64 || strings.ContainsFunc(s, func(c rune) bool { return !freeText(c) }) {
			return fmt.Errorf("unsafe %s %q: only letters, digits, spaces and ._/-+() are allowed, at most 64", what, s)
		}
	}
	return nil
}

func freeText(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(" ._/-+()", c)
}

// -- text --

// line writes one configuration line at indent, realising the catalog
// element kind ("" for none: a mode's own line, a description).
func (r *render) line(indent int, kind, format string, args ...any) {
	r.scratch = fmt.Appendf(r.scratch[:0], format, args...)
	r.emit(indent, kind, r.scratch)
}

// emit adds the configuration line t at indent. Forms no source confirms
// get a "! verify:" line directly above them, at their indent, from the
// statement table the device carries (ir.Device.Verify; what
// renderers.MarkVerifyCLI does to a whole text, here line by line as the
// model is built).
func (r *render) emit(indent int, kind string, t []byte) {
	if form := formOf(t); form != "" && r.d.Verify[form] {
		r.b.Comment(indent, "! "+renderers.VerifyMark(form))
	}
	r.b.LineBytes(indent, kind, t)
}

// lineForms caches, per trimmed configuration line, its statement form
// ("" for a line that is none). Every leaf of a fabric writes the same
// lines but for its descriptions, and looking a line up here costs no
// allocation where working out its form (renderers.CLIForm) cost a third
// of rendering a leaf. It stops growing at lineFormsMax lines.
var lineForms = struct {
	sync.RWMutex
	m map[string]string
}{m: map[string]string{}}

const lineFormsMax = 1 << 16

// descriptionForm is the form of a description line, whose text is the
// peer's name: those lines differ on every port, so they are not cached.
const descriptionForm = "description TEXT"

// formOf returns the statement form of the trimmed line t, "" for none.
func formOf(t []byte) string {
	if bytes.HasPrefix(t, []byte("description ")) {
		return descriptionForm
	}
	lineForms.RLock()
	form, ok := lineForms.m[string(t)]
	lineForms.RUnlock()
	if ok {
		return form
	}
	form, isForm := renderers.CLIForm(string(t))
	if !isForm {
		form = ""
	}
	lineForms.Lock()
	if len(lineForms.m) < lineFormsMax {
		lineForms.m[string(t)] = form
	}
	lineForms.Unlock()
	return form
}

// comment writes a comment line; EOS drops "!" lines when it parses, so a
// comment never reaches the running configuration.
func (r *render) comment(indent int, format string, args ...any) {
	r.scratch = fmt.Appendf(append(r.scratch[:0], "! "...), format, args...)
	r.b.CommentBytes(indent, r.scratch)
}

// gap records an element of the model EOS cannot express, what was
// rendered instead, and why, in the form RF117 reports.
func (r *render) gap(indent int, format string, args ...any) {
	r.scratch = fmt.Appendf(append(r.scratch[:0], "! gap: "...), format, args...)
	r.b.CommentBytes(indent, r.scratch)
}

func (r *render) sep(indent int) { r.b.Comment(indent, "!") }

// -- sections --

func (r *render) header() {
	d := r.d
	where := ""
	if d.Rail >= 0 {
		where += fmt.Sprintf(", rail %d", d.Rail)
	}
	if d.Pod >= 0 {
		where += fmt.Sprintf(", pod %d", d.Pod)
	}
	r.comment(0, "%s: %s, Arista EOS, model %s%s", d.Name, d.Role, d.Model, where)
	r.comment(0, "Generated by rocefab from the fabric intent; edit the intent, not this file.")
	r.comment(0, "Load it into a configuration session so that any rejected line aborts the whole change:")
	r.comment(0, "  configure session <name>, these lines, show session-config diffs, commit timer 00:05:00;")
	r.comment(0, "  then confirm with configure session <name> commit, and write memory.")
	r.comment(0, "Addressing and routing (switchport mode, IP addresses, BGP) are not part of this fragment.")
	r.comment(0, "Buffer model: %s.", r.mmu.describe(r.s.Buffers))
}

// classNames returns the names of the classes on each traffic class.
func (r *render) classNames() [8][]string {
	var names [8][]string
	seen := map[*ir.Class]bool{}
	add := func(c *ir.Class) {
		if c == nil || seen[c] || c.Priority < 0 || c.Priority > 7 {
			return
		}
		seen[c] = true
		names[c.Priority] = append(names[c.Priority], c.Name)
	}
	for _, q := range r.queues {
		add(q.Class)
	}
	add(r.q.CNP)
	add(r.q.DefaultClass)
	for i := range names {
		slices.Sort(names[i])
	}
	return names
}

func (r *render) classification() {
	r.sep(0)
	r.comment(0, "Classification: DSCP -> traffic class -> tx-queue; a class's priority is its traffic class and its queue.")
	r.comment(0, "Every DSCP is listed, so no platform default map is relied on.")
	r.comment(0, "change: hitless (reclassifies new packets; no port flap or buffer reprogramming documented).")
	names := r.classNames()
	for tc := range 8 {
		var dscps []string
		for dscp, t := range r.q.DSCPToTC {
			if t == tc {
				dscps = append(dscps, strconv.Itoa(dscp))
			}
		}
		if len(dscps) == 0 {
			continue
		}
		r.comment(0, "traffic class %d: %s", tc, r.describeTC(tc, names[tc]))
		r.line(0, ir.ElementDSCPMap, "qos map dscp %s to traffic-class %d", strings.Join(dscps, " "), tc)
	}
	// Traffic class 7 and tx-queue 7 are bound together on EOS and reserved
	// for control-plane traffic, so the map is written for 0..6 only. An
	// identity entry is not written: traffic class N leaves on tx-queue N
	// by default, and on Trident/Tomahawk, whose queues are split into
	// unicast and multicast ones, no Arista source shows the form the map
	// takes there (tx-queue or uc-tx-queue).
	identity := true
	for q := range 8 {
		var tcs []string
		for tc := range 7 {
			if r.q.TCToQueue[tc] == q && tc != q {
				tcs = append(tcs, strconv.Itoa(tc))
			}
		}
		if len(tcs) > 0 {
			identity = false
			if r.mmu == mmuXGS {
				r.comment(0, "verify: the traffic-class to tx-queue map on a platform with unicast and multicast queues.")
			}
			r.line(0, ir.ElementTCQueue, "qos map traffic-class %s to tx-queue %d", strings.Join(tcs, " "), q)
		}
	}
	if identity {
		r.comment(0, "Traffic class N leaves on tx-queue N, the EOS default: no traffic-class to tx-queue map is written.")
	}
	if r.q.TCToQueue[7] != 7 {
		r.gap(0, "traffic class 7 to tx-queue %d: EOS binds traffic class 7 to tx-queue 7 for control-plane traffic; left on tx-queue 7.", r.q.TCToQueue[7])
	}
	if len(names[7]) > 0 {
		r.comment(0, "verify: class %s is on priority 7, which EOS shares with control-plane traffic.", strings.Join(names[7], ", "))
	}
	if slices.ContainsFunc(r.queues, func(q ir.Queue) bool { return q.ECN != nil }) {
		r.comment(0, "ECN marking must not turn into WRED drops for packets that are not ECN-capable.")
		r.line(0, ir.ElementECN, "qos random-detect ecn allow non-ect")
	}
}

// describeTC says what a traffic class carries, for the comment above its
// map line.
func (r *render) describeTC(tc int, names []string) string {
	s := "no class"
	if len(names) > 0 {
		s = strings.Join(names, ", ")
	}
	var tags []string
	if slices.Contains(r.lossless, tc) {
		tags = append(tags, "lossless")
	}
	if c := r.q.CNP; c != nil && c.Priority == tc {
		tags = append(tags, "CNP")
	}
	if c := r.q.DefaultClass; c != nil && c.Priority == tc {
		tags = append(tags, "default class: every DSCP no class lists")
	}
	if len(tags) > 0 {
		s += " (" + strings.Join(tags, "; ") + ")"
	}
	return s
}

func (r *render) watchdog() {
	wd := r.q.Watchdog
	r.sep(0)
	if !wd.Enabled {
		r.comment(0, "PFC watchdog: off in the intent (RF108); the QoS profile turns it off on every port.")
		return
	}
	timeout, tNote := centiseconds(wd.DetectMs)
	recovery, rNote := centiseconds(wd.RestoreMs)
	pollMs := max(minPollMs, roundUp(wd.DetectMs, 10)/5)
	action, _, _ := watchdogAction(wd.Action)
	r.comment(0, "PFC watchdog: detect %d ms, restore %d ms, action %s (%s on each port, in the QoS profile).", wd.DetectMs, wd.RestoreMs, wd.Action, action)
	r.comment(0, "Timers are seconds with two decimals; the polling interval is not in the model: timeout / 5, at least %d ms.", minPollMs)
	r.comment(0, "change: hitless.")
	if tNote {
		r.comment(0, "detect %d ms rounded up to %s s, the next value EOS takes.", wd.DetectMs, timeout)
	}
	if rNote {
		r.comment(0, "restore %d ms rounded up to %s s, the next value EOS takes.", wd.RestoreMs, recovery)
	}
	r.line(0, ir.ElementPFCWatchdog, "priority-flow-control pause watchdog default timeout %s", timeout)
	r.line(0, ir.ElementPFCWatchdog, "priority-flow-control pause watchdog default recovery-time %s", recovery)
	r.line(0, ir.ElementPFCWatchdog, "priority-flow-control pause watchdog default polling-interval %s", milliseconds(pollMs))
}

// watchdogAction maps the model's watchdog action to the per-port EOS
// action (drop | notify-only; without one EOS error-disables the port) and
// says whether that is a substitute.
func watchdogAction(a string) (string, bool, error) {
	switch a {
	case "drop":
		return "drop", false, nil
	case "alert":
		return "notify-only", false, nil
	case "forward":
		return "notify-only", true, nil
	}
	return "", false, fmt.Errorf("unknown PFC watchdog action %q", a)
}

func (r *render) buffers() {
	r.sep(0)
	b := r.s.Buffers
	classes := r.headrooms()
	if b == nil {
		r.gap(0, "buffers: the model has no buffer plan for this switch; no buffer statements rendered.")
	}
	switch r.mmu {
	case mmuXGS:
		r.tridentMMU(classes)
	case mmuSand:
		r.comment(0, "Buffers: VOQ (Jericho) platform; headroom and thresholds are managed by the platform.")
		r.gap(0, "per port class PFC headroom%s: EOS has no headroom knob on this platform; not rendered.", summarize(classes, sizeOf))
	default:
		r.gap(0, "buffers: the MMU family of model %s is not known here, so no platform buffer statements are rendered.", r.d.Model)
		r.gap(0, "per port class PFC headroom%s: not rendered (see above).", summarize(classes, sizeOf))
	}
	if len(classes) > 0 {
		r.gap(0, "xoff/xon per port class%s: EOS computes them itself; not rendered.", summarize(classes, xoffXon))
	}
	if b != nil && b.UnheldPercent > 0 {
		r.gap(0, "reserve %d %% of the shared buffer (%d B) for %s: EOS has no shared-pool percentage; the lossless priority groups use the platform's dynamic shared threshold on the shared pool (%d B).", b.UnheldPercent, b.UnheldBytes, b.UnheldName, b.PoolBytes)
	}
	var pgs []string
	for tc, pg := range r.q.TCToPG {
		if pg != 0 {
			pgs = append(pgs, fmt.Sprintf("tc %d -> pg %d", tc, pg))
		}
	}
	if len(pgs) > 0 {
		r.gap(0, "traffic class to priority group map (%s, the rest -> pg 0): no EOS command for it is documented; the platform assigns priority groups to the no-drop priorities.", strings.Join(pgs, ", "))
	}
	if b != nil && b.XoffPoint > 0 {
		// Whether the ECN maxima stay under it is lint's to judge (RF102),
		// not the artifact's: the renderer states the point only.
		r.comment(0, "The ingress XOFF point of a lossless priority group is %d B (lint RF102 compares the ECN maxima with it).", b.XoffPoint)
	}
}

// tridentMMU writes the Trident/Tomahawk MMU statements: the headroom pool,
// and one queue profile with the port headroom, applied to every port.
func (r *render) tridentMMU(classes []*ir.Headroom) {
	b := r.s.Buffers
	r.comment(0, "Buffers: Trident/Tomahawk MMU. One queue profile applies to every port.")
	r.comment(0, "change: traffic-pause: the headroom pool and an applied MMU profile reprogram the buffer of every port.")
	if b != nil && b.HeadroomBytes > 0 {
		pool := max(b.HeadroomBytes, b.HeadroomNeeded)
		if pool > maxHeadroomPool {
			r.gap(0, "headroom pool of %d B: EOS takes at most %d B; clamped, so a simultaneous storm on every port may overrun it.", pool, maxHeadroomPool)
			pool = maxHeadroomPool
		}
		r.comment(0, "Headroom pool: the sum of headroom over ports and lossless priorities, as budgeted (RF104).")
		r.line(0, ir.ElementHeadroomCable, "platform trident mmu headroom-pool limit bytes %d", pool)
	}
	if len(r.lossless) == 0 || len(classes) == 0 {
		r.comment(0, "No lossless priority or no port class: no MMU queue profile.")
		return
	}
	largest := slices.MaxFunc(classes, func(a, b *ir.Headroom) int { return cmp.Compare(a.Size, b.Size) })
	perPort := largest.Size * int64(len(r.lossless))
	if len(classes) > 1 {
		r.gap(0, "per port class PFC headroom%s: one MMU profile serves every port, so each port gets the largest class (%s); the pool above bounds the total.", summarize(classes, sizeOf), largest.Name)
	}
	r.comment(0, "Port ingress headroom: %d B per lossless priority x %d lossless priority(ies) (class %s).", largest.Size, len(r.lossless), largest.Name)
	r.comment(0, "verify: EOS documents no per-priority-group headroom knob; ingress headroom is read as the port's total.")
	r.line(0, ir.ElementHeadroomCable, "platform trident mmu queue profile %s", ProfileName)
	r.line(1, ir.ElementHeadroomCable, "ingress headroom bytes %d", perPort)
	r.line(0, ir.ElementHeadroomCable, "platform trident mmu queue profile %s apply", ProfileName)
}

// headrooms returns the switch's port classes: the ones the model lists,
// then any a port points at that the list lacks, ordered by speed, cable
// length and name.
func (r *render) headrooms() []*ir.Headroom {
	hs := renderers.HeadroomClasses(r.s.Headrooms, r.s.Ports)
	slices.SortStableFunc(hs, renderers.ComparePortClasses)
	return hs
}

func sizeOf(h *ir.Headroom) string { return fmt.Sprintf("%s %d B", h.Name, h.Size) }

func xoffXon(h *ir.Headroom) string {
	return fmt.Sprintf("%s xoff %d B, xon %d B", h.Name, h.Xoff, h.Xon)
}

// summarize lists the port classes for a gap comment, in parentheses after
// a leading space, or nothing when there are none.
func summarize(hs []*ir.Headroom, f func(*ir.Headroom) string) string {
	if len(hs) == 0 {
		return ""
	}
	parts := make([]string, len(hs))
	for i, h := range hs {
		parts[i] = f(h)
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

func (r *render) loadBalancing() {
	r.sep(0)
	mode := r.s.LoadBalancing
	if mode == "ecmp" {
		r.comment(0, "Load balancing: ECMP, hash-based, the EOS default.")
		if r.mmu == mmuSand {
			r.comment(0, "Nothing to render: this platform hashes ECMP by default and has no documented distribution mode.")
			return
		}
		r.comment(0, "Stated explicitly so that a switch left in dynamic mode returns to hashing.")
		r.comment(0, "change: reprograms ECMP groups and re-hashes flows; no port flap documented, plan it as traffic-affecting.")
		r.line(0, ir.ElementAdaptiveRouting, "ip hardware fib load-balance distribution hash")
		return
	}
	if r.mmu == mmuSand {
		r.gap(0, "%s load balancing: dynamic load balancing on ECMP groups is documented for Broadcom XGS (Trident/Tomahawk) platforms only; the platform's hash-based ECMP stays.", mode)
		return
	}
	if mode == "spray" {
		r.gap(0, "packet spraying: Randomized Load Balancing (per packet) on ECMP groups exists from EOS 4.35.2F (Arista TOI) but its CLI could not be confirmed; rendered dynamic load balancing instead, the closest documented mode.")
	}
	r.comment(0, "Load balancing: %s -> Dynamic Load Balancing (DLB) on ECMP groups: members are chosen by port load (bytes sent, packets queued).", mode)
	r.comment(0, "Source: Arista TOI \"Support for Dynamic Load Balancing on ECMP groups\" (EOS 4.24.2F); CLI help quoted in aristanetworks/avd#4920.")
	r.comment(0, "change: reprograms every ECMP group; flows move between members while it settles (brief reordering);")
	r.comment(0, "  no port flap documented, nor documented as hitless: plan it as traffic-affecting.")
	if r.mmu == mmuUnknown {
		r.comment(0, "verify: DLB is documented for Broadcom XGS platforms; model %s is not known to be one.", r.d.Model)
	}
	r.line(0, ir.ElementAdaptiveRouting, "ip hardware fib load-balance distribution dynamic")
}

func (r *render) profile() {
	r.sep(0)
	r.comment(0, "QoS profile applied to every port with service-profile: trust, scheduling, ECN, PFC, watchdog.")
	r.comment(0, "change: hitless for trust, scheduling and ECN; PFC and the watchdog take effect per port without a flap")
	r.comment(0, "  (none documented), and a lossless class is only lossless once both ends of a link agree.")
	r.line(0, "", "qos profile %s", ProfileName)
	r.line(1, ir.ElementDSCPMap, "qos trust dscp")
	r.queueBlocks()
	r.sep(1)
	if len(r.lossless) == 0 {
		r.comment(1, "No lossless class: PFC off.")
		r.line(1, ir.ElementPFC, "no priority-flow-control")
	} else {
		r.comment(1, "PFC on exactly the lossless priorities (%s); every other priority drops.", renderers.JoinInts(r.lossless, ", "))
		r.line(1, ir.ElementPFC, "priority-flow-control on")
		for p := range 8 {
			if slices.Contains(r.lossless, p) {
				r.line(1, ir.ElementPFC, "priority-flow-control priority %d no-drop", p)
			} else {
				r.line(1, ir.ElementPFC, "priority-flow-control priority %d drop", p)
			}
		}
	}
	wd := r.q.Watchdog
	switch {
	case !wd.Enabled:
		r.line(1, ir.ElementPFCWatchdog, "no priority-flow-control pause watchdog")
	case len(r.lossless) > 0:
		action, substitute, _ := watchdogAction(wd.Action)
		if substitute {
			r.gap(1, "watchdog action %s: EOS offers drop, notify-only or error-disable, none of which forwards a paused queue; rendered notify-only, which drops nothing and leaves the queue paused.", wd.Action)
		}
		r.line(1, ir.ElementPFCWatchdog, "priority-flow-control pause watchdog")
		r.line(1, ir.ElementPFCWatchdog, "priority-flow-control pause watchdog port action %s", action)
	}
}

// queueBlocks writes the scheduling and ECN of every queue that carries a
// class. EOS queues are strict priority by default, so round-robin queues
// say "no priority" explicitly (reference/switches.md §1.5).
func (r *render) queueBlocks() {
	kw := r.mmu.queueKeyword()
	maxRR := -1
	for _, q := range r.queues {
		if !q.Strict {
			maxRR = max(maxRR, q.ID)
		}
	}
	for _, q := range r.queues {
		r.sep(1)
		r.line(1, "", "%s %d", kw, q.ID)
		r.comment(2, "%s", r.describeQueue(q))
		if q.Strict {
			if q.ID < maxRR {
				r.comment(2, "verify: strict queue %d is numbered below round-robin queue %d; EOS may schedule it round-robin.", q.ID, maxRR)
			}
			r.line(2, ir.ElementStrict, "priority strict")
		} else {
			r.line(2, ir.ElementStrict, "no priority")
			if q.Weight > 0 {
				r.line(2, ir.ElementETS, "bandwidth percent %d", q.Weight)
			} else {
				r.comment(2, "No ETS share in the model (RF119): the queue keeps the platform's default round-robin weight.")
			}
		}
		if e := q.ECN; e != nil {
			// Bytes keep the model's value exact: whether EOS counts
			// kbytes and mbytes in powers of 1000 or 1024 is not stated
			// in the sources.
			r.line(2, ir.ElementECN, "random-detect ecn minimum-threshold %d bytes maximum-threshold %d bytes max-mark-probability %d", e.MinBytes, e.MaxBytes, e.Probability)
		}
	}
}

func (r *render) describeQueue(q ir.Queue) string {
	name := "no class"
	if q.Class != nil {
		name = q.Class.Name
	}
	var tags []string
	if q.Lossless {
		tags = append(tags, "lossless")
	}
	if q.Class != nil && q.Class.CNP {
		tags = append(tags, "CNP")
	}
	if q.Strict {
		tags = append(tags, "strict priority")
	} else {
		tags = append(tags, fmt.Sprintf("ETS %d %%", q.Weight))
	}
	if e := q.ECN; e != nil {
		tags = append(tags, fmt.Sprintf("ECN %d..%d B, %d %% at the maximum", e.MinBytes, e.MaxBytes, e.Probability))
	}
	return name + ": " + strings.Join(tags, ", ")
}

func (r *render) interfaces() {
	mtu := strconv.Itoa(min(r.s.MTU, MaxMTU))
	r.sep(0)
	r.comment(0, "Ports: every port of the switch carries the QoS profile; lossless on every hop.")
	if r.s.MTU > MaxMTU {
		r.comment(0, "MTU: the model asks %d B; EOS takes at most %d B, so %s B is rendered.", r.s.MTU, MaxMTU, mtu)
	}
	r.comment(0, "change: hitless for description, MTU and service-profile (no port flap documented); port-flap for speed.")
	cageGbps := r.s.CageGbps
	var gaps []int
	r.speeds, gaps = laneSpeeds(r.s.Ports, cageGbps)
	if slices.ContainsFunc(r.speeds, func(sp string) bool { return sp != "" }) {
		r.comment(0, "Broken-out cages: EOS brings up the second port of a split cage (EthernetN/5) only once its lanes carry")
		r.comment(0, "a speed, written as speed and lane count (speed 400g-4: 400G over 4 of the cage's 8 lanes) on /1 and /5.")
		r.comment(0, "A port that uses a whole cage slower than the cage's own speed takes its speed and the lanes it needs at")
		r.comment(0, "the cage's lane rate (speed 100g-2 on a 400G cage of 50G lanes), as AVD renders it for an EthernetN/1 port.")
		r.comment(0, "verify: speed <G>g-<lanes> is confirmed by field configurations of 800G OSFP cages and AVD's test configs,")
		r.comment(0, "not by an Arista manual page.")
	}
	if slices.Contains(r.speeds, "") {
		r.comment(0, "Ports that use a whole cage at its own speed keep its default: no speed statement.")
	}
	for _, i := range gaps {
		p := r.s.Ports[i]
		r.comment(0, "GAP: %s runs %d Gbit/s on a whole %d Gbit/s cage of %d Gbit/s lanes: no whole number of lanes", p.Name, p.SpeedGbps, cageGbps, cageGbps/8)
		r.comment(0, "  carries it, so EOS has no speed form for it and it keeps the cage's default (lint RF117 reports it).")
	}
	// One block per port, the bulk of the file: written without fmt.
	for i, p := range r.s.Ports {
		r.sep(0)
		r.put(0, "", "interface ", p.Name)
		switch {
		case p.Peer == "":
			r.comment(1, "no peer in the model")
		case p.PeerPort == "":
			r.put(1, "", "description to ", p.Peer)
		default:
			r.put(1, "", "description to ", p.Peer, ":", p.PeerPort)
		}
		r.describePort(p)
		if sp := r.speeds[i]; sp != "" {
			r.put(1, renderers.KindPortSpeed, "speed ", sp)
		}
		r.put(1, ir.ElementMTU, "mtu ", mtu)
		r.put(1, ir.ElementPFC, "service-profile ", ProfileName)
	}
}

// put writes one configuration line at indent made of parts, as line
// does.
func (r *render) put(indent int, kind string, parts ...string) {
	b := r.scratch[:0]
	for _, s := range parts {
		b = append(b, s...)
	}
	r.scratch = b
	r.emit(indent, kind, b)
}

// describePort writes a port's comment: speed, cable, peer role and
// headroom class.
func (r *render) describePort(p ir.Port) {
	b := append(r.scratch[:0], "! "...)
	b = strconv.AppendInt(b, int64(p.SpeedGbps), 10)
	b = append(b, " G, "...)
	b = strconv.AppendFloat(b, p.CableM, 'f', -1, 64)
	b = append(b, " m cable, facing "...)
	b = append(b, p.Facing...)
	if h := p.Headroom; h != nil {
		b = append(b, "; headroom class "...)
		b = append(b, h.Name...)
		b = append(b, ": "...)
		b = strconv.AppendInt(b, h.Size, 10)
		b = append(b, " B per lossless priority (xoff "...)
		b = strconv.AppendInt(b, h.Xoff, 10)
		b = append(b, " B, xon "...)
		b = strconv.AppendInt(b, h.Xon, 10)
		b = append(b, " B)"...)
	}
	r.scratch = b
	r.b.CommentBytes(1, b)
}

// lanesPerCage is the SerDes lanes of one OSFP or QSFP-DD cage, which EOS
// exposes as the interfaces EthernetN/1..EthernetN/8, one per lane (Arista
// EOS manual, "Layer 1 Profiles").
const lanesPerCage = 8

// cagePort splits an EOS front-panel interface EthernetN/L, L in 1..8,
// into its cage N and its lane L-1.
func cagePort(name string) (cage string, lane int, ok bool) {
	rest, found := strings.CutPrefix(name, "Ethernet")
	slash := strings.IndexByte(rest, '/')
	if !found || slash < 1 || len(rest) != slash+2 || rest[slash+1] < '1' || rest[slash+1] > '8' {
		return "", 0, false
	}
	for _, c := range []byte(rest[:slash]) {
		if c < '0' || c > '9' {
			return "", 0, false
		}
	}
	return rest[:slash], int(rest[slash+1] - '1'), true
}

// cageLanes returns, for each port of a broken-out cage, its lane count:
// a cage whose ports start at lanes 1 and 5 is split in two (4 lanes
// each), at 1, 3, 5, 7 in four, at every lane in eight. Ports of a cage
// used whole (only /1) are not listed.
func cageLanes(ports []ir.Port) map[string]int {
	// Per cage, the lanes its ports start at, as a bit set: lane l is bit l.
	used := make(map[string]uint8, len(ports))
	for _, p := range ports {
		if cage, lane, ok := cagePort(p.Name); ok {
			used[cage] |= 1 << lane
		}
	}
	out := make(map[string]int, len(used))
	for cage, lanes := range used {
		if lanes&^1 == 0 {
			continue // only lane 0: the cage is used whole
		}
		width := lanesPerCage
		for width > 1 && !startsAligned(lanes, width) {
			width /= 2
		}
		out[cage] = width
	}
	return out
}

// startsAligned reports whether every lane in the set lanes is a multiple
// of width.
func startsAligned(lanes uint8, width int) bool {
	for l := range lanesPerCage {
		if lanes&(1<<l) != 0 && l%width != 0 {
			return false
		}
	}
	return true
}

// laneSpeeds returns, for each port, its EOS speed if it is a port of a
// broken-out cage, as speed and lane count ("400g-4"), or if it uses its
// cage whole slower than the cage's own speed, cageGbps
// (ir.EOSCageSpeed); "" for a port that runs its whole cage at the
// cage's speed. A split cage needs it on every port: its later ports
// (EthernetN/5 for 2x400G) stay inactive until the first ones give up
// their lanes. gaps are the indexes of whole-cage ports no lane count
// carries.
func laneSpeeds(ports []ir.Port, cageGbps int) (out []string, gaps []int) {
	widths := cageLanes(ports)
	out = make([]string, len(ports))
	for i, p := range ports {
		cage, _, ok := cagePort(p.Name)
		if n, split := widths[cage]; ok && split && p.SpeedGbps > 0 {
			out[i] = strconv.Itoa(p.SpeedGbps) + "g-" + strconv.Itoa(n)
			continue
		}
		if !ok {
			continue
		}
		sp, carried := ir.EOSCageSpeed(p.SpeedGbps, cageGbps)
		if !carried {
			gaps = append(gaps, i)
		}
		out[i] = sp
	}
	return out, gaps
}

// -- numbers --

// centiseconds formats ms as seconds with at most two decimals, the
// precision EOS takes for watchdog timeouts and recovery times, rounding up
// so that a detection is never made more eager than asked. It reports
// whether rounding changed the value.
func centiseconds(ms int) (string, bool) {
	r := roundUp(ms, 10)
	return milliseconds(r), r != ms
}

// milliseconds formats ms as decimal seconds without trailing zeros.
func milliseconds(ms int) string {
	s := fmt.Sprintf("%d.%03d", ms/1000, ms%1000)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

func roundUp(n, step int) int { return (n + step - 1) / step * step }
