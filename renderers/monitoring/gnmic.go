package monitoring

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// GnmicFile is the gnmic collector configuration's path in a build.
const GnmicFile = "monitoring/gnmic.yaml"

// GnmicListen is where gnmic's Prometheus output serves the switches'
// counters, gnmic's default (openconfig/gnmic
// docs/user_guide/outputs/prometheus_output.md, "listen": defaults to
// :9804); the scrape configuration scrapes it there.
const GnmicListen = ":9804"

// sampleInterval is how often each switch sends its counters: doctor
// takes rates over a window of minutes, the rules over 1m, so a sample
// every 10 s gives each rate several points without loading the switches'
// gNMI servers.
const sampleInterval = "10s"

// Subscription is one gnmic subscription: the paths of one model, each a
// counter docs/doctor.md lists.
type Subscription struct {
	Name  string
	Paths []string
	// Target is the SubscribeRequest's prefix target, "" for none (gnmic
	// subscriptions.md: "target").
	Target string
	// StreamMode is gnmic's stream-mode; "sample" subscriptions sample
	// every sampleInterval.
	StreamMode string
}

// Subscriptions are the subscriptions every switch gets: the counter leaves
// doctor reads (docs/doctor.md section 4), one subscription per YANG
// module, leaves rather than containers so that the switches send only
// what doctor uses. Each NOS's own counters (per-priority PFC, the PFC
// watchdog) are Native's.
var Subscriptions = []Subscription{
	{Name: "rocefab-interfaces", StreamMode: "sample", Paths: []string{
		"/interfaces/interface/state/counters/in-octets",
		"/interfaces/interface/state/counters/out-octets",
		"/interfaces/interface/state/counters/in-fcs-errors",
		"/interfaces/interface/state/counters/carrier-transitions",
	}},
	{Name: "rocefab-ethernet", StreamMode: "sample", Paths: []string{
		"/interfaces/interface/ethernet/state/counters/in-mac-pause-frames",
		"/interfaces/interface/ethernet/state/counters/out-mac-pause-frames",
		"/interfaces/interface/ethernet/state/counters/in-symbol-error",
	}},
	{Name: "rocefab-queues", StreamMode: "sample", Paths: []string{
		"/qos/interfaces/interface/output/queues/queue/state/ecn-marked-pkts",
		"/qos/interfaces/interface/output/queues/queue/state/dropped-pkts",
	}},
}

// Native returns the subscriptions to a platform's own counters that
// OpenConfig lacks, for a fabric with lossless priorities: per-priority
// PFC frames and the PFC watchdog's storms. None where no public source
// shows the platform serving them over gNMI (eos, nvue, nxos: a gap
// docs/doctor.md records).
//
// SONiC's telemetry server serves COUNTERS_DB under the prefix target
// COUNTERS_DB, with the virtual path COUNTERS/Ethernet*/<counter> for one
// counter on every Ethernet port, SAI_PORT_STAT_PFC_<p>_RX_PKTS and
// _TX_PKTS among them (the names sonic-net/sonic-utilities scripts/pfcstat
// reads), streamed on change (sonic-net/SONiC
// doc/system-telemetry/grpc_telemetry.md, "Virtual path", "Stream mode"),
// and COUNTERS/Ethernet*/Pfcwd for the PFC watchdog's counters of every
// port's lossless queues, keyed "<port>:<queue>"
// (sonic-net/sonic-gnmi sonic_data_client/virtual_db.go at
// 5ec1c20b7865bbbfd30258f26e716a1e5e1bd259, v2rEthPortPfcwdStats, and its
// testdata COUNTERS:Ethernet68:Pfcwd.txt), sampled: the table holds
// fields, such as the time left before detection, that change all the
// time.
func Native(platform string, prios []string) []Subscription {
	if platform != ir.PlatformSONiC || len(prios) == 0 {
		return nil
	}
	pfc := Subscription{Name: sonicPFCSub, Target: "COUNTERS_DB", StreamMode: "on-change"}
	for _, p := range prios {
		for _, dir := range []string{"RX", "TX"} {
			pfc.Paths = append(pfc.Paths, "COUNTERS/Ethernet*/SAI_PORT_STAT_PFC_"+p+"_"+dir+"_PKTS")
		}
	}
	wd := Subscription{Name: sonicWatchdogSub, Target: "COUNTERS_DB", StreamMode: "sample", Paths: []string{"COUNTERS/Ethernet*/Pfcwd"}}
	return []Subscription{pfc, wd}
}

