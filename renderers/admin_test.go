package renderers_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/eos"
	"github.com/rocefab/rocefab/renderers/nvue"
	"github.com/rocefab/rocefab/renderers/nxos"
	"github.com/rocefab/rocefab/renderers/openconfig"
	"github.com/rocefab/rocefab/renderers/sonic"
)

// adminPlatform is a platform that sets a port's
// administrative state and applies the remediation to its files.
type adminPlatform interface {
	renderers.Platform
	renderers.PortAdmin
	renderers.Applier
	renderers.ScopeChecker
}

// firstSwitch returns the first switch of platform in examples/<example>,
// which it compiles once for all the calls that share compiled: two
// platforms' cases read one example.
func firstSwitch(t *testing.T, compiled map[string]*ir.Fabric, example, platform string) *ir.Device {
	t.Helper()
	if compiled[example] == nil {
		f, err := compiler.Load(filepath.Join("..", "examples", example), compiler.FrontOptions{})
		if err != nil || f.Fabric == nil {
			t.Fatalf("compiling %s: %v", example, err)
		}
		compiled[example] = f.Fabric
	}
	for _, d := range compiled[example].Devices {
		if d.Switch != nil && d.Platform == platform {
			return d
		}
	}
	t.Fatalf("%s has no %s switch", example, platform)
	return nil
}

// TestPortAdmin shuts a port of a switch of each platform in its rendered
// files and brings it back: the state reads down then up, the shut
// changes nothing of the owned scope but the port's administrative state
// where the owned scope has it, the release changes the one line of that
// state, a device plan carrying the shut is refused by the platform's
// scope check where the owned scope has no administrative state (EOS,
// NVUE), and a port the switch does not have is refused.
func TestPortAdmin(t *testing.T) {
	compiled := map[string]*ir.Fabric{}
	for _, c := range []struct {
		example, platform string
		r                 renderers.Renderer
		p                 adminPlatform
		owned             bool // the owned scope has the administrative state
	}{
		{"pod-2048", ir.PlatformEOS, eos.Renderer{}, eos.Renderer{}, false},
		{"pod-2048", ir.PlatformEOS, openconfig.Renderer{}, openconfig.Platform{}, false},
		{"multitenant", ir.PlatformNXOS, nxos.Renderer{}, nxos.Renderer{}, true},
		{"multitenant", ir.PlatformNVUE, nvue.Renderer{}, nvue.Renderer{}, false},
		{"mixed-fleet", ir.PlatformSONiC, sonic.Renderer{}, sonic.Renderer{}, true},
	} {
		name := c.platform
		if _, ok := c.p.(openconfig.Platform); ok {
			name = "openconfig"
		}
		t.Run(name, func(t *testing.T) {
			d := firstSwitch(t, compiled, c.example, c.platform)
			port := d.Switch.Ports[len(d.Switch.Ports)-1].Name
			running, err := c.r.Render(d)
			if err != nil {
				t.Fatal(err)
			}
			if st, err := c.p.AdminState(d, running, port); err != nil || st != renderers.AdminUp {
				t.Fatalf("rendered %s: %s, %v; want up", port, st, err)
			}
			down, err := c.p.AdminRemediation(d, port, false)
			if err != nil {
				t.Fatal(err)
			}
			shut, err := c.p.Apply(running, down)
			if err != nil {
				t.Fatalf("applying %q: %v", down.Content, err)
			}
			if st, err := c.p.AdminState(d, shut, port); err != nil || st != renderers.AdminDown {
				t.Fatalf("after the shut %s is %s, %v; want down", port, st, err)
			}
			if n := ownedChanges(t, c.p, d, running, shut); n > 1 || (n == 1) != c.owned {
				t.Errorf("the shut changed %d elements of the owned scope", n)
			}
			if err := c.p.CheckScope(d, down); (err == nil) == !c.owned {
				t.Errorf("CheckScope of the shut in a device plan: %v (owned scope has the admin state: %v)", err, c.owned)
			}
			up, err := c.p.AdminRemediation(d, port, true)
			if err != nil {
				t.Fatal(err)
			}
			back, err := c.p.Apply(shut, up)
			if err != nil {
				t.Fatal(err)
			}
			if st, err := c.p.AdminState(d, back, port); err != nil || st != renderers.AdminUp {
				t.Fatalf("after the release %s is %s, %v; want up", port, st, err)
			}
			if n := changedLines(shut, back); n < 1 || n > 2 {
				t.Errorf("the release changed %d lines of the shut files, want the one line of the port's state", n)
			}
			if _, err := c.p.AdminRemediation(d, "Management1", false); err == nil {
				t.Error("a port the model does not give the switch was taken")
			}
		})
	}
}

// ownedChanges is how many elements of the owned scope differ between
// the states p parses from a and b.
func ownedChanges(t *testing.T, p renderers.Platform, d *ir.Device, a, b []renderers.Artifact) int {
	t.Helper()
	sa, err := p.Parse(d, a)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := p.Parse(d, b)
	if err != nil {
		t.Fatal(err)
	}
	return len(renderers.DiffElements(sa.Elements(), sb.Elements(), nil))
}

// changedLines counts the lines of b's files that a's do not have at the
// same place, and the other way round.
func changedLines(a, b []renderers.Artifact) int {
	n := 0
	for i := range max(len(a), len(b)) {
		var x, y []byte
		if i < len(a) {
			x = a[i].Content
		}
		if i < len(b) {
			y = b[i].Content
		}
		if bytes.Equal(x, y) {
			continue
		}
		have := map[string]int{}
		for _, l := range strings.Split(string(x), "\n") {
			have[l]++
		}
		for _, l := range strings.Split(string(y), "\n") {
			if have[l] > 0 {
				have[l]--
				continue
			}
			n++
		}
		for _, c := range have {
			n += c
		}
	}
	return n
}
