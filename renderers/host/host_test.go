package host

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/targets/host/hosttest"
)

// handled returns the devices of the test fabric this renderer takes.
func handled(f *ir.Fabric) []*ir.Device { return rendertest.Devices(f, ir.PlatformLinux) }

// render returns the settings of d, host.conf.
func render(t *testing.T, d *ir.Device) string {
	t.Helper()
	return string(rendertest.RenderOne(t, Renderer{}, d, SettingsFile, renderers.Text).Content)
}

// renderScript returns the single-file host.sh of d.
func renderScript(t *testing.T, d *ir.Device) string {
	t.Helper()
	return string(rendertest.RenderOne(t, ScriptRenderer{}, d, ScriptFile, renderers.Shell).Content)
}

func gpu(t *testing.T) *ir.Device { return irtest.Device(t, "gpu-0000") }

// cloneHost returns a copy of d whose host, NICs and profile can be changed
// without touching the shared test fabric.
func cloneHost(d *ir.Device) *ir.Device {
	c := *d
	h := *d.Host
	h.NICs = slices.Clone(h.NICs)
	p := *h.Profile
	p.ECNPriorities = slices.Clone(p.ECNPriorities)
	p.DCQCN.Params = slices.Clone(p.DCQCN.Params)
	p.Shaping = slices.Clone(p.Shaping)
	h.Profile = &p
	c.Host = &h
	return &c
}

func TestGolden(t *testing.T) {
	f := irtest.Fabric()
	ds := handled(f)
	if len(ds) == 0 {
		t.Fatal("the test fabric has no Linux server")
	}
	for _, d := range ds {
		if d.Name != "gpu-0000" {
			continue
		}
		for _, r := range []renderers.Renderer{Renderer{}, ScriptRenderer{}} {
			arts, err := r.Render(d)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range arts {
				golden(t, a)
			}
		}
	}
	for _, a := range RenderFabric(f) {
		golden(t, a)
	}
	a, err := RenderTenant(f.Tenants[0])
	if err != nil {
		t.Fatal(err)
	}
	golden(t, a)
}

// golden compares artifact a with its golden file under testdata. The
// runtime (hosts/rocefab-host.sh) and a single-file host.sh end with the
// whole of script.bash, 1,700 lines a golden file would only copy: their
// golden files hold what comes before it (the header and a server's
// settings), and the rest of the artifact must be script.bash byte for
// byte, so the artifact is still checked whole. A change to script.bash
// still shows in the golden files: each head carries its digest.
func golden(t *testing.T, a renderers.Artifact) {
	t.Helper()
	content := a.Content
	if a.Path == RuntimeFile || strings.HasSuffix(a.Path, "/"+ScriptFile) {
		head, ok := bytes.CutSuffix(content, []byte(runtime))
		if !ok {
			t.Errorf("%s does not end with script.bash byte for byte", a.Path)
			return
		}
		content = head
	}
	rendertest.Golden(t, filepath.Join("testdata", filepath.FromSlash(a.Path)), content)
}

// TestEveryServer renders every server of the test fabric, in both forms.
func TestEveryServer(t *testing.T) {
	for _, d := range handled(irtest.Fabric()) {
		render(t, d)
		renderScript(t, d)
	}
}

func TestDeterministic(t *testing.T) {
	d := cloneHost(gpu(t))
	p := d.Host.Profile
	p.DCQCN.Params = []ir.Param{{Name: "rpg_time_reset", Value: 100}, {Name: "min_time_between_cnps", Value: 4}, {Name: "dce_tcp_g", Value: 1019}}
	bulk := irtest.Fabric().Class("bulk")
	p.Shaping = append(p.Shaping, ir.Shape{Class: bulk, Interface: "eth1", RateBits: 20_000_000_000})
	s1, u1 := render(t, d), renderScript(t, d)
	s2, u2 := render(t, d), renderScript(t, d)
	if s1 != s2 || u1 != u2 {
		t.Fatal("two renders of one device differ")
	}
	// The order of the model's lists does not reach the output.
	slices.Reverse(p.DCQCN.Params)
	slices.Reverse(p.Shaping)
	s3, u3 := render(t, d), renderScript(t, d)
	if s1 != s3 || u1 != u3 {
		t.Fatal("the render depends on the order of DCQCN parameters or shapes")
	}
	if !bytes.Equal(runtimeFile(), runtimeFile()) || !bytes.Equal(unitTemplate(), unitTemplate()) {
		t.Fatal("two renders of the runtime or the unit differ")
	}
}

