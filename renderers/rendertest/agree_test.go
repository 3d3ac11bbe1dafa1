package rendertest_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/compiler/lint"
	"github.com/rocefab/rocefab/compiler/lint/linttest"
	pf "github.com/rocefab/rocefab/compiler/platforms"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/eos"
	"github.com/rocefab/rocefab/renderers/nvue"
	"github.com/rocefab/rocefab/renderers/nxos"
	"github.com/rocefab/rocefab/renderers/openconfig"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/schema"
)

// The platforms whose statement forms the table lists, with the renderer
// of each and the function that turns an artifact into its forms (each
// with the line it stands on, for CLI artifacts).
var platforms = []struct {
	id       string // the table's platform
	platform string // the devices rendered ("" = every switch)
	r        renderers.Renderer
	forms    func([]byte) ([]form, error)
	// releases are the NOS releases rendered besides the default, so that
	// every spelling a release takes is checked.
	releases []string
}{
	{"eos", ir.PlatformEOS, eos.Renderer{}, cliForms, nil},
	{"nxos", ir.PlatformNXOS, nxos.Renderer{}, cliForms, nil},
	{"nvue", ir.PlatformNVUE, nvue.Renderer{}, nvueForms, []string{"5.14"}},
	{"openconfig", "", openconfig.Renderer{}, jsonForms, nil},
}

// form is one statement form an artifact holds, and whether the artifact
// marks it as one no source confirms.
type form struct {
	form   string
	marked bool
}

// TestStatementsSourced renders the switches of every example and of the
// test fabric on every platform and fails when a statement form an
// artifact holds has no row in the statement table (compiler/platforms
// statements.json, docs/statements.md), the table that gives each form the
// public source showing the platform accepts it, and when a form the table
// marks verify is emitted without its mark. Of a large example, one switch
// per platform and role is rendered: the others of that kind hold the same
// forms.
func TestStatementsSourced(t *testing.T) {
	root := rendertest.RepoRoot(t)
	if err := pf.ValidateStatements(); err != nil {
		t.Fatal(err)
	}
	devices := irtest.Fabric().Switches()
	examples, _ := filepath.Glob(filepath.Join(root, "examples", "*", "fabric.cue"))
	if len(examples) == 0 {
		t.Fatal("no examples")
	}
	for _, ex := range examples {
		in, ds, err := schema.Load(ex)
		if err != nil || in == nil {
			t.Fatalf("%s: %v %v", ex, err, ds)
		}
		f, ds := compiler.Compile(in)
		if f == nil || ds.HasErrors() {
			t.Fatalf("%s: %v", ex, ds)
		}
		seen := map[string]bool{}
		for _, d := range f.Switches() {
			kind := d.Platform + "/" + string(d.Role)
			if !seen[kind] {
				seen[kind] = true
				devices = append(devices, d)
			}
		}
	}
	for _, p := range platforms {
		emitted := map[string]string{} // form -> a device that emits it
		for _, d := range devices {
			if p.platform != "" && d.Platform != p.platform {
				continue
			}
			for _, rel := range append([]string{d.Release}, p.releases...) {
				dd := *d
				dd.Release = rel
				as, err := p.r.Render(&dd)
				if err != nil {
					t.Fatalf("%s: %s: %v", p.id, d.Name, err)
				}
				verify := map[string]bool{}
				for _, a := range as {
					forms, err := p.forms(a.Content)
					if err != nil {
						t.Fatalf("%s: %v", a.Path, err)
					}
					for _, f := range forms {
						if _, ok := emitted[f.form]; !ok {
							emitted[f.form] = d.Name
						}
						if pf.IsVerify(p.id, f.form) {
							verify[f.form] = true
							if !f.marked {
								t.Errorf("%s: %s emits `%s`, which the table marks verify, without its mark", p.id, a.Path, f.form)
							}
						}
					}
				}
				// RF117 counts, from the model alone, the verify forms each
				// platform's artifacts carry: it must name exactly these.
				if p.platform != "" && rel == d.Release {
					got := lint.VerifyForms([]*ir.Device{d})[p.id]
					if want := slices.Sorted(maps.Keys(verify)); !slices.Equal(got, want) {
						t.Errorf("%s: %s: RF117 counts verify forms %q, the artifact carries %q", p.id, d.Name, got, want)
					}
				}
			}
		}
		sourced := 0
		for _, f := range slices.Sorted(maps.Keys(emitted)) {
			row, ok := pf.LookupStatement(p.id, f)
			switch {
			case !ok:
				t.Errorf("%s: %s emits `%s`, which the statement table does not list", p.id, emitted[f], f)
			case row.Status == pf.Sourced:
				sourced++
			}
		}
		t.Logf("%s: %d statement forms emitted, %d sourced, %d verify", p.id, len(emitted), sourced, len(emitted)-sourced)
		if os.Getenv("ROCEFAB_FORMS") != "" {
			for _, f := range slices.Sorted(maps.Keys(emitted)) {
				t.Logf("%s\t%s", p.id, f)
			}
		}
	}
}

