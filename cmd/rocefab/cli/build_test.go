package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/schema"
	"github.com/rocefab/rocefab/targets"
)

// TestBuildInventoryAddresses builds mixed-fleet with an access
// inventory: gnmic.yaml dials each switch at the inventory's address, with
// the inventory's port for a switch reached over gNMI whose address names
// none, and still names the target after the switch (doctor's source
// label); an inventory that does not load stops the build.
func TestBuildInventoryAddresses(t *testing.T) {
	dir := t.TempDir()
	inv := filepath.Join(dir, "inventory.cue")
	src := `platforms: {sonic: {transport: "gnmi", port: 8080}, nvue: {transport: "ssh"}}
address: {"*": "{name}.mgmt.example.net", "leaf-r0-00": "10.0.0.9:9339"}
`
	if err := os.WriteFile(inv, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ex := filepath.Join(repoRoot(t), "examples", "mixed-fleet")
	out := buildQuiet(t, ex, "--only", "spine-00", "--inventory", inv)
	b, err := os.ReadFile(filepath.Join(out, "monitoring", "gnmic.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	says(t, "gnmic.yaml", string(b),
		"  'leaf-r0-00':\n    address: '10.0.0.9:9339'\n",                    // the address's own port
		"  'spine-00':\n    address: 'spine-00.mgmt.example.net'\n",          // ssh: gnmic's default port
		"  'leaf-r1-00':\n    address: 'leaf-r1-00.mgmt.example.net:8080'\n", // gnmi: the inventory's port
	)
	bad := filepath.Join(dir, "bad.cue")
	if err := os.WriteFile(bad, []byte(`address: 3`), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"build", ex, "-o", filepath.Join(dir, "out2"), "--only", "spine-00", "-q", "--inventory", bad}, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "inventory") {
		t.Errorf("bad inventory: exit %d\n%s", code, stderr.String())
	}
}

// TestEmitHostScript builds one server with and without --emit
// host-script. host.conf and hosts/ are always written, host.sh only on
// request; host.sh is executable and holds host.conf's settings and the
// body of hosts/rocefab-host.sh.
func TestEmitHostScript(t *testing.T) {
	src := filepath.Join(repoRoot(t), "examples", "pod-2048")
	build := func(args ...string) string {
		t.Helper()
		return buildQuiet(t, src, append([]string{"--only", "gpu-0000"}, args...)...)
	}
	read := func(path string, mode os.FileMode) string {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%s has mode %v, want %v", path, fi.Mode().Perm(), mode)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	out := build()
	read(filepath.Join(out, "gpu-0000", "host.conf"), 0o644)
	read(filepath.Join(out, "hosts", "rocefab-qos@.service"), 0o644)
	read(filepath.Join(out, "hosts", "rocefab-host.sh"), 0o755)
	// Without --emit host-script, host.sh (INTENT.md section 4) runs the
	// runtime with host.conf (renderers/host TestLauncherRunsTheBuildsRuntime).
	if sh := read(filepath.Join(out, "gpu-0000", "host.sh"), 0o755); !strings.HasPrefix(sh, "#!/bin/sh\n") || !strings.Contains(sh, "--settings") || strings.Contains(sh, "readonly ") {
		t.Errorf("without --emit host-script, host.sh is not the launcher of the runtime:\n%s", sh)
	}

	out = build("--emit", "host-script")
	conf := read(filepath.Join(out, "gpu-0000", "host.conf"), 0o644)
	runtime := read(filepath.Join(out, "hosts", "rocefab-host.sh"), 0o755)
	script := read(filepath.Join(out, "gpu-0000", "host.sh"), 0o755)
	m := regexp.MustCompile(`from line (\d+) on`).FindStringSubmatch(runtime)
	if m == nil {
		t.Fatal("the runtime's header does not say where its body starts")
	}
	first, _ := strconv.Atoi(m[1])
	body := strings.Join(strings.SplitAfter(runtime, "\n")[first-1:], "")
	settings := conf[strings.Index(conf, "# ------"):]
	if !strings.HasPrefix(script, "#!/usr/bin/env bash\n") || !strings.Contains(script, settings) || !strings.HasSuffix(script, body) {
		t.Error("host.sh is not a shebang, host.conf's settings and the runtime's body")
	}

	var stdout, stderr bytes.Buffer
	if code := Run([]string{"build", src, "-o", filepath.Join(t.TempDir(), "out"), "--emit", "host-scripts"}, &stdout, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), `--emit "host-scripts": allowed are model, host-script`) {
		t.Errorf("--emit host-scripts: exit %d\n%s", code, stderr.String())
	}
}

// TestFabricWideEntriesAreReserved builds an example with servers,
// tenants and schedulers and checks that every top-level entry of the
// build that is not a device's directory is a name the schema reserves:
// no device of an explicit inventory can write into it.
func TestFabricWideEntriesAreReserved(t *testing.T) {
	src := filepath.Join(repoRoot(t), "examples", "multitenant")
	fab := compileIntent(t, src)
	devices := map[string]bool{}
	for _, d := range fab.Devices {
		devices[d.Name] = true
	}
	out := buildQuiet(t, src)
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	fabricWide := 0
	for _, e := range entries {
		if devices[e.Name()] {
			continue
		}
		fabricWide++
		if !schema.Reserved(e.Name()) {
			t.Errorf("the build writes %s, a name a device may have (schema.ReservedNames)", e.Name())
		}
	}
	if fabricWide < 5 {
		t.Errorf("%d fabric-wide entries: the example should give SUMMARY.md, inventory.json, hosts, tenants, slurm", fabricWide)
	}
}

// TestOneIsSingular: a count of one takes the singular noun in what build
// and plan print ("1 device", not "1 devices"; "1 error", not "1 errors").
func TestOneIsSingular(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(repoRoot(t), "examples", "pod-2048")
	out := filepath.Join(dir, "out")
	for _, want := range []string{"for 1 device to ", "for 1 device, nothing written"} {
		var stdout, stderr bytes.Buffer
		if code := Run([]string{"build", src, "-o", out, "--only", "gpu-0000"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), want) {
			t.Errorf("build --only gpu-0000: exit %d, want %q\nstdout: %s\nstderr: %s", code, want, stdout.String(), stderr.String())
		}
	}
	bad := filepath.Join(dir, "bad.cue")
	if err := os.WriteFile(bad, []byte("name: \"lab\"\ntopology: servers: 16\nmtu: host: 2000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"build", bad, "-o", filepath.Join(dir, "bad-out")}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "build stopped: 1 error\n") {
		t.Errorf("build of an intent with one error: exit %d\nstderr: %s", code, stderr.String())
	}
	var b bytes.Buffer
	printPlan(&b, &targets.Plan{PlanHead: targets.PlanHead{Fabric: "lab", Target: "running"}, Devices: []targets.DevicePlan{{Device: "leaf-1", Platform: "eos", Action: targets.NoOp}}})
	if !strings.HasPrefix(b.String(), "Plan for lab: 1 device, running configurations from running\n") {
		t.Errorf("a plan of one device:\n%s", b.String())
	}
}