// constant returns the value of a scalar constant of the script.
func constant(t *testing.T, script, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^readonly ` + name + `=(.*)$`).FindStringSubmatch(script)
	if m == nil {
		t.Fatalf("the script has no constant %s", name)
	}
	return m[1]
}

// array returns the elements of an array constant of the script, comments
// dropped.
func array(t *testing.T, script, name string) []string {
	t.Helper()
	m := regexp.MustCompile(`(?ms)^readonly -a ` + name + `=\((.*?)\)$`).FindStringSubmatch(script)
	if m == nil {
		t.Fatalf("the script has no array %s", name)
	}
	var out []string
	for line := range strings.Lines(m[1]) {
		line, _, _ = strings.Cut(line, "#")
		out = append(out, strings.Fields(line)...)
	}
	return out
}

// TestLosslessClassKeyLines checks, without the golden file, what keeps the
// lossless class lossless on this hop.
func TestLosslessClassKeyLines(t *testing.T) {
	f := irtest.Fabric()
	roce, cnp := f.Class("roce"), f.Class("cnp")
	script := render(t, gpu(t))

	d2p := array(t, script, "DSCP2PRIO")
	if len(d2p) != 64 {
		t.Fatalf("DSCP2PRIO has %d entries, want 64", len(d2p))
	}
	for _, c := range f.Classes {
		for _, dscp := range c.DSCP {
			if d2p[dscp] != itoa(c.Priority) {
				t.Errorf("DSCP %d of %s maps to priority %s, want %d", dscp, c.Name, d2p[dscp], c.Priority)
			}
		}
	}
	if got := array(t, script, "PRIO_TC"); strings.Join(got, " ") != "0 1 2 3 4 5 6 7" {
		t.Errorf("PRIO_TC = %v, want identity", got)
	}
	// PFC, and ECN/DCQCN, on exactly the lossless priority.
	for _, name := range []string{"PFC", "ECN_ENABLE"} {
		for prio, v := range array(t, script, name) {
			want := "0"
			if prio == roce.Priority {
				want = "1"
			}
			if v != want {
				t.Errorf("%s[%d] = %s, want %s", name, prio, v, want)
			}
		}
	}
	// CNPs: their DSCP and priority, on a strict traffic class.
	if got := constant(t, script, "CNP_DSCP"); got != itoa(cnp.DSCP[0]) {
		t.Errorf("CNP_DSCP = %s, want %d", got, cnp.DSCP[0])
	}
	if got := constant(t, script, "CNP_PRIO"); got != itoa(cnp.Priority) {
		t.Errorf("CNP_PRIO = %s, want %d", got, cnp.Priority)
	}
	tsa := array(t, script, "TSA")
	if tsa[cnp.Priority] != "'strict'" {
		t.Errorf("TSA[%d] (CNP) = %s, want 'strict'", cnp.Priority, tsa[cnp.Priority])
	}
	// ETS weights: roce 50, storage 30, bulk 20; strict and unused 0.
	if got := strings.Join(array(t, script, "TCBW"), " "); got != "20 30 0 50 0 0 0 0" {
		t.Errorf("TCBW = %s, want 20 30 0 50 0 0 0 0", got)
	}
	for tc, v := range tsa {
		if tc != cnp.Priority && v != "'ets'" {
			t.Errorf("TSA[%d] = %s, want 'ets'", tc, v)
		}
	}
	if got := constant(t, script, "MTU"); got != "4200" {
		t.Errorf("MTU = %s, want 4200", got)
	}
	if got := constant(t, script, "CABLE_LEN"); got != "3" {
		t.Errorf("CABLE_LEN = %s, want 3", got)
	}
	if got := constant(t, script, "ROCE_TOS"); got != itoa(roce.DSCP[0]<<2) {
		t.Errorf("ROCE_TOS = %s, want %d", got, roce.DSCP[0]<<2)
	}
	if got := constant(t, script, "TRUST"); got != "'dscp'" {
		t.Errorf("TRUST = %s, want 'dscp'", got)
	}
	if got := strings.Join(array(t, script, "NETDEVS"), " "); got != "'eth2' 'eth3' 'eth4' 'eth5'" {
		t.Errorf("NETDEVS = %s", got)
	}
	if got := strings.Join(array(t, script, "HCAS"), " "); got != "'mlx5_0' 'mlx5_1' 'mlx5_2' 'mlx5_3'" {
		t.Errorf("HCAS = %s", got)
	}
	// Shaping: storage in its own class at 50 Gbit/s, its DSCPs filtered to
	// it, and a default class that exists.
	if got := strings.Join(array(t, script, "SHAPE_IFACES"), " "); got != "'eth0 0xff 1:ff 400000000000'" {
		t.Errorf("SHAPE_IFACES = %s", got)
	}
	if got := strings.Join(array(t, script, "SHAPE_CLASSES"), " "); got != "'eth0 1:11 50000000000 storage'" {
		t.Errorf("SHAPE_CLASSES = %s", got)
	}
	if got := strings.Join(array(t, script, "SHAPE_FILTERS"), " "); got != "'eth0 ip 10 1:11' 'eth0 ip 18 1:11' 'eth0 ipv6 10 1:11' 'eth0 ipv6 18 1:11'" {
		t.Errorf("SHAPE_FILTERS = %s", got)
	}
	rendertest.Contains(t, "host.conf", script,
		"RDMA (RoCE) traffic bypasses the qdisc",
		"readonly HTB_QUANTUM=200000",
		"readonly SETTINGS_FOR_RUNTIME='"+runtimeDigest+"'\n",
		"install -D -m 0644 host.conf "+SettingsPath+"\n",
		"systemctl enable --now rocefab-qos@eth0.service rocefab-qos@eth2.service rocefab-qos@eth3.service rocefab-qos@eth4.service rocefab-qos@eth5.service\n",
	)
	// The single-file form: the same settings between its header and the
	// runtime.
	single := renderScript(t, gpu(t))
	settings := script[strings.Index(script, "# ------"):]
	if !strings.HasPrefix(single, "#!/usr/bin/env bash\n") || !strings.Contains(single, "\nset -euo pipefail\n\n"+settings) ||
		!strings.HasSuffix(single, "readonly EMBEDDED_SETTINGS=1\n"+runtime) {
		t.Error("host.sh is not the shebang, set -euo pipefail, host.conf's settings and the runtime")
	}
}

func TestUnit(t *testing.T) {
	unit := string(unitTemplate())
	rendertest.Contains(t, "the unit", unit,
		"\n[Service]\nType=oneshot\nExecStart="+RuntimePath+" --netdev %I\n",
		"\nBindsTo=sys-subsystem-net-devices-%i.device\nAfter=sys-subsystem-net-devices-%i.device\n",
		"\nAfter=network-online.target sys-kernel-config.mount sys-kernel-debug.mount rdma-load-modules@rdma.service\n",
		"\n[Install]\nWantedBy=sys-subsystem-net-devices-%i.device\n",
		"install -D -m 0644 rocefab-qos@.service /etc/systemd/system/rocefab-qos@.service",
		"systemctl enable --now rocefab-qos@<netdev>.service",
	)
	if strings.Contains(unit, "RemainAfterExit=yes") {
		t.Error("RemainAfterExit=yes would keep a netdev's return from re-running the runtime")
	}
	if strings.Contains(unit, "multi-user.target") {
		t.Error("the unit is wanted by multi-user.target: an instance whose netdev never appears would wait for it at boot")
	}
}

// TestSystemdEscape compares the escaping of interface names with
// systemd-escape's, when it is installed.
func TestSystemdEscape(t *testing.T) {
	for in, want := range map[string]string{
		"eth0":        "eth0",
		"bond-0.100":  `bond\x2d0.100`,
		".x":          `\x2ex`,
		"enp1s0f0np0": "enp1s0f0np0",
		"a b":         `a\x20b`,
	} {
		if got := systemdEscape(in); got != want {
			t.Errorf("systemdEscape(%q) = %s, want %s", in, got, want)
		}
	}
	tool, err := exec.LookPath("systemd-escape")
	if err != nil {
		t.Skip("systemd-escape not installed")
	}
	for _, in := range []string{"eth0", "bond-0.100", ".x", "ib0.8001", "vlan_7", "a b", "é"} {
		out, err := exec.Command(tool, "--template="+UnitTemplate, in).Output()
		if err != nil {
			t.Fatalf("systemd-escape %s: %v", in, err)
		}
		if got, want := strings.Replace(UnitTemplate, "@", "@"+systemdEscape(in), 1), strings.TrimSpace(string(out)); got != want {
			t.Errorf("instance of %q: %s, systemd-escape says %s", in, got, want)
		}
	}
}

// TestUnitVerifies has systemd check an instance of the template, when
// systemd-analyze is installed: the unit's keys, specifiers and
// dependencies. ExecStart names the runtime in the test's directory, since
// verify also wants the program to exist.
func TestUnitVerifies(t *testing.T) {
	tool, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed")
	}
	dir := t.TempDir()
	rt := filepath.Join(dir, "rocefab-host.sh")
	if err := os.WriteFile(rt, runtimeFile(), 0o755); err != nil {
		t.Fatal(err)
	}
	unit := strings.ReplaceAll(string(unitTemplate()), RuntimePath, rt)
	inst := filepath.Join(dir, strings.Replace(UnitTemplate, "@", "@"+systemdEscape("bond-0"), 1))
	if err := os.WriteFile(inst, []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tool, "verify", "--man=no", inst).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify %s: %v\n%s", inst, err, out)
	}
}

func TestRefusesBadValues(t *testing.T) {
	cases := map[string]func(p *ir.HostProfile){
		"tool":      func(p *ir.HostProfile) { p.Tool = "lldptool" },
		"trust":     func(p *ir.HostProfile) { p.Trust = "pcp" },
		"ets sum":   func(p *ir.HostProfile) { p.ETS[0] = 25 },
		"strict bw": func(p *ir.HostProfile) { p.ETS[6] = 10; p.ETS[0] = 10 },
		"tsa":       func(p *ir.HostProfile) { p.TSA[2] = "cbs" },
		"dscp prio": func(p *ir.HostProfile) { p.DSCPToPrio[5] = 8 },
		"prio tc":   func(p *ir.HostProfile) { p.PrioToTC[1] = -1 },
		"mtu":       func(p *ir.HostProfile) { p.MTU = 0 },
		"cnp":       func(p *ir.HostProfile) { p.CNPDSCP = 64 },
		"cnp pair":  func(p *ir.HostProfile) { p.CNPPriority = -1 },
		"tos":       func(p *ir.HostProfile) { p.RoCETOS = 256 },
		"ecn prio":  func(p *ir.HostProfile) { p.ECNPriorities = []int{9} },
		"param":     func(p *ir.HostProfile) { p.DCQCN.Params = []ir.Param{{Name: "rpg_bogus", Value: 1}} },
		"param neg": func(p *ir.HostProfile) { p.DCQCN.Params = []ir.Param{{Name: "rpg_gd", Value: -1}} },
		"rate":      func(p *ir.HostProfile) { p.Shaping[0].RateBits = 0 },
		"no class":  func(p *ir.HostProfile) { p.Shaping[0].Class = nil },
		"twice":     func(p *ir.HostProfile) { p.Shaping = append(p.Shaping, p.Shaping[0]) },
		"cable":     func(p *ir.HostProfile) { p.CableM = -1 },
		"same prio": func(p *ir.HostProfile) {
			c := *p.Shaping[0].Class
			c.Name = "storage2"
			p.Shaping = append(p.Shaping, ir.Shape{Class: &c, Interface: "eth0", RateBits: 1e9})
		},
		"nic model":  func(p *ir.HostProfile) { p.NICModel = "cx7$(reboot)" },
		"dscp range": func(p *ir.HostProfile) { c := *p.Shaping[0].Class; c.DSCP = []int{64}; p.Shaping[0].Class = &c },
	}
	for name, mutate := range cases {
		d := cloneHost(gpu(t))
		mutate(d.Host.Profile)
		if _, err := (Renderer{}).Render(d); err == nil {
			t.Errorf("%s: rendered", name)
		}
	}
}

// TestRefusesUnsafeNames feeds every name the script writes with a shell
// metacharacter.
func TestRefusesUnsafeNames(t *testing.T) {
	bad := []string{"eth2\nreboot", "eth2;reboot", "eth2$(reboot)", "eth2`reboot`", "eth2'x", `eth2"x`, "eth 2", ""}
	set := map[string]func(d *ir.Device, v string){
		"device":    func(d *ir.Device, v string) { d.Name = v },
		"NIC port":  func(d *ir.Device, v string) { d.Host.NICs[0].Port = v },
		"HCA":       func(d *ir.Device, v string) { d.Host.NICs[1].HCA = v },
		"peer":      func(d *ir.Device, v string) { d.Host.NICs[2].Peer = v },
		"interface": func(d *ir.Device, v string) { d.Host.Profile.Shaping[0].Interface = v },
		"class": func(d *ir.Device, v string) {
			c := *d.Host.Profile.Shaping[0].Class
			c.Name = v
			d.Host.Profile.Shaping[0].Class = &c
		},
	}
	for what, f := range set {
		for _, v := range bad {
			if v == "" && (what == "HCA" || what == "peer") {
				continue // optional: empty means unknown
			}
			d := cloneHost(gpu(t))
			f(d, v)
			if _, err := (Renderer{}).Render(d); err == nil {
				t.Errorf("%s %q: rendered", what, v)
			}
		}
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"eth0":      "'eth0'",
		"":          "''",
		"it's":      `'it'\''s'`,
		"$(x) `y`":  "'$(x) `y`'",
		"a\nb":      "'a\nb'",
		`"q" \ end`: `'"q" \ end'`,
	} {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	// What bash reads back is what went in.
	for _, in := range []string{"it's", "$(echo no)", "`echo no`", "a\nb", `x"y\z`, "!$ *"} {
		out, err := exec.Command("bash", "-c", "printf %s "+quote(in)).Output()
		if err != nil || string(out) != in {
			t.Errorf("bash read back %q as %q (%v)", in, out, err)
		}
	}
}

// variants are models that take the other paths of the script.
func variants(t *testing.T) map[string]*ir.Device {
	f := irtest.Fabric()
	out := map[string]*ir.Device{"mlnx_qos": gpu(t)}

	d := cloneHost(gpu(t))
	d.Host.Profile.Tool = "dcb"
	d.Host.Profile.DCQCN.Params = []ir.Param{{Name: "rpg_time_reset", Value: 100}, {Name: "min_time_between_cnps", Value: 4}}
	out["dcb-params"] = d

	d = cloneHost(gpu(t))
	d.Host.Profile.Shaping = nil
	d.Host.Profile.CNPDSCP, d.Host.Profile.CNPPriority = -1, -1
	d.Host.Profile.DCQCN.Enabled = false
	d.Host.Profile.CableM = 0
	d.Host.NICs[0].HCA = ""
	out["bare"] = d

	d = cloneHost(gpu(t))
	d.Host.Profile.Shaping = append(d.Host.Profile.Shaping,
		ir.Shape{Class: f.Class("bulk"), Interface: "eth0", RateBits: 10_000_000_000},
		ir.Shape{Class: f.Class("storage"), Interface: "eth1", RateBits: 25_500_000_000})
	d.Host.Profile.CableM = 1500
	out["default-shaped"] = d
	return out
}

// TestShellcheck checks the runtime, the single-file host.sh and host.conf
// of every variant with bash -n, and each distinct script once with
// shellcheck: the runtime, the settings (host.conf) of each variant, and
// one host.sh, the others being their own settings before the same
// runtime (which the test checks). host.conf alone assigns names it does
// not use (the runtime does: SC2034).
func TestShellcheck(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	sc, scErr := exec.LookPath("shellcheck")
	files := map[string][]byte{"rocefab-host.sh": runtimeFile()}
	checked := map[string]bool{"rocefab-host.sh": true}
	vs := variants(t)
	names := slices.Sorted(maps.Keys(vs))
	for i, name := range names {
		script, settings := renderScript(t, vs[name]), render(t, vs[name])
		files[name+"/host.sh"] = []byte(script)
		files[name+"/host.conf"] = []byte(settings)
		checked[name+"/host.conf"] = true
		checked[name+"/host.sh"] = i == 0
		// What shellcheck does not read again: the runtime of every
		// host.sh is the one checked, its settings are host.conf's.
		var b strings.Builder
		writeSettings(&b, vs[name], settingsOf(vs[name]))
		if !strings.HasSuffix(script, runtime) || !strings.Contains(script, b.String()) || !strings.HasSuffix(settings, b.String()) {
			t.Errorf("%s: host.sh is not its host.conf settings before the runtime", name)
		}
	}
	dir := t.TempDir()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, files[name], 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(bash, "-n", path).CombinedOutput(); err != nil {
			t.Errorf("%s: bash -n: %v\n%s", name, err, out)
		}
		if scErr != nil || !checked[name] {
			continue
		}
		args := []string{"--shell=bash", "--severity=style"}
		if strings.HasSuffix(name, ".conf") {
			args = append(args, "--exclude=SC2034")
		}
		if out, err := exec.Command(sc, append(args, path)...).CombinedOutput(); err != nil {
			t.Errorf("%s: shellcheck: %v\n%s", name, err, out)
		}
	}
	if scErr != nil {
		t.Skip("shellcheck not installed (apt-get install shellcheck); bash -n passed")
	}
}

