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
// what doctor uses. Each NOS's per-priority PFC counters are
// NativePFC's.
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

// NativePFC returns the subscription to a platform's own per-priority PFC
// counters on the lossless priorities (OpenConfig has none), and false
// where no public source shows the platform serving them over gNMI (eos,
// nvue, nxos: a gap docs/doctor.md records). SONiC's telemetry server
// serves COUNTERS_DB under the prefix target COUNTERS_DB, with the virtual
// path COUNTERS/Ethernet*/<counter> for one counter on every Ethernet port,
// SAI_PORT_STAT_PFC_<p>_RX_PKTS and _TX_PKTS among them, and streams
// them on change (sonic-net/SONiC doc/system-telemetry/grpc_telemetry.md,
// "Virtual path", "Stream mode").
func NativePFC(platform string, prios []string) (Subscription, bool) {
	if platform != ir.PlatformSONiC || len(prios) == 0 {
		return Subscription{}, false
	}
	sub := Subscription{Name: "rocefab-sonic-pfc", Target: "COUNTERS_DB", StreamMode: "on-change"}
	for _, p := range prios {
		for _, dir := range []string{"RX", "TX"} {
			sub.Paths = append(sub.Paths, "COUNTERS/Ethernet*/SAI_PORT_STAT_PFC_"+p+"_"+dir+"_PKTS")
		}
	}
	return sub, true
}

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
	native := map[string]string{}
	for _, d := range fab.Devices {
		if d.Switch == nil {
			continue
		}
		if _, seen := native[d.Platform]; seen {
			continue
		}
		native[d.Platform] = ""
		if sub, ok := NativePFC(d.Platform, prios); ok {
			native[d.Platform] = sub.Name
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
			if n := native[d.Platform]; n != "" {
				names = append(slices.Clone(common), n)
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
	return renderers.Artifact{Path: GnmicFile, Format: renderers.YAML, Content: []byte(b.String())}
}
