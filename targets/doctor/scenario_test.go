package doctor_test

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/schema"
	"github.com/rocefab/rocefab/targets/doctor"
	"github.com/rocefab/rocefab/targets/telemetry"
)

// compiled caches the compiled examples: compiling hyperscale-100k takes
// seconds.
var compiled sync.Map

func fabric(t testing.TB, example string) *ir.Fabric {
	t.Helper()
	if f, ok := compiled.Load(example); ok {
		return f.(*ir.Fabric)
	}
	in, ds, err := schema.Load(filepath.Join(rendertest.RepoRoot(t), "examples", example))
	if err != nil || in == nil {
		t.Fatalf("load %s: %v %v", example, err, ds)
	}
	fab, ds := compiler.Compile(in)
	if fab == nil || ds.HasErrors() {
		t.Fatalf("compile %s: %v", example, ds)
	}
	compiled.Store(example, fab)
	return fab
}

// scenario turns a compiled fabric into the counters it would show over a
// window: every port carries traffic, the lossless queues mark ECN, and
// some ports see the pauses of ordinary incast bursts (a few per second);
// faults are injected on top. It writes two exposition snapshots the way
// node_exporter (servers) and gnmic (switches) would, so the tests read
// them through the parser. SONiC switches count their PFC frames per
// priority in COUNTERS_DB and their PFC watchdog's storms per queue, as
// gnmic serves them with monitoring/gnmic.yaml's event processor; their
// OpenConfig MAC PAUSE counters are left out (macPause writes them, at
// zero, to show that the per-priority ones are read).
type scenario struct {
	fab  *ir.Fabric
	secs float64
	port map[[2]string]portInfo
	// base is the fabric's healthy window; rates are this window's
	// rates of its series, per second, in base.names' order.
	base  *healthy
	rates []float64
	// extra are the rates of series the healthy window has not, per
	// series line prefix (name{labels}), and extraNames their names,
	// sorted, once the scenario is written.
	extra      map[string]float64
	extraNames []string
	// building collects the series while base is being built.
	building *seriesBuilder
}

type portInfo struct {
	nic, sonic  bool
	hca         string
	gbps        int
	peer, peerP string
}

const lossless = 3 // the examples' lossless priority (roce)

// healthy is a fabric's healthy window, built once per test binary and
// shared by every scenario of that fabric: naming and sorting the
// millions of series of hyperscale-100k takes longer than diagnosing
// them. Nothing changes it once built.
type healthy struct {
	port  map[[2]string]portInfo
	ports [][2]string // sorted as device:port
	// text holds the series' names end to end, sorted; name j ends at
	// ends[j]. One string rather than one a series leaves the garbage
	// collector nothing to scan (hyperscale-100k has millions).
	text  string
	ends  []int
	rates []float64 // per second, in the names' order
}

// name returns the name of series j.
func (h *healthy) name(j int) string {
	start := 0
	if j > 0 {
		start = h.ends[j-1]
	}
	return h.text[start:h.ends[j]]
}

// find returns the position of series n, if the healthy window has it.
func (h *healthy) find(n string) (int, bool) {
	j := sort.Search(len(h.ends), func(j int) bool { return h.name(j) >= n })
	return j, j < len(h.ends) && h.name(j) == n
}

var (
	healthyMu sync.Mutex
	healthyOf = map[*ir.Fabric]*healthy{}
)

// newScenario returns fab's healthy window, ready for faults.
func newScenario(fab *ir.Fabric) *scenario {
	healthyMu.Lock()
	h := healthyOf[fab]
	if h == nil {
		h = buildHealthy(fab)
		healthyOf[fab] = h
	}
	healthyMu.Unlock()
	return &scenario{fab: fab, secs: 30, port: h.port, base: h, rates: slices.Clone(h.rates), extra: map[string]float64{}}
}

