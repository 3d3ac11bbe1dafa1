package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/targets/doctor"
)

// TestQuarantinePrometheusEvidence: doctor --prometheus --out records
// the server without the credentials it was given, and the window; apply
// queries the same window again, with the credentials apply --prometheus
// gives, and takes the plan, refusing it with the drain moved. The server
// answers the API's instant queries (POST /api/v1/query, a vector) with
// writeFaultySnapshots' counters at the window's start and end, and only
// with basic authentication.
func TestQuarantinePrometheusEvidence(t *testing.T) {
	intent, _, _, _ := faultyMultitenant(t)
	const start, end = 1_700_000_000, 1_700_000_030
	series := []struct {
		labels map[string]string
		v0, v1 string
	}{
		{map[string]string{"__name__": "node_ethtool_transmitted_prio3_pause", "device": "eth4", "instance": "gpu-0003:9100"}, "1000", "601000"},
		{map[string]string{"__name__": "node_ethtool_received_prio3_pause", "device": "eth4", "instance": "gpu-0003:9100"}, "1000", "1000"},
		{map[string]string{"__name__": "node_ethtool_transmitted_prio3_bytes", "device": "eth4", "instance": "gpu-0003:9100"}, "1000", "2000"},
		{map[string]string{"__name__": "node_ethtool_received_prio3_bytes", "device": "eth4", "instance": "gpu-0003:9100"}, "1000", "2000"},
		{map[string]string{"__name__": "node_ethtool_received_crc_errors_phy", "device": "eth2", "instance": "gpu-0005:9100"}, "10", "910"},
	}
	var times []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "rocefab" || p != "secret" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"status":"error","errorType":"unauthorized","error":"basic authentication required"}`))
			return
		}
		at := r.FormValue("time")
		times = append(times, at)
		type sample struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		}
		var result []sample
		for _, s := range series {
			switch at {
			case "1700000000":
				result = append(result, sample{s.labels, [2]any{start, s.v0}})
			case "1700000030":
				result = append(result, sample{s.labels, [2]any{end, s.v1}})
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{"resultType": "vector", "result": result}})
	}))
	defer srv.Close()
	withCreds := strings.Replace(srv.URL, "http://", "http://rocefab:secret@", 1)

	dir := t.TempDir()
	code, out, errs := rocefab(t, dir, "", "doctor", intent, "--prometheus", withCreds, "--end", "1700000030", "--window", "30s", "--out", "q.plan")
	if code != exitDoctorFindings || !strings.Contains(errs, "it drains 2 servers in Slurm") {
		t.Fatalf("doctor --prometheus: exit %d\n%s%s", code, out, errs)
	}
	b, q := readPlan(t, filepath.Join(dir, "q.plan"))
	if pw := q.Evidence.Prometheus; strings.Contains(string(b), "secret") || pw == nil ||
		*pw != (doctor.PrometheusWindow{URL: srv.URL, End: "2023-11-14T22:13:50Z", Window: "30s"}) {
		t.Fatalf("evidence %+v\n%s", pw, b)
	}

	times = nil
	code, _, errs = rocefab(t, dir, "no\n", "apply", "q.plan")
	if code != exitPlanError || !strings.Contains(errs, "HTTP 401: unauthorized") {
		t.Fatalf("apply without the credentials: exit %d, %s", code, errs)
	}
	code, out, errs = rocefab(t, dir, "no\n", "apply", "q.plan", "--prometheus", withCreds)
	if code != exitPlanError || !strings.Contains(errs, "apply cancelled") || !slices.Equal(times, []string{"1700000000", "1700000030"}) {
		t.Fatalf("apply with the credentials: exit %d, queried at %v\n%s%s", code, times, out, errs)
	}
	resigned(t, dir, "q.plan", "moved.plan", func(q *doctor.Quarantine) {
		d := &q.Drains[slices.IndexFunc(q.Drains, func(d doctor.Drain) bool { return d.Origin.Device == "gpu-0005" })]
		d.Origin.Device, d.Nodes = "gpu-0006", []string{"gpu-0006"}
		d.Reason = "rocefab: link-errors fcs-errors at gpu-0006:eth2"
		d.Command = []string{"scontrol", "update", "NodeName=gpu-0006", "State=DRAIN", "Reason=" + d.Reason}
	})
	code, _, errs = rocefab(t, dir, "", "apply", "moved.plan", "--auto-approve", "--prometheus", withCreds)
	if code != exitPlanError || !strings.Contains(errs, "drain 1: the plan has link-errors fcs-errors at gpu-0006:eth2: servers gpu-0006 where link-errors fcs-errors at gpu-0005:eth2: servers gpu-0005 is expected") {
		t.Fatalf("a moved drain: exit %d, %s", code, errs)
	}
}
