// Package monitoring renders the Prometheus rules that watch a fabric for
// the conditions rocefab doctor diagnoses, on the metrics doctor reads
// (docs/doctor.md): PFC pauses per NIC and switch port as recording rules,
// and alerts for a pause storm, drops on a lossless queue, NICs that
// ignore CNPs (DCQCN off) and errors or flaps on a cable. The lossless
// priorities and queues come from the compiled queue plan, so the rules
// watch what the fabric protects and nothing else.
//
// The file is a Prometheus rule file (rule_files in prometheus.yml):
// groups of recording rules (record, expr) and alerting rules (alert,
// expr, for, labels, annotations), as
// https://prometheus.io/docs/prometheus/latest/configuration/recording_rules/
// and .../alerting_rules/ define them; recording rules are named
// level:metric:operations as the rules' best practices advise
// (https://prometheus.io/docs/practices/rules/). `promtool check rules`
// accepts it (the package's test runs it).
//
// Beside the rules it renders what collects the metrics: gnmic's
// configuration for the switches (gnmic.yaml: a target per switch, named
// as doctor reads the source label, sampling the OpenConfig counters
// doctor reads into a Prometheus output), Prometheus's scrape
// configuration (prometheus.yml, with node_exporter's targets in
// file_sd files labelled by pod and tenant), node_exporter's flags for
// the servers (node-exporter.args: the ethtool collector limited to
// doctor's statistics, and the infiniband collector), and the link info
// that labels each cabled port with its peer, rail and tenants for PromQL
// joins (textfile/links.prom, served by a node_exporter whose flags are
// links-exporter.args).
package monitoring

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// File is the rule file's path in a build.
const File = "monitoring/prometheus-rules.yml"

// The thresholds are rocefab doctor's defaults (targets/doctor
// DefaultOptions): a port held off continuously sends thousands of pause
// frames a second, an incast burst a few; a NIC with DCQCN on ignores no
// CNP; a lossless queue never drops.
const (
	pauseRate = 1000
	cnpRate   = 1
)

// Render renders the fabric's monitoring files: the rule file, gnmic's
// configuration for the switches, the Prometheus scrape configuration and
// its node_exporter target files, and node_exporter's flags for the
// servers.
func Render(fab *ir.Fabric) ([]renderers.Artifact, error) { return render(fab, nil) }

// render renders the monitoring files, gnmic dialling each switch at
// address(name, platform), or at its name when address is nil.
func render(fab *ir.Fabric, address func(name, platform string) string) ([]renderers.Artifact, error) {
	prios, queues := lossless(fab)
	tenants := serverTenants(fab)
	prom, err := renderPrometheus(fab, tenants)
	if err != nil {
		return nil, err
	}
	arts := []renderers.Artifact{rules(fab, prios, queues), renderGnmic(fab, prios, address), renderNodeExporter(fab, prios)}
	return slices.Concat(arts, prom, renderLinks(fab, tenants)), nil
}

// linkPauseRule is the recording rule of the pauses each port sends,
// labelled with its cable's peer.
const linkPauseRule = "rocefab:link_pause_sent:rate1m"

