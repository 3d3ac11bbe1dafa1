package host

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/rendertest"
)

// handled returns the devices of the test fabric this renderer takes.
func handled(f *ir.Fabric) []*ir.Device { return rendertest.Devices(f, ir.PlatformLinux) }

// render returns the script and the unit of d.
func render(t *testing.T, d *ir.Device) (string, string) {
	t.Helper()
	arts, err := Renderer{}.Render(d)
	if err != nil {
		t.Fatalf("Render(%s): %v", d.Name, err)
	}
	if len(arts) != 2 {
		t.Fatalf("Render(%s) returned %d artifacts, want 2", d.Name, len(arts))
	}
	want := []struct {
		path   string
		format renderers.Format
	}{{d.Name + "/host.sh", renderers.Shell}, {d.Name + "/rocefab-qos.service", renderers.Unit}}
	for i, w := range want {
		if arts[i].Path != w.path || arts[i].Format != w.format {
			t.Errorf("artifact %d is %s (%s), want %s (%s)", i, arts[i].Path, arts[i].Format, w.path, w.format)
		}
	}
	return string(arts[0].Content), string(arts[1].Content)
}

func gpu(t *testing.T) *ir.Device {
	t.Helper()
	d := irtest.Fabric().Device("gpu-0000")
	if d == nil {
		t.Fatal("test fabric has no gpu-0000")
	}
	return d
}

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
		arts, err := Renderer{}.Render(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range arts {
			rendertest.Golden(t, filepath.Join("testdata", filepath.FromSlash(a.Path)), a.Content)
		}
	}
	a, err := RenderTenant(f.Tenants[0])
	if err != nil {
		t.Fatal(err)
	}
	rendertest.Golden(t, filepath.Join("testdata", filepath.FromSlash(a.Path)), a.Content)
}

// TestEveryServer renders every server of the test fabric.
func TestEveryServer(t *testing.T) {
	for _, d := range handled(irtest.Fabric()) {
		render(t, d)
	}
}