// The SONiC subscriptions' names, which the event processor selects.
const (
	sonicPFCSub      = "rocefab-sonic-pfc"
	sonicWatchdogSub = "rocefab-sonic-pfcwd"
)

// SONiCPorts is the name of the event processor that gives SONiC's
// COUNTERS_DB series their port (and queue) as labels.
const SONiCPorts = "rocefab-sonic-ports"

// sonicPortsJQ is the event-jq expression of SONiCPorts.
//
// SONiC answers COUNTERS/Ethernet*/<counter> with one update whose value
// is JSON keyed by port ({"Ethernet0": {"<counter>": "12"}, ...}), and
// COUNTERS/Ethernet*/Pfcwd with one keyed by "<port>:<queue>"
// (sonic-gnmi sonic_data_client/db_client.go, dbFieldMultiSubscribe and
// TableData2Msi; testdata COUNTERS:Ethernet_wildcard_PFC_7_RX.txt). gnmic
// turns such an update into one event whose values are the JSON flattened
// under the path with "/" (pkg/formatters/event.go getValueFlat, and
// karimra/go-map-flattener), so that every port's counter is a value
// named /COUNTERS/Ethernet*/<counter>/<port>/<counter> of one event, and
// its Prometheus output would name a series after that whole path
// (prometheus_common.go MetricName). An event's tags label all its
// values, so event-extract-tags cannot label each port: this expression
// splits the event into one per port's value, tagged interface_name (and
// queue_name for the watchdog), and named after the path subscribed
// (/COUNTERS/Ethernet*/<counter>, or .../Pfcwd/<field>), which the
// Prometheus output makes COUNTERS_Ethernet_<counter> and
// COUNTERS_Ethernet_Pfcwd_<field>. Of the watchdog's fields it keeps the
// storms detected, the counter doctor reads. The event-jq processor
// hands the expression the events of one notification as an array and
// takes back an array of events (docs/user_guide/event_processors/event_jq.md,
// pkg/formatters/event_jq/event_jq.go); its condition is evaluated on
// each event alone. gnmic's jq is gojq, whose regular expressions are
// Go's: (?<name>...) names a group.
const sonicPortsJQ = `[.[] | . as $e | .values | to_entries[]` +
	` | (.key | capture("^(?<path>/COUNTERS/Ethernet\\*/SAI_PORT_STAT_PFC_[0-7]_[RT]X_PKTS)/(?<port>.+)/SAI_PORT_STAT_PFC_[0-7]_[RT]X_PKTS$")` +
	` // capture("^(?<path>/COUNTERS/Ethernet\\*/Pfcwd)/(?<port>.+):(?<queue>[0-9]+)/(?<field>PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED)$")) as $m` +
	` | {name: $e.name, timestamp: $e.timestamp,` +
	` tags: ($e.tags + {interface_name: $m.port} + (if $m.queue then {queue_name: $m.queue} else {} end)),` +
	` values: {($m.path + (if $m.field then "/" + $m.field else "" end)): .value}}]`

// sonicPortsCondition selects the events of the SONiC subscriptions.
const sonicPortsCondition = `.tags["subscription-name"] as $s | $s == "` + sonicPFCSub + `" or $s == "` + sonicWatchdogSub + `"`

