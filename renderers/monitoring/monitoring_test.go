package monitoring_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/monitoring"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/schema"
	"github.com/rocefab/rocefab/targets/dir/dirtest"
)

// TestRules renders the examples' rule files: each parses as rule groups
// of recording and alerting rules on the fabric's lossless priority and
// queues (with SONiC's native counters where the fabric has SONiC
// switches), and promtool check rules (Debian package prometheus) accepts
// it.
func TestRules(t *testing.T) {
	promtool, _ := exec.LookPath("promtool")
	for _, c := range []struct {
		ex, prios, queues string
		rules             int
	}{
		{"pod-2048", "(3)", "(3|roce)", 11},
		{"multitenant", "(3|4)", "(3|4|finetune|training)", 11},
		{"mixed-fleet", "(3)", "(3|roce)", 12},
	} {
		ex := c.ex
		t.Run(ex, func(t *testing.T) {
			arts := render(t, ex)
			rulesFile := artifact(t, arts, monitoring.File)
			var rules struct {
				Groups []struct {
					Name  string
					Rules []struct {
						Record, Alert, Expr, For string
					}
				}
			}
			if err := yaml.Unmarshal(rulesFile, &rules); err != nil {
				t.Fatal(err)
			}
			exprs := map[string]string{}
			for _, g := range rules.Groups {
				for _, r := range g.Rules {
					exprs[r.Record+r.Alert] = r.Expr
				}
			}
			if e := exprs["rocefab:nic_pfc_pause_sent:rate1m"]; !strings.Contains(e, `node_ethtool_transmitted_prio`+c.prios+`_pause`) {
				t.Errorf("NIC pause rule %q: want the lossless priorities %s alone", e, c.prios)
			}
			if e := exprs["RocefabLosslessQueueDrops"]; !strings.Contains(e, `queue_name=~"(?i)`+c.queues+`"`) {
				t.Errorf("queue drops rule %q: want the lossless queues %s by number and class", e, c.queues)
			}
			native := c.rules == 12
			if e := exprs["rocefab:switch_pause_sent:rate1m"]; strings.Contains(e, "COUNTERS_Ethernet_SAI_PORT_STAT_PFC_"+c.prios+"_TX_PKTS") != native {
				t.Errorf("switch pause rule %q: SONiC's per-priority counters wanted %v", e, native)
			}
			if e, ok := exprs["RocefabPFCWatchdog"]; ok != native || (native && !strings.Contains(e, `queue_name=~"(?i)`+c.queues+`"`)) {
				t.Errorf("PFC watchdog rule %q: wanted %v, on the lossless queues %s", e, native, c.queues)
			}
			if len(exprs) != c.rules {
				t.Errorf("%d rules, want %d: %v", len(exprs), c.rules, exprs)
			}
			if promtool == "" {
				t.Skip("promtool not on PATH (Debian package prometheus): the rules were not checked by Prometheus")
			}
			f := filepath.Join(t.TempDir(), "rules.yml")
			if err := os.WriteFile(f, rulesFile, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(promtool, "check", "rules", f).CombinedOutput()
			if err != nil || !strings.Contains(string(out), fmt.Sprintf("SUCCESS: %d rules found", c.rules)) {
				t.Fatalf("promtool check rules: %v\n%s", err, out)
			}
		})
	}
}

// render compiles an example and renders its monitoring files.
func render(t *testing.T, ex string) []renderers.Artifact {
	t.Helper()
	_, arts := compiled(t, ex)
	return arts
}

// compiled compiles an example and renders its monitoring files.
func compiled(t *testing.T, ex string) (*ir.Fabric, []renderers.Artifact) {
	t.Helper()
	in, ds, err := schema.Load(filepath.Join(rendertest.RepoRoot(t), "examples", ex))
	if err != nil || in == nil {
		t.Fatalf("load: %v %v", err, ds)
	}
	fab, ds := compiler.Compile(in)
	if fab == nil || ds.HasErrors() {
		t.Fatalf("compile: %v", ds)
	}
	arts, err := monitoring.Render(fab)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	return fab, arts
}

// artifact returns the content of the artifact at path.
func artifact(t *testing.T, arts []renderers.Artifact, path string) []byte {
	t.Helper()
	for _, a := range arts {
		if a.Path == path {
			return a.Content
		}
	}
	t.Fatalf("no %s among %d artifacts", path, len(arts))
	return nil
}

// TestGnmic parses the examples' gnmic.yaml: it names every switch once,
// as target key and address, every subscription samples, and every path
// is one docs/doctor.md lists (so doctor reads all that gnmic collects).
func TestGnmic(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(rendertest.RepoRoot(t), "docs", "doctor.md"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("`(/[a-z/-]+|COUNTERS/Ethernet\\*/SAI_PORT_STAT_PFC_<p>_[RT]X_PKTS|COUNTERS/Ethernet\\*/Pfcwd)`").FindAllStringSubmatch(string(doc), -1) {
		listed[m[1]] = true
	}
	prio := regexp.MustCompile(`_PFC_[0-7]_`)
	for _, ex := range []string{"pod-2048", "multitenant", "mixed-fleet"} {
		t.Run(ex, func(t *testing.T) {
			fab, arts := compiled(t, ex)
			var cfg struct {
				Targets map[string]struct {
					Address       string
					EventTags     map[string]string `yaml:"event-tags"`
					Subscriptions []string
				}
				Subscriptions map[string]struct {
					Target         string
					Paths          []string
					Mode           string
					StreamMode     string `yaml:"stream-mode"`
					SampleInterval string `yaml:"sample-interval"`
				}
				Outputs map[string]map[string]any
			}
			if err := yaml.Unmarshal(artifact(t, arts, monitoring.GnmicFile), &cfg); err != nil {
				t.Fatal(err)
			}
			switches := 0
			for _, d := range fab.Devices {
				if d.Switch == nil {
					if _, ok := cfg.Targets[d.Name]; ok {
						t.Errorf("server %s is a gnmic target", d.Name)
					}
					continue
				}
				switches++
				tg, ok := cfg.Targets[d.Name]
				if !ok || tg.Address != d.Name || tg.EventTags["role"] != string(d.Role) {
					t.Errorf("switch %s: target %+v (present %v)", d.Name, tg, ok)
				}
				// Only SONiC serves per-priority PFC and watchdog
				// counters with a source; a target naming no
				// subscription would take them all.
				native := slices.Contains(tg.Subscriptions, "rocefab-sonic-pfc") && slices.Contains(tg.Subscriptions, "rocefab-sonic-pfcwd")
				if sonic := d.Platform == ir.PlatformSONiC; native != sonic || (len(tg.Subscriptions) == 0) != (len(cfg.Subscriptions) == len(monitoring.Subscriptions)) {
					t.Errorf("switch %s (%s): subscriptions %v", d.Name, d.Platform, tg.Subscriptions)
				}
			}
			if switches == 0 || len(cfg.Targets) != switches {
				t.Errorf("%d targets for %d switches", len(cfg.Targets), switches)
			}
			wantSubs := len(monitoring.Subscriptions)
			if ex == "mixed-fleet" {
				wantSubs += 2
			}
			if len(cfg.Subscriptions) != wantSubs {
				t.Errorf("subscriptions %v, want %d", cfg.Subscriptions, wantSubs)
			}
			for name, s := range cfg.Subscriptions {
				if s.Mode != "stream" || (s.StreamMode == "sample") != (s.SampleInterval != "") || len(s.Paths) == 0 {
					t.Errorf("subscription %s: %+v", name, s)
				}
				for _, p := range s.Paths {
					if !listed[prio.ReplaceAllString(p, "_PFC_<p>_")] {
						t.Errorf("subscription %s: path %s is not one docs/doctor.md lists", name, p)
					}
				}
			}
			// The native series get their port as a label from the
			// event processor (TestSONiCPortsProcessor), which only a
			// file with native subscriptions names.
			if _, ok := cfg.Outputs["prometheus"]["event-processors"]; ok != (wantSubs > len(monitoring.Subscriptions)) {
				t.Errorf("outputs %v: event processors wanted %v", cfg.Outputs, !ok)
			}
			if o := cfg.Outputs["prometheus"]; o["type"] != "prometheus" || o["listen"] != monitoring.GnmicListen {
				t.Errorf("outputs %v", cfg.Outputs)
			}
		})
	}
}

// TestPrometheusConfig writes the examples' monitoring files as a build
// lays them out and runs promtool check config on prometheus.yml, which
// also loads the rule file it names; every server is a target of one
// file_sd group, labelled with its tenants.
func TestPrometheusConfig(t *testing.T) {
	promtool, _ := exec.LookPath("promtool")
	for _, ex := range []string{"pod-2048", "multitenant"} {
		t.Run(ex, func(t *testing.T) {
			arts := render(t, ex)
			dir := t.TempDir()
			writeArtifacts(t, dir, arts)
			targets := map[string]map[string]string{}
			for _, a := range arts {
				if !strings.HasPrefix(a.Path, monitoring.TargetsDir) {
					continue
				}
				var groups []struct {
					Targets []string
					Labels  map[string]string
				}
				if err := json.Unmarshal(a.Content, &groups); err != nil {
					t.Fatalf("%s: %v", a.Path, err)
				}
				for _, g := range groups {
					for _, tg := range g.Targets {
						if _, dup := targets[tg]; dup {
							t.Errorf("%s is a target twice", tg)
						}
						targets[tg] = g.Labels
					}
				}
			}
			in, _, _ := schema.Load(filepath.Join(rendertest.RepoRoot(t), "examples", ex))
			fab, _ := compiler.Compile(in)
			servers := 0
			for _, d := range fab.Devices {
				if d.Host == nil {
					continue
				}
				servers++
				if _, ok := targets[d.Name+":9100"]; !ok {
					t.Errorf("server %s is no node_exporter target", d.Name)
				}
			}
			if servers == 0 || len(targets) != servers {
				t.Errorf("%d targets for %d servers", len(targets), servers)
			}
			for _, tn := range fab.Tenants {
				for _, s := range tn.Servers {
					if l := targets[s+":9100"]["tenant"]; !strings.Contains(","+l+",", ","+tn.Name+",") {
						t.Errorf("server %s of tenant %s labelled tenant=%q", s, tn.Name, l)
					}
				}
			}
			if promtool == "" {
				t.Skip("promtool not on PATH (Debian package prometheus): the configuration was not checked by Prometheus")
			}
			out, err := exec.Command(promtool, "check", "config", filepath.Join(dir, filepath.FromSlash(monitoring.PrometheusFile))).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "SUCCESS") {
				t.Fatalf("promtool check config: %v\n%s", err, out)
			}
		})
	}
}

// TestNodeExporterFlags checks the ethtool include expression selects
// exactly the statistics doctor reads on the lossless priority, with Go's
// regexp (RE2, node_exporter's).
func TestNodeExporterFlags(t *testing.T) {
	arts := render(t, "pod-2048")
	args := string(artifact(t, arts, monitoring.NodeExporterFile))
	m := regexp.MustCompile(`--collector\.ethtool\.metrics-include=(\S+) `).FindStringSubmatch(args)
	if m == nil || !strings.Contains(args, "--collector.ethtool ") || !strings.Contains(args, "--collector.infiniband") {
		t.Fatalf("flags: %s", args)
	}
	re := regexp.MustCompile(m[1])
	for _, s := range []string{"tx_prio3_pause", "rx_prio3_pause", "rx_prio3_bytes", "tx_prio3_bytes", "rx_prio3_discards", "rx_crc_errors_phy", "rx_symbol_err_phy", "link_down_events_phy"} {
		if !re.MatchString(s) {
			t.Errorf("%s not included by %s", s, m[1])
		}
	}
	for _, s := range []string{"tx_prio0_pause", "rx_prio3_packets", "rx_vport_unicast_bytes", "xtx_prio3_pause", "tx_prio3_pause_duration"} {
		if re.MatchString(s) {
			t.Errorf("%s included by %s", s, m[1])
		}
	}
}

// TestNodeExporterRuns starts node_exporter (Debian package
// prometheus-node-exporter) on loopback with the rendered flags, split on
// white space as systemd splits $ARGS, and the default collectors off: it
// accepts every flag and compiles the include expression, and its
// metrics show the ethtool and infiniband collectors ran.
func TestNodeExporterRuns(t *testing.T) {
	body, out := runNodeExporter(t, artifact(t, render(t, "multitenant"), monitoring.NodeExporterFile), "", "--collector.disable-defaults")
	for _, c := range []string{"ethtool", "infiniband"} {
		if !strings.Contains(string(body), `node_scrape_collector_success{collector="`+c+`"}`) {
			t.Errorf("collector %s did not run\n%s", c, out)
		}
	}
}

// runNodeExporter starts node_exporter (Debian package
// prometheus-node-exporter) in dir with the flags of the ARGS line of an
// args file, split on white space as systemd splits $ARGS, then extra, and
// its listen address replaced by a free one on loopback; it returns the
// metrics of its first good scrape and its output. The test is skipped
// where node_exporter is not installed.
func runNodeExporter(t *testing.T, argsFile []byte, dir string, extra ...string) (metrics []byte, output string) {
	t.Helper()
	bin := ""
	for _, name := range []string{"prometheus-node-exporter", "node_exporter"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Skip("node_exporter not on PATH (Debian package prometheus-node-exporter): the flags were not run")
	}
	m := regexp.MustCompile(`(?m)^ARGS="([^"]*)"$`).FindStringSubmatch(string(argsFile))
	if m == nil {
		t.Fatalf("no ARGS line: %s", argsFile)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var args []string
	for _, a := range append(strings.Fields(m[1]), extra...) {
		if !strings.HasPrefix(a, "--web.listen-address=") {
			args = append(args, a)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(args, "--web.listen-address="+addr)...)
	cmd.Dir = dir
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// The output is read once node_exporter has exited and written all.
	defer func() {
		cancel()
		<-exited
		output = out.String()
	}()
	var body []byte
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("node_exporter exited: %v\n%s", err, out.String())
		default:
		}
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			continue
		}
		body, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err == nil && resp.StatusCode == http.StatusOK {
			break
		}
		body = nil
	}
	if body == nil {
		t.Fatalf("no metrics from node_exporter at %s\n%s", addr, out.String())
	}
	return body, ""
}

