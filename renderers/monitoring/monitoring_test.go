package monitoring_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/monitoring"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/schema"
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