// TestSettingsAreData reads every line of each variant's host.conf: a
// comment, a readonly constant whose value is a number or single-quoted,
// or an array of such values. Nothing else, so that sourcing it runs
// nothing.
func TestSettingsAreData(t *testing.T) {
	value := `(-?[0-9]+|'[^']*')`
	scalar := regexp.MustCompile(`^readonly [A-Z][A-Z0-9_]*=` + value + `$`)
	array := regexp.MustCompile(`^readonly -a [A-Z][A-Z0-9_]*=\((` + value + `( ` + value + `)*)?(\)?)$`)
	elems := regexp.MustCompile(`^\t` + value + `( ` + value + `)*( # [^']*)?$`)
	for name, d := range variants(t) {
		open := false
		for i, line := range strings.Split(strings.TrimSuffix(render(t, d), "\n"), "\n") {
			switch {
			case line == "" || strings.HasPrefix(line, "#"):
			case open && line == ")":
				open = false
			case open && elems.MatchString(line):
			case !open && scalar.MatchString(line):
			case !open && array.MatchString(line):
				open = !strings.HasSuffix(line, ")")
			default:
				t.Errorf("%s: host.conf line %d is not data: %q", name, i+1, line)
			}
		}
		if open {
			t.Errorf("%s: host.conf ends inside an array", name)
		}
	}
}

