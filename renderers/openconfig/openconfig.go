package openconfig

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// FileName is the artifact's name inside the device's output directory.
const FileName = "openconfig.json"

// Names of the policy objects every switch gets. They are fixed, not derived
// from the intent, so that a plan against a device shows the same paths on
// every run and every switch.
const (
	classifierIPv4  = "dscp-ipv4"
	classifierIPv6  = "dscp-ipv6"
	schedulerPolicy = "fabric"
	ecnPrefix       = "ecn-"
)

// Scheduler sequence numbers: the model processes schedulers from the lowest
// sequence up, so the strict scheduler comes first.
const (
	strictSequence = 0
	wrrSequence    = 1
)

// Renderer renders the OpenConfig artifact of a switch.
type Renderer struct {
	// Compact writes the JSON without insignificant white space: the
	// artifact is a gNMI payload, and indentation is half its bytes. The
	// content is the same either way.
	Compact bool
}

var (
	_ renderers.Renderer = Renderer{}
	_ renderers.Namer    = Renderer{}
)

// Render returns <device>/openconfig.json for a switch of any platform. It
// fails on a host, on a switch without a QoS policy, and on values that
// OpenConfig or the model's ranges cannot hold (an unknown port speed, an
// MTU above 65535, a DSCP that maps to a class no queue carries).
func (r Renderer) Render(d *ir.Device) ([]renderers.Artifact, error) {
	c, err := checkedPlan(d)
	if err != nil {
		return nil, err
	}
	js, err := emitInto(documents.Get(0), c, r.Compact)
	if err != nil {
		return nil, fmt.Errorf("openconfig: %s: %w", d.Name, err)
	}
	return []renderers.Artifact{documents.Artifact(d.Name+"/"+FileName, renderers.JSON, js)}, nil
}

// documents holds the buffers openconfig.json is written into.
var documents renderers.ContentPool

// Names returns the path Render writes for d, after the checks Render
// makes before the tree is built: the tree of a new shape costs tens of
// milliseconds to build and emit. Render fails where Names does not only
// if ygot cannot emit the tree it built.
func (Renderer) Names(d *ir.Device) ([]string, error) {
	if _, err := checkedPlan(d); err != nil {
		return nil, err
	}
	return []string{d.Name + "/" + FileName}, nil
}

// config is the device's OpenConfig content as plain data, in the order it
// is listed (the emitter sorts list entries by key anyway). ocdevice.go maps
// it onto the generated types; nothing here knows them.
type config struct {
	ports  []port
	queues []queue // by queue ID
	terms  []term  // in evaluation order, the default class last
	strict []input // the STRICT scheduler's inputs
	wrr    []input // the weighted round-robin scheduler's inputs
	ecn    []wred  // queue-management profiles

	lossless []string // the lossless queues, by queue ID
	classes  []*ir.Class
}

type port struct {
	name, description string
	mtu               uint16
	speedGbps         int
}

type queue struct {
	name string // the class's name, also its forwarding group's
	id   uint8
	// ecnProfile is the queue-management profile, "" when the class does
	// not mark.
	ecnProfile string
}

type term struct {
	id    string
	group string // forwarding group = class name
	dscp  []uint8
}

type input struct {
	queue  string
	weight uint64
}

type wred struct {
	name        string
	min, max    uint64 // bytes
	probability uint8  // percent at max
}

// checkedPlan refuses no device and one with an unsafe name, then plans
// d's content: what Render, Names and Desired all begin with.
func checkedPlan(d *ir.Device) (*config, error) {
	if d == nil {
		return nil, fmt.Errorf("openconfig: nil device")
	}
	if err := renderers.CheckDevice(d); err != nil {
		return nil, err
	}
	c, err := plan(d)
	if err != nil {
		return nil, fmt.Errorf("openconfig: %s: %w", d.Name, err)
	}
	return c, nil
}

// plan turns the model into the device's OpenConfig content, checking what
// the emitted types cannot hold or would hold wrongly.
func plan(d *ir.Device) (*config, error) {
	s := d.Switch
	switch {
	case s == nil:
		return nil, fmt.Errorf("not a switch (role %q, platform %q): the OpenConfig artifact is for switches", d.Role, d.Platform)
	case d.Role != ir.RoleLeaf && d.Role != ir.RoleSpine && d.Role != ir.RoleSuperspine:
		return nil, fmt.Errorf("role %q is not a switch role", d.Role)
	case !slices.Contains([]string{ir.PlatformEOS, ir.PlatformNVUE, ir.PlatformSONiC, ir.PlatformNXOS}, d.Platform):
		return nil, fmt.Errorf("unsupported switch platform %q", d.Platform)
	case s.QoS == nil:
		return nil, fmt.Errorf("switch has no QoS policy")
	case s.MTU <= 0 || s.MTU > math.MaxUint16:
		return nil, fmt.Errorf("switch MTU %d outside 1..%d", s.MTU, math.MaxUint16)
	}
	c := &config{}
	if err := c.planQueues(s.QoS); err != nil {
		return nil, err
	}
	if err := c.planTerms(s.QoS); err != nil {
		return nil, err
	}
	if err := c.planPorts(d); err != nil {
		return nil, err
	}
	return c, nil
}

