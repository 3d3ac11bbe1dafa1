package monitoring_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/monitoring"
)

// linkLine is one rocefab_link_info line of the links file.
var linkLine = regexp.MustCompile(`^rocefab_link_info\{([^}]*)\} 1$`)

// labelPair is one label of a line; no value here holds a quote.
var labelPair = regexp.MustCompile(`(\w+)="([^"]*)"`)

// links renders an example's monitoring files and returns its fabric, its
// artifacts and the link info by device and port.
func links(t *testing.T, ex string) (*ir.Fabric, []renderers.Artifact, map[[2]string]map[string]string) {
	t.Helper()
	fab, arts := compiled(t, ex)
	info := map[[2]string]map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(artifact(t, arts, monitoring.LinksFile))), "\n") {
		if strings.HasPrefix(l, "#") {
			continue
		}
		m := linkLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("not a link info line: %s", l)
		}
		labels := map[string]string{}
		for _, p := range labelPair.FindAllStringSubmatch(m[1], -1) {
			labels[p[1]] = p[2]
		}
		k := [2]string{labels["device"], labels["port"]}
		if _, dup := info[k]; dup {
			t.Errorf("%s:%s has two link info lines", k[0], k[1])
		}
		info[k] = labels
	}
	return fab, arts, info
}

// TestLinkInfo: every cabled port of pod-2048 and mixed-fleet, NIC or
// switch, has one link info series naming the other end of its cable; a
// NIC's carries its rail and its server's tenants, the leaf port facing it
// the same, a spine port neither.
func TestLinkInfo(t *testing.T) {
	for _, ex := range []string{"pod-2048", "mixed-fleet"} {
		t.Run(ex, func(t *testing.T) { testLinkInfo(t, ex) })
	}
}

func testLinkInfo(t *testing.T, ex string) {
	fab, _, info := links(t, ex)
	tenants := map[string][]string{}
	for _, tn := range fab.Tenants {
		for _, s := range tn.Servers {
			tenants[s] = append(tenants[s], tn.Name)
		}
	}
	ports := 0
	for _, d := range fab.Devices {
		check := func(port, peer, peerPort string, rail int, server string) {
			ports++
			l := info[[2]string{d.Name, port}]
			if l == nil || l["peer_device"] != peer || l["peer_port"] != peerPort {
				t.Errorf("%s:%s: link info %v, want its peer %s:%s", d.Name, port, l, peer, peerPort)
				return
			}
			if got, want := l["rail"], fmt.Sprint(rail); (rail < 0) != (got == "") || (rail >= 0 && got != want) {
				t.Errorf("%s:%s: rail %q, want %d", d.Name, port, got, rail)
			}
			for _, tn := range tenants[server] {
				if !strings.Contains(","+l["tenant"]+",", ","+tn+",") {
					t.Errorf("%s:%s: tenant %q, want %s among them", d.Name, port, l["tenant"], tn)
				}
			}
			if server == "" && l["tenant"] != "" {
				t.Errorf("%s:%s faces no server but is labelled tenant %q", d.Name, port, l["tenant"])
			}
		}
		switch {
		case d.Host != nil:
			for _, n := range d.Host.NICs {
				check(n.Port, n.Peer, n.PeerPort, n.Rail, d.Name)
			}
		case d.Switch != nil:
			for _, p := range d.Switch.Ports {
				if p.Peer == "" {
					continue
				}
				rail, server := d.Rail, ""
				if p.Facing == ir.RoleHost {
					server = p.Peer
				}
				check(p.Name, p.Peer, p.PeerPort, rail, server)
			}
		}
	}
	if ports == 0 || len(info) != ports {
		t.Errorf("%d link info series for %d cabled ports", len(info), ports)
	}
}

// TestLinksExporterRuns serves mixed-fleet's link info with node_exporter
// (Debian package prometheus-node-exporter) run as links-exporter.args
// says, in the monitoring directory: every line of the file is served.
func TestLinksExporterRuns(t *testing.T) {
	_, arts, info := links(t, "mixed-fleet")
	dir := t.TempDir()
	writeArtifacts(t, dir, arts)
	body, out := runNodeExporter(t, artifact(t, arts, monitoring.LinksExporterFile), filepath.Join(dir, "monitoring"))
	served := 0
	for _, l := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(l, monitoring.LinkInfo+"{") {
			served++
		}
	}
	if served != len(info) || !strings.Contains(string(body), `node_scrape_collector_success{collector="textfile"} 1`) {
		t.Errorf("node_exporter served %d link info series of %d\n%s", served, len(info), out)
	}
}