func TestShapingPlanDefaultClass(t *testing.T) {
	d := variants(t)["default-shaped"]
	script := render(t, d)
	// bulk (priority 0, the default class) shaped on eth0: it is the HTB
	// default, storage keeps its filters, and the unshaped priorities (3 and
	// 6) are filtered to the line-rate class.
	rendertest.Contains(t, "the script", script,
		"readonly -a SHAPE_IFACES=(\n\t'eth0 0x10 1:ff 400000000000'\n\t'eth1 0xff 1:ff 400000000000'\n)\n",
		"'eth0 1:10 10000000000 bulk'",
		"'eth0 1:11 50000000000 storage'",
		"'eth0 ip 26 1:ff' 'eth0 ip 48 1:ff'",
		"'eth0 ip 10 1:11' 'eth0 ip 18 1:11'",
		"'eth1 1:11 25500000000 storage'",
		"limited to 25500Mbit",
		"but mlx5 ignores anything above 999 m",
		"readonly CABLE_LEN=999",
	)
	if strings.Contains(script, "'eth0 ip 0 1:ff'") {
		t.Error("a DSCP of the shaped default class is filtered away from it")
	}
}

func TestBareVariant(t *testing.T) {
	script := render(t, variants(t)["bare"])
	rendertest.Contains(t, "the script", script,
		"readonly -a SHAPE_IFACES=()\n",
		"readonly -a SHAPE_CLASSES=()\n",
		"readonly -a SHAPE_FILTERS=()\n",
		"readonly CNP_DSCP=-1",
		"readonly -a ECN_ENABLE=(0 0 0 0 0 0 0 0)",
		"DCQCN off",
		"readonly CABLE_LEN=0",
		"readonly -a HCAS=('' 'mlx5_1' 'mlx5_2' 'mlx5_3')",
		"(HCA found at run time)",
	)
	if strings.Contains(script, "rocefab-qos@eth0") {
		t.Error("host.conf enables an instance for eth0, which nothing shapes")
	}
}

func pad4(i int) string { return strings.Repeat("0", 4-len(itoa(i))) + itoa(i) }

func TestGoldenScriptHasNoTrailingBlanks(t *testing.T) {
	for _, s := range []string{render(t, gpu(t)), renderScript(t, gpu(t)), string(runtimeFile()), string(unitTemplate())} {
		for line := range strings.Lines(s) {
			if l := strings.TrimRight(line, "\n"); l != strings.TrimRight(l, " \t") {
				t.Errorf("trailing blank: %q", l)
			}
		}
		if !bytes.HasSuffix([]byte(s), []byte("\n")) {
			t.Error("artifact does not end with a newline")
		}
	}
}

func TestDerivedComments(t *testing.T) {
	d := cloneHost(gpu(t))
	d.Host.Profile.Derived = []ir.Derivation{{Field: "roce-tos", Value: 104, Unit: "",
		Formula: "ToS = DSCP << 2\nreboot", Inputs: []ir.Input{{Name: "DSCP", Value: "26"}}}}
	script := render(t, d)
	if !strings.Contains(script, "#   roce-tos = 104: ToS = DSCP << 2 reboot with DSCP = 26\n") {
		t.Errorf("the derivation is not a one-line comment:\n%s", script[:3000])
	}
}

