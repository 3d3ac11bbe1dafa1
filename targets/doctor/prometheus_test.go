package doctor_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/targets/doctor"
	"github.com/rocefab/rocefab/targets/telemetry"
)

// TestPrometheus backfills a scenario's two scrapes into a real Prometheus
// (Debian's prometheus and promtool) with promtool tsdb
// create-blocks-from openmetrics, starts the server on loopback and reads
// the window through its HTTP API: the diagnosis is the one the snapshot
// files give. The fabric is pod-2048; under -short (the race detector's
// run, after the full one) mixed-fleet's 32 servers drive the same reads,
// which the race detector takes minutes over at pod-2048.
func TestPrometheus(t *testing.T) {
	prom, err1 := exec.LookPath("prometheus")
	promtool, err2 := exec.LookPath("promtool")
	if err1 != nil || err2 != nil {
		t.Skip("needs prometheus and promtool on PATH (Debian package prometheus)")
	}
	example, server, next, rail := "pod-2048", "gpu-0037", "gpu-0038", 5
	if testing.Short() {
		example, server, next, rail = "mixed-fleet", "gpu-0003", "gpu-0004", 1
	}
	s, _ := drainingNICIn(t, example, server, rail)
	want := diagnosed(t, "draining NIC in "+example, s)
	other := nicOf(t, s.fab, next, rail)

	dir := t.TempDir()
	om := filepath.Join(dir, "window.om")
	f, err := os.Create(om)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriter(f)
	s.openMetrics(bw)
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	data := filepath.Join(dir, "data")
	if out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", om, data).CombinedOutput(); err != nil {
		t.Fatalf("promtool: %v\n%s", err, out)
	}
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte("global:\n  scrape_interval: 1h\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The backfilled samples lie in the past: a retention longer than
	// their age keeps the blocks.
	cmd := exec.CommandContext(ctx, prom, "--config.file="+cfg, "--storage.tsdb.path="+data,
		"--storage.tsdb.retention.time=100y", "--web.listen-address="+addr)
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus:\n%s", log.String())
		}
	}()
	base := "http://" + addr
	waitReady(t, ctx, base+"/-/ready")

	w := telemetry.NewWindow()
	start := time.UnixMilli(scenarioT0)
	p := telemetry.Prometheus{URL: base}
	if err := p.Read(ctx, w, start, start.Add(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	got := doctor.Diagnose(s.fab, w, doctor.DefaultOptions())
	if got.Rates != want.Rates || len(got.Findings) != 1 || got.Findings[0].Origin != want.Findings[0].Origin ||
		got.Findings[0].Cause != doctor.CauseNotDraining || len(got.Findings[0].Victims) != len(want.Findings[0].Victims) {
		t.Fatalf("through Prometheus: %d rates, findings %+v; through files: %d rates, origin %s", got.Rates, got.Findings, want.Rates, want.Findings[0].Origin)
	}
	if ev := got.Findings[0].Evidence; len(ev) == 0 || !slices.ContainsFunc(ev, func(e doctor.Evidence) bool {
		return strings.HasPrefix(e.Series, "node_ethtool_transmitted_prio3_pause{") && e.PerSecond == 20000 && e.Seconds == 30
	}) {
		t.Errorf("evidence %+v: want the NIC's pauses at 20000/s over 30 s", ev)
	}

	// The quarantine plan of that window records the server (without
	// credentials) and the window, and apply's diagnosis of them again
	// takes it; with its drain moved to another server, its digest made
	// to match, it is refused, and so is another server's URL.
	q := doctor.NewQuarantine(got, doctor.IntentRef{}, "test", "prometheus")
	q.Evidence.Prometheus = doctor.NewPrometheusWindow("http://rocefab:secret@"+addr, start.Add(30*time.Second), 30*time.Second)
	if pw := q.Evidence.Prometheus; pw.URL != base || pw.Window != "30s" || len(q.Drains) != 1 {
		t.Fatalf("evidence %+v, drains %+v", pw, q.Drains)
	}
	if err := q.Rediagnose(ctx, dir, s.fab, ""); err != nil {
		t.Fatalf("the plan diagnosed again: %v", err)
	}
	if err := q.Rediagnose(ctx, dir, s.fab, "http://rocefab:secret@"+addr); err != nil {
		t.Fatalf("with the server's credentials: %v", err)
	}
	if err := q.Rediagnose(ctx, dir, s.fab, "http://127.0.0.1:9"); err == nil || !strings.Contains(err.Error(), "allowed is that server's URL") {
		t.Errorf("another server: %v", err)
	}
	moved := *q
	moved.Drains = slices.Clone(q.Drains)
	moved.Drains[0].Origin = doctor.Endpoint{Device: other[0], Port: other[1]}
	moved.Drains[0].Nodes = []string{other[0]}
	moved.SHA256 = moved.Digest()
	if err := moved.Rediagnose(ctx, dir, s.fab, ""); err == nil || !strings.Contains(err.Error(), "drain 1: the plan has pause-storm not-draining at "+other[0]+":"+other[1]) {
		t.Errorf("a drain moved to %s: %v", other[0], err)
	}

	// A window with no sample at its start has no rate; an error of the
	// API is reported with its text.
	empty := telemetry.NewWindow()
	if err := p.Read(ctx, empty, start.Add(-time.Hour), start.Add(-50*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if n := doctor.Diagnose(s.fab, empty, doctor.DefaultOptions()).Rates; n != 0 {
		t.Errorf("%d rates an hour before the samples", n)
	}
	bad := telemetry.Prometheus{URL: base + "/nothing-here"}
	if err := bad.Read(ctx, telemetry.NewWindow(), start, start.Add(time.Second)); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("a wrong path: %v, want HTTP 404 named", err)
	}
}

// openMetrics writes the window's two scrapes as one OpenMetrics file,
// each series' samples together and in time order (timestamps in
// seconds), as promtool's backfill reads it.
func (s *scenario) openMetrics(w *bufio.Writer) {
	first, last := s.snapshots()
	a, b := strings.Split(strings.TrimSpace(first), "\n"), strings.Split(strings.TrimSpace(last), "\n")
	for i := range a {
		for _, line := range []string{a[i], b[i]} {
			sp := strings.LastIndexByte(line, ' ')
			var ms int64
			fmt.Sscan(line[sp+1:], &ms)
			fmt.Fprintf(w, "%s %d.%03d\n", line[:sp], ms/1000, ms%1000)
		}
	}
	w.WriteString("# EOF\n")
}

// freePort returns a loopback address with a port free a moment ago.
func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func waitReady(t *testing.T, ctx context.Context, url string) {
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not ready: %v", url, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
