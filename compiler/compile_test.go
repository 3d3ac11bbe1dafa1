package compiler_test

import (
	"reflect"
	"testing"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/lint/linttest"
	"github.com/rocefab/rocefab/schema"
)

// load writes src as an intent and loads it, which must succeed.
func load(t *testing.T, src string) *schema.Intent { return linttest.LoadSource(t, src) }

func compile(t *testing.T, src string) *ir.Fabric {
	t.Helper()
	return compileFiles(t, src, nil)
}

// compileFiles compiles src with files (name to content) beside it, such
// as an explicit topology's inventory; the compilation must succeed.
func compileFiles(t *testing.T, src string, files map[string]string) *ir.Fabric {
	t.Helper()
	f, ds := compiler.Compile(linttest.LoadFiles(t, src, files))
	if f == nil || ds.HasErrors() {
		t.Fatalf("compile: %v", ds)
	}
	return f
}

// fullPortIntent is a fabric of leaves leaves that use all ports of a
// model at speed, half down to servers on 3 m cables and half up to spines
// of the same model on spineCable, with the default classes and buffers.
func fullPortIntent(plat, model, speed string, ports, leaves int, spineCable string) string {
	return `name: "x"
topology: {servers: ` + itoa(leaves*ports/2) + `, rails: 1, nic: {speed: "` + speed + `", cable: "3m"},
	leaf: {platform: "` + plat + `", model: "` + model + `", downlinks: ` + itoa(ports/2) + `, uplinks: ` + itoa(ports/2) + `, speed: "` + speed + `"},
	spine: {platform: "` + plat + `", model: "` + model + `", speed: "` + speed + `", cable: "` + spineCable + `"}}
hosts: nic: ports: ["eth1"]
hosts: nccl: hca: ["mlx5_0"]`
}

// th5Intent is a one-rail fabric of 7060X6-64PE switches at 400G whose
// servers have one NIC each on nicCable: the leaf tier's fields but its
// model and ports in leaf (platform, release), a downlink a server up to
// half the 64 ports and as many uplinks, the spine tier's platform, model
// and release in spine, on spineCable.
func th5Intent(servers int, nicCable, leaf, spine, spineCable string) string {
	down := itoa(min(servers, 32))
	return `name: "x"
topology: {servers: ` + itoa(servers) + `, rails: 1, nic: {speed: "400G", cable: "` + nicCable + `"},
	leaf: {` + leaf + `, model: "7060X6-64PE", downlinks: ` + down + `, uplinks: ` + down + `, speed: "400G"},
	spine: {` + spine + `, speed: "400G", cable: "` + spineCable + `"}}
hosts: nic: ports: ["eth1"]
hosts: nccl: hca: ["mlx5_0"]`
}

// firstLeaf is f's first leaf, which must exist.
func firstLeaf(t *testing.T, f *ir.Fabric) *ir.Device {
	t.Helper()
	for _, d := range f.Devices {
		if d.Role == ir.RoleLeaf {
			return d
		}
	}
	t.Fatal("the fabric has no leaf")
	return nil
}

func count(f *ir.Fabric) map[ir.Role]int {
	m := map[ir.Role]int{}
	for _, d := range f.Devices {
		m[d.Role]++
	}
	return m
}

