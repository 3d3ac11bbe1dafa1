// Package telemetry reads fabric counters from snapshot files in the
// Prometheus text exposition format, or from a Prometheus server's HTTP
// API, and turns them into rates over a window. It knows which collector metric families carry which counter
// (see docs/doctor.md) but nothing of the fabric's topology: doctor joins
// the rates to the compiled model.
package telemetry

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
)

// Counter is one kind of counter doctor reads, whatever collector produced
// it.
type Counter uint8

// The counters doctor reads. Pause counters are per priority on NICs (mlx5
// counts PFC frames per priority) and per port on switches (OpenConfig
// counts MAC PAUSE frames, which with PFC on one priority are that
// priority's).
const (
	RxPause        Counter = iota + 1 // PFC/PAUSE frames received: the peer asks this port to stop sending
	TxPause                           // PFC/PAUSE frames sent: this port asks its peer to stop
	RxBytes                           // bytes received
	TxBytes                           // bytes sent
	RxErrors                          // FCS (CRC) errors received
	Symbol                            // physical-layer symbol errors
	Carrier                           // carrier transitions (link flaps)
	ECNMarks                          // packets marked CE (switch egress queue) or received marked (NIC)
	CNPSent                           // CNPs a NIC sent as notification point: it received packets marked CE
	CNPHandled                        // CNPs a NIC's reaction point handled by slowing its sending (DCQCN)
	CNPIgnored                        // CNPs a NIC received and ignored: its reaction point (DCQCN) is off
	Drops                             // packets dropped: a switch egress queue's drops, a NIC's receive discards for lack of buffer
	WatchdogStorms                    // PFC storms a switch's PFC watchdog detected on an egress queue

	// Counters is one more than the largest counter, to size arrays
	// indexed by counter.
	Counters = iota + 1
)

var counterNames = [...]string{"", "rx-pause", "tx-pause", "rx-bytes", "tx-bytes", "rx-errors", "symbol-errors", "carrier-transitions", "ecn-marks",
	"cnp-sent", "cnp-handled", "cnp-ignored", "drops", "watchdog-storms"}

// String names the counter as reports and JSON show it.
func (c Counter) String() string {
	if int(c) < len(counterNames) {
		return counterNames[c]
	}
	return "counter(" + strconv.Itoa(int(c)) + ")"
}

// MarshalText makes a counter a JSON string.
func (c Counter) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// AnyPriority is the priority of a counter that is not per priority.
const AnyPriority = -1

// Key names one counter of one port. Port is the interface name for
// switches and the netdev for NICs; an RDMA counter of a NIC carries the
// RDMA device (e.g. mlx5_0) in Port and HCA set, and doctor resolves it to
// the netdev through the model. Queue is the switch egress queue's name of
// a per-queue counter, "" otherwise.
type Key struct {
	Device   string
	Port     string
	Counter  Counter
	Priority int8
	HCA      bool
	Queue    string
}

// Series is how the key appears in an exposition file, for evidence.
type Series struct {
	Metric string
	Labels string // the label set as written, without braces
}

// String prints the series as PromQL would select it.
func (s Series) String() string { return s.Metric + "{" + s.Labels + "}" }

// family maps a metric family name to the counter it carries and the label
// that names the port.
type family struct {
	counter  Counter
	priority int8 // AnyPriority unless the name carries the priority
	port     string
	hca      bool
	queue    string // the label naming the queue, for per-queue counters
}

// The metric families doctor reads, by collector. Every name is built the
// way its collector builds it; docs/doctor.md lists them with sources.
//
// node_exporter's ethtool collector exports each `ethtool -S` statistic as
// node_ethtool_<stat>, lower-cased, with a leading "rx"/"tx" word spelled
// "received"/"transmitted", labelled by the netdev in "device"
// (prometheus/node_exporter collector/ethtool_linux.go, buildEthtoolFQName
// and its test). The statistics are mlx5's (Linux
// Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst):
// rx_prio<p>_pause, tx_prio<p>_pause, rx_prio<p>_bytes, tx_prio<p>_bytes,
// rx_crc_errors_phy, rx_symbol_err_phy, link_down_events_phy.
//
// node_ethtool_received_prio<p>_discards is mlx5's rx_prio<p>_discards,
// packets the NIC dropped for lack of receive buffer on priority p.
//
// node_exporter's infiniband collector exports the RDMA device's
// hw_counters, labelled by "device" (the RDMA device) and "port"
// (collector/infiniband_linux.go at
// prometheus/node_exporter@a7dcc3a01545180d4f2087db70994cbc3abfed13):
// np_ecn_marked_roce_packets as
// node_infiniband_np_ecn_marked_roce_packets_received_total, np_cnp_sent
// as node_infiniband_np_cnp_packets_sent_total, rp_cnp_handled as
// node_infiniband_rp_cnp_packets_handled_total and rp_cnp_ignored as
// node_infiniband_rp_cnp_ignored_packets_received_total.
//
// gnmic's Prometheus output names a gNMI update by its path with every
// character outside [a-zA-Z0-9_] replaced by "_" and labels it by the
// list keys as <list>_<key> and by "source", the target
// (openconfig/gnmic outputs/prometheus_output/prometheus_common.go). The
// paths are OpenConfig's: openconfig-interfaces (state/counters),
// openconfig-if-ethernet (ethernet/state/counters) and
// openconfig-qos-interfaces (output queue state).
//
// SONiC's per-priority PFC counters and PFC watchdog counters come from
// COUNTERS_DB through gnmic too, with the port (and the queue) turned into
// labels by the event processor monitoring/gnmic.yaml gives them, which
// names each series after the path subscribed, without the port:
// COUNTERS_Ethernet_SAI_PORT_STAT_PFC_<p>_RX_PKTS and _TX_PKTS
// (the counters sonic-net/sonic-utilities scripts/pfcstat reads),
// labelled interface_name, and
// COUNTERS_Ethernet_Pfcwd_PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED (the
// storms sonic-net/sonic-swss orchagent/pfcwdorch.cpp counts on a
// queue), labelled interface_name and queue_name.
func lookupFamily(name string) (family, bool) {
	if f, ok := families[name]; ok {
		return f, true
	}
	// COUNTERS_Ethernet_SAI_PORT_STAT_PFC_<p>_{RX,TX}_PKTS
	if rest, ok := strings.CutPrefix(name, sonicPFC); ok && len(rest) == len("0_RX_PKTS") && rest[0] >= '0' && rest[0] <= '7' {
		p := int8(rest[0] - '0')
		switch rest[1:] {
		case "_RX_PKTS":
			return family{counter: RxPause, priority: p, port: "interface_name"}, true
		case "_TX_PKTS":
			return family{counter: TxPause, priority: p, port: "interface_name"}, true
		}
	}
	// node_ethtool_{received,transmitted}_prio<p>_{pause,bytes}
	for _, dir := range [...]struct {
		prefix       string
		pause, bytes Counter
	}{{"node_ethtool_received_prio", RxPause, RxBytes}, {"node_ethtool_transmitted_prio", TxPause, TxBytes}} {
		rest, ok := strings.CutPrefix(name, dir.prefix)
		if !ok || len(rest) < 2 || rest[0] < '0' || rest[0] > '7' || rest[1] != '_' {
			continue
		}
		p := int8(rest[0] - '0')
		switch rest[2:] {
		case "pause":
			return family{counter: dir.pause, priority: p, port: "device"}, true
		case "bytes":
			return family{counter: dir.bytes, priority: p, port: "device"}, true
		case "discards":
			if dir.pause == RxPause {
				return family{counter: Drops, priority: p, port: "device"}, true
			}
		}
	}
	return family{}, false
}