func TestDeterministic(t *testing.T) {
	d := cloneHost(gpu(t))
	p := d.Host.Profile
	p.DCQCN.Params = []ir.Param{{Name: "rpg_time_reset", Value: 100}, {Name: "min_time_between_cnps", Value: 4}, {Name: "dce_tcp_g", Value: 1019}}
	bulk := irtest.Fabric().Class("bulk")
	p.Shaping = append(p.Shaping, ir.Shape{Class: bulk, Interface: "eth1", RateBits: 20_000_000_000})
	s1, u1 := render(t, d)
	s2, u2 := render(t, d)
	if s1 != s2 || u1 != u2 {
		t.Fatal("two renders of one device differ")
	}
	// The order of the model's lists does not reach the output.
	slices.Reverse(p.DCQCN.Params)
	slices.Reverse(p.Shaping)
	s3, u3 := render(t, d)
	if s1 != s3 || u1 != u3 {
		t.Fatal("the render depends on the order of DCQCN parameters or shapes")
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
	script, _ := render(t, gpu(t))

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
	// PFC on exactly the lossless priorities.
	pfc := array(t, script, "PFC")
	for prio, v := range pfc {
		want := "0"
		if prio == roce.Priority {
			want = "1"
		}
		if v != want {
			t.Errorf("PFC[%d] = %s, want %s", prio, v, want)
		}
	}
	// ECN/DCQCN on the lossless priority only.
	ecn := array(t, script, "ECN_ENABLE")
	for prio, v := range ecn {
		want := "0"
		if prio == roce.Priority {
			want = "1"
		}
		if v != want {
			t.Errorf("ECN_ENABLE[%d] = %s, want %s", prio, v, want)
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
	for _, want := range []string{
		"shape_interface 'eth0' '0xff' '1:ff' 400000000000",
		"'1:11 50000000000 storage'",
		"'ip 10 1:11' 'ip 18 1:11' 'ipv6 10 1:11' 'ipv6 18 1:11'",
		"RDMA (RoCE) traffic bypasses the qdisc",
		"readonly HTB_QUANTUM=200000",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("the script lacks %q", want)
		}
	}
	if !strings.HasPrefix(script, "#!/usr/bin/env bash\n") || !strings.Contains(script, "\nset -euo pipefail\n") {
		t.Error("the script does not start with the bash shebang and set -euo pipefail")
	}
	if !strings.Contains(script, InstallPath) {
		t.Errorf("the script header does not name %s", InstallPath)
	}
}

func TestUnit(t *testing.T) {
	_, unit := render(t, gpu(t))
	for _, want := range []string{
		"\n[Service]\nType=oneshot\nExecStart=" + InstallPath + "\n",
		"After=sys-subsystem-net-devices-eth0.device sys-subsystem-net-devices-eth2.device",
		"WantedBy=multi-user.target\n",
		"WantedBy=sys-subsystem-net-devices-eth5.device\n",
		"install -D -m 0755 host.sh " + InstallPath,
	} {
		if !strings.Contains(unit, want) {
			t.Errorf("the unit lacks %q", want)
		}
	}
	if strings.Contains(unit, "RemainAfterExit=yes") {
		t.Error("RemainAfterExit=yes would keep a netdev's return from re-running the script")
	}
	if got := netdevUnit("bond-0.100"); got != `sys-subsystem-net-devices-bond\x2d0.100.device` {
		t.Errorf("netdevUnit(bond-0.100) = %s", got)
	}
	if got := netdevUnit(".x"); got != `sys-subsystem-net-devices-\x2ex.device` {
		t.Errorf("netdevUnit(.x) = %s", got)
	}
}

func TestRefusesOtherDevices(t *testing.T) {
	f := irtest.Fabric()
	for _, d := range f.Switches() {
		if _, err := (Renderer{}).Render(d); err == nil {
			t.Errorf("Render(%s) of a switch succeeded", d.Name)
		}
	}
	d := cloneHost(gpu(t))
	d.Platform = "windows"
	if _, err := (Renderer{}).Render(d); err == nil {
		t.Error("a non-Linux host was rendered")
	}
	d = cloneHost(gpu(t))
	d.Host = nil
	if _, err := (Renderer{}).Render(d); err == nil {
		t.Error("a device without Host was rendered")
	}
	d = cloneHost(gpu(t))
	d.Host.Profile = nil
	if _, err := (Renderer{}).Render(d); err == nil {
		t.Error("a host without a profile was rendered")
	}
	if _, err := (Renderer{}).Render(nil); err == nil {
		t.Error("a nil device was rendered")
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

func TestShellcheck(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	sc, scErr := exec.LookPath("shellcheck")
	for name, d := range variants(t) {
		script, _ := render(t, d)
		path := filepath.Join(t.TempDir(), "host.sh")
		if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(bash, "-n", path).CombinedOutput(); err != nil {
			t.Errorf("%s: bash -n: %v\n%s", name, err, out)
		}
		if scErr != nil {
			continue
		}
		if out, err := exec.Command(sc, "--shell=bash", "--severity=style", path).CombinedOutput(); err != nil {
			t.Errorf("%s: shellcheck: %v\n%s", name, err, out)
		}
	}
	if scErr != nil {
		t.Skip("shellcheck not installed (apt-get install shellcheck); bash -n passed")
	}
}

func TestShapingPlanDefaultClass(t *testing.T) {
	d := variants(t)["default-shaped"]
	script, _ := render(t, d)
	// bulk (priority 0, the default class) shaped on eth0: it is the HTB
	// default, storage keeps its filters, and the unshaped priorities (3 and
	// 6) are filtered to the line-rate class.
	for _, want := range []string{
		"shape_interface 'eth0' '0x10' '1:ff' 400000000000",
		"'1:10 10000000000 bulk'",
		"'1:11 50000000000 storage'",
		"'ip 26 1:ff' 'ip 48 1:ff'",
		"'ip 10 1:11' 'ip 18 1:11'",
		"shape_interface 'eth1' '0xff' '1:ff' 400000000000",
		"'1:11 25500000000 storage'",
		"limited to 25500Mbit",
		"but mlx5 ignores anything above 999 m",
		"readonly CABLE_LEN=999",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("the script lacks %q", want)
		}
	}
	if strings.Contains(script, "'ip 0 1:ff'") {
		t.Error("a DSCP of the shaped default class is filtered away from it")
	}
	if i, j := strings.Index(script, "shape_interface 'eth0'"), strings.Index(script, "shape_interface 'eth1'"); i > j {
		t.Error("interfaces are not in name order")
	}
}

func TestBareVariant(t *testing.T) {
	script, unit := render(t, variants(t)["bare"])
	for _, want := range []string{
		"readonly SHAPING=0",
		"readonly CNP_DSCP=-1",
		"readonly -a ECN_ENABLE=(0 0 0 0 0 0 0 0)",
		"DCQCN off",
		"readonly CABLE_LEN=0",
		"readonly -a HCAS=('' 'mlx5_1' 'mlx5_2' 'mlx5_3')",
		"(HCA found at run time)",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("the script lacks %q", want)
		}
	}
	if strings.Contains(unit, "eth0") {
		t.Error("the unit waits for eth0, which nothing shapes")
	}
}

func TestCompressNames(t *testing.T) {
	var many []string
	for i := range 192 {
		many = append(many, "gpu-"+pad4(i))
	}
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{many, "gpu-[0000-0191]"},
		{[]string{"gpu-0001", "gpu-0000"}, "gpu-[0000-0001]"},
		{[]string{"gpu-0005"}, "gpu-0005"},
		{[]string{"gpu-0000", "gpu-0001", "gpu-0003", "gpu-0004", "gpu-0007"}, "gpu-[0000-0001],gpu-[0003-0004],gpu-0007"},
		{[]string{"a", "gpu-1", "gpu-2", "gpu-10", "b"}, "a,b,gpu-[1-2],gpu-10"},
		{[]string{"r1-gpu-01a", "r1-gpu-02a", "r1-gpu-02a"}, "r1-gpu-[01-02]a"},
		{nil, ""},
	} {
		if got := CompressNames(tc.in); got != tc.want {
			t.Errorf("CompressNames(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
	big := make([]string, 0, 12500)
	for i := range 12500 {
		big = append(big, "gpu-"+pad5(i))
	}
	if got := CompressNames(big); got != "gpu-[00000-12499]" {
		t.Errorf("12,500 servers compress to %q", got)
	}
}

func pad4(i int) string { return strings.Repeat("0", 4-len(itoa(i))) + itoa(i) }
func pad5(i int) string { return strings.Repeat("0", 5-len(itoa(i))) + itoa(i) }

func TestGoldenScriptHasNoTrailingBlanks(t *testing.T) {
	script, unit := render(t, gpu(t))
	for _, s := range []string{script, unit} {
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
	script, _ := render(t, d)
	if !strings.Contains(script, "#   roce-tos = 104: ToS = DSCP << 2 reboot with DSCP = 26\n") {
		t.Errorf("the derivation is not a one-line comment:\n%s", script[:3000])
	}
}
