package compiler_test

import (
	"fmt"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/lint/linttest"
)

// expand compiles src without lint, for intents lint rejects.
func expand(t *testing.T, src string) *ir.Fabric {
	t.Helper()
	return linttest.ExpandFiles(t, src, nil)
}

func envOf(t *ir.Tenant, name string) (string, bool) {
	for _, e := range t.Env {
		if e.Name == name {
			return e.Value, true
		}
	}
	return "", false
}

// TestReordering: per-packet balancing (NVUE adaptive routing, NX-OS
// per-packet DLB) reorders the packets of every server behind it, so their
// tenants get NCCL's adaptive-routing mode and the NICs the firmware
// setting; flowlet balancing (EOS DLB, NX-OS flowlet DLB) and ECMP keep
// order and change nothing on the hosts.
func TestReordering(t *testing.T) {
	for _, c := range []struct {
		name, src string
		mode      map[string]string // switch -> balancing mode
		reorders  bool
	}{
		{"nvue adaptive", `name: "a"
topology: {servers: 16, rails: 2}
routing: loadBalancing: "adaptive"
tenants: {a: {class: "roce", servers: "gpu-[0000-0003]"}, b: {class: "roce"}}`,
			map[string]string{"spine-00": "per-packet", "leaf-r0-00": "per-packet"}, true},
		{"eos adaptive is flowlet", `name: "a"
topology: {servers: 16, rails: 2, leaf: {platform: "eos"}}
buffers: congestion: queues: 64 // what EOS's 32 MiB headroom pool holds (RF104)
routing: loadBalancing: "adaptive"
tenants: {a: {class: "roce", servers: "gpu-[0000-0003]"}, b: {class: "roce"}}`,
			map[string]string{"spine-00": "flowlet", "leaf-r0-00": "flowlet"}, false},
		{"nxos spray is per packet", `name: "a"
topology: {servers: 16, rails: 2, leaf: {platform: "nxos"}}
routing: loadBalancing: "spray"
tenants: {a: {class: "roce", servers: "gpu-[0000-0003]"}, b: {class: "roce"}}`,
			map[string]string{"spine-00": "per-packet"}, true},
		{"nxos adaptive is flowlet", `name: "a"
topology: {servers: 16, rails: 2, leaf: {platform: "nxos"}}
routing: loadBalancing: "adaptive"
tenants: {a: {class: "roce", servers: "gpu-[0000-0003]"}, b: {class: "roce"}}`,
			map[string]string{"spine-00": "flowlet"}, false},
		{"sonic keeps ecmp", `name: "a"
topology: {servers: 16, rails: 2, leaf: {platform: "sonic"}}
routing: loadBalancing: "spray"
tenants: {a: {class: "roce", servers: "gpu-[0000-0003]"}, b: {class: "roce"}}`,
			map[string]string{"spine-00": "ecmp"}, false},
		{"one leaf has no ECMP group", `name: "a"
topology: {servers: 4, rails: 1, leaf: {downlinks: 8, uplinks: 0}}
routing: loadBalancing: "adaptive"
hosts: nic: ports: ["eth1"]
hosts: nccl: hca: ["mlx5_0"]
tenants: {a: {class: "roce"}, b: {class: "roce"}}`,
			map[string]string{"leaf-r0-00": "per-packet"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := compile(t, c.src)
			for name, mode := range c.mode {
				d := f.Device(name)
				if d == nil {
					t.Fatalf("no device %s", name)
				}
				if d.Switch.Balancing.Mode != mode {
					t.Errorf("%s: mode %q, want %q", name, d.Switch.Balancing.Mode, mode)
				}
			}
			for _, h := range f.Hosts() {
				if got := h.Host.ReorderedBy != ""; got != c.reorders {
					t.Fatalf("%s: reordered by %q, want reordered %v", h.Name, h.Host.ReorderedBy, c.reorders)
				}
			}
			for _, tn := range f.Tenants {
				v, ok := envOf(tn, ir.NCCLAdaptiveRouting)
				if c.reorders && v != "1" {
					t.Errorf("tenant %s: %s=%q (set %v), want 1", tn.Name, ir.NCCLAdaptiveRouting, v, ok)
				}
				if !c.reorders && ok {
					t.Errorf("tenant %s: %s=%s where no switch reorders", tn.Name, ir.NCCLAdaptiveRouting, v)
				}
			}
			prof := f.Hosts()[0].Host.Profile
			fw := len(prof.NICFirmware) == 1 && prof.NICFirmware[0] == ir.Param{Name: "ROCE_ADAPTIVE_ROUTING_EN", Value: 1}
			if fw != c.reorders {
				t.Errorf("NIC firmware %v, want ROCE_ADAPTIVE_ROUTING_EN=1: %v", prof.NICFirmware, c.reorders)
			}
		})
	}
}