// buildHealthy sets the counters of fab's healthy window on a scenario
// that collects them, and sorts them into the healthy window.
func buildHealthy(fab *ir.Fabric) *healthy {
	h := &healthy{port: map[[2]string]portInfo{}}
	for _, d := range fab.Devices {
		switch {
		case d.Switch != nil:
			for _, p := range d.Switch.Ports {
				h.port[[2]string{d.Name, p.Name}] = portInfo{gbps: p.SpeedGbps, peer: p.Peer, peerP: p.PeerPort, sonic: d.Platform == ir.PlatformSONiC}
			}
		case d.Host != nil:
			for _, n := range d.Host.NICs {
				h.port[[2]string{d.Name, n.Port}] = portInfo{nic: true, hca: n.HCA, gbps: n.SpeedGbps, peer: n.Peer, peerP: n.PeerPort}
			}
		}
	}
	h.ports = sortedPorts(h.port)
	s := &scenario{fab: fab, secs: 30, port: h.port, base: h, building: &seriesBuilder{metrics: map[string]*metricSeries{}}}
	i := 0
	for _, k := range s.ports() {
		pi := s.port[k]
		s.throughput(k, 0.6, 0.6)
		s.set(k, "rx-errors", 0)
		s.set(k, "carrier", 0)
		if pi.peer == "" {
			continue
		}
		s.set(k, "ecn", 150)
		// DCQCN at work: NICs answer marks with CNPs and handle those
		// they receive; a lossy queue may drop, a lossless one never.
		s.set(k, "drops", 0)
		if pi.nic {
			s.set(k, "cnp-sent", 50)
			s.set(k, "cnp-handled", 50)
			s.set(k, "cnp-ignored", 0)
		} else {
			s.set(k, "lossy-drops", 300)
			if pi.sonic {
				s.set(k, "watchdog", 0)
			}
		}
		// Ordinary incast: one port in seven pauses its peer a few times
		// a second, well below a storm.
		if i++; i%7 == 0 {
			s.pause(k, 40)
		}
	}
	s.building.sortInto(h)
	return h
}

// sortedPorts returns the ports sorted as device:port, each key joined
// once rather than at every comparison.
func sortedPorts(port map[[2]string]portInfo) [][2]string {
	type joined struct {
		key [2]string
		s   string
	}
	js := make([]joined, 0, len(port))
	for k := range port {
		js = append(js, joined{k, k[0] + ":" + k[1]})
	}
	slices.SortFunc(js, func(a, b joined) int { return strings.Compare(a.s, b.s) })
	keys := make([][2]string, len(js))
	for i, j := range js {
		keys[i] = j.key
	}
	return keys
}

// seriesBuilder collects a healthy window's series as they are set, by
// metric: each metric's labels end to end in a buffer of its own, so that
// sorting a metric's series reads that buffer only.
type seriesBuilder struct {
	metrics map[string]*metricSeries
}

type metricSeries struct {
	labels []byte
	sets   []seriesSet
}

// seriesSet is one setting of a series: its labels, labels[start:end] of
// its metric, and its rate.
type seriesSet struct {
	start, end int
	rate       float64
}

func (b *seriesBuilder) add(n string, rate float64) {
	i := strings.IndexByte(n, '{')
	m := b.metrics[n[:i]]
	if m == nil {
		m = &metricSeries{}
		b.metrics[strings.Clone(n[:i])] = m
	}
	m.sets = append(m.sets, seriesSet{len(m.labels), len(m.labels) + len(n) - i, rate})
	m.labels = append(m.labels, n[i:]...)
}

