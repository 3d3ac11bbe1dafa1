package outdir

import (
	"errors"
	"path/filepath"
	"testing"
)

// TestInspectInBackground: the header's error, or the directory's, comes
// back from Wait; a directory that holds no build is inspected and not up
// to date; a build that never started an inspection waits for nothing.
func TestInspectInBackground(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	bad := errors.New("cannot read intent")
	if got := InspectInBackground(dir, Options{}, func() (Manifest, error) { return Manifest{}, bad }).Wait(); !errors.Is(got.Err, bad) || got.Inspection != nil {
		t.Errorf("header error: %+v", got)
	}
	header := Manifest{Rocefab: "test", Intent: "digest", Key: "key"}
	got := InspectInBackground(dir, Options{}, func() (Manifest, error) { return header, nil }).Wait()
	if got.Err != nil || got.Inspection == nil || got.UpToDate || got.Header.Key != "key" {
		t.Errorf("a new directory: %+v", got)
	}
	guarded := InspectInBackground(dir, Options{Guard: []string{dir}}, func() (Manifest, error) { return header, nil }).Wait()
	if guarded.Err == nil {
		t.Error("a guarded directory was found able to take a build")
	}
	var none *Background
	if got := none.Wait(); got.Inspection != nil || got.Err != nil {
		t.Errorf("no inspection: %+v", got)
	}
}