// rules renders the rule file on the lossless priorities and queues.
func rules(fab *ir.Fabric, prios, queues []string) renderers.Artifact {
	native := false
	for _, d := range fab.Devices {
		if d.Switch != nil && len(Native(d.Platform, prios)) > 0 {
			native = true
			break
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Prometheus rules for fabric %q, written by rocefab: do not edit, rebuild.\n", fab.Name)
	b.WriteString("# Load it with rule_files in prometheus.yml; the metrics are those docs/doctor.md lists\n")
	b.WriteString("# (node_exporter's ethtool and infiniband collectors, gnmic's OpenConfig and native paths)\n")
	fmt.Fprintf(&b, "# and %s (textfile/links.prom).\n", LinkInfo)
	b.WriteString("groups:\n")
	if len(prios) == 0 {
		// Without a lossless priority there is no PFC to watch; the
		// cables and the CNPs still are.
		b.WriteString("  # The fabric has no lossless priority: no PFC or lossless-drop rule.\n")
	} else {
		p := "(" + strings.Join(prios, "|") + ")"
		b.WriteString("  - name: rocefab-pfc\n    rules:\n")
		record(&b, "rocefab:nic_pfc_pause_sent:rate1m", `sum by (instance, device) (rate({__name__=~"node_ethtool_transmitted_prio`+p+`_pause"}[1m]))`)
		record(&b, "rocefab:nic_pfc_pause_received:rate1m", `sum by (instance, device) (rate({__name__=~"node_ethtool_received_prio`+p+`_pause"}[1m]))`)
		// A switch that counts PFC frames per priority (SONiC's
		// COUNTERS_DB, Native) is read from those, the MAC PAUSE counter
		// only where there are none, as doctor reads them: "or" keeps a
		// port's per-priority sum and adds the MAC PAUSE rate of the
		// ports without one.
		sent := `sum by (source, interface_name) (rate(interfaces_interface_ethernet_state_counters_out_mac_pause_frames[1m]))`
		received := `sum by (source, interface_name) (rate(interfaces_interface_ethernet_state_counters_in_mac_pause_frames[1m]))`
		if native {
			sent = `sum by (source, interface_name) (rate({__name__=~"COUNTERS_Ethernet_SAI_PORT_STAT_PFC_` + p + `_TX_PKTS"}[1m])) or ` + sent
			received = `sum by (source, interface_name) (rate({__name__=~"COUNTERS_Ethernet_SAI_PORT_STAT_PFC_` + p + `_RX_PKTS"}[1m])) or ` + received
		}
		record(&b, "rocefab:switch_pause_sent:rate1m", sent)
		record(&b, "rocefab:switch_pause_received:rate1m", received)
		// The pauses every port sends, NIC or switch, labelled with the
		// other end of its cable, its rail and tenants by the link info
		// (links.go): the NICs' device is the instance and their port the
		// netdev, a switch's device its source and its port the interface.
		record(&b, linkPauseRule, `(label_replace(label_replace(rocefab:nic_pfc_pause_sent:rate1m, "port", "$1", "device", "(.+)"), "device", "$1", "instance", "(.+)")`+
			` or label_replace(label_replace(rocefab:switch_pause_sent:rate1m, "device", "$1", "source", "(.+)"), "port", "$1", "interface_name", "(.+)"))`+
			` * on(device, port) group_left(peer_device, peer_port, rail, tenant) `+LinkInfo)
		alert(&b, "RocefabPauseStorm", "rocefab:nic_pfc_pause_sent:rate1m > "+strconv.Itoa(pauseRate)+" or rocefab:switch_pause_sent:rate1m > "+strconv.Itoa(pauseRate),
			"1m", "critical", "a port sends PFC pauses continuously",
			"Sustained PFC is never normal: run rocefab doctor to trace the storm to its origin.")
		b.WriteString("  - name: rocefab-lossless\n    rules:\n")
		if len(queues) > 0 {
			alert(&b, "RocefabLosslessQueueDrops", `increase(qos_interfaces_interface_output_queues_queue_state_dropped_pkts{queue_name=~"(?i)(`+strings.Join(queues, "|")+`)"}[5m]) > 0`,
				"", "critical", "a lossless egress queue drops packets",
				"PFC did not hold the traffic: headroom short of the cable, or a peer that ignores the pauses.")
		}
		if native && len(queues) > 0 {
			alert(&b, "RocefabPFCWatchdog", `increase(COUNTERS_Ethernet_Pfcwd_PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED{queue_name=~"(?i)(`+strings.Join(queues, "|")+`)"}[5m]) > 0`,
				"", "critical", "a switch's PFC watchdog detected a pause storm on a lossless queue",
				"The peer kept the queue paused past the watchdog's detection time: run rocefab doctor to name it.")
		}
		alert(&b, "RocefabNICLosslessDiscards", `increase({__name__=~"node_ethtool_received_prio`+p+`_discards"}[5m]) > 0`,
			"", "critical", "a NIC discards packets of a lossless priority",
			"The NIC ran out of receive buffer on a lossless priority: its headroom, or a leaf ignoring its pauses.")
	}
	b.WriteString("  - name: rocefab-nic\n    rules:\n")
	alert(&b, "RocefabCNPIgnored", "rate(node_infiniband_rp_cnp_ignored_packets_received_total[5m]) > "+strconv.Itoa(cnpRate),
		"5m", "warning", "a NIC ignores the CNPs it receives (DCQCN off)",
		"The NIC keeps sending at line rate into congestion: check its congestion control against the intent.")
	b.WriteString("  - name: rocefab-cables\n    rules:\n")
	alert(&b, "RocefabLinkFlaps", "increase(interfaces_interface_state_counters_carrier_transitions[5m]) > 0 or increase(node_ethtool_link_down_events_phy[5m]) > 0",
		"", "warning", "a link changed carrier", "A flapping cable: run rocefab doctor to name both ends.")
	alert(&b, "RocefabFCSErrors", "increase(interfaces_interface_state_counters_in_fcs_errors[5m]) > 0 or increase(node_ethtool_received_crc_errors_phy[5m]) > 0",
		"", "warning", "a port receives frames with FCS errors", "A lossy cable or optic: every drop it causes fires PFC retries upstream.")
	return renderers.Artifact{Path: File, Format: renderers.YAML, Content: []byte(b.String())}
}

// lossless returns the fabric's lossless priorities, as digits, and the
// names of its switches' lossless egress queues (number and class name,
// lower case), each sorted.
func lossless(fab *ir.Fabric) (prios, queues []string) {
	var on [8]bool
	if hp := fab.HostProfile; hp != nil {
		on = hp.PFC
	}
	for _, d := range fab.Devices {
		if d.Switch == nil || d.Switch.QoS == nil {
			continue
		}
		q := d.Switch.QoS
		var sw [8]bool
		for _, pr := range q.PFC {
			if pr >= 0 && pr < 8 {
				on[pr], sw[pr] = true, true
			}
		}
		for _, qu := range q.Queues {
			if qu.Class != nil && qu.Class.Priority >= 0 && qu.Class.Priority < 8 && sw[qu.Class.Priority] {
				queues = append(queues, strconv.Itoa(qu.ID), quoteMeta(strings.ToLower(qu.Class.Name)))
			}
		}
	}
	for p, ok := range on {
		if ok {
			prios = append(prios, strconv.Itoa(p))
		}
	}
	slices.Sort(queues)
	return prios, slices.Compact(queues)
}

// quoteMeta escapes a class name for a PromQL regular expression inside a
// double-quoted string: RE2's metacharacters, each backslash doubled for
// the string.
func quoteMeta(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, c) {
			b.WriteString(`\\`)
		}
		if c == '"' {
			b.WriteString(`\`)
		}
		b.WriteRune(c)
	}
	return b.String()
}

func record(b *strings.Builder, name, expr string) {
	fmt.Fprintf(b, "      - record: %s\n        expr: %s\n", name, yamlString(expr))
}

func alert(b *strings.Builder, name, expr, forDur, severity, summary, description string) {
	fmt.Fprintf(b, "      - alert: %s\n        expr: %s\n", name, yamlString(expr))
	if forDur != "" {
		fmt.Fprintf(b, "        for: %s\n", forDur)
	}
	fmt.Fprintf(b, "        labels:\n          severity: %s\n", severity)
	fmt.Fprintf(b, "        annotations:\n          summary: %s\n          description: %s\n", yamlString(summary), yamlString(description))
}

// yamlString writes s as a single-quoted YAML scalar, which keeps every
// character but the quote itself (doubled).
func yamlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Renderer renders the fabric's monitoring files, the rules that watch it
// for what rocefab doctor diagnoses and the collectors' configuration, as
// a fabric-wide renderer of a build.
type Renderer struct {
	// Address, when set, is where gnmic dials a switch (the access
	// inventory's address); nil dials it by its name.
	Address func(name, platform string) string
}

var _ renderers.FabricRenderer = Renderer{}

// RenderFabric renders the fabric's monitoring files (Render).
func (r Renderer) RenderFabric(fab *ir.Fabric, _ []renderers.Artifact) ([]renderers.Artifact, error) {
	return render(fab, r.Address)
}
