package doctor_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/targets/doctor"
)

// TestQuarantineEvidence diagnoses a plan's snapshot files again: the
// plan they give is taken; a reason edited, or a pause rate above the
// storm, is refused with the first difference; a file gone is refused
// with its path and the digest recorded; and a plan naming no source,
// two sources or no scheduler is refused.
func TestQuarantineEvidence(t *testing.T) {
	s, _ := drainingNIC(t)
	fab := s.fab
	dir := t.TempDir()
	var first, last bytes.Buffer
	s.write(&first, &last)
	var files []doctor.EvidenceFile
	for i, b := range [][]byte{first.Bytes(), last.Bytes()} {
		path := filepath.Join(dir, []string{"t0.prom", "t1.prom"}[i])
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		sum, err := doctor.FileDigest(path)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, doctor.EvidenceFile{Path: filepath.Base(path), SHA256: sum})
	}
	q := doctor.NewQuarantine(diagnosed(t, "draining NIC in pod-2048", s), doctor.IntentRef{}, "test", "t0.prom, t1.prom")
	q.Evidence.Snapshots = files
	ctx := context.Background()
	if err := q.Rediagnose(ctx, dir, fab, ""); err != nil || len(q.Drains) != 1 {
		t.Fatalf("the plan diagnosed again: %v, drains %+v", err, q.Drains)
	}

	reason := *q
	reason.Drains = slices.Clone(q.Drains)
	reason.Drains[0].Reason = doctor.ReasonPrefix + "another"
	if err := reason.Rediagnose(ctx, dir, fab, ""); err == nil || !strings.Contains(err.Error(), `"reason":"rocefab: another"`) {
		t.Errorf("an edited reason: %v", err)
	}
	calm := *q
	calm.Evidence.PauseRate = 1e9
	if err := calm.Rediagnose(ctx, dir, fab, ""); err == nil || !strings.Contains(err.Error(), "drain 1: the plan has pause-storm not-draining at gpu-0037:") ||
		!strings.Contains(err.Error(), "where nothing is expected") {
		t.Errorf("a pause rate above the storm: %v", err)
	}

	for _, tc := range []struct {
		edit func(*doctor.Quarantine)
		want string
	}{
		{func(q *doctor.Quarantine) { q.Evidence.Snapshots = nil }, "records no evidence"},
		{func(q *doctor.Quarantine) { q.Evidence.Samples = files }, "allowed is one source of counters"},
		{func(q *doctor.Quarantine) { q.Evidence.Drain = []string{} }, "drain names no scheduler"},
	} {
		e := *q
		tc.edit(&e)
		e.SHA256 = e.Digest()
		var b bytes.Buffer
		if err := e.Write(&b); err != nil {
			t.Fatal(err)
		}
		back, err := doctor.ReadQuarantine(b.Bytes())
		if err == nil {
			err = back.Rediagnose(ctx, dir, fab, "")
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.want, err)
		}
	}

	if err := os.Remove(filepath.Join(dir, "t1.prom")); err != nil {
		t.Fatal(err)
	}
	if err := q.Rediagnose(ctx, dir, fab, ""); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "t1.prom")+" (recorded with SHA-256 "+files[1].SHA256+")") {
		t.Errorf("a file gone: %v", err)
	}
}
