package placement_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/lint/linttest"
	"github.com/rocefab/rocefab/compiler/placement"
	"github.com/rocefab/rocefab/schema"
)

// expand compiles an intent (and any files beside it) without lint.
func expand(t *testing.T, src string, files map[string]string) *ir.Fabric {
	t.Helper()
	return linttest.ExpandFiles(t, src, files)
}

const (
	railSrc = `name: "r"
topology: {servers: 40, rails: 4, leaf: {platform: "nvue", model: "SN5600", downlinks: 16, uplinks: 16}}
hosts: nic: ports: ["eth1", "eth2", "eth3", "eth4"]
hosts: nccl: hca: ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]`
	// 12 downlinks for 8 NICs a server: every second server straddles two
	// leaves.
	closSrc = `name: "c"
topology: {style: "clos", servers: 6, rails: 8, leaf: {platform: "sonic", model: "DS5000", downlinks: 12, uplinks: 12}}`
	closEvenSrc = `name: "c"
topology: {style: "clos", servers: 10, rails: 8, leaf: {platform: "sonic", model: "DS5000", downlinks: 32, uplinks: 32}}`
	// Groups of 32 servers, pods of two groups: 256 servers in 4 pods.
	threeSrc = `name: "t"
topology: {servers: 256, rails: 4, pod: servers: 64,
	leaf: {platform: "sonic", model: "DS5000", downlinks: 32, uplinks: 32},
	spine: {platform: "nvue", model: "SN5600"}, superspine: {platform: "eos", model: "7060X6-64PE"}}
hosts: nic: ports: ["eth1", "eth2", "eth3", "eth4"]
hosts: nccl: hca: ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]`
)

// checkView holds for every fabric: each wired server is in exactly one
// group, a group's leaves are exactly the switches each of its servers'
// NICs reach, no two groups reach the same leaves, and in three tiers
// every leaf of a group hangs off its pod's spines and no two pods share a
// spine.
func checkView(t *testing.T, fab *ir.Fabric, v *placement.View) {
	t.Helper()
	seen := map[string]bool{}
	keys := map[string]string{}
	for _, g := range v.Groups {
		if !slices.IsSorted(g.Leaves) {
			t.Errorf("%s: leaves not sorted: %v", g.Name, g.Leaves)
		}
		k := fmtList(g.Leaves)
		if other, dup := keys[k]; dup {
			t.Errorf("%s and %s reach the same leaves %s", g.Name, other, k)
		}
		keys[k] = g.Name
		for _, s := range g.Servers {
			if seen[s] {
				t.Errorf("%s is in two groups", s)
			}
			seen[s] = true
			d := fab.Device(s)
			var reach []string
			for _, n := range d.Host.NICs {
				reach = append(reach, n.Peer)
			}
			slices.Sort(reach)
			reach = slices.Compact(reach)
			if !slices.Equal(reach, g.Leaves) {
				t.Errorf("%s in %s reaches %v, the group reaches %v", s, g.Name, reach, g.Leaves)
			}
			pos, ok := v.Position(s)
			if !ok || pos.Group != g || pos.Pod != g.Pod {
				t.Errorf("Position(%s) = %+v, want group %s", s, pos, g.Name)
			}
		}
	}
	for _, h := range fab.Hosts() {
		if !seen[h.Name] && !slices.Contains(v.Unwired, h.Name) {
			t.Errorf("%s is in no group and not unwired", h.Name)
		}
	}
	if v.Servers != len(fab.Hosts()) {
		t.Errorf("Servers = %d, want %d", v.Servers, len(fab.Hosts()))
	}
	spineOf := map[string]string{}
	for _, p := range v.Pods {
		for _, s := range p.Spines {
			if q, dup := spineOf[s]; dup {
				t.Errorf("spine %s in %s and %s", s, q, p.Name)
			}
			spineOf[s] = p.Name
		}
		n := 0
		for _, g := range p.Groups {
			if g.Pod != p {
				t.Errorf("%s lists %s, whose pod is %v", p.Name, g.Name, g.Pod)
			}
			n += len(g.Servers)
			for _, l := range g.Leaves {
				for _, port := range fab.Device(l).Switch.Ports {
					if port.Facing == ir.RoleSpine && spineOf[port.Peer] != p.Name {
						t.Errorf("%s of %s (%s) reaches spine %s outside it", l, g.Name, p.Name, port.Peer)
					}
				}
			}
		}
		if n != p.Servers {
			t.Errorf("%s counts %d servers, its groups hold %d", p.Name, p.Servers, n)
		}
	}
}