// sortInto sorts the series into h by name, a metric at a time on every
// core; a series set twice keeps its last rate, as a map would. A name is
// its metric's name and then "{labels}", and '{' sorts after every
// character of a metric's name: sorted by metric name followed by '{',
// then by labels, the names sort as strings do.
func (b *seriesBuilder) sortInto(h *healthy) {
	names := slices.Collect(maps.Keys(b.metrics))
	slices.SortFunc(names, func(x, y string) int { return strings.Compare(x+"{", y+"{") })
	work := make(chan *metricSeries)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for m := range work {
				// Equal labels sort in the order they were set: their
				// text starts later.
				slices.SortFunc(m.sets, func(x, y seriesSet) int {
					if c := bytes.Compare(m.labels[x.start:x.end], m.labels[y.start:y.end]); c != 0 {
						return c
					}
					return x.start - y.start
				})
			}
		})
	}
	size, count := 0, 0
	for _, n := range names {
		m := b.metrics[n]
		work <- m
		size += len(m.labels) + len(m.sets)*len(n)
		count += len(m.sets)
	}
	close(work)
	wg.Wait()
	var text strings.Builder
	text.Grow(size)
	h.ends, h.rates = make([]int, 0, count), make([]float64, 0, count)
	for _, n := range names {
		m := b.metrics[n]
		for i, set := range m.sets {
			l := m.labels[set.start:set.end]
			if i+1 < len(m.sets) && bytes.Equal(l, m.labels[m.sets[i+1].start:m.sets[i+1].end]) {
				continue
			}
			text.WriteString(n)
			text.Write(l)
			h.ends = append(h.ends, text.Len())
			h.rates = append(h.rates, set.rate)
		}
	}
	h.text = text.String()
}

func (s *scenario) ports() [][2]string {
	return s.base.ports
}

// series names one counter of one port as its collector exposes it.
func (s *scenario) series(k [2]string, what string) []string {
	pi := s.port[k]
	// A port's labels are joined without fmt: hyperscale-100k names
	// millions of series.
	if pi.nic {
		lab := `{device=` + strconv.Quote(k[1]) + `,instance="` + k[0] + `:9100"}`
		switch what {
		case "tx-pause", "rx-pause", "tx-bytes", "rx-bytes":
			dir := map[byte]string{'t': "transmitted", 'r': "received"}[what[0]]
			return []string{fmt.Sprintf("node_ethtool_%s_prio%d_%s%s", dir, lossless, what[3:], lab)}
		case "rx-errors":
			return []string{"node_ethtool_received_crc_errors_phy" + lab, "node_ethtool_received_symbol_err_phy" + lab}
		case "carrier":
			return []string{"node_ethtool_link_down_events_phy" + lab}
		case "ecn", "cnp-sent", "cnp-handled", "cnp-ignored":
			name := map[string]string{"ecn": "np_ecn_marked_roce_packets_received_total", "cnp-sent": "np_cnp_packets_sent_total",
				"cnp-handled": "rp_cnp_packets_handled_total", "cnp-ignored": "rp_cnp_ignored_packets_received_total"}[what]
			return []string{fmt.Sprintf(`node_infiniband_%s{device=%q,instance="%s:9100",port="1"}`, name, pi.hca, k[0])}
		case "drops":
			return []string{fmt.Sprintf("node_ethtool_received_prio%d_discards%s", lossless, lab)}
		}
	}
	lab := `{interface_name=` + strconv.Quote(k[1]) + `,source=` + strconv.Quote(k[0]) + `}`
	if pi.sonic {
		native := lab[:len(lab)-1] + `,target="COUNTERS_DB"}`
		switch what {
		case "tx-pause":
			return []string{fmt.Sprintf("COUNTERS_Ethernet_SAI_PORT_STAT_PFC_%d_TX_PKTS%s", lossless, native)}
		case "rx-pause":
			return []string{fmt.Sprintf("COUNTERS_Ethernet_SAI_PORT_STAT_PFC_%d_RX_PKTS%s", lossless, native)}
		case "watchdog":
			return []string{fmt.Sprintf(`COUNTERS_Ethernet_Pfcwd_PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED{interface_name=%q,queue_name="%d",source=%q,target="COUNTERS_DB"}`, k[1], lossless, k[0])}
		case "mac-pause":
			return []string{"interfaces_interface_ethernet_state_counters_out_mac_pause_frames" + lab, "interfaces_interface_ethernet_state_counters_in_mac_pause_frames" + lab}
		}
	}
	switch what {
	case "tx-pause":
		return []string{"interfaces_interface_ethernet_state_counters_out_mac_pause_frames" + lab}
	case "rx-pause":
		return []string{"interfaces_interface_ethernet_state_counters_in_mac_pause_frames" + lab}
	case "tx-bytes":
		return []string{"interfaces_interface_state_counters_out_octets" + lab}
	case "rx-bytes":
		return []string{"interfaces_interface_state_counters_in_octets" + lab}
	case "rx-errors":
		return []string{"interfaces_interface_state_counters_in_fcs_errors" + lab, "interfaces_interface_ethernet_state_counters_in_symbol_error" + lab}
	case "carrier":
		return []string{"interfaces_interface_state_counters_carrier_transitions" + lab}
	case "ecn":
		return []string{fmt.Sprintf(`qos_interfaces_interface_output_queues_queue_state_ecn_marked_pkts{interface_interface_id=%q,queue_name="%d",source=%q}`, k[1], lossless, k[0]),
			fmt.Sprintf(`qos_interfaces_interface_output_queues_queue_state_ecn_marked_pkts{interface_interface_id=%q,queue_name="0",source=%q}`, k[1], k[0])}
	case "drops":
		return []string{fmt.Sprintf(`qos_interfaces_interface_output_queues_queue_state_dropped_pkts{interface_interface_id=%q,queue_name="%d",source=%q}`, k[1], lossless, k[0])}
	case "lossy-drops":
		return []string{fmt.Sprintf(`qos_interfaces_interface_output_queues_queue_state_dropped_pkts{interface_interface_id=%q,queue_name="0",source=%q}`, k[1], k[0])}
	}
	panic("unknown counter " + what)
}