// renderGnmic renders gnmic.yaml: one target per switch, keyed by the
// switch's name so that gnmic's Prometheus output labels its series with
// source="<name>" as doctor expects, the subscriptions in sample mode,
// and one Prometheus output.
//
// The keys are gnmic's (openconfig/gnmic docs/user_guide/targets/targets.md,
// "target configuration options": address, subscriptions, event-tags;
// docs/user_guide/subscriptions.md, "File-based subscription config":
// paths, mode, stream-mode, sample-interval; outputs/prometheus_output.md:
// type, listen). The address is the access inventory's (build
// --inventory), or else the device's name; gnmic adds its default gRPC
// port to an address without one (targets.md). Each target's event-tags add the switch's role, and
// its rail and pod where it has them, to every series of that switch:
// gnmic copies them into each update's metadata beside source
// (pkg/app/subscribe.go at 597750387b5117f625a76681f6b4d83147f9151b) and
// the Prometheus output makes every tag a label
// (pkg/outputs/prometheus_output/prometheus_common.go, GetLabels), which
// labels the switches by rail without a relabelling rule per switch.
// Credentials and TLS are left to gnmic's environment
// (docs/user_guide/configuration_env.md: GNMIC_USERNAME, GNMIC_PASSWORD,
// GNMIC_TLS_CA, GNMIC_INSECURE), so the file holds no secret.
//
// gnmic subscribes a target that names no subscription to every one in
// the file (subscriptions.md, "Binding subscriptions"), so once a native
// subscription is in the file every target names its own.
func renderGnmic(fab *ir.Fabric, prios []string, address func(name, platform string) string) renderers.Artifact {
	subs := slices.Clone(Subscriptions)
	native := map[string][]string{}
	for _, d := range fab.Devices {
		if d.Switch == nil {
			continue
		}
		if _, seen := native[d.Platform]; seen {
			continue
		}
		native[d.Platform] = nil
		for _, sub := range Native(d.Platform, prios) {
			native[d.Platform] = append(native[d.Platform], sub.Name)
			subs = append(subs, sub)
		}
	}
	var common []string
	for _, s := range Subscriptions {
		common = append(common, s.Name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# gnmic collector configuration for fabric %q, written by rocefab: do not edit, rebuild.\n", fab.Name)
	b.WriteString("# Run: gnmic --config gnmic.yaml subscribe, with the credentials and TLS settings in\n")
	b.WriteString("# GNMIC_USERNAME, GNMIC_PASSWORD, GNMIC_TLS_CA (or GNMIC_INSECURE) as gnmic reads them.\n")
	b.WriteString("# Target names are the fabric's switch names: the Prometheus output labels each series\n")
	b.WriteString("# source=<name>, which is how rocefab doctor finds the switch (docs/doctor.md).\n")
	b.WriteString("targets:\n")
	n := 0
	for _, d := range fab.Devices {
		if d.Switch == nil {
			continue
		}
		n++
		addr := d.Name
		if address != nil {
			addr = address(d.Name, d.Platform)
		}
		fmt.Fprintf(&b, "  %s:\n    address: %s\n    event-tags:\n      role: %s\n", yamlString(d.Name), yamlString(addr), yamlString(string(d.Role)))
		if d.Rail >= 0 {
			fmt.Fprintf(&b, "      rail: '%d'\n", d.Rail)
		}
		if d.Pod >= 0 {
			fmt.Fprintf(&b, "      pod: '%d'\n", d.Pod)
		}
		if len(subs) > len(Subscriptions) {
			names := common
			if n := native[d.Platform]; len(n) > 0 {
				names = slices.Concat(common, n)
			}
			fmt.Fprintf(&b, "    subscriptions: [%s]\n", strings.Join(names, ", "))
		}
	}
	if n == 0 {
		// gnmic's targets is a map; an empty one keeps the file valid.
		b.WriteString("  {}\n")
	}
	b.WriteString("subscriptions:\n")
	for _, s := range subs {
		fmt.Fprintf(&b, "  %s:\n", s.Name)
		if s.Target != "" {
			fmt.Fprintf(&b, "    target: %s\n", s.Target)
		}
		b.WriteString("    paths:\n")
		for _, p := range s.Paths {
			fmt.Fprintf(&b, "      - %s\n", yamlString(p))
		}
		fmt.Fprintf(&b, "    mode: stream\n    stream-mode: %s\n", s.StreamMode)
		if s.StreamMode == "sample" {
			fmt.Fprintf(&b, "    sample-interval: %s\n", sampleInterval)
		}
	}
	b.WriteString("outputs:\n  prometheus:\n    type: prometheus\n")
	fmt.Fprintf(&b, "    listen: %s\n", yamlString(GnmicListen))
	if len(subs) > len(Subscriptions) {
		// The native subscriptions' series need their port as a label
		// (sonicPortsJQ); the processors section and an output's
		// event-processors list are gnmic's
		// (docs/user_guide/event_processors/intro.md).
		fmt.Fprintf(&b, "    event-processors: [%s]\n", SONiCPorts)
		fmt.Fprintf(&b, "processors:\n  %s:\n    event-jq:\n", SONiCPorts)
		fmt.Fprintf(&b, "      condition: %s\n      expression: %s\n", yamlString(sonicPortsCondition), yamlString(sonicPortsJQ))
	}
	return renderers.Artifact{Path: GnmicFile, Format: renderers.YAML, Content: []byte(b.String())}
}
