package dir_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/targets/dir"
)

// TestFormat: each platform's running file is read in the format its
// parser takes: a server's report (host-state.json, the host runtime's
// --check --json) as JSON, like config_db.json and OpenConfig.
func TestFormat(t *testing.T) {
	for name, want := range map[string]renderers.Format{
		"host-state.json": renderers.JSON,
		"config_db.json":  renderers.JSON,
		"openconfig.json": renderers.JSON,
		"nvue.yaml":       renderers.YAML,
		"eos.cfg":         renderers.Text,
		"nxos.cfg":        renderers.Text,
		"host.sh":         renderers.Shell,
	} {
		if got := dir.Format(name); got != want {
			t.Errorf("Format(%q) = %s, want %s", name, got, want)
		}
	}
	root := t.TempDir()
	write(t, filepath.Join(root, "gpu-0000", "host-state.json"), "{}\n", 0o644)
	arts, err := dir.New(root, nil).Read(context.Background(), &ir.Device{Name: "gpu-0000"})
	if err != nil {
		t.Fatal(err)
	}
	if len(arts) != 1 || arts[0].Path != "gpu-0000/host-state.json" || arts[0].Format != renderers.JSON {
		t.Errorf("read %+v", arts)
	}
}
