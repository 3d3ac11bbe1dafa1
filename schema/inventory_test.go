package schema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadInventory(t *testing.T) {
	p := filepath.Join(t.TempDir(), "inventory.cue")
	src := `defaults: {username: "netops", auth: "agent", knownHosts: "~/.ssh/known_hosts"}
platforms: {eos: {transport: "ssh"}, nvue: {transport: "ssh"}, sonic: {transport: "gnmi", port: 8080}}
hosts: {transport: "ssh", sudo: true}
address: {"*": "{name}.mgmt.example.net", "leaf-r0-*": "10.0.0.1", "spine-00": "spine0.lab"}
passwordEnv: "ROCEFAB_PASSWORD"
`
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	inv, ds, err := LoadInventory(p)
	if err != nil || len(ds) > 0 {
		t.Fatalf("LoadInventory: %v %v", err, ds)
	}
	a, addr := inv.For("leaf-r1-03", "sonic")
	if a.Transport != "gnmi" || a.Port != 8080 || a.Username != "netops" || addr != "leaf-r1-03.mgmt.example.net" {
		t.Errorf("leaf-r1-03: %+v at %s", a, addr)
	}
	if _, addr := inv.For("leaf-r0-07", "eos"); addr != "10.0.0.1" {
		t.Errorf("leaf-r0-07 at %s, want the more specific pattern", addr)
	}
	if _, addr := inv.For("spine-00", "nvue"); addr != "spine0.lab" {
		t.Errorf("spine-00 at %s, want the exact name", addr)
	}
	if a, _ := inv.For("gpu-0000", "linux"); !a.Sudo || a.Transport != "ssh" {
		t.Errorf("host access %+v", a)
	}
}

func TestLoadInventoryErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`defaults: {transport: "telnet"}`, `defaults.transport: invalid value "telnet"`},
		{`defaults: {auth: "password"}`, `passwordEnv: missing value`},
		{`password: "hunter2"`, `password: unknown field`},
		{`passwordEnv: "lower-case"`, `passwordEnv: invalid value`},
	} {
		p := filepath.Join(t.TempDir(), "inventory.cue")
		if err := os.WriteFile(p, []byte(c.src+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, ds, err := LoadInventory(p)
		if err != nil || len(ds) == 0 || !strings.Contains(ds[0].Message, c.want) {
			t.Errorf("%s: %v %v, want %q", c.src, err, ds, c.want)
		}
	}
}
