package monitoring_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/rocefab/rocefab/renderers/monitoring"
	"github.com/rocefab/rocefab/renderers/rendertest"
)

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