// writeArtifacts writes artifacts below dir as a build lays them out.
func writeArtifacts(t *testing.T, dir string, arts []renderers.Artifact) {
	t.Helper()
	for _, a := range arts {
		dirtest.Write(t, filepath.Join(dir, filepath.FromSlash(a.Path)), a.Content, 0o644)
	}
}

// event is gnmic's event message (pkg/formatters/event.go, EventMsg).
type event struct {
	Name      string            `json:"name"`
	Timestamp int64             `json:"timestamp"`
	Tags      map[string]string `json:"tags"`
	Values    map[string]any    `json:"values"`
}

// sonicEvent is the event gnmic makes of SONiC's answer to a
// COUNTERS_DB virtual path: one update at the path subscribed, its value
// JSON keyed by port (or port:queue) and then by counter, flattened under
// the path with "/" (getValueFlat and go-map-flattener).
func sonicEvent(sub, subscribed string, value map[string]map[string]string) event {
	e := event{Name: sub, Timestamp: 1_764_000_000_000_000_000,
		Tags:   map[string]string{"source": "leaf-r0-00", "subscription-name": sub, "target": "COUNTERS_DB"},
		Values: map[string]any{}}
	for key, fields := range value {
		for f, v := range fields {
			e.Values["/"+subscribed+"/"+key+"/"+f] = v
		}
	}
	return e
}

