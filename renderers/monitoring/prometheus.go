package monitoring

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// PrometheusFile is the scrape configuration's path in a build.
const PrometheusFile = "monitoring/prometheus.yml"

// TargetsDir holds the node_exporter targets, file_sd files the scrape
// configuration reads.
const TargetsDir = "monitoring/targets/"

// nodeExporterPort is node_exporter's default listen port
// (--web.listen-address=":9100", prometheus/node_exporter README).
const nodeExporterPort = "9100"

// targetGroup is one file_sd target group: addresses and the labels
// Prometheus attaches to every series scraped from them
// (https://prometheus.io/docs/prometheus/latest/configuration/configuration/#file_sd_config).
type targetGroup struct {
	Targets []string          `json:"targets"`
	Labels  map[string]string `json:"labels,omitempty"`
}

// renderPrometheus renders prometheus.yml and the node_exporter target
// files. The servers are labelled by pod and tenant through their target
// groups (one group per pod and tenant set, so the files grow with the
// servers, not with the labels); the scrape's instance is the server's
// name, as doctor reads it. A server is not labelled device: node_exporter
// labels its ethtool series device=<netdev> itself, and a target label of
// that name would displace it. The switches' series carry source (the
// switch) and the role, rail and pod gnmic.yaml tags them with.
func renderPrometheus(fab *ir.Fabric, tenants map[string]string) ([]renderers.Artifact, error) {
	files := map[string]map[string]*targetGroup{}
	for _, d := range fab.Devices {
		if d.Host == nil {
			continue
		}
		file := "servers.json"
		labels := map[string]string{}
		if d.Pod >= 0 {
			file = "servers-pod" + strconv.Itoa(d.Pod) + ".json"
			labels["pod"] = strconv.Itoa(d.Pod)
		}
		if t := tenants[d.Name]; t != "" {
			labels["tenant"] = t
		}
		key := labels["tenant"]
		if files[file] == nil {
			files[file] = map[string]*targetGroup{}
		}
		g := files[file][key]
		if g == nil {
			g = &targetGroup{Labels: labels}
			files[file][key] = g
		}
		g.Targets = append(g.Targets, d.Name+":"+nodeExporterPort)
	}
	var arts []renderers.Artifact
	for _, file := range slices.Sorted(maps.Keys(files)) {
		var groups []*targetGroup
		for _, k := range slices.Sorted(maps.Keys(files[file])) {
			g := files[file][k]
			slices.Sort(g.Targets)
			if len(g.Labels) == 0 {
				g.Labels = nil
			}
			groups = append(groups, g)
		}
		b, err := json.MarshalIndent(groups, "", " ")
		if err != nil {
			return nil, fmt.Errorf("monitoring: %s: %w", file, err)
		}
		arts = append(arts, renderers.Artifact{Path: TargetsDir + file, Format: renderers.JSON, Content: append(b, '\n')})
	}

	var b strings.Builder
	fmt.Fprintf(&b, "# Prometheus configuration for fabric %q, written by rocefab: do not edit, rebuild.\n", fab.Name)
	b.WriteString("# Run: prometheus --config.file=prometheus.yml, in this directory's copy (rule and target\n")
	b.WriteString("# files are found relative to it). Keys: prometheus.io/docs/prometheus/latest/configuration/configuration/.\n")
	fmt.Fprintf(&b, "global:\n  scrape_interval: %s\n  evaluation_interval: %s\n", sampleInterval, sampleInterval)
	fmt.Fprintf(&b, "rule_files:\n  - %s\n", yamlString(strings.TrimPrefix(File, "monitoring/")))
	b.WriteString("scrape_configs:\n")
	b.WriteString("  # gnmic (gnmic.yaml) serves every switch's counters, labelled source=<switch>.\n")
	b.WriteString("  - job_name: rocefab-gnmic\n    static_configs:\n")
	fmt.Fprintf(&b, "      - targets: [%s]\n", yamlString("localhost"+GnmicListen))
	b.WriteString("  # node_exporter on every server (node-exporter.args for its flags).\n")
	b.WriteString("  - job_name: rocefab-node-exporter\n")
	if len(arts) == 0 {
		// No server: an empty static list keeps the job (and the file)
		// valid without a target file to point at.
		b.WriteString("    static_configs: []\n")
	} else {
		fmt.Fprintf(&b, "    file_sd_configs:\n      - files: [%s]\n", yamlString(strings.TrimPrefix(TargetsDir, "monitoring/")+"*.json"))
		// The instance is the server's name, without node_exporter's port.
		b.WriteString("    relabel_configs:\n      - source_labels: [__address__]\n        regex: '(.+):" + nodeExporterPort + "'\n        target_label: instance\n        replacement: '$1'\n")
	}
	// The link info (links.go) changes only with a build: a scrape a
	// minute keeps each series well within the five minutes a query looks
	// back for a sample (the default --query.lookback-delta), and the
	// timeout leaves time for a 100,000-GPU fabric's file.
	fmt.Fprintf(&b, "  # %s (links-exporter.args): each cabled port's peer, rail and tenants.\n", LinkInfo)
	fmt.Fprintf(&b, "  - job_name: rocefab-links\n    scrape_interval: 1m\n    scrape_timeout: 50s\n    static_configs:\n      - targets: [%s]\n", yamlString(linksListen))
	arts = append([]renderers.Artifact{{Path: PrometheusFile, Format: renderers.YAML, Content: []byte(b.String())}}, arts...)
	return arts, nil
}

// serverTenants returns, per server, the tenants whose server ranges name
// it, sorted and comma-joined. A tenant without servers runs anywhere and
// labels no server.
func serverTenants(fab *ir.Fabric) map[string]string {
	by := map[string][]string{}
	for _, t := range fab.Tenants {
		for _, s := range t.Servers {
			by[s] = append(by[s], t.Name)
		}
	}
	out := make(map[string]string, len(by))
	for s, ts := range by {
		slices.Sort(ts)
		out[s] = strings.Join(slices.Compact(ts), ",")
	}
	return out
}