// The line-rate class of the frontend runs at hosts.frontend.speed while
// the link speed is unknown, not at the RDMA NICs' speed.
func TestShapingFallbackIsFrontendSpeed(t *testing.T) {
	d := irtest.Fabric().Device("gpu-0000")
	prof := *d.Host.Profile
	prof.Frontend, prof.FrontendGbps = "eth0", 25
	host := *d.Host
	host.Profile = &prof
	dd := *d
	dd.Host = &host
	if got := strings.Join(array(t, render(t, &dd), "SHAPE_IFACES"), " "); got != "'eth0 0xff 1:ff 25000000000'" {
		t.Errorf("SHAPE_IFACES = %s, want the frontend's 25 Gbit/s", got)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func train(t *testing.T) *ir.Tenant {
	t.Helper()
	f := irtest.Fabric()
	for _, tn := range f.Tenants {
		if tn.Name == "train" {
			c := *tn
			c.Env = slices.Clone(tn.Env)
			c.Servers = slices.Clone(tn.Servers)
			return &c
		}
	}
	t.Fatal("test fabric has no tenant train")
	return nil
}

func TestTenant(t *testing.T) {
	tn := train(t)
	a, err := RenderTenant(tn)
	if err != nil {
		t.Fatal(err)
	}
	if a.Path != "tenants/train.env" || a.Format != renderers.Env {
		t.Errorf("artifact %s (%s), want tenants/train.env (env)", a.Path, a.Format)
	}
	s := string(a.Content)
	var keys []string
	for line := range strings.Lines(s) {
		line = strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("line %q is not KEY=value", line)
		}
		keys = append(keys, k)
		if !envValue.MatchString(v) {
			t.Errorf("%s has an unsafe value %q", k, v)
		}
	}
	if !slices.IsSorted(keys) {
		t.Errorf("keys not sorted: %v", keys)
	}
	roce := irtest.Fabric().Class("roce")
	rendertest.Contains(t, "the env file", s,
		"NCCL_IB_TC="+itoa(roce.DSCP[0]<<2)+"\n",
		"NCCL_IB_GID_INDEX=3\n",
		"NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3\n",
		"NCCL_IB_TIMEOUT=22\n",
		"# NCCL environment of tenant train",
		"# Class roce: priority 3, DSCP 26, lossless; NCCL_IB_TC 104 = DSCP 26 << 2.",
		"# Servers: gpu-[0000-0001] (2).",
	)

	a2, _ := RenderTenant(tn)
	if string(a2.Content) != s {
		t.Error("two renders of one tenant differ")
	}
	slices.Reverse(tn.Env)
	a3, _ := RenderTenant(tn)
	if string(a3.Content) != s {
		t.Error("the env file depends on the order of the environment")
	}
}

func TestTenantThousandsOfServers(t *testing.T) {
	tn := train(t)
	tn.Servers = nil
	for i := range 4096 {
		tn.Servers = append(tn.Servers, "gpu-"+pad4(i))
	}
	a, err := RenderTenant(tn)
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(string(a.Content), "\nNCCL_")
	if len(header) > 600 || !strings.Contains(header, "gpu-[0000-4095] (4096)") {
		t.Errorf("header is %d bytes:\n%s", len(header), header)
	}
}

func TestTenantAddsTrafficClass(t *testing.T) {
	tn := train(t)
	tn.Env = slices.DeleteFunc(tn.Env, func(e ir.EnvVar) bool { return e.Name == "NCCL_IB_TC" })
	tn.Env = append(tn.Env, ir.EnvVar{Name: "NCCL_IB_QPS_PER_CONNECTION", Value: "4"})
	tn.TrafficClass = 106
	tn.Servers = nil
	a, err := RenderTenant(tn)
	if err != nil {
		t.Fatal(err)
	}
	s := string(a.Content)
	for _, want := range []string{"NCCL_IB_TC=106\n", "NCCL_IB_QPS_PER_CONNECTION=4\n", "| ECN 2", "# Servers: any server."} {
		if !strings.Contains(s, want) {
			t.Errorf("the env file lacks %q:\n%s", want, s)
		}
	}
}

func TestTenantRefusals(t *testing.T) {
	cases := map[string]func(tn *ir.Tenant){
		"nil class":      func(tn *ir.Tenant) { tn.Class = nil; tn.ClassName = "ghost" },
		"name newline":   func(tn *ir.Tenant) { tn.Name = "train\nx" },
		"name semicolon": func(tn *ir.Tenant) { tn.Name = "train;x" },
		"name subshell":  func(tn *ir.Tenant) { tn.Name = "train$(x)" },
		"name backtick":  func(tn *ir.Tenant) { tn.Name = "train`x`" },
		"name quote":     func(tn *ir.Tenant) { tn.Name = `train"x` },
		"server":         func(tn *ir.Tenant) { tn.Servers = append(tn.Servers, "gpu-9\nrm") },
		"value subshell": func(tn *ir.Tenant) { tn.Env = append(tn.Env, ir.EnvVar{Name: "NCCL_X", Value: "$(reboot)"}) },
		"value backtick": func(tn *ir.Tenant) { tn.Env = append(tn.Env, ir.EnvVar{Name: "NCCL_X", Value: "`reboot`"}) },
		"value quote":    func(tn *ir.Tenant) { tn.Env = append(tn.Env, ir.EnvVar{Name: "NCCL_X", Value: "a'b"}) },
		"value space":    func(tn *ir.Tenant) { tn.Env = append(tn.Env, ir.EnvVar{Name: "NCCL_X", Value: "a b"}) },
		"value newline":  func(tn *ir.Tenant) { tn.Env = append(tn.Env, ir.EnvVar{Name: "NCCL_X", Value: "a\nB=c"}) },
		"value semi":     func(tn *ir.Tenant) { tn.Env = append(tn.Env, ir.EnvVar{Name: "NCCL_X", Value: "a;b"}) },
		"key":            func(tn *ir.Tenant) { tn.Env = append(tn.Env, ir.EnvVar{Name: "NCCL X", Value: "1"}) },
		"duplicate":      func(tn *ir.Tenant) { tn.Env = append(tn.Env, ir.EnvVar{Name: "NCCL_IB_HCA", Value: "mlx5_9"}) },
		"tc mismatch":    func(tn *ir.Tenant) { tn.TrafficClass = 96 },
		"tc range":       func(tn *ir.Tenant) { tn.TrafficClass = 300 },
	}
	for name, mutate := range cases {
		tn := train(t)
		mutate(tn)
		if _, err := RenderTenant(tn); err == nil {
			t.Errorf("%s: rendered", name)
		}
	}
	if _, err := RenderTenant(nil); err == nil {
		t.Error("nil tenant rendered")
	}
}

// TestTenantAdaptiveRouting: a tenant whose packets a switch reorders says
// why its file turns NCCL's adaptive-routing mode on; one whose intent
// turns it off gets no such line.
func TestTenantAdaptiveRouting(t *testing.T) {
	tn := train(t)
	tn.ReorderedBy = "spine-00"
	tn.Env = append(tn.Env, ir.EnvVar{Name: ir.NCCLAdaptiveRouting, Value: "1"})
	a, err := RenderTenant(tn)
	if err != nil {
		t.Fatal(err)
	}
	s := string(a.Content)
	rendertest.Contains(t, "the env file", s,
		"\nNCCL_IB_ADAPTIVE_ROUTING=1\n",
		"# NCCL_IB_ADAPTIVE_ROUTING=1: spine-00 balances per packet",
	)
	tn.Env[len(tn.Env)-1].Value = "0"
	a, err = RenderTenant(tn)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(a.Content), "balances per packet") {
		t.Errorf("explains a value the intent turned off:\n%s", a.Content)
	}
}