func TestTopologyStyles(t *testing.T) {
	for _, c := range []struct {
		name, src string
		roles     map[ir.Role]int
		links     int
		first     []string
	}{
		{"rail-optimized ragged", `name: "r"
topology: {servers: 40, rails: 4, leaf: {platform: "nvue", model: "SN5600", downlinks: 16, uplinks: 16}}
hosts: nic: ports: ["eth1", "eth2", "eth3", "eth4"]
hosts: nccl: hca: ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]`,
			// 40 servers / 16 per leaf = 3 leaves per rail (the last holds 8); 12 leaves x 16 uplinks = 192 -> 2 spines of 128 ports.
			map[ir.Role]int{ir.RoleHost: 40, ir.RoleLeaf: 12, ir.RoleSpine: 2}, 40*4 + 12*16, []string{"spine-00", "spine-01", "leaf-r0-00"}},
		{"clos", `name: "c"
topology: {style: "clos", servers: 32, rails: 2, leaf: {platform: "sonic", model: "DS5000", downlinks: 16, uplinks: 16}}
hosts: nic: ports: ["eth1", "eth2"]
hosts: nccl: hca: ["mlx5_0", "mlx5_1"]`,
			map[ir.Role]int{ir.RoleHost: 32, ir.RoleLeaf: 4, ir.RoleSpine: 1}, 64 + 64, []string{"spine-00", "leaf-00"}},
		{"three tiers", `name: "t"
topology: {servers: 1000, rails: 8, leaf: {platform: "sonic", model: "DS5000", downlinks: 64, uplinks: 64},
	spine: {platform: "nvue", model: "SN5600"}, superspine: {platform: "eos", model: "7060X6-64PE"}}
buffers: congestion: queues: 64 // what EOS's 32 MiB headroom pool holds (RF104)`,
			// pods of 8 leaves per rail = 512 servers -> 2 pods; 16 leaves per rail (last pod ragged);
			// 64 spines per pod; 128 spines x 64 uplinks / 128 ports = 64 superspines.
			map[ir.Role]int{ir.RoleHost: 1000, ir.RoleLeaf: 128, ir.RoleSpine: 128, ir.RoleSuperspine: 64}, 8000 + 128*64 + 128*64, []string{"superspine-00"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := compile(t, c.src)
			if got := count(f); !reflect.DeepEqual(got, c.roles) {
				t.Errorf("roles = %v, want %v", got, c.roles)
			}
			if len(f.Links) != c.links {
				t.Errorf("links = %d, want %d", len(f.Links), c.links)
			}
			for i, n := range c.first {
				if f.Devices[i].Name != n {
					t.Errorf("device %d = %s, want %s", i, f.Devices[i].Name, n)
				}
			}
			// Rail wiring: NIC i of every server on a rail-i leaf.
			for _, d := range f.Hosts() {
				for _, n := range d.Host.NICs {
					leaf := f.Device(n.Peer)
					if leaf == nil || leaf.Role != ir.RoleLeaf || (leaf.Rail >= 0 && leaf.Rail != n.Rail) {
						t.Fatalf("%s:%s goes to %s", d.Name, n.Port, n.Peer)
					}
				}
			}
			// Every link end is a port of its device.
			for _, l := range f.Links {
				for _, e := range []ir.Endpoint{l.A, l.B} {
					d := f.Device(e.Device)
					if d.Switch != nil && d.Switch.Port(e.Port) == nil {
						t.Fatalf("link end %s is not a port", e)
					}
				}
			}
		})
	}
}

func TestOversubscription(t *testing.T) {
	f := compile(t, `name: "o"
topology: {servers: 96, rails: 1, leaf: {platform: "nvue", model: "SN5600", downlinks: 48, uplinks: 16}}
hosts: nic: ports: ["eth1"]
hosts: nccl: hca: ["mlx5_0"]`)
	if r := f.Topology.Oversubscription["leaf"]; r != 3 {
		t.Errorf("leaf oversubscription = %v, want 3", r)
	}
}

func TestHeadroomGrowsWithCable(t *testing.T) {
	f := compile(t, `name: "h"
topology: {servers: 16, rails: 1, leaf: {platform: "nvue", model: "SN5600"}, spine: {cable: "100m"}}
hosts: nic: ports: ["eth1"]
hosts: nccl: hca: ["mlx5_0"]`)
	leaf := f.Device("leaf-r0-00")
	if len(leaf.Switch.Headrooms) != 2 {
		t.Fatalf("headroom classes = %d, want 2 (3 m and 100 m)", len(leaf.Switch.Headrooms))
	}
	short, long := leaf.Switch.Headrooms[0], leaf.Switch.Headrooms[1]
	if short.CableM != 3 || long.CableM != 100 || long.Size <= short.Size {
		t.Errorf("headroom %s = %d, %s = %d: want more for the longer cable", short.Name, short.Size, long.Name, long.Size)
	}
}

func TestDeterministic(t *testing.T) {
	src := `name: "d"
topology: {servers: 64, leaf: {platform: "eos", model: "7060X6-64PE"}}
buffers: congestion: queues: 64 // what EOS's 32 MiB headroom pool holds (RF104)`
	a, b := compile(t, src), compile(t, src)
	if len(a.Devices) != len(b.Devices) {
		t.Fatal("device counts differ")
	}
	for i := range a.Devices {
		if a.Devices[i].Name != b.Devices[i].Name || !reflect.DeepEqual(a.Devices[i].Switch != nil, b.Devices[i].Switch != nil) {
			t.Fatalf("device %d differs", i)
		}
	}
}

func TestExpandRange(t *testing.T) {
	got, err := compiler.ExpandRange("gpu-[0008-0011]")
	if err != nil || !reflect.DeepEqual(got, []string{"gpu-0008", "gpu-0009", "gpu-0010", "gpu-0011"}) {
		t.Errorf("ExpandRange = %v, %v", got, err)
	}
	for _, bad := range []string{"gpu-[5-1]", "gpu-[a-b]", "gpu-[1-2", "x;y", "", "-[0-1]"} {
		if _, err := compiler.ExpandRange(bad); err == nil {
			t.Errorf("ExpandRange(%q) accepted", bad)
		}
	}
}

