package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/targets"
)

// TestInventoryHosts: servers the inventory reaches over ssh are planned
// through their host runtime. At address localhost it runs here, where
// rocefab's runtime is not installed: each server is to be created. At an
// address where nothing listens, each is unreachable with the cause, and
// the password is nowhere.
func TestInventoryHosts(t *testing.T) {
	if _, err := os.Stat("/usr/local/lib/rocefab/rocefab-host.sh"); err == nil {
		t.Skip("this machine has rocefab's host runtime installed: a plan of localhost would read it")
	}
	for _, tc := range []struct {
		name, address, want string
		action              targets.Action
	}{
		{"local", "localhost", "", targets.Create},
		{"closed port", "127.0.0.1:1", "connection refused", targets.Unreachable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := lab(t)
			inv := map[string]any{
				"defaults":    map[string]any{"username": "netops", "auth": "password", "knownHosts": "known_hosts"},
				"platforms":   map[string]any{"eos": map[string]any{"transport": "dir"}, "nvue": map[string]any{"transport": "dir"}},
				"hosts":       map[string]any{"transport": "ssh"},
				"address":     map[string]string{"gpu-*": tc.address},
				"passwordEnv": testPasswordEnv,
			}
			b, err := json.Marshal(inv)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "inv.json"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "known_hosts"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv(testPasswordEnv, testSecret)
			code, out, errOut := rocefab(t, dir, "", "plan", ".", "--inventory", "inv.json", "--format", "json")
			noSecret(t, dir, out, errOut)
			var p targets.Plan
			if err := json.Unmarshal([]byte(out), &p); err != nil {
				t.Fatalf("exit %d: %v\n%s%s", code, err, out, errOut)
			}
			n := 0
			for _, d := range p.Devices {
				if !strings.HasPrefix(d.Device, "gpu-") {
					continue
				}
				n++
				if d.Action != tc.action || !strings.Contains(d.Reason, tc.want) {
					t.Errorf("%s: %s (%s), want %s (%s)", d.Device, d.Action, d.Reason, tc.action, tc.want)
				}
			}
			if n != 4 {
				t.Errorf("planned %d servers, want 4\n%s", n, out)
			}
		})
	}
}