// planQueues fills queues, the schedulers and the ECN profiles.
func (c *config) planQueues(q *ir.QoS) error {
	if len(q.Queues) == 0 {
		return fmt.Errorf("QoS policy has no queues")
	}
	qs := slices.Clone(q.Queues)
	slices.SortFunc(qs, func(a, b ir.Queue) int { return cmp.Compare(a.ID, b.ID) })
	names := map[string]bool{}
	for i, qu := range qs {
		switch {
		case qu.Class == nil:
			return fmt.Errorf("queue %d carries no class", qu.ID)
		case qu.ID < 0 || qu.ID > 7:
			return fmt.Errorf("queue %d of class %s outside 0..7", qu.ID, qu.Class.Name)
		case i > 0 && qs[i-1].ID == qu.ID:
			return fmt.Errorf("queue %d carries two classes (%s, %s)", qu.ID, qs[i-1].Class.Name, qu.Class.Name)
		case names[qu.Class.Name]:
			return fmt.Errorf("class %s has two queues", qu.Class.Name)
		case qu.Class.Priority < 0 || qu.Class.Priority > 7:
			return fmt.Errorf("class %s: priority %d outside 0..7", qu.Class.Name, qu.Class.Priority)
		case !qu.Strict && qu.Weight < 0:
			return fmt.Errorf("class %s: negative weight %d", qu.Class.Name, qu.Weight)
		}
		names[qu.Class.Name] = true
		c.classes = append(c.classes, qu.Class)
		if qu.Lossless {
			c.lossless = append(c.lossless, qu.Class.Name)
		}
		out := queue{name: qu.Class.Name, id: uint8(qu.ID)}
		if e := qu.ECN; e != nil {
			if e.MinBytes < 0 || e.MaxBytes < 0 || e.Probability < 0 || e.Probability > 100 {
				return fmt.Errorf("class %s: ECN min %d B, max %d B, probability %d%%: negative or above 100%%",
					qu.Class.Name, e.MinBytes, e.MaxBytes, e.Probability)
			}
			out.ecnProfile = ecnPrefix + qu.Class.Name
			c.ecn = append(c.ecn, wred{name: out.ecnProfile, min: uint64(e.MinBytes), max: uint64(e.MaxBytes),
				probability: uint8(e.Probability)})
		}
		c.queues = append(c.queues, out)
		if qu.Strict {
			// A priority scheduler orders its inputs by weight, higher
			// first; the class priority is that order.
			c.strict = append(c.strict, input{queue: out.name, weight: uint64(qu.Class.Priority)})
		} else {
			c.wrr = append(c.wrr, input{queue: out.name, weight: uint64(qu.Weight)})
		}
	}
	return nil
}

// planTerms fills the classifier terms from the DSCP map, the one source of
// where each DSCP goes; each class's own DSCP list must agree with it.
func (c *config) planTerms(q *ir.QoS) error {
	byPrio := map[int]*ir.Class{}
	for _, cl := range c.classes {
		if prev, ok := byPrio[cl.Priority]; ok {
			return fmt.Errorf("classes %s and %s share priority %d", prev.Name, cl.Name, cl.Priority)
		}
		byPrio[cl.Priority] = cl
		for _, dscp := range cl.DSCP {
			if dscp < 0 || dscp > 63 {
				return fmt.Errorf("class %s: DSCP %d outside 0..63", cl.Name, dscp)
			}
			if q.DSCPToTC[dscp] != cl.Priority {
				return fmt.Errorf("class %s lists DSCP %d, which the DSCP map sends to traffic class %d", cl.Name, dscp, q.DSCPToTC[dscp])
			}
		}
	}
	sets := map[*ir.Class][]uint8{}
	for dscp, tc := range q.DSCPToTC {
		cl, ok := byPrio[tc]
		if !ok {
			return fmt.Errorf("DSCP %d maps to traffic class %d, which no queue carries", dscp, tc)
		}
		sets[cl] = append(sets[cl], uint8(dscp))
	}
	// Highest priority first, the default class last; a class no DSCP maps
	// to gets no term, since an empty dscp-set would match every DSCP.
	classes := slices.Clone(c.classes)
	slices.SortFunc(classes, func(a, b *ir.Class) int {
		if (a == q.DefaultClass) != (b == q.DefaultClass) {
			if a == q.DefaultClass {
				return 1
			}
			return -1
		}
		return cmp.Compare(b.Priority, a.Priority)
	})
	n := 0
	for _, cl := range classes {
		if len(sets[cl]) == 0 {
			continue
		}
		n++
		c.terms = append(c.terms, term{id: fmt.Sprintf("%d-%s", n, cl.Name), group: cl.Name, dscp: sets[cl]})
	}
	return nil
}