// BenchmarkCompile measures expansion and derivation at 1k, 10k and 100k
// GPUs (8 rails), to show cost grows linearly.
func BenchmarkCompile(b *testing.B) {
	for _, servers := range []int{128, 1250, 12500} {
		src := `name: "bench"
topology: {servers: ` + itoa(servers) + `, leaf: {platform: "sonic", model: "DS5000", downlinks: 64, uplinks: 64},
	spine: {platform: "nvue", model: "SN5600", cable: "30m"}, superspine: {platform: "eos", model: "7060X6-64PE", cable: "100m"}}`
		in := linttest.LoadSource(b, src)
		b.Run(itoa(servers*8)+"-gpus", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if f, _ := compiler.Compile(in); f == nil {
					b.Fatal("no fabric")
				}
			}
		})
	}
}

func itoa(n int) string {
	s := ""
	for n > 0 || s == "" {
		s = string(rune('0'+n%10)) + s
		n /= 10
	}
	return s
}

func TestECNInCells(t *testing.T) {
	f := compile(t, `name: "cells"
topology: {servers: 16, rails: 1, leaf: {platform: "nvue", model: "SN5600"}}
hosts: nic: ports: ["eth1"]
hosts: nccl: hca: ["mlx5_0"]
classes: {
	roce: {priority: 3, dscp: [26], lossless: true, bandwidth: 50, ecn: {min: "800 cells", max: "8000 cells"}}
	cnp: {priority: 6, dscp: [48], cnp: true, strict: true}
	bulk: {priority: 0, default: true, bandwidth: 50}
}`)
	leaf := f.Device("leaf-r0-00")
	for _, q := range leaf.Switch.QoS.Queues {
		if q.Class.Name == "roce" {
			// SN5600 (Spectrum-4) cells are 192 B.
			if q.ECN.MinBytes != 800*192 || q.ECN.MaxBytes != 8000*192 {
				t.Errorf("ECN = %d/%d B, want %d/%d", q.ECN.MinBytes, q.ECN.MaxBytes, 800*192, 8000*192)
			}
			return
		}
	}
	t.Fatal("no roce queue")
}

// TestHeadroomWithinPublishedSpread compiles 400G and 800G links of 5, 40
// and 300 m on Spectrum-4 and checks each port class's headroom against
// NVIDIA's own table for the SN5600 (sonic-buildimage@086b03bd
// device/mellanox/x86_64-nvidia_sn5600-r0/ACS-SN5600/pg_profile_lookup.ini,
// size per speed and cable) and, at 30 and 100 m between its rows, against
// the first-principles floor of physics.md §1.3, growing with cable length.
func TestHeadroomWithinPublishedSpread(t *testing.T) {
	const kib = 1024
	nvidia := map[[2]int]int64{ // speed, metres -> size, B
		{400, 5}: 250880, {400, 40}: 303104, {400, 300}: 697344,
		{800, 5}: 304128, {800, 40}: 410624, {800, 300}: 1198080,
	}
	floor := map[[2]int]int64{ // speed, metres -> floor, KiB (physics.md §1.3)
		{400, 30}: 84, {400, 100}: 119, {800, 30}: 99, {800, 100}: 167,
	}
	got := map[[2]int]int64{}
	for _, speed := range []string{"400G", "800G"} {
		for _, cable := range []string{"5m", "30m", "40m", "100m", "300m"} {
			f := compile(t, `name: "h"
topology: {servers: 16, rails: 1, nic: {speed: "`+speed+`", cable: "`+cable+`"},
	leaf: {platform: "nvue", model: "SN5600", speed: "`+speed+`", downlinks: 16, uplinks: 16}}
hosts: nic: ports: ["eth1"]
hosts: nccl: hca: ["mlx5_0"]`)
			h := f.Device("leaf-r0-00").Switch.Headrooms[0]
			got[[2]int{h.SpeedGbps, int(h.CableM)}] = h.Size
		}
	}
	for k, want := range nvidia {
		if got[k] != want {
			t.Errorf("%dG %dm: headroom %d B, NVIDIA's table %d B", k[0], k[1], got[k], want)
		}
	}
	for k, f := range floor {
		if got[k] < f*kib {
			t.Errorf("%dG %dm: headroom %d B below the floor %d KiB", k[0], k[1], got[k], f)
		}
	}
	for _, s := range []int{400, 800} {
		for i, l := range []int{5, 30, 40, 100, 300} {
			if i > 0 && got[[2]int{s, l}] <= got[[2]int{s, []int{5, 30, 40, 100, 300}[i-1]}] {
				t.Errorf("%dG: headroom does not grow from %d m to %d m", s, []int{5, 30, 40, 100, 300}[i-1], l)
			}
		}
	}
}
