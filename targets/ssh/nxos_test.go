package ssh_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/nxos"
	"github.com/rocefab/rocefab/targets/ssh/sshtest"
)

// nxosForeign is configuration of an NX-OS switch that rocefab does not
// own.
const nxosForeign = "hostname %s\nfeature bgp\nrouter bgp 65001\n  router-id 10.255.0.9\n  address-family ipv4 unicast\n    maximum-paths 64\n"

// nxosSpines returns the NX-OS spines of examples/multitenant.
func nxosSpines(t testing.TB, n int) []*ir.Device {
	return exampleSwitches(t, "multitenant", ir.PlatformNXOS, n)
}

// halfECN is d as an older intent had it: ECN minimum thresholds halved.
func halfECN(d *ir.Device) *ir.Device { return irtest.HalfECN(d) }

func nxosApply(running []byte, lines string) ([]byte, error) {
	return applyWith(nxos.Renderer{}, nxos.FileName, renderers.Text, running, lines)
}

func nxosPlatform(*ir.Device) (renderers.Platform, error) { return nxos.Renderer{}, nil }

// nxWorld is emulated NX-OS switches running an older intent's
// configuration among foreign lines.
type nxWorld struct {
	*fleet
	dev map[string]*sshtest.NXOS
}

func newNXWorld(t *testing.T, n int) *nxWorld {
	t.Helper()
	w := &nxWorld{dev: map[string]*sshtest.NXOS{}}
	w.fleet = serveFleet(t, nxosSpines(t, n), "admin", nxosPlatform, func(d *ir.Device) sshtest.Shell {
		arts, err := nxos.Renderer{}.Render(halfECN(d))
		if err != nil {
			t.Fatal(err)
		}
		running := append(bytes.Clone(arts[0].Content), []byte(strings.ReplaceAll(nxosForeign, "%s", d.Name))...)
		w.dev[d.Name] = sshtest.NewNXOS(d.Name, running, nxosApply)
		return w.dev[d.Name]
	})
	return w
}

func (w *nxWorld) foreign() map[string]string {
	out := map[string]string{}
	for n, d := range w.dev {
		r := string(d.Running())
		out[n] = r[strings.Index(r, "hostname "):]
	}
	return out
}

// TestNXOSPlanApplyPlan: plan reads NX-OS spines (their `!Time:` line
// does not make two reads differ), apply pushes behind a checkpoint and
// confirms by saving, and a second plan is empty; the foreign lines stay,
// no checkpoint file is left behind.
func TestNXOSPlanApplyPlan(t *testing.T) {
	t.Parallel()
	w := newNXWorld(t, 2)
	foreign := w.foreign()
	p, rep := w.planApplyPlan(t)
	for n, d := range w.dev {
		if f := d.Files(); len(f) != 0 {
			t.Errorf("%s: checkpoint files left: %v", n, f)
		}
		if !bytes.Equal(d.Startup(), d.Running()) {
			t.Errorf("%s: the confirmed change is not saved", n)
		}
		if got := w.foreign()[n]; got != foreign[n] {
			t.Errorf("%s: foreign configuration changed:\n%s", n, got)
		}
	}
	assertNoSecret(t, planJSON(p), reportJSON(rep))
}

// TestNXOSConfirmTimerLapses: a push not confirmed within its timer is
// rolled back by rocefab, and confirming it afterwards fails.
func TestNXOSConfirmTimerLapses(t *testing.T) {
	w := newNXWorld(t, 1)
	d := w.devs[0]
	w.pushLapses(t, d, w.dev[d.Name].Running, w.dev[d.Name].Files)
}