// An env file says which collective library it is for: NCCL on NVIDIA
// GPUs, RCCL (which reads the same variables) on AMD GPUs.
func TestTenantLibrary(t *testing.T) {
	for _, c := range []struct{ lib, first string }{
		{"", "# NCCL environment of tenant train, generated by rocefab"},
		{ir.LibraryNCCL, "# NCCL environment of tenant train, generated by rocefab"},
		{ir.LibraryRCCL, "# RCCL environment of tenant train (AMD GPUs: RCCL reads these NCCL_* variables), generated by rocefab"},
		{"mpi", ""},
	} {
		tn := *train(t)
		tn.Library = c.lib
		a, err := RenderTenant(&tn)
		if c.first == "" {
			if err == nil || !strings.Contains(err.Error(), `collective library "mpi": want nccl or rccl`) {
				t.Errorf("library %q: err %v", c.lib, err)
			}
			continue
		}
		if err != nil || !strings.HasPrefix(string(a.Content), c.first) {
			t.Errorf("library %q: %v\n%s", c.lib, err, a.Content)
		}
	}
}

// TestRuntimeDigest checks that the digest the runtime's header states is
// the SHA-256 of the file from the line it names on, that the runtime's
// constant and every settings file carry it, and that the body is the
// runtime the single-file form ends with.
func TestRuntimeDigest(t *testing.T) {
	rt := string(runtimeFile())
	m := regexp.MustCompile(`(?m)^# Runtime digest: sha256 ([0-9a-f]{64})\n# of this file from line (\d+) on \(tail -n \+(\d+) rocefab-host.sh \| sha256sum\)\.$`).FindStringSubmatch(rt)
	if m == nil {
		t.Fatal("the runtime's header states no digest")
	}
	first, _ := strconv.Atoi(m[2])
	if m[3] != m[2] {
		t.Errorf("the header names line %s and line %s", m[2], m[3])
	}
	lines := strings.SplitAfter(rt, "\n")
	body := strings.Join(lines[first-1:], "")
	sum := sha256.Sum256([]byte(body))
	if got := hex.EncodeToString(sum[:]); got != m[1] {
		t.Errorf("the SHA-256 of the file from line %d is %s; the header says %s", first, got, m[1])
	}
	if body != runtime {
		t.Errorf("the file from line %d on is not the runtime's body", first)
	}
	if !strings.Contains(rt, "\nreadonly RUNTIME_DIGEST='"+m[1]+"'\nreadonly EMBEDDED_SETTINGS=0\n") {
		t.Error("the runtime's RUNTIME_DIGEST is not its digest")
	}
	for _, d := range handled(irtest.Fabric()) {
		if !strings.Contains(render(t, d), "\nreadonly SETTINGS_FOR_RUNTIME='"+m[1]+"'\n") {
			t.Errorf("%s: host.conf does not name the runtime's digest", d.Name)
		}
		if !strings.Contains(renderScript(t, d), "\nreadonly RUNTIME_DIGEST='"+m[1]+"'\nreadonly EMBEDDED_SETTINGS=1\n") {
			t.Errorf("%s: host.sh does not carry the runtime's digest", d.Name)
		}
	}
	if !strings.Contains(runtime, "\nreadonly DEFAULT_SETTINGS="+SettingsPath+"\n") {
		t.Errorf("the runtime's default settings file is not %s", SettingsPath)
	}
}

// TestRenderFabric: the runtime and the unit once per build, and only
// for a fabric with servers.
func TestRenderFabric(t *testing.T) {
	f := irtest.Fabric()
	arts := RenderFabric(f)
	if len(arts) != 2 || arts[0].Path != RuntimeFile || arts[1].Path != UnitFile {
		t.Fatalf("RenderFabric: %v", arts)
	}
	sw := *f
	sw.Devices = f.Switches()
	if arts := RenderFabric(&sw); len(arts) != 0 {
		t.Errorf("a fabric without servers gets %d host files", len(arts))
	}
	if arts := RenderFabric(nil); len(arts) != 0 {
		t.Error("a nil fabric gets host files")
	}
}

// TestHostConfsDifferOnlyPerHost renders two servers of the test fabric:
// once the name is the same, their settings differ only in the lines
// that describe each NIC's link (its peer port).
func TestHostConfsDifferOnlyPerHost(t *testing.T) {
	hosts := handled(irtest.Fabric())
	if len(hosts) < 2 {
		t.Fatal("the test fabric has fewer than two servers")
	}
	a, b := hosts[0], hosts[len(hosts)-1]
	ca := strings.Split(render(t, a), "\n")
	cb := strings.Split(strings.ReplaceAll(render(t, b), b.Name, a.Name), "\n")
	if len(ca) != len(cb) {
		t.Fatalf("%s's host.conf has %d lines, %s's %d", a.Name, len(ca), b.Name, len(cb))
	}
	nicLine := regexp.MustCompile(`^#   eth\d+ mlx5_\d+: rail \d+, `)
	differ := 0
	for i := range ca {
		if ca[i] == cb[i] {
			continue
		}
		differ++
		if !nicLine.MatchString(ca[i]) || !nicLine.MatchString(cb[i]) {
			t.Errorf("line %d differs and is not a NIC's description:\n  %s: %s\n  %s: %s", i+1, a.Name, ca[i], b.Name, cb[i])
		}
	}
	if differ == 0 {
		t.Errorf("%s and %s have the same settings once renamed: their NICs reach different leaf ports", a.Name, b.Name)
	}
	// And the name itself appears only where it is per host.
	for i, line := range strings.Split(render(t, a), "\n") {
		if strings.Contains(line, a.Name) && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "readonly DEVICE=") {
			t.Errorf("line %d names the server outside a comment or DEVICE: %s", i+1, line)
		}
	}
}