func fmtList(s []string) string { b, _ := json.Marshal(s); return string(b) }

type groupWant struct {
	name, servers, leaves, pod string
}

func summary(t *testing.T, v *placement.View) []groupWant {
	t.Helper()
	var out []groupWant
	for _, g := range v.Groups {
		s, err := ir.CompressHostlist(g.Servers)
		if err != nil {
			t.Fatal(err)
		}
		l, err := ir.CompressHostlist(g.Leaves)
		if err != nil {
			t.Fatal(err)
		}
		w := groupWant{name: g.Name, servers: s, leaves: l}
		if g.Pod != nil {
			w.pod = g.Pod.Name
		}
		out = append(out, w)
	}
	return out
}

func TestGroups(t *testing.T) {
	for _, c := range []struct {
		name, src string
		tiers     int
		want      []groupWant
		pods      int
	}{
		{"rail-optimized", railSrc, 2, []groupWant{
			{"leafgroup-00", "gpu-[0000-0015]", "leaf-r0-00,leaf-r1-00,leaf-r2-00,leaf-r3-00", ""},
			{"leafgroup-01", "gpu-[0016-0031]", "leaf-r0-01,leaf-r1-01,leaf-r2-01,leaf-r3-01", ""},
			{"leafgroup-02", "gpu-[0032-0039]", "leaf-r0-02,leaf-r1-02,leaf-r2-02,leaf-r3-02", ""},
		}, 0},
		{"clos straddling", closSrc, 2, []groupWant{
			{"leafgroup-00", "gpu-0000", "leaf-00", ""},
			{"leafgroup-01", "gpu-0001", "leaf-[00-01]", ""},
			{"leafgroup-02", "gpu-0002", "leaf-01", ""},
			{"leafgroup-03", "gpu-0003", "leaf-02", ""},
			{"leafgroup-04", "gpu-0004", "leaf-[02-03]", ""},
			{"leafgroup-05", "gpu-0005", "leaf-03", ""},
		}, 0},
		{"clos", closEvenSrc, 2, []groupWant{
			{"leafgroup-00", "gpu-[0000-0003]", "leaf-00", ""},
			{"leafgroup-01", "gpu-[0004-0007]", "leaf-01", ""},
			{"leafgroup-02", "gpu-[0008-0009]", "leaf-02", ""},
		}, 0},
		{"three tiers", threeSrc, 3, []groupWant{
			{"leafgroup-00", "gpu-[0000-0031]", "leaf-r0-00,leaf-r1-00,leaf-r2-00,leaf-r3-00", "pod-00"},
			{"leafgroup-01", "gpu-[0032-0063]", "leaf-r0-01,leaf-r1-01,leaf-r2-01,leaf-r3-01", "pod-00"},
			{"leafgroup-02", "gpu-[0064-0095]", "leaf-r0-02,leaf-r1-02,leaf-r2-02,leaf-r3-02", "pod-01"},
			{"leafgroup-03", "gpu-[0096-0127]", "leaf-r0-03,leaf-r1-03,leaf-r2-03,leaf-r3-03", "pod-01"},
			{"leafgroup-04", "gpu-[0128-0159]", "leaf-r0-04,leaf-r1-04,leaf-r2-04,leaf-r3-04", "pod-02"},
			{"leafgroup-05", "gpu-[0160-0191]", "leaf-r0-05,leaf-r1-05,leaf-r2-05,leaf-r3-05", "pod-02"},
			{"leafgroup-06", "gpu-[0192-0223]", "leaf-r0-06,leaf-r1-06,leaf-r2-06,leaf-r3-06", "pod-03"},
			{"leafgroup-07", "gpu-[0224-0255]", "leaf-r0-07,leaf-r1-07,leaf-r2-07,leaf-r3-07", "pod-03"},
		}, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			fab := expand(t, c.src, nil)
			v := placement.Of(fab)
			checkView(t, fab, v)
			if got := summary(t, v); !reflect.DeepEqual(got, c.want) {
				t.Errorf("groups:\n got %v\nwant %v", got, c.want)
			}
			if len(v.Pods) != c.pods || v.Tiers != c.tiers {
				t.Errorf("%d pods in %d tiers, want %d in %d", len(v.Pods), v.Tiers, c.pods, c.tiers)
			}
			// Deterministic: a second derivation is the same.
			if again := placement.Of(fab); !reflect.DeepEqual(summary(t, again), summary(t, v)) {
				t.Error("a second derivation differs")
			}
		})
	}
}