// cliForms turns a CLI configuration (EOS, NX-OS) into its statement
// forms, each with whether its verify mark is there.
func cliForms(b []byte) ([]form, error) {
	lines := strings.Split(string(b), "\n")
	var out []form
	for i, l := range lines {
		if f, ok := renderers.CLIForm(l); ok {
			out = append(out, form{f, renderers.VerifyMarked(lines, i, f)})
		}
	}
	return out, nil
}

// nvueForms turns an NVUE document into its forms: the key path of every
// leaf and empty mapping with its value. A form is marked when the line
// above its key is its "# verify:" comment.
func nvueForms(b []byte) ([]form, error) {
	var doc []map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	text := string(b)
	var out []form
	var walk func(path []string, v any)
	walk = func(path []string, v any) {
		if m, ok := v.(map[string]any); ok && len(m) > 0 {
			for k, c := range m {
				walk(append(slices.Clone(path), k), c)
			}
			return
		}
		_, isMap := v.(map[string]any)
		f := renderers.NVUEForm(path, fmt.Sprint(v), isMap)
		out = append(out, form{f, strings.Contains(text, "# "+renderers.VerifyMark(f)+"\n")})
	}
	for _, item := range doc {
		for k, v := range item {
			walk([]string{k}, v)
		}
	}
	return out, nil
}

// jsonForms turns an RFC 7951 document into the schema paths of its leaves,
// list entries written as []. OpenConfig has no comments: every row of it is
// sourced by the YANG model.
func jsonForms(b []byte) ([]form, error) {
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	var out []form
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				walk(path+"/"+k, c)
			}
		case []any:
			for _, c := range v {
				if _, ok := c.(map[string]any); ok {
					walk(path+"[]", c)
				} else {
					out = append(out, form{form: path})
				}
			}
		default:
			out = append(out, form{form: path})
		}
	}
	walk("", doc)
	return out, nil
}

// TestCLIPortSpeeds: for each EOS and NX-OS model of the catalog, each
// speed a tier of it can run and each NIC speed at or below it, every used
// port of every rendered switch comes up at its link's speed: on EOS a
// port carries a speed statement wherever its speed is not its whole
// cage's default; on NX-OS a split port's cage is broken out by a map of
// the port's speed, and no unsplit port runs below its cage's speed. Or
// lint refuses the fabric with an RF117 error.
func TestCLIPortSpeeds(t *testing.T) {
	for _, model := range pf.SwitchModels() {
		sw, _ := pf.LookupSwitch(model)
		for _, platform := range []string{ir.PlatformEOS, ir.PlatformNXOS} {
			if !slices.Contains(sw.Platforms, platform) {
				continue
			}
			for _, s := range rendertest.LinkSpeeds(sw.Ports) {
				what := fmt.Sprintf("%s %s, tier %dG, NIC %dG", platform, model, s.Tier, s.NIC)
				f, ds := linttest.CompileSource(t, fmt.Sprintf(`name: "p"
topology: {servers: 8, rails: 1, nic: {speed: "%dG", cable: "3m"},
	leaf: {platform: %q, model: %q, downlinks: 8, uplinks: 8, speed: "%dG"}}
`, s.NIC, platform, model, s.Tier))
				if f == nil || ds.HasErrors() {
					if !slices.ContainsFunc(ds, func(d diag.Diagnostic) bool { return d.Rule == "RF117" && d.Severity == diag.Error }) {
						t.Errorf("%s: refused, but not by RF117: %v", what, ds)
					}
					continue
				}
				for _, d := range f.Switches() {
					if d.Platform != platform {
						continue
					}
					switch platform {
					case ir.PlatformEOS:
						checkEOSSpeeds(t, what, d, sw.MaxPortGbps())
					case ir.PlatformNXOS:
						checkNXOSBreakouts(t, what, d, sw.MaxPortGbps())
					}
				}
			}
		}
	}
}

