package telemetry

import (
	"bufio"
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
)

// serverScript reads, on a server, `ethtool -S` of each netdev given as
// an argument and the RDMA devices' hw_counters, one marked section each
// (POSIX sh: for, read, test). A netdev ethtool cannot read fails the
// script, with ethtool's message and the netdev on stderr. Reading needs no privilege:
// ethtool's statistics and /sys/class/infiniband are world-readable.
const serverScript = `for i; do
	echo "ethtool $i"
	ethtool -S "$i" || { s=$?; echo "ethtool -S $i failed with status $s" >&2; exit 1; }
done
cd /sys/class/infiniband 2>/dev/null || exit 0
for f in */ports/*/hw_counters/*; do
	[ -f "$f" ] || continue
	read -r v < "$f" 2>/dev/null && echo "hw $f $v"
done
`

// sampleServer reads server d's NIC counters with one command over its
// login and writes them as node_exporter's ethtool and infiniband
// collectors name them.
func sampleServer(ctx context.Context, reach Reach, d *ir.Device, w *bufio.Writer) error {
	argv := []string{"sh", "-c", serverScript, "rocefab-sample"}
	for _, n := range d.Host.NICs {
		if !netdevName.MatchString(n.Port) {
			return fmt.Errorf("%s: netdev %q is not a Linux interface name", d.Name, n.Port)
		}
		argv = append(argv, n.Port)
	}
	start := time.Now()
	out, err := reach.Run(ctx, d, argv)
	if err != nil {
		return err
	}
	if writeServer(w, d.Name, string(out), midpoint(start)) == 0 {
		return fmt.Errorf("%s: %w", d.Name, errNoCounters)
	}
	return nil
}

// netdevName is a Linux interface name as the model gives it: what the
// script is handed as an argument, never through a shell's parsing.
var netdevName = regexp.MustCompile(`^[A-Za-z0-9_.:@-]{1,15}$`)

// writeServer writes the sampling script's output as exposition lines of
// server at ms, and returns how many series doctor reads it wrote.
func writeServer(w *bufio.Writer, server, out string, ms int64) int {
	n, netdev := 0, ""
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "ethtool "); ok {
			netdev = rest
			continue
		}
		if rest, ok := strings.CutPrefix(line, "hw "); ok {
			// hw <device>/ports/<port>/hw_counters/<name> <value>
			file, v, _ := strings.Cut(rest, " ")
			parts := strings.Split(file, "/")
			if len(parts) != 5 || parts[1] != "ports" || parts[3] != "hw_counters" {
				continue
			}
			if name, ok := infinibandHW[parts[4]]; ok {
				n += writeKnown(w, "node_infiniband_"+name, v, ms, "device", parts[0], "instance", server, "port", parts[2])
			}
			continue
		}
		// ethtool -S: "NIC statistics:", then "     <stat>: <value>"
		// (a statistic's name may hold a colon: the value follows the
		// last).
		i := strings.LastIndexByte(line, ':')
		if i < 0 || netdev == "" {
			continue
		}
		stat, v := strings.TrimSpace(line[:i]), strings.TrimSpace(line[i+1:])
		n += writeKnown(w, EthtoolMetric(stat), v, ms, "device", netdev, "instance", server)
	}
	return n
}

// writeKnown writes one sample of metric when doctor reads its family and
// its value is a number, and returns 1 if it did. labels are name, value
// pairs.
func writeKnown(w *bufio.Writer, metric, value string, ms int64, labels ...string) int {
	if _, ok := lookupFamily(metric); !ok || !isNumber(value) {
		return 0
	}
	m := map[string]string{"__name__": metric}
	for i := 0; i+1 < len(labels); i += 2 {
		m[labels[i]] = labels[i+1]
	}
	writeSample(w, m, value, ms)
	return 1
}

// isNumber says whether s is a counter's value: digits, as every source
// here prints them.
func isNumber(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// EthtoolMetric names an `ethtool -S` statistic as node_exporter's ethtool
// collector does (prometheus/node_exporter collector/ethtool_linux.go,
// buildEthtoolFQName and the entries it fills in advance): runs of
// characters outside [0-9A-Za-z_] become "_", the name is lower-cased
// and stripped of leading "_", an "rx" or "tx" word becomes "received"
// or "transmitted", and the whole is prefixed node_ethtool_; rx_bytes,
// rx_dropped, rx_errors, rx_packets and their tx_ twins have names of
// their own, ending in _total.
func EthtoolMetric(stat string) string {
	if name, ok := ethtoolEntries[stat]; ok {
		return "node_ethtool_" + name
	}
	name := strings.TrimLeft(strings.ToLower(ethtoolInvalid.ReplaceAllString(stat, "_")), "_")
	name = ethtoolRx.ReplaceAllString(name, "${1}received${2}")
	name = ethtoolTx.ReplaceAllString(name, "${1}transmitted${2}")
	return "node_ethtool_" + name
}

// The expressions of node_exporter's ethtool collector: metricNameRegex,
// receivedRegex and transmittedRegex.
var (
	ethtoolInvalid = regexp.MustCompile(`_*[^0-9A-Za-z_]+_*`)
	ethtoolRx      = regexp.MustCompile(`(^|_)rx(_|$)`)
	ethtoolTx      = regexp.MustCompile(`(^|_)tx(_|$)`)
)

// ethtoolEntries are the statistics node_exporter's ethtool collector
// names in advance (makeEthtoolCollector's entries).
var ethtoolEntries = map[string]string{
	"rx_bytes": "received_bytes_total", "rx_dropped": "received_dropped_total", "rx_errors": "received_errors_total",
	"rx_packets": "received_packets_total", "tx_bytes": "transmitted_bytes_total", "tx_errors": "transmitted_errors_total",
	"tx_packets": "transmitted_packets_total",
}

// infinibandHW names the hw_counters files of an RDMA port doctor reads
// as node_exporter's infiniband collector exports them: prometheus/procfs
// sysfs/class_infiniband.go (parseHwCounters) reads np_cnp_sent,
// np_ecn_marked_roce_packets, rp_cnp_handled and rp_cnp_ignored into the
// fields NpCnpSent, NpEcnMarkedRocePackets, RpCnpHandled and
// RpCnpIgnored, and collector/infiniband_linux.go names those fields
// node_infiniband_<name> below, labelled by the RDMA device ("device")
// and the port ("port"). The other files name nothing doctor reads.
var infinibandHW = map[string]string{
	"np_cnp_sent":                "np_cnp_packets_sent_total",
	"np_ecn_marked_roce_packets": "np_ecn_marked_roce_packets_received_total",
	"rp_cnp_handled":             "rp_cnp_packets_handled_total",
	"rp_cnp_ignored":             "rp_cnp_ignored_packets_received_total",
}
