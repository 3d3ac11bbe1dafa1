package host

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/targets/host/hosttest"
)

// TestCheckJSONIsOneDocument runs --check --json on a drifted server with
// each tool: stdout is one JSON document naming every setting checked,
// stderr the text report --check prints, and the exit status that of
// --check.
func TestCheckJSONIsOneDocument(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"mlnx_qos", "dcb"} {
		t.Run(tool, func(t *testing.T) {
			d, ofed := ofedDevice(t), true
			if tool == "dcb" {
				d, ofed = dcbDevice(t), false
			}
			w := newWorld(t, d, hosttest.DriftedNIC(), tcDrifted(), ofed, false)
			text, _, code := w.run("--check")
			out, stderr, jcode := w.run("--check", "--json")
			if jcode != code {
				t.Errorf("--check --json exit %d, --check %d", jcode, code)
			}
			var doc struct {
				Device   string `json:"device"`
				Settings []struct {
					Path string  `json:"path"`
					Have string  `json:"have"`
					Want *string `json:"want"`
				} `json:"settings"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, out)
			}
			if doc.Device != d.Name || len(doc.Settings) == 0 {
				t.Errorf("document: device %q, %d settings", doc.Device, len(doc.Settings))
			}
			if stderr != text {
				t.Errorf("--check --json stderr differs from --check stdout:\n%s\n---\n%s", stderr, text)
			}
		})
	}
}

// TestJSONNeedsCheck: --json is a report of a check, never of a run that
// changes the server.
func TestJSONNeedsCheck(t *testing.T) {
	d := ofedDevice(t)
	w := newWorld(t, d, hosttest.DriftedNIC(), tcDrifted(), true, false)
	out, stderr, code := w.run("--json")
	if code != 2 || out != "" || !strings.Contains(stderr, "--json reports a check") {
		t.Errorf("--json alone: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	if ws := w.writes(); len(ws) > 0 {
		t.Errorf("--json alone wrote:\n%s", strings.Join(ws, "\n"))
	}
}