func (s *scenario) set(k [2]string, what string, rate float64) {
	for _, n := range s.series(k, what) {
		if s.building != nil {
			s.building.add(n, rate)
		} else if j, ok := s.base.find(n); ok {
			s.rates[j] = rate
		} else {
			s.extra[n] = rate
		}
	}
}

// macPause writes the OpenConfig MAC PAUSE counters of the SONiC switches'
// ports too, counting nothing, as a NOS whose MAC PAUSE counter leaves PFC
// frames out would.
func (s *scenario) macPause() {
	for _, k := range s.ports() {
		if s.port[k].sonic {
			s.set(k, "mac-pause", 0)
		}
	}
}

func (s *scenario) throughput(k [2]string, rx, tx float64) {
	bps := float64(s.port[k].gbps) * 1e9 / 8
	s.set(k, "rx-bytes", rx*bps)
	s.set(k, "tx-bytes", tx*bps)
}

// peerOf returns the port at the other end of k's cable.
func (s *scenario) peerOf(k [2]string) [2]string {
	pi := s.port[k]
	return [2]string{pi.peer, pi.peerP}
}

// pause makes k send pauses at rate, and its peer receive them.
func (s *scenario) pause(k [2]string, rate float64) {
	s.set(k, "tx-pause", rate)
	pi := s.port[k]
	if pi.peer != "" {
		s.set([2]string{pi.peer, pi.peerP}, "rx-pause", rate)
	}
}

// storm starts a pause storm at the ports from and lets it travel
// upstream as the fabric would: each device that receives pauses stops
// draining toward that port, its queues fill, and it pauses every other
// port that feeds it; servers only receive.
func (s *scenario) storm(from [][2]string, rate float64) {
	byDevice := map[string][]string{}
	for _, k := range s.ports() {
		byDevice[k[0]] = append(byDevice[k[0]], k[1])
	}
	seen := map[string]bool{}
	queue := from
	for _, k := range from {
		seen[k[0]] = true
	}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		s.pause(k, rate)
		pi := s.port[k]
		if pi.peer == "" || seen[pi.peer] || s.port[[2]string{pi.peer, pi.peerP}].nic {
			continue
		}
		seen[pi.peer] = true
		// Traffic does not turn back: the ports facing the device that
		// paused it do not feed it.
		for _, p := range byDevice[pi.peer] {
			if q := s.port[[2]string{pi.peer, p}]; q.peer != "" && q.peer != k[0] {
				queue = append(queue, [2]string{pi.peer, p})
			}
		}
	}
}

