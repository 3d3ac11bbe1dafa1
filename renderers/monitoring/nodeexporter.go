package monitoring

import (
	"fmt"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// NodeExporterFile is node_exporter's flags for the servers, as Debian's
// prometheus-node-exporter package reads them: its unit runs
// `/usr/bin/prometheus-node-exporter $ARGS` with
// EnvironmentFile=/etc/default/prometheus-node-exporter, and that file
// sets ARGS="..." (package prometheus-node-exporter 1.5.0, its unit and
// default file).
const NodeExporterFile = "monitoring/node-exporter.args"

// ethtoolStats returns the ethtool statistics doctor reads (docs/doctor.md
// section 3), as a regular expression for
// --collector.ethtool.metrics-include: node_exporter matches it, unanchored,
// against each statistic's sanitized name before renaming rx/tx
// (collector/ethtool_linux.go at a7dcc3a01545180d4f2087db70994cbc3abfed13,
// metricsPattern.MatchString(metricName)), so each alternative is
// anchored. The per-priority counters are the lossless priorities'.
func ethtoolStats(prios []string) string {
	alts := []string{"rx_crc_errors_phy", "rx_symbol_err_phy", "link_down_events_phy"}
	if len(prios) > 0 {
		p := "prio(" + strings.Join(prios, "|") + ")_"
		alts = append(alts, "(rx|tx)_"+p+"(pause|bytes)", "rx_"+p+"discards")
	}
	return "^(" + strings.Join(alts, "|") + ")$"
}

// renderNodeExporter renders the servers' node_exporter flags: the ethtool
// collector (off by default) limited to doctor's statistics, and the
// infiniband collector (on by default, named so that a site that turned
// default collectors off keeps it) for the RDMA hw_counters
// (collector/ethtool_linux.go and infiniband_linux.go, registerCollector
// and the collector.ethtool.metrics-include flag). No flag holds a space
// or a backslash, so neither the shell-free $ARGS split of systemd nor
// the file's quoting changes it.
func renderNodeExporter(fab *ir.Fabric, prios []string) renderers.Artifact {
	var b strings.Builder
	fmt.Fprintf(&b, "# node_exporter flags for the servers of fabric %q, written by rocefab: do not edit, rebuild.\n", fab.Name)
	b.WriteString("# Install as /etc/default/prometheus-node-exporter (Debian's prometheus-node-exporter)\n")
	b.WriteString("# or pass the flags to node_exporter as they are.\n")
	fmt.Fprintf(&b, "ARGS=\"--collector.ethtool --collector.ethtool.metrics-include=%s --collector.infiniband\"\n", ethtoolStats(prios))
	return renderers.Artifact{Path: NodeExporterFile, Format: renderers.Env, Content: []byte(b.String())}
}