// TestSettingsForAnotherRuntime: the runtime refuses, before it reads
// anything of the server, settings written for another runtime, settings
// without a digest, settings others can write, and a missing file; the
// single-file host.sh refuses --settings.
func TestSettingsForAnotherRuntime(t *testing.T) {
	t.Parallel()
	d := ofedDevice(t)
	w := newWorld(t, d, hosttest.DriftedNIC(), tcDrifted(), true, false)
	conf := w.get("host.conf") + "\n"
	other := strings.Repeat("0", 64)
	for name, c := range map[string]struct {
		conf string
		mode os.FileMode
		args []string
		want string
	}{
		"other runtime": {strings.Replace(conf, runtimeDigest, other, 1), 0o644, nil,
			"was written for runtime 0000000000000000, and this is runtime " + runtimeDigest[:16] + ": install the rocefab-host.sh and the host.conf of one rocefab build"},
		"no digest": {strings.Replace(conf, "readonly SETTINGS_FOR_RUNTIME=", "readonly NOT_FOR_RUNTIME=", 1), 0o644, nil,
			"has no SETTINGS_FOR_RUNTIME line: it is not rocefab host settings"},
		"group writable": {conf, 0o664, nil, "is writable by group or others (mode 664): not read"},
		"missing":        {conf, 0o644, []string{"--settings", filepath.Join(w.dir, "nowhere.conf")}, "cannot read the settings " + filepath.Join(w.dir, "nowhere.conf")},
	} {
		t.Run(name, func(t *testing.T) {
			w.write("host.conf", c.conf)
			if err := os.Chmod(w.settings, c.mode); err != nil {
				t.Fatal(err)
			}
			out, stderr, code := w.run(append([]string{"--check"}, c.args...)...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want 2 and %q\nstdout:\n%s\nstderr:\n%s", code, c.want, out, stderr)
			}
			if l := w.log(); len(l) > 0 {
				t.Errorf("the runtime read the server with refused settings: %v", l)
			}
		})
	}
	// A runtime of another build refuses these settings too.
	w.write("host.conf", conf)
	os.Chmod(w.settings, 0o644)
	rt := w.get("rocefab-host.sh") + "\n"
	w.write("rocefab-host.sh", strings.Replace(rt, "readonly RUNTIME_DIGEST='"+runtimeDigest+"'", "readonly RUNTIME_DIGEST='"+other+"'", 1))
	_, stderr, code := w.run("--check")
	if code != 2 || !strings.Contains(stderr, "was written for runtime "+runtimeDigest[:16]+", and this is runtime 0000000000000000") {
		t.Errorf("another runtime: exit %d\n%s", code, stderr)
	}
	w.write("rocefab-host.sh", rt)
	if _, stderr, code := w.run("--check"); code != 1 {
		t.Errorf("the matching pair: exit %d, want 1 (drift)\n%s", code, stderr)
	}
	_, stderr, code = w.runSingle("--check", "--settings", w.settings)
	if code != 2 || !strings.Contains(stderr, "--settings: this script carries the settings of gpu-0000") {
		t.Errorf("host.sh --settings: exit %d\n%s", code, stderr)
	}
}