// scenarioT0 is the time of a scenario's first scrape, in milliseconds.
const scenarioT0 = 1_764_000_000_000

// snapshots returns the window's two scrapes, 30 s apart.
func (s *scenario) snapshots() (first, last string) {
	var a, b strings.Builder
	s.write(&a, &b)
	return a.String(), b.String()
}

// write writes the window's two scrapes to first and last.
func (s *scenario) write(first, last io.Writer) {
	s.writeOne(first, 0)
	s.writeOne(last, 1)
}

// writeOne writes the window's first scrape (i 0) or its last (i 1), the
// series in name order: the healthy window's merged with the extra ones.
func (s *scenario) writeOne(w io.Writer, i int) {
	if len(s.extraNames) != len(s.extra) {
		s.extraNames = slices.Sorted(maps.Keys(s.extra))
	}
	at := int64(scenarioT0 + float64(i)*s.secs*1000)
	var line []byte
	extra := s.extraNames
	for b, e := 0, 0; b < len(s.rates) || e < len(extra); {
		j := b + e
		var n string
		var rate float64
		if e == len(extra) || b < len(s.rates) && s.base.name(b) < extra[e] {
			n, rate = s.base.name(b), s.rates[b]
			b++
		} else {
			n, rate = extra[e], s.extra[extra[e]]
			e++
		}
		v := float64(1_000_000+7919*j) + float64(i)*rate*s.secs
		line = append(append(line[:0], n...), ' ')
		line = strconv.AppendFloat(line, v, 'f', 0, 64)
		line = append(line, ' ')
		line = strconv.AppendInt(line, at, 10)
		w.Write(append(line, '\n'))
	}
}

// drainingNIC is pod-2048 whose gpu-0037 rail-5 NIC stops draining.
func drainingNIC(t testing.TB) (*scenario, [2]string) {
	return drainingNICIn(t, "pod-2048", "gpu-0037", 5)
}

// drainingNICIn is example whose server's NIC on rail stops draining: it
// carries almost nothing and sends 20,000 pauses a second, the origin of
// a storm. It returns the scenario and the NIC.
func drainingNICIn(t testing.TB, example, server string, rail int) (*scenario, [2]string) {
	fab := fabric(t, example)
	s := newScenario(fab)
	nic := nicOf(t, fab, server, rail)
	s.throughput(nic, 0.002, 0.6)
	s.storm([][2]string{nic}, 20000)
	return s, nic
}

// nicOf returns a server's NIC port on rail.
func nicOf(t testing.TB, fab *ir.Fabric, server string, rail int) [2]string {
	t.Helper()
	for _, d := range fab.Devices {
		if d.Name == server && d.Host != nil {
			for _, n := range d.Host.NICs {
				if n.Rail == rail {
					return [2]string{d.Name, n.Port}
				}
			}
		}
	}
	t.Fatalf("no NIC on rail %d of %s", rail, server)
	return [2]string{}
}

// uplink returns a leaf's first port facing a spine.
func uplink(t testing.TB, fab *ir.Fabric, leaf string) [2]string {
	t.Helper()
	for _, d := range fab.Devices {
		if d.Name == leaf {
			for _, p := range d.Switch.Ports {
				if p.Facing == ir.RoleSpine {
					return [2]string{d.Name, p.Name}
				}
			}
		}
	}
	t.Fatalf("no uplink on %s", leaf)
	return [2]string{}
}