// inventory writes a fabric in the explicit topology's format, as build's
// inventory.json does.
func inventory(t *testing.T, fab *ir.Fabric) []byte {
	t.Helper()
	var l schema.DeviceList
	for _, d := range fab.Devices {
		ld := schema.ListedDevice{Name: d.Name, Role: string(d.Role), Platform: d.Platform, Model: d.Model}
		if d.Rail >= 0 {
			ld.Rail = &d.Rail
		}
		if d.Pod >= 0 {
			ld.Pod = &d.Pod
		}
		l.Devices = append(l.Devices, ld)
	}
	for _, k := range fab.Links {
		l.Links = append(l.Links, schema.ListedLink{A: k.A.String(), B: k.B.String(),
			Speed: schema.FormatSpeed(k.SpeedGbps), Cable: schema.FormatLength(k.CableM)})
	}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestExplicitRoundTrip: a three-tier fabric read back from its inventory
// (pod numbers dropped, so they must come from the links) places every
// server where the expansion did.
func TestExplicitRoundTrip(t *testing.T) {
	fab := expand(t, threeSrc, nil)
	var l schema.DeviceList
	if err := json.Unmarshal(inventory(t, fab), &l); err != nil {
		t.Fatal(err)
	}
	for i := range l.Devices {
		l.Devices[i].Pod = nil
	}
	devs, _ := json.Marshal(l)
	back := expand(t, `name: "t"
topology: {style: "explicit", inventory: "devices.json", rails: 4}
hosts: nic: ports: ["eth1", "eth2", "eth3", "eth4"]
hosts: nccl: hca: ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]`, map[string]string{"devices.json": string(devs)})
	v, w := placement.Of(fab), placement.Of(back)
	checkView(t, back, w)
	if !reflect.DeepEqual(summary(t, v), summary(t, w)) {
		t.Errorf("explicit:\n got %v\nwant %v", summary(t, w), summary(t, v))
	}
	if len(w.Pods) != 4 || w.Pods[3].Name != "pod-03" || !reflect.DeepEqual(w.Pods[3].Spines, v.Pods[3].Spines) {
		t.Errorf("pods from the links: %+v", w.Pods)
	}
}

// TestExplicitMiswired: a server with one NIC on another group's leaf is a
// group of its own, and a server without links is unwired.
func TestExplicitMiswired(t *testing.T) {
	devs := linttest.TwoLeafInventory([]string{"n1", "n2", "n3", "n4"},
		"n1:eth2 leaf-a:Ethernet0", "n1:eth3 leaf-a:Ethernet8",
		"n2:eth2 leaf-a:Ethernet16", "n2:eth3 leaf-a:Ethernet24",
		"n3:eth2 leaf-a:Ethernet32", "n3:eth3 leaf-b:Ethernet0")
	fab := expand(t, `name: "x"
topology: {style: "explicit", inventory: "devices.json", rails: 2}
hosts: nic: ports: ["eth2", "eth3"]
hosts: nccl: hca: ["mlx5_0", "mlx5_1"]`, map[string]string{"devices.json": devs})
	v := placement.Of(fab)
	checkView(t, fab, v)
	want := []groupWant{
		{"leafgroup-00", "n[1-2]", "leaf-a", ""},
		{"leafgroup-01", "n3", "leaf-a,leaf-b", ""},
	}
	if got := summary(t, v); !reflect.DeepEqual(got, want) {
		t.Errorf("groups:\n got %v\nwant %v", got, want)
	}
	if !slices.Equal(v.Unwired, []string{"n4"}) {
		t.Errorf("unwired = %v, want [n4]", v.Unwired)
	}
	if p, ok := v.Position("n4"); !ok || p.Group != nil {
		t.Errorf("Position(n4) = %+v, %v", p, ok)
	}
	if _, ok := v.Position("spine-00"); ok {
		t.Error("a switch has a position")
	}
}