// sonicPFC begins the name of SONiC's per-priority PFC counters as gnmic
// serves them.
const sonicPFC = "COUNTERS_Ethernet_SAI_PORT_STAT_PFC_"

var families = map[string]family{
	"node_ethtool_received_crc_errors_phy":                      {counter: RxErrors, priority: AnyPriority, port: "device"},
	"node_ethtool_received_symbol_err_phy":                      {counter: Symbol, priority: AnyPriority, port: "device"},
	"node_ethtool_link_down_events_phy":                         {counter: Carrier, priority: AnyPriority, port: "device"},
	"node_infiniband_np_ecn_marked_roce_packets_received_total": {counter: ECNMarks, priority: AnyPriority, port: "device", hca: true},
	"node_infiniband_np_cnp_packets_sent_total":                 {counter: CNPSent, priority: AnyPriority, port: "device", hca: true},
	"node_infiniband_rp_cnp_packets_handled_total":              {counter: CNPHandled, priority: AnyPriority, port: "device", hca: true},
	"node_infiniband_rp_cnp_ignored_packets_received_total":     {counter: CNPIgnored, priority: AnyPriority, port: "device", hca: true},

	"interfaces_interface_state_counters_in_octets":                     {counter: RxBytes, priority: AnyPriority, port: "interface_name"},
	"interfaces_interface_state_counters_out_octets":                    {counter: TxBytes, priority: AnyPriority, port: "interface_name"},
	"interfaces_interface_state_counters_in_fcs_errors":                 {counter: RxErrors, priority: AnyPriority, port: "interface_name"},
	"interfaces_interface_state_counters_carrier_transitions":           {counter: Carrier, priority: AnyPriority, port: "interface_name"},
	"interfaces_interface_ethernet_state_counters_in_symbol_error":      {counter: Symbol, priority: AnyPriority, port: "interface_name"},
	"interfaces_interface_ethernet_state_counters_in_mac_pause_frames":  {counter: RxPause, priority: AnyPriority, port: "interface_name"},
	"interfaces_interface_ethernet_state_counters_out_mac_pause_frames": {counter: TxPause, priority: AnyPriority, port: "interface_name"},
	"qos_interfaces_interface_output_queues_queue_state_ecn_marked_pkts": {counter: ECNMarks, priority: AnyPriority,
		port: "interface_interface_id", queue: "queue_name"},
	"qos_interfaces_interface_output_queues_queue_state_dropped_pkts": {counter: Drops, priority: AnyPriority,
		port: "interface_interface_id", queue: "queue_name"},
	"COUNTERS_Ethernet_Pfcwd_PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": {counter: WatchdogStorms, priority: AnyPriority,
		port: "interface_name", queue: "queue_name"},
}

// Families lists the metric family names doctor reads with fixed names,
// sorted, for documentation and tests; the per-priority families are
// node_ethtool_{received,transmitted}_prio<0-7>_{pause,bytes},
// node_ethtool_received_prio<0-7>_discards and
// COUNTERS_Ethernet_SAI_PORT_STAT_PFC_<0-7>_{RX,TX}_PKTS.
func Families() []string {
	names := make([]string, 0, len(families))
	for n := range families {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// deviceOf names the fabric device a series belongs to: gnmic's "source"
// (the gNMI target, which the collector config names after the device),
// else the host part of Prometheus's "instance" target label.
func deviceOf(source, instance []byte) []byte {
	if len(source) > 0 {
		return source
	}
	if h, _, ok := bytes.Cut(instance, []byte(":")); ok && bytes.IndexByte(instance, ']') < 0 {
		return h
	}
	return instance
}