// TestLinkPauseRule runs promtool test rules (Debian package prometheus)
// on the examples' rule files: a NIC's PFC pauses and its leaf port's come
// out of rocefab:link_pause_sent:rate1m labelled with the other end of
// each cable, rail and tenant, from the link info series as the links file
// has them. pod-2048's NIC is one of a tenant's servers; mixed-fleet's
// leaf is SONiC's, counting per priority with its MAC PAUSE counter at
// zero.
func TestLinkPauseRule(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not on PATH (Debian package prometheus): the rule was not run")
	}
	for _, c := range []struct {
		ex, server string
		native     bool
	}{{"pod-2048", "gpu-0200", false}, {"mixed-fleet", "gpu-0000", true}} {
		t.Run(c.ex, func(t *testing.T) { testLinkPauseRule(t, promtool, c.ex, c.server, c.native) })
	}
}

func testLinkPauseRule(t *testing.T, promtool, ex, server string, native bool) {
	fab, arts, info := links(t, ex)
	var nic ir.NIC
	for _, d := range fab.Devices {
		if d.Name == server && len(d.Host.NICs) > 0 {
			nic = d.Host.NICs[0]
			break
		}
	}
	nicInfo, leafInfo := info[[2]string{server, nic.Port}], info[[2]string{nic.Peer, nic.PeerPort}]
	if nicInfo == nil || leafInfo == nil || (nicInfo["tenant"] == "") != native {
		t.Fatalf("link info of %s:%s %v and of its leaf port %v: want both, the NIC's with a tenant unless all run anywhere", server, nic.Port, nicInfo, leafInfo)
	}
	// The leaf's pauses: per priority on SONiC, its MAC PAUSE counter
	// counting nothing; else the MAC PAUSE counter.
	leafSeries := fmt.Sprintf(`interfaces_interface_ethernet_state_counters_out_mac_pause_frames{source="%s",interface_name="%s",job="rocefab-gnmic"}`, nic.Peer, nic.PeerPort)
	leafValues, nativeSeries := "0+12000x10", ""
	if native {
		leafValues = "0x10"
		nativeSeries = fmt.Sprintf(`
      - series: 'COUNTERS_Ethernet_SAI_PORT_STAT_PFC_3_TX_PKTS{source="%s",interface_name="%s",target="COUNTERS_DB",job="rocefab-gnmic"}'
        values: '0+12000x10'`, nic.Peer, nic.PeerPort)
	}
	series := func(name string, labels map[string]string, extra string) string {
		var parts []string
		for _, k := range []string{"device", "port", "peer_device", "peer_port", "rail", "tenant"} {
			if v, ok := labels[k]; ok {
				parts = append(parts, fmt.Sprintf("%s=%q", k, v))
			}
		}
		if extra != "" {
			parts = append(parts, extra)
		}
		return name + "{" + strings.Join(parts, ",") + "}"
	}
	peer := func(l map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range l {
			if k != "device" && k != "port" {
				out[k] = v
			}
		}
		return out
	}
	nicOut, leafOut := peer(nicInfo), peer(leafInfo)
	nicOut["device"], nicOut["port"] = server, nic.Port
	leafOut["device"], leafOut["port"] = nic.Peer, nic.PeerPort
	test := fmt.Sprintf(`rule_files: [rules.yml]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'node_ethtool_transmitted_prio3_pause{instance="%[1]s",device="%[2]s",job="rocefab-node-exporter"}'
        values: '0+6000x10'%[9]s
      - series: '%[3]s'
        values: '%[4]s'
      - series: '%[5]s'
        values: '1x10'
      - series: '%[6]s'
        values: '1x10'
    promql_expr_test:
      - expr: rocefab:link_pause_sent:rate1m
        eval_time: 5m
        exp_samples:
          - labels: '%[7]s'
            value: 100
          - labels: '%[8]s'
            value: 200
`, server, nic.Port, leafSeries, leafValues,
		series(monitoring.LinkInfo, nicInfo, `instance="localhost:9101",job="rocefab-links"`),
		series(monitoring.LinkInfo, leafInfo, `instance="localhost:9101",job="rocefab-links"`),
		series("rocefab:link_pause_sent:rate1m", nicOut, fmt.Sprintf("instance=%q", server)),
		series("rocefab:link_pause_sent:rate1m", leafOut, fmt.Sprintf("source=%q,interface_name=%q", nic.Peer, nic.PeerPort)), nativeSeries)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rules.yml"), artifact(t, arts, monitoring.File), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "test.yml"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(promtool, "test", "rules", "test.yml")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "SUCCESS") {
		t.Fatalf("promtool test rules: %v\n%s\n%s", err, out, test)
	}
}