// TestSONiCPortsProcessor runs the event-jq processor gnmic.yaml gives
// SONiC's subscriptions, with jq (Debian package jq; gnmic runs gojq,
// whose regular expressions accept the same (?<name>...) groups), on
// the events gnmic makes of SONiC's answers, as gnmic applies it: the
// condition on each event, the expression on those it selects. Each
// port's counter comes out as its own series, named as docs/doctor.md
// lists it and labelled interface_name (and queue_name), the watchdog's
// other fields dropped, and an OpenConfig event passes unchanged.
func TestSONiCPortsProcessor(t *testing.T) {
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Skip("jq not on PATH (Debian package jq): the processor was not run")
	}
	var cfg struct {
		Outputs    map[string]map[string]any
		Processors map[string]map[string]struct{ Condition, Expression string } `yaml:"processors"`
	}
	if err := yaml.Unmarshal(artifact(t, render(t, "mixed-fleet"), monitoring.GnmicFile), &cfg); err != nil {
		t.Fatal(err)
	}
	proc := cfg.Processors[monitoring.SONiCPorts]["event-jq"]
	if proc.Expression == "" || !slices.Contains(cfg.Outputs["prometheus"]["event-processors"].([]any), any(monitoring.SONiCPorts)) {
		t.Fatalf("no %s event-jq processor on the Prometheus output: %+v", monitoring.SONiCPorts, cfg)
	}
	oc := event{Name: "rocefab-interfaces", Timestamp: 1, Tags: map[string]string{"source": "leaf-r0-00", "subscription-name": "rocefab-interfaces", "interface_name": "Ethernet0"},
		Values: map[string]any{"/interfaces/interface/state/counters/in-octets": "7"}}
	events := []event{
		sonicEvent("rocefab-sonic-pfc", "COUNTERS/Ethernet*/SAI_PORT_STAT_PFC_3_TX_PKTS", map[string]map[string]string{
			"Ethernet0": {"SAI_PORT_STAT_PFC_3_TX_PKTS": "12"}, "Ethernet1/1": {"SAI_PORT_STAT_PFC_3_TX_PKTS": "13"}}),
		sonicEvent("rocefab-sonic-pfcwd", "COUNTERS/Ethernet*/Pfcwd", map[string]map[string]string{
			"Ethernet68:3": {"PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": "2", "PFC_WD_ACTION": "drop", "PFC_WD_STATUS": "operational"}}),
		oc,
	}
	run := func(expr string, in any) []byte {
		t.Helper()
		b, _ := json.Marshal(in)
		cmd := exec.Command(jq, "-c", expr)
		cmd.Stdin = strings.NewReader(string(b))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("jq %s: %v", expr, err)
		}
		return out
	}
	var selected, passed []event
	for _, e := range events {
		if strings.TrimSpace(string(run(proc.Condition, e))) == "true" {
			selected = append(selected, e)
		} else {
			passed = append(passed, e)
		}
	}
	var out []event
	if err := json.Unmarshal(run(proc.Expression, selected), &out); err != nil {
		t.Fatal(err)
	}
	// The series gnmic's Prometheus output makes of them
	// (prometheus_common.go, MetricName and GetLabels).
	invalid := regexp.MustCompile(`[^a-zA-Z0-9_]+`)
	var got []string
	for _, e := range append(out, passed...) {
		var labels []string
		for k, v := range e.Tags {
			labels = append(labels, invalid.ReplaceAllString(path.Base(k), "_")+"="+v)
		}
		slices.Sort(labels)
		for name := range e.Values {
			got = append(got, strings.TrimLeft(invalid.ReplaceAllString(name, "_"), "_")+"{"+strings.Join(labels, ",")+"}")
		}
	}
	slices.Sort(got)
	common := "source=leaf-r0-00,subscription_name="
	want := []string{
		"COUNTERS_Ethernet_Pfcwd_PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED{interface_name=Ethernet68,queue_name=3," + common + "rocefab-sonic-pfcwd,target=COUNTERS_DB}",
		"COUNTERS_Ethernet_SAI_PORT_STAT_PFC_3_TX_PKTS{interface_name=Ethernet0," + common + "rocefab-sonic-pfc,target=COUNTERS_DB}",
		"COUNTERS_Ethernet_SAI_PORT_STAT_PFC_3_TX_PKTS{interface_name=Ethernet1/1," + common + "rocefab-sonic-pfc,target=COUNTERS_DB}",
		"interfaces_interface_state_counters_in_octets{interface_name=Ethernet0," + common + "rocefab-interfaces}",
	}
	if !slices.Equal(got, want) {
		t.Errorf("series\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	doc, err := os.ReadFile(filepath.Join(rendertest.RepoRoot(t), "docs", "doctor.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"COUNTERS_Ethernet_SAI_PORT_STAT_PFC_<p>_TX_PKTS", "COUNTERS_Ethernet_SAI_PORT_STAT_PFC_<p>_RX_PKTS", "COUNTERS_Ethernet_Pfcwd_PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"} {
		if !strings.Contains(string(doc), "`"+name+"`") {
			t.Errorf("docs/doctor.md does not list %s", name)
		}
	}
}