// TestNXOSECNKbytes: the ECN thresholds an NX-OS switch is written with are
// the ones the compiler derives and explain prints (Switch.Derived,
// ecn-min[class] and ecn-max[class]), including thresholds below 2 KiB,
// where the kbyte grid moves them, and lint's RF117 warning names the same
// kbytes exactly where the grid moved them.
func TestNXOSECNKbytes(t *testing.T) {
	line := regexp.MustCompile(`(?m)^ +random-detect minimum-threshold (\d+) kbytes maximum-threshold (\d+) kbytes `)
	for _, c := range []struct {
		min, max string
		lo, hi   int64 // kbytes
		moved    bool  // RF117 reports it
	}{
		{"100KB", "300KB", 97, 292, false},
		{"150KB", "1500KB", 146, 1464, false},
		{"1000B", "1500B", 1, 2, true},  // under the grid: max raised to 2 kbytes
		{"2000B", "2100B", 1, 2, false}, // rounded down only
		{"2100B", "3000B", 1, 2, true},  // one kbyte after rounding: min lowered
	} {
		what := fmt.Sprintf("ECN %s..%s", c.min, c.max)
		f, ds := linttest.CompileSource(t, fmt.Sprintf(`name: "k"
topology: {servers: 8, rails: 1, nic: {speed: "400G", cable: "3m"},
	leaf: {platform: "nxos", model: "N9364D-GX2A", downlinks: 8, uplinks: 8, speed: "400G"}}
classes: {
	roce: {priority: 3, dscp: [26], lossless: true, bandwidth: 50, ecn: {min: %q, max: %q, probability: 20}}
	cnp: {priority: 6, dscp: [48], cnp: true, strict: true}
	bulk: {priority: 0, default: true, bandwidth: 50}
}
`, c.min, c.max))
		if f == nil || ds.HasErrors() {
			t.Fatalf("%s: not compiled: %v", what, ds)
		}
		n := 0
		for _, d := range f.Switches() {
			if d.Platform != ir.PlatformNXOS {
				continue
			}
			n++
			lo, okLo := d.Switch.Programmed(ir.ECNField("min", "roce"))
			hi, okHi := d.Switch.Programmed(ir.ECNField("max", "roce"))
			if !okLo || !okHi || lo != c.lo*1024 || hi != c.hi*1024 {
				t.Errorf("%s: %s derives %d..%d B (%v %v), want %d..%d kbytes", what, d.Name, lo, hi, okLo, okHi, c.lo, c.hi)
			}
			m := line.FindAllStringSubmatch(renderText(t, what, nxos.Renderer{}, d), -1)
			if len(m) != 1 {
				t.Fatalf("%s: %s has %d random-detect lines, want 1", what, d.Name, len(m))
			}
			if m[0][1] != strconv.FormatInt(lo/1024, 10) || m[0][2] != strconv.FormatInt(hi/1024, 10) {
				t.Errorf("%s: %s is written with %s..%s kbytes, explain derives %d..%d B", what, d.Name, m[0][1], m[0][2], lo, hi)
			}
		}
		if n == 0 {
			t.Fatalf("%s: no NX-OS switch", what)
		}
		lint := fmt.Sprintf("written as %d..%d kbytes (%d..%d B)", c.lo, c.hi, c.lo*1024, c.hi*1024)
		found := slices.ContainsFunc(ds, func(d diag.Diagnostic) bool {
			return d.Rule == "RF117" && strings.Contains(d.Message, "kbyte grid") && strings.Contains(d.Message, lint)
		})
		other := slices.ContainsFunc(ds, func(d diag.Diagnostic) bool { return strings.Contains(d.Message, "kbyte grid") })
		if found != c.moved || (other && !found) {
			t.Errorf("%s: lint reports %q: %v (any kbyte finding: %v), want %v:\n%v", what, lint, found, other, c.moved, ds)
		}
	}
}