// TestNetdevOnly runs what one unit instance runs: only the named
// interface's settings, its HCA's ToS and its shaping.
func TestNetdevOnly(t *testing.T) {
	d := ofedDevice(t)
	w := newWorld(t, d, hosttest.DriftedNIC(), tcDrifted(), true, false)
	out, stderr, code := w.run("--check", "--netdev", "eth3")
	if code != 1 || !strings.Contains(out, "DRIFT eth3 mtu") || !strings.Contains(out, "DRIFT mlx5_1 port 1 cma_roce_tos") ||
		!strings.Contains(out, "gpu-0000 eth3: ") {
		t.Errorf("--netdev eth3: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	for _, other := range []string{"eth0", "eth2", "eth4", "eth5", "mlx5_0", "mlx5_2"} {
		if strings.Contains(out, " "+other+" ") || strings.Contains(out, " "+other+":") {
			t.Errorf("--netdev eth3 reports on %s:\n%s", other, out)
		}
	}
	// eth0 is only shaped: no NIC section touches anything.
	os.Truncate(filepath.Join(w.dir, "state", "log"), 0)
	out, stderr, code = w.run("--check", "--netdev=eth0")
	if code != 1 || !strings.Contains(out, "DRIFT eth0 qdisc") || strings.Contains(out, "eth2") {
		t.Errorf("--netdev eth0: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	for _, l := range w.log() {
		if !strings.HasPrefix(l, "read tc") {
			t.Errorf("--netdev eth0 ran %s", l)
		}
	}
	// With eth4 gone, the instance for eth3 still succeeds.
	os.RemoveAll(filepath.Join(w.dir, "sys/class/net/eth4"))
	if out, stderr, code := w.run("--netdev", "eth3"); code != 0 {
		t.Errorf("--netdev eth3 without eth4: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	_, stderr, code = w.run("--check", "--netdev", "eth9")
	if code != 2 || !strings.Contains(stderr, "--netdev eth9: gpu-0000's settings have no such RDMA netdev or shaped interface (they have: eth2 eth3 eth4 eth5 eth0)") {
		t.Errorf("--netdev eth9: exit %d\n%s", code, stderr)
	}
}

// TestRunsWaitForEachOther holds the runtime's lock as another run would:
// a run waits, says so, and goes on once the lock is free.
func TestRunsWaitForEachOther(t *testing.T) {
	d := ofedDevice(t)
	w := newWorld(t, d, desiredNIC(d.Host.Profile), tcDesired(d, 100000), true, true)
	lock := filepath.Join(w.dir, "lock")
	f, err := os.OpenFile(lock, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Skipf("flock: %v", err)
	}
	cmd := exec.Command("bash", w.runtime, "--settings", w.settings, "--check")
	cmd.Env = w.env
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		t.Fatalf("the run did not wait for the lock: %v\n%s", err, out.String())
	case <-time.After(1500 * time.Millisecond):
	}
	if l := w.log(); len(l) > 0 {
		t.Errorf("the run read the server while another held the lock: %v", l)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	select {
	case err := <-done:
		if err != nil || !strings.Contains(out.String(), "waiting for another run to finish (flock "+lock+")") ||
			!strings.Contains(out.String(), "gpu-0000: in sync with the intent") {
			t.Errorf("after the lock was freed: %v\n%s", err, out.String())
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("the run did not finish once the lock was free:\n%s", out.String())
	}
}

// TestSingleFileAppliesAlone runs the single-file host.sh with no other
// file beside it, as a server without the runtime has it.
func TestSingleFileAppliesAlone(t *testing.T) {
	d := variants(t)["bare"]
	w := newWorld(t, d, desiredNIC(d.Host.Profile), tcState{}, true, true, "mlnx_qos", "ip")
	os.Remove(w.runtime)
	os.Remove(w.settings)
	out, stderr, code := w.runSingle()
	if code != 0 || !strings.Contains(out, "gpu-0000: in sync with the intent, nothing changed") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
}

// TestSettingsCommandRefused appends or splices shell into a server's
// host.conf, as whoever edits a saved plan or the file on the server
// could: the runtime, run by bash as on a server, reads the file as data,
// refuses the first line it would not write with that line's number, and
// runs none of it; nor does it read the server.
func TestSettingsCommandRefused(t *testing.T) {
	t.Parallel()
	d := ofedDevice(t)
	w := newWorld(t, d, hosttest.DriftedNIC(), tcDrifted(), true, false)
	// A server's usual locale, where ranges in a regular expression may
	// take letters beyond ASCII; the runtime reads its settings in C.
	w.env = append(w.env, "LC_ALL=C.UTF-8")
	conf := w.get("host.conf") + "\n"
	lines := strings.Split(strings.TrimSuffix(conf, "\n"), "\n")
	lineOf := func(prefix string) int {
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return i + 1
			}
		}
		t.Fatalf("host.conf has no line %q", prefix)
		return 0
	}
	pwned := filepath.Join(w.dir, "pwned")
	touch := "touch " + pwned
	// replace swaps the line that starts with prefix for with.
	replace := func(prefix, with string) string {
		i := lineOf(prefix) - 1
		out := slices.Clone(lines)
		out[i] = with
		return strings.Join(out, "\n") + "\n"
	}
	mtu, device, netdevs, dscp := lineOf("readonly MTU="), lineOf("readonly DEVICE="), lineOf("readonly -a NETDEVS="), lineOf("readonly -a DSCP2PRIO=(")
	end := len(lines) + 1
	for name, c := range map[string]struct {
		conf string
		line int
		want string
	}{
		"appended command":       {conf + touch + "\n", end, "is not a setting"},
		"appended after a blank": {conf + "\n" + touch + "\n", end + 1, "is not a setting"},
		"semicolon":              {replace("readonly MTU=", "readonly MTU=4200; "+touch), mtu, "is not a value"},
		"ampersands":             {replace("readonly MTU=", "readonly MTU=4200 && "+touch), mtu, "is not a value"},
		"command substitution":   {replace("readonly DEVICE=", "readonly DEVICE=$("+touch+")"), device, "is not a value"},
		"substitution in quotes": {replace("readonly DEVICE=", "readonly DEVICE=\"$("+touch+")\""), device, "is not a value"},
		"backticks":              {replace("readonly DEVICE=", "readonly DEVICE=`"+touch+"`"), device, "is not a value"},
		"after a quote":          {replace("readonly DEVICE=", "readonly DEVICE='gpu-0000'$("+touch+")"), device, "is not a value"},
		"inside a quote":         {replace("readonly DEVICE=", "readonly DEVICE='$("+touch+")'"), device, "is not one rocefab writes"},
		"array element":          {replace("readonly -a NETDEVS=", "readonly -a NETDEVS=('eth2' $("+touch+"))"), netdevs, "is not a value"},
		"new line in an array":   {replace("readonly -a DSCP2PRIO=(", "readonly -a DSCP2PRIO=(\n"+touch), dscp + 1, "inside the array DSCP2PRIO"},
		"row of an array":        {replace("readonly -a DSCP2PRIO=(", "readonly -a DSCP2PRIO=(\n\t0 0 0 0 0 0 0 0; "+touch), dscp + 1, "is not a value"},
		"assignment":             {replace("readonly MTU=", "PATH="+w.dir), mtu, "is not a setting"},
		"function":               {replace("readonly MTU=", "readonly MTU=4200\nmain() { "+touch+"; }"), mtu + 1, "is not a setting"},
		"unknown key":            {replace("readonly MTU=", "readonly PROMPT_COMMAND='true'"), mtu, "unknown setting PROMPT_COMMAND"},
		"second value":           {replace("readonly MTU=", "readonly MTU=4200 9000"), mtu, "MTU takes one value"},
		"repeated key":           {conf + "readonly MTU=9000\n", end, "MTU is set again (first on line " + strconv.Itoa(mtu) + ")"},
		"carriage return":        {replace("readonly MTU=", "readonly MTU=4200\r"), mtu, "is not a value"},
		"not ASCII":              {replace("readonly DEVICE=", "readonly DEVICE='gpu-\u00e9'"), device, "is not one rocefab writes"},
		"missing key":            {replace("readonly MTU=", ""), 0, "no MTU setting"},
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(w.settings, []byte(c.conf), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Truncate(filepath.Join(w.dir, "state", "log"), 0)
			out, stderr, code := w.run("--check")
			at := w.settings + ":"
			if c.line > 0 {
				at += strconv.Itoa(c.line) + ":"
			}
			if code != 2 || !strings.Contains(stderr, at) || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want 2 and %q ... %q\nstdout:\n%s\nstderr:\n%s", code, at, c.want, out, stderr)
			}
			if _, err := os.Stat(pwned); err == nil {
				os.Remove(pwned)
				t.Error("the runtime ran the command in host.conf")
			}
			if l := w.log(); len(l) > 0 {
				t.Errorf("the runtime read the server with refused settings: %v", l)
			}
		})
	}
}

// TestEverySettingsFileParses runs the runtime on each variant's host.conf
// up to the point where it has read them: --netdev with a name none has
// makes it list the interfaces it read, and stop.
func TestEverySettingsFileParses(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	dir := t.TempDir()
	rt := filepath.Join(dir, "rocefab-host.sh")
	if err := os.WriteFile(rt, runtimeFile(), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, d := range variants(t) {
		conf := filepath.Join(dir, name+".conf")
		if err := os.WriteFile(conf, []byte(render(t, d)), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("bash", rt, "--settings", conf, "--check", "--netdev", "none-such").CombinedOutput()
		var known []string
		for _, n := range d.Host.NICs {
			known = append(known, n.Port)
		}
		for _, si := range shapingPlan(d.Host.Profile) {
			known = append(known, si.name)
		}
		have := strings.Join(known, " ")
		if have == "" {
			have = "none"
		}
		want := "--netdev none-such: " + d.Name + "'s settings have no such RDMA netdev or shaped interface (they have: " + have + ")"
		if err == nil || !strings.Contains(string(out), want) {
			t.Errorf("%s: %v, want %q\n%s", name, err, want, out)
		}
	}
}