// TestReorderingKeepsIntentEnv: a value the intent gives stands (lint
// judges it), and the environment stays sorted.
func TestReorderingKeepsIntentEnv(t *testing.T) {
	f := expand(t, `name: "a"
topology: {servers: 16, rails: 2}
routing: loadBalancing: "adaptive"
tenants: {a: {class: "roce", nccl: env: NCCL_IB_ADAPTIVE_ROUTING: "0"}, b: {class: "roce"}}`)
	for _, tn := range f.Tenants {
		v, _ := envOf(tn, ir.NCCLAdaptiveRouting)
		want := map[string]string{"a": "0", "b": "1"}[tn.Name]
		if v != want {
			t.Errorf("tenant %s: %s=%q, want %q", tn.Name, ir.NCCLAdaptiveRouting, v, want)
		}
		for i := 1; i < len(tn.Env); i++ {
			if tn.Env[i-1].Name >= tn.Env[i].Name {
				t.Errorf("tenant %s: environment not sorted: %v", tn.Name, tn.Env)
			}
		}
	}
}

// TestReorderingMixedFleetFirmware: under adaptive routing every NIC model
// of a mixed fleet gets its own firmware setting (each model has a profile
// of its own, copied before the fabric's reordering is known): the
// ConnectX-7 and BlueField-3 servers ROCE_ADAPTIVE_ROUTING_EN, the Thor 2
// servers none (RF109 reports them), and each profile one derivation.
func TestReorderingMixedFleetFirmware(t *testing.T) {
	f := expand(t, `name: "a"
topology: {servers: 24, rails: 2}
routing: loadBalancing: "adaptive"
hosts: nic: {
	model: "connectx-7"
	models: {"gpu-[0008-0015]": "bluefield-3", "gpu-[0016-0023]": "thor2"}
}
tenants: a: class: "roce"`)
	want := map[string]string{"connectx-7": "[{ROCE_ADAPTIVE_ROUTING_EN 1}]", "bluefield-3": "[{ROCE_ADAPTIVE_ROUTING_EN 1}]", "thor2": "[]"}
	seen := map[string]bool{}
	for _, h := range f.Hosts() {
		p := h.Host.Profile
		if h.Host.ReorderedBy == "" {
			t.Fatalf("%s is not reordered", h.Name)
		}
		if seen[p.NICModel] {
			continue
		}
		seen[p.NICModel] = true
		if got := fmt.Sprint(p.NICFirmware); got != want[p.NICModel] {
			t.Errorf("%s (%s): NIC firmware %s, want %s", h.Name, p.NICModel, got, want[p.NICModel])
		}
		n := 0
		for _, d := range p.Derived {
			if d.Field == "nccl-adaptive-routing" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s (%s): %d nccl-adaptive-routing derivations, want 1", h.Name, p.NICModel, n)
		}
	}
	if len(seen) != len(want) {
		t.Errorf("profiles of %v, want one per model of %v", seen, want)
	}
}