// renderText renders d with r and returns its one artifact's text.
func renderText(t *testing.T, what string, r renderers.Renderer, d *ir.Device) string {
	t.Helper()
	arts, err := r.Render(d)
	if err != nil || len(arts) != 1 {
		t.Fatalf("%s: %s: %d artifacts, %v", what, d.Name, len(arts), err)
	}
	return string(arts[0].Content)
}

// interfaceBlock returns the lines of interface name's block in cfg.
func interfaceBlock(cfg, name string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(cfg, "\n") {
		switch {
		case l == "interface "+name:
			in = true
		case in && strings.HasPrefix(l, " "):
			out = append(out, strings.TrimSpace(l))
		case in:
			return out
		}
	}
	return out
}

var eosPortRE = regexp.MustCompile(`^Ethernet([0-9]+)/([1-8])$`)

func checkEOSSpeeds(t *testing.T, what string, d *ir.Device, cage int) {
	t.Helper()
	cfg := renderText(t, what, eos.Renderer{}, d)
	split := map[string]bool{}
	for _, p := range d.Switch.Ports {
		if m := eosPortRE.FindStringSubmatch(p.Name); m != nil && m[2] != "1" {
			split[m[1]] = true
		}
	}
	for _, p := range d.Switch.Ports {
		m := eosPortRE.FindStringSubmatch(p.Name)
		if m == nil {
			t.Errorf("%s: %s port %s is no EOS front-panel name", what, d.Name, p.Name)
			continue
		}
		var speed string
		for _, l := range interfaceBlock(cfg, p.Name) {
			if s, ok := strings.CutPrefix(l, "speed "); ok {
				speed = s
			}
		}
		differs := split[m[1]] || p.SpeedGbps != cage
		switch {
		case differs && !strings.HasPrefix(speed, fmt.Sprintf("%dg-", p.SpeedGbps)):
			t.Errorf("%s: %s %s runs %dG on a %dG cage, speed %q", what, d.Name, p.Name, p.SpeedGbps, cage, speed)
		case !differs && speed != "":
			t.Errorf("%s: %s %s runs its whole cage's %dG, but has speed %q", what, d.Name, p.Name, cage, speed)
		}
	}
}

var nxosPortRE = regexp.MustCompile(`^Ethernet1/([0-9]+)(/[0-9]+)?$`)

func checkNXOSBreakouts(t *testing.T, what string, d *ir.Device, cage int) {
	t.Helper()
	cfg := renderText(t, what, nxos.Renderer{}, d)
	lines := strings.Split(cfg, "\n")
	for _, p := range d.Switch.Ports {
		m := nxosPortRE.FindStringSubmatch(p.Name)
		switch {
		case m == nil:
			t.Errorf("%s: %s port %s is no NX-OS front-panel name", what, d.Name, p.Name)
		case m[2] == "" && p.SpeedGbps != cage:
			t.Errorf("%s: %s %s runs %dG on a whole %dG cage, not broken out", what, d.Name, p.Name, p.SpeedGbps, cage)
		case m[2] != "":
			want := fmt.Sprintf("interface breakout module 1 port %s map %dg-%dx", m[1], p.SpeedGbps, cage/p.SpeedGbps)
			if !slices.Contains(lines, want) {
				t.Errorf("%s: %s %s: no %q", what, d.Name, p.Name, want)
			}
		}
	}
}
