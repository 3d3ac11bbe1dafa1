package rendertest_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/lint/linttest"
	pf "github.com/rocefab/rocefab/compiler/platforms"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/eos"
	"github.com/rocefab/rocefab/renderers/nxos"
	"github.com/rocefab/rocefab/schema"
)

// TestCLIPortSpeeds: for each EOS and NX-OS model of the catalog, each
// speed a tier of it can run and each NIC speed at or below it, every used
// port of every rendered switch comes up at its link's speed: on EOS a
// port carries a speed statement wherever its speed is not its whole
// cage's default; on NX-OS a split port's cage is broken out by a map of
// the port's speed, and no unsplit port runs below its cage's speed. Or
// lint refuses the fabric with an RF117 error.
func TestCLIPortSpeeds(t *testing.T) {
	speeds := []int{100, 200, 400, 800}
	for _, model := range pf.SwitchModels() {
		sw, _ := pf.LookupSwitch(model)
		for _, platform := range []string{ir.PlatformEOS, ir.PlatformNXOS} {
			if !slices.Contains(sw.Platforms, platform) {
				continue
			}
			for _, tier := range speeds {
				if sw.Ports[schema.FormatSpeed(tier)] == 0 {
					continue
				}
				for _, nic := range speeds[:slices.Index(speeds, tier)+1] {
					what := fmt.Sprintf("%s %s, tier %dG, NIC %dG", platform, model, tier, nic)
					f, ds := linttest.CompileSource(t, fmt.Sprintf(`name: "p"
topology: {servers: 8, rails: 1, nic: {speed: "%dG", cable: "3m"},
	leaf: {platform: %q, model: %q, downlinks: 8, uplinks: 8, speed: "%dG"}}
`, nic, platform, model, tier))
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
