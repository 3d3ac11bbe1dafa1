package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLongValueNotEchoedWhole: a 100 KB name in the intent, in an explicit
// device list or in an argument is named in the error by its first bytes
// and its length, not repeated whole.
func TestLongValueNotEchoedWhole(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("a", 100_000)
	intent := filepath.Join(dir, "fabric.cue")
	if err := os.WriteFile(intent, []byte("name: \""+long+"\"\ntopology: servers: 16\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	list := filepath.Join(dir, "devices.json")
	if err := os.WriteFile(list, []byte(`{"devices": [{"name": "`+long+`", "role": "leaf", "platform": "eos", "model": "m"}], "links": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	explicit := filepath.Join(dir, "explicit.cue")
	if err := os.WriteFile(explicit, []byte("name: \"lab\"\ntopology: {style: \"explicit\", inventory: \"devices.json\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pod := filepath.Join(repoRoot(t), "examples", "pod-2048")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"lint", intent}, `"` + strings.Repeat("a", 64) + `…" (100000 bytes)`},
		{[]string{"lint", explicit}, `device name "` + strings.Repeat("a", 64) + `…" (100000 bytes)`},
		{[]string{"build", pod, "-o", filepath.Join(dir, "out"), "--only", long}, `--only "` + strings.Repeat("a", 64) + `…" (100000 bytes) matches no device`},
		{[]string{"explain", pod, long}, `no device "` + strings.Repeat("a", 64) + `…" (100000 bytes)`},
	} {
		var stdout, stderr bytes.Buffer
		code := Run(c.args, &stdout, &stderr)
		all := stdout.String() + stderr.String()
		if code == 0 || !strings.Contains(all, c.want) || len(all) > 4000 {
			t.Errorf("rocefab %s ...: exit %d, %d bytes of output, want %q in:\n%.2000s", c.args[0], code, len(all), c.want, all)
		}
	}
}