// TestSONiCHealthy: mixed-fleet's SONiC leaves count their pauses per
// priority and their watchdog's storms; with ordinary incast and no storm,
// nothing is found.
func TestSONiCHealthy(t *testing.T) {
	s := newScenario(fabric(t, "mixed-fleet"))
	s.macPause()
	rep := diagnose(t, s)
	if len(rep.Findings) != 0 {
		t.Errorf("a healthy fabric: %d findings, first %+v", len(rep.Findings), rep.Findings[0])
	}
}

// TestSONiCNativePFC: a NIC that stops draining below a SONiC leaf is
// traced through the leaf's per-priority PFC counters alone, its MAC
// PAUSE counters counting nothing: the leaf port is the first victim and
// propagates the storm, and the leaf's MAC PAUSE series are no evidence.
func TestSONiCNativePFC(t *testing.T) {
	s, nic := drainingNICIn(t, "mixed-fleet", "gpu-0003", 1)
	s.macPause()
	f := only(t, diagnose(t, s), doctor.KindPauseStorm, doctor.CauseNotDraining, doctor.Endpoint{Device: nic[0], Port: nic[1]})
	leaf := s.port[nic]
	if !s.port[s.peerOf(nic)].sonic {
		t.Fatalf("%s is not a SONiC leaf", leaf.peer)
	}
	if len(f.Victims) == 0 || f.Victims[0].Endpoint != (doctor.Endpoint{Device: leaf.peer, Port: leaf.peerP}) || !f.Victims[0].Propagates {
		t.Fatalf("victims %+v, want the leaf port %s:%s first, propagating", f.Victims, leaf.peer, leaf.peerP)
	}
	if !slices.Equal(f.Drain, []string{nic[0]}) {
		t.Errorf("drain %v, want %s", f.Drain, nic[0])
	}
}

// TestPFCWatchdog: a SONiC leaf's PFC watchdog detects storms on the
// lossless queue toward one server: that leaf port is named, the NIC at
// the other end of its cable is its peer, and its server is drained.
func TestPFCWatchdog(t *testing.T) {
	fab := fabric(t, "mixed-fleet")
	s := newScenario(fab)
	nic := nicOf(t, fab, "gpu-0005", 0)
	leaf := s.peerOf(nic)
	s.set(leaf, "watchdog", 0.1)
	f := only(t, diagnose(t, s), doctor.KindPFCWatchdog, doctor.CauseStormDetected, doctor.Endpoint{Device: leaf[0], Port: leaf[1]})
	if f.Peer == nil || *f.Peer != (doctor.Endpoint{Device: nic[0], Port: nic[1]}) {
		t.Errorf("peer %v, want the NIC %s", f.Peer, nic)
	}
	// The evidence: the queue's storms, and the pauses the NIC sent (its
	// ordinary incast here).
	ev := f.Evidence
	if len(ev) != 2 || ev[0].Counter != telemetry.TxPause || !strings.Contains(ev[0].Series, `instance="`+nic[0]+`:9100"`) ||
		ev[1].Counter != telemetry.WatchdogStorms || !strings.Contains(ev[1].Series, `queue_name="3"`) || ev[1].PerSecond != 0.1 {
		t.Errorf("evidence %+v: want the NIC's pauses and the lossless queue's watchdog storms", ev)
	}
	if !slices.Equal(f.Drain, []string{nic[0]}) || f.Touches.Servers != 1 || f.Shut != nil {
		t.Errorf("drain %v, touches %d servers, shut %v: want %s drained alone", f.Drain, f.Touches.Servers, f.Shut, nic[0])
	}
	q := doctor.NewQuarantine(diagnose(t, s), doctor.IntentRef{}, "test", "scenario")
	if err := q.Check(fab); err != nil || !slices.Equal(q.Nodes(), []string{nic[0]}) {
		t.Errorf("quarantine drains %v (%v), want %s", q.Nodes(), err, nic[0])
	}
}