// maxMTU is the largest interface MTU each platform takes, where it is
// below what OpenConfig's uint16 holds: EOS takes at most 9214
// (reference/switches.md §1.1, avd ethernet-interfaces.j2 examples), NX-OS
// and Cumulus Linux 9216 (CiscoDevNet/terraform-provider-nxos
// physical_interface.yaml: 576-9216; Cumulus Linux Switch Port Attributes:
// 552-9216). A model MTU above it is rendered at the limit, as the native
// artifact does.
var maxMTU = map[string]int{ir.PlatformEOS: 9214, ir.PlatformNXOS: 9216, ir.PlatformNVUE: 9216}

// planPorts fills the ports.
func (c *config) planPorts(d *ir.Device) error {
	s := d.Switch
	mtu := s.MTU
	if m, ok := maxMTU[d.Platform]; ok && mtu > m {
		mtu = m
	}
	// Sized up front: every port of every switch passes here.
	seen := make(map[string]bool, len(s.Ports))
	c.ports = slices.Grow(c.ports, len(s.Ports))
	for _, p := range s.Ports {
		if seen[p.Name] {
			return fmt.Errorf("port %s listed twice", p.Name)
		}
		seen[p.Name] = true
		// Checked here, not only where the tree is built, so that Names
		// refuses the port too.
		if !hasPortSpeed(p.SpeedGbps) {
			return fmt.Errorf("port %s: speed %d Gbit/s has no OpenConfig port-speed", p.Name, p.SpeedGbps)
		}
		out := port{name: p.Name, mtu: uint16(mtu), speedGbps: p.SpeedGbps}
		switch {
		case p.Peer != "" && p.PeerPort != "":
			out.description = "to " + p.Peer + ":" + p.PeerPort
		case p.Peer != "":
			out.description = "to " + p.Peer
		}
		c.ports = append(c.ports, out)
	}
	return nil
}

// Gaps lists what the model says about d that OpenConfig cannot carry, one
// line each, with what is rendered instead; nil for a host or a switch
// without a QoS policy. The order is stable. Lint rule RF117 and the build
// summary report these, since the JSON artifact has no comments.
func Gaps(d *ir.Device) []string {
	if d == nil || d.Switch == nil || d.Switch.QoS == nil {
		return nil
	}
	s, q := d.Switch, d.Switch.QoS
	native := fmt.Sprintf("kept in the native %s configuration", d.Platform)
	var gaps []string
	if len(q.PFC) > 0 {
		var prios []string
		for _, p := range slices.Sorted(slices.Values(q.PFC)) {
			prios = append(prios, fmt.Sprintf("%d%s", p, className(q, p)))
		}
		gaps = append(gaps, fmt.Sprintf("PFC on priority %s: OpenConfig has no PFC model; %s", strings.Join(prios, ", "), native))
		var pgs []string
		for tc, pg := range q.TCToPG {
			if pg != 0 {
				pgs = append(pgs, fmt.Sprintf("%d->%d", tc, pg))
			}
		}
		if len(pgs) > 0 {
			gaps = append(gaps, fmt.Sprintf("ingress priority groups (traffic class->group %s): OpenConfig has no priority groups; %s",
				strings.Join(pgs, ", "), native))
		}
		if w := q.Watchdog; w.Enabled {
			gaps = append(gaps, fmt.Sprintf("PFC watchdog (detect %d ms, restore %d ms, action %s): OpenConfig has no PFC watchdog; %s",
				w.DetectMs, w.RestoreMs, w.Action, native))
		}
		hs := map[string]*ir.Headroom{}
		for _, p := range s.Ports {
			if p.Headroom != nil {
				hs[p.Headroom.Name] = p.Headroom
			}
		}
		for _, name := range sortedKeys(hs) {
			h := hs[name]
			gaps = append(gaps, fmt.Sprintf("PFC headroom %d B (xoff %d B, xon %d B) of port class %s: OpenConfig has no headroom or pause "+
				"thresholds (a buffer-allocation-profile's dedicated-buffer is a queue's guaranteed minimum, not headroom); %s",
				h.Size, h.Xoff, h.Xon, h.Name, native))
		}
	}
	if b := s.Buffers; b != nil && b.ReservePercent > 0 {
		gaps = append(gaps, fmt.Sprintf("shared-buffer reserve of %d%% for %s: OpenConfig has no buffer pools; %s",
			b.ReservePercent, b.ReserveName, native))
	}
	if b := s.Buffers; b != nil && b.UnheldPercent > 0 {
		gaps = append(gaps, fmt.Sprintf("shared-buffer reserve of %d%% for %s: OpenConfig has no buffer pools, and %s holds none either (RF117)",
			b.UnheldPercent, b.UnheldName, d.Platform))
	}
	switch lb := s.LoadBalancing; lb {
	case "", "ecmp":
	default:
		gaps = append(gaps, fmt.Sprintf("%s load balancing: OpenConfig has no adaptive routing or packet spraying model; %s", lb, native))
	}
	return gaps
}

// className returns " (<class>)" for the class on priority p, or "".
func className(q *ir.QoS, p int) string {
	for _, qu := range q.Queues {
		if qu.Class != nil && qu.Class.Priority == p {
			return " (" + qu.Class.Name + ")"
		}
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
