// Package irtest builds small compiled fabrics by hand for renderer and
// lint tests, so that those tests do not depend on the compiler.
package irtest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	catalog "github.com/rocefab/rocefab/compiler/platforms"
)

// Device returns the test fabric's device name, failing t when the
// fabric has none: the device a renderer's tests start from.
func Device(t testing.TB, name string) *ir.Device {
	t.Helper()
	d := Fabric().Device(name)
	if d == nil {
		t.Fatalf("test fabric has no %s", name)
	}
	return d
}

// WithSwitch returns a copy of d whose switch, itself a copy, edit
// changed, so that a test derives a device from the fabric's without
// changing it. What the switch points to (QoS, buffers, the ports'
// backing array) is shared until edit replaces it.
func WithSwitch(d *ir.Device, edit func(sw *ir.Switch)) *ir.Device {
	c := *d
	sw := *c.Switch
	edit(&sw)
	c.Switch = &sw
	return &c
}

// HalfECN returns d as an older intent had it, the drift a plan corrects:
// its ECN minimum thresholds halved, and the kbytes NX-OS is written with
// (the compiler's ecn-min[class] derivations) halved with them.
func HalfECN(d *ir.Device) *ir.Device {
	return WithSwitch(d, func(s *ir.Switch) {
		q := *s.QoS
		q.Queues = slices.Clone(q.Queues)
		for i, qu := range q.Queues {
			if qu.ECN != nil {
				e := *qu.ECN
				e.MinBytes /= 2
				q.Queues[i].ECN = &e
			}
		}
		s.QoS = &q
		s.Derived = slices.Clone(s.Derived)
		for i, x := range s.Derived {
			if strings.HasPrefix(x.Field, "ecn-min[") {
				s.Derived[i].Value = max(x.Value/2/1024, 1) * 1024
			}
		}
	})
}

// EOSLeaf returns the fabric's EOS leaf with n host ports instead of its
// own, at 400G on 3 m cables to gpu-0001 and on, for tests of a full
// switch's size.
func EOSLeaf(n int) *ir.Device {
	return WithSwitch(Fabric().Device("leaf-eos"), func(s *ir.Switch) {
		s.Ports = nil
		for i := 1; i <= n; i++ {
			s.Ports = append(s.Ports, ir.Port{Name: PortName(ir.PlatformEOS, i), SpeedGbps: 400, CableM: 3,
				Peer: fmt.Sprintf("gpu-%04d", i), PeerPort: "eth2", Facing: ir.RoleHost})
		}
	})
}

// Fabric returns a small rail-optimized fabric with the classes of the
// reference intent (examples/pod-2048): roce (DSCP 26, priority 3, lossless,
// ECN 150 KB to 1.5 MB at 20 %, 50 %), cnp (DSCP 48, priority 6, strict),
// storage (DSCP 10 and 18, priority 1, 30 %, shaped to 50 Gbit/s on eth0)
// and bulk (priority 0, default, 20 %). It has one leaf per switch platform
// (leaf-eos, leaf-nvue, leaf-sonic, leaf-nxos, rail 0 to 3), one spine
// (nvue), and two servers (gpu-0000, gpu-0001) with four NICs each, NIC i on
// rail i's leaf.
func Fabric() *ir.Fabric {
	pos := func(line int) diag.Pos { return diag.Pos{File: "fabric.cue", Line: line, Column: 2} }
	roce := &ir.Class{Name: "roce", Priority: 3, DSCP: []int{26}, Lossless: true, Bandwidth: 50,
		ECN: &ir.ECN{MinBytes: 150_000, MaxBytes: 1_500_000, Probability: 20, Pos: pos(17)}, Pos: pos(16)}
	cnp := &ir.Class{Name: "cnp", Priority: 6, DSCP: []int{48}, CNP: true, Strict: true, Pos: pos(18)}
	storage := &ir.Class{Name: "storage", Priority: 1, DSCP: []int{10, 18}, Bandwidth: 30, Pos: pos(19)}
	bulk := &ir.Class{Name: "bulk", Priority: 0, Default: true, Bandwidth: 20, Pos: pos(20)}
	classes := []*ir.Class{bulk, storage, roce, cnp}

	qos := &ir.QoS{PFC: []int{3}, CNP: cnp, DefaultClass: bulk,
		Watchdog: ir.Watchdog{Enabled: true, DetectMs: 200, RestoreMs: 400, Action: "drop", Pos: pos(28)}}
	for i := range qos.DSCPToTC {
		qos.DSCPToTC[i] = 0
	}
	for _, c := range classes {
		for _, d := range c.DSCP {
			qos.DSCPToTC[d] = c.Priority
		}
	}
	for tc := range 8 {
		qos.TCToQueue[tc] = tc
	}
	qos.TCToPG[3] = 3
	for _, c := range classes {
		q := ir.Queue{ID: c.Priority, Class: c, Strict: c.Strict, Weight: c.Bandwidth, Lossless: c.Lossless}
		if c.ECN != nil {
			e := *c.ECN
			q.ECN = &e
		}
		qos.Queues = append(qos.Queues, q)
	}

	hr := func(speed int, cable float64, xoff int64) *ir.Headroom {
		return &ir.Headroom{Name: fmt.Sprintf("%dG-%gm", speed, cable), SpeedGbps: speed, CableM: cable,
			Xoff: xoff, Xon: 18432, Size: xoff + 18432, Required: xoff + 18432, Pos: pos(25),
			Derived: []ir.Derivation{{Field: "xoff", Value: xoff, Unit: "B", Formula: "xoff = ...",
				Inputs: []ir.Input{{Name: "S", Value: fmt.Sprintf("%d Gbit/s", speed)}, {Name: "L", Value: fmt.Sprintf("%g m", cable)}}}}}
	}
	host3m := hr(400, 3, 159744)
	fab30m := hr(400, 30, 187392)
	buffers := &ir.BufferPlan{Model: "test-64", ASIC: "test", TotalBytes: 165_000_000, CellBytes: 254, Ports: 8,
		ReserveName: "roce", ReservePercent: 30, Reserves: []ir.Reserve{{Class: "roce", Percent: 30, Lossless: true}}, LosslessBytes: 49_500_000, HeadroomBytes: 4*(159744+18432) + 4*(187392+18432),
		XoffPoint: 24_750_000, Pos: pos(24)}
	buffers.LossyBytes = buffers.TotalBytes - buffers.LosslessBytes - buffers.HeadroomBytes
	buffers.PoolBytes = buffers.LosslessBytes
	// EOS and NX-OS hold no share of the buffer for one class: their
	// leaves get the plan the compiler makes there, the reserve unheld and
	// the lossless priority groups on the shared pool.
	shared := *buffers
	shared.Reserves, shared.ReserveName, shared.ReservePercent, shared.LosslessBytes = nil, "", 0, 0
	shared.Shared, shared.Unheld, shared.UnheldName, shared.UnheldPercent, shared.UnheldBytes = true, buffers.Reserves, "roce", 30, 49_500_000
	shared.LossyBytes = shared.TotalBytes - shared.HeadroomBytes
	shared.PoolBytes = shared.LossyBytes

	f := &ir.Fabric{Name: "irtest", Classes: classes,
		Topology: ir.Topology{Style: "rail-optimized", Tiers: 2, Servers: 2, Rails: 4,
			Oversubscription: map[string]float64{"leaf": 1}, Pos: pos(4)},
		MTU: ir.MTU{Switch: 9216, Host: 4200, RoCE: 4096, Pos: pos(13)}}

	platforms := []string{ir.PlatformEOS, ir.PlatformNVUE, ir.PlatformSONiC, ir.PlatformNXOS}
	down := func(p string, i int) string { return PortName(p, i) }
	spine := &ir.Device{Name: "spine-00", Role: ir.RoleSpine, Platform: ir.PlatformNVUE, Model: "SN5600", Rail: -1, Pod: -1,
		Switch: &ir.Switch{MTU: 9216, QoS: qos, Buffers: buffers, Headrooms: []*ir.Headroom{fab30m}, LoadBalancing: "adaptive"}, Pos: pos(10)}
	hostProfile := &ir.HostProfile{NICModel: "connectx-7", Tool: "mlnx_qos", Trust: "dscp", CableM: 3, MTU: 4200,
		ECNPriorities: []int{3}, DCQCN: ir.DCQCN{Enabled: true, Pos: pos(33)}, CNPDSCP: 48, CNPPriority: 6, RoCETOS: 104,
		Shaping: []ir.Shape{{Class: storage, Interface: "eth0", RateBits: 50_000_000_000, Pos: pos(34)}}, Pos: pos(31)}
	hostProfile.DSCPToPrio = qos.DSCPToTC
	for tc := range 8 {
		hostProfile.PrioToTC[tc] = tc
		hostProfile.TSA[tc] = "ets"
	}
	hostProfile.PFC[3] = true
	hostProfile.TSA[6] = "strict"
	hostProfile.ETS[0], hostProfile.ETS[1], hostProfile.ETS[3] = 20, 30, 50

	var hosts []*ir.Device
	for s := range 2 {
		hosts = append(hosts, &ir.Device{Name: fmt.Sprintf("gpu-%04d", s), Role: ir.RoleHost, Platform: ir.PlatformLinux,
			Model: "connectx-7", Rail: -1, Pod: -1, Host: &ir.Host{Profile: hostProfile}, Pos: pos(5)})
	}
	var leaves []*ir.Device
	for r, p := range platforms {
		plan := buffers
		if p == ir.PlatformEOS || p == ir.PlatformNXOS {
			plan = &shared
		}
		leaf := &ir.Device{Name: "leaf-" + p, Role: ir.RoleLeaf, Platform: p, Model: "test-64", Rail: r, Pod: -1,
			Switch: &ir.Switch{MTU: 9216, QoS: qos, Buffers: plan, Headrooms: []*ir.Headroom{host3m, fab30m}, LoadBalancing: "adaptive"},
			Pos:    pos(9)}
		if p == ir.PlatformNXOS {
			// roce's thresholds in the whole kbytes the compiler derives
			// for NX-OS (physics.InWholeKbytes): 146 and 1464 kbytes.
			leaf.Switch.Derived = []ir.Derivation{
				{Field: ir.ECNField("min", "roce"), Value: 146 * 1024, Unit: "B", Formula: "threshold = ..."},
				{Field: ir.ECNField("max", "roce"), Value: 1464 * 1024, Unit: "B", Formula: "threshold = ..."},
			}
		}
		for s, h := range hosts {
			nic := ir.NIC{Port: fmt.Sprintf("eth%d", r+2), HCA: fmt.Sprintf("mlx5_%d", r), Rail: r, SpeedGbps: 400, CableM: 3,
				Peer: leaf.Name, PeerPort: down(p, s+1)}
			h.Host.NICs = append(h.Host.NICs, nic)
			leaf.Switch.Ports = append(leaf.Switch.Ports, ir.Port{Name: down(p, s+1), SpeedGbps: 400, CableM: 3,
				Peer: h.Name, PeerPort: nic.Port, Facing: ir.RoleHost, Headroom: host3m})
			f.Links = append(f.Links, &ir.Link{A: ir.Endpoint{Device: h.Name, Port: nic.Port},
				B: ir.Endpoint{Device: leaf.Name, Port: down(p, s+1)}, SpeedGbps: 400, CableM: 3})
		}
		up := PortName(p, 33)
		sp := PortName(ir.PlatformNVUE, r+1)
		leaf.Switch.Ports = append(leaf.Switch.Ports, ir.Port{Name: up, SpeedGbps: 400, CableM: 30,
			Peer: spine.Name, PeerPort: sp, Facing: ir.RoleSpine, Headroom: fab30m})
		spine.Switch.Ports = append(spine.Switch.Ports, ir.Port{Name: sp, SpeedGbps: 400, CableM: 30,
			Peer: leaf.Name, PeerPort: up, Facing: ir.RoleLeaf, Headroom: fab30m})
		f.Links = append(f.Links, &ir.Link{A: ir.Endpoint{Device: leaf.Name, Port: up},
			B: ir.Endpoint{Device: spine.Name, Port: sp}, SpeedGbps: 400, CableM: 30})
		leaves = append(leaves, leaf)
	}
	f.Devices = append(append([]*ir.Device{spine}, leaves...), hosts...)
	ir.SortDevices(f.Devices)
	f.Index()
	for _, d := range f.Devices {
		Retarget(d, d.Platform, d.Model)
	}
	trainEnv := []ir.EnvVar{{Name: "NCCL_IB_GID_INDEX", Value: "3"}, {Name: "NCCL_IB_HCA", Value: "mlx5_0,mlx5_1,mlx5_2,mlx5_3"},
		{Name: "NCCL_IB_TC", Value: "104"}, {Name: "NCCL_IB_TIMEOUT", Value: "22"}}
	f.Tenants = []*ir.Tenant{{Name: "train", Class: roce, Servers: []string{"gpu-0000", "gpu-0001"}, Env: trainEnv,
		TrafficClass: 104, Pos: pos(40)}}
	return f
}

// Retarget makes a hand-built device one of platform and model, with the
// catalog's facts for them as the compiler attaches them: the platform's
// verify forms and, for a switch, the model's cage speed (0 for a model
// the catalog does not know, such as the test fabric's "test-64").
func Retarget(d *ir.Device, platform, model string) {
	d.Platform, d.Model = platform, model
	d.Verify = catalog.VerifyForms(platform)
	if d.Switch != nil {
		d.Switch.CageGbps = 0
		if sw, ok := catalog.LookupSwitch(model); ok {
			d.Switch.CageGbps = sw.MaxPortGbps()
		}
	}
}

// PortName is the n-th (from 1) front-panel port in a platform's own
// naming, as the compiler names unbroken ports.
func PortName(platform string, n int) string {
	switch platform {
	case ir.PlatformEOS:
		return fmt.Sprintf("Ethernet%d/1", n)
	case ir.PlatformNVUE:
		return fmt.Sprintf("swp%d", n)
	case ir.PlatformSONiC:
		return fmt.Sprintf("Ethernet%d", (n-1)*8)
	case ir.PlatformNXOS:
		return fmt.Sprintf("Ethernet1/%d", n)
	}
	return fmt.Sprintf("eth%d", n)
}

// VendorCC is one NIC driver with its own congestion-control interface,
// as the compiler fills HostProfile.CCKnobs for Fabric's classes: the
// driver, the kernel's name of its first RDMA device, the directory of the
// knobs below the device's configfs group, and the knobs.
type VendorCC struct {
	Driver, HCA, Sub string
	Knobs            []ir.CCKnob
}

// VendorCCs are the drivers the host runtime configures beyond mlx5:
// bnxt_re (DCQCN-P on, RoCE DSCP 26 and CNP DSCP 48 in its hex) and irdma
// (DCQCN on).
func VendorCCs() []VendorCC {
	b := func(name, v string) ir.CCKnob { return ir.CCKnob{Driver: "bnxt_re", Name: name, Value: v} }
	return []VendorCC{
		{"bnxt_re", "bnxt_re", "ports/1/cc", []ir.CCKnob{b("ecn_enable", "0x1"), b("cc_mode", "0x1"), b("roce_dscp", "0x1a"), b("cnp_dscp", "0x30")}},
		{"irdma", "irdma", "", []ir.CCKnob{{Driver: "irdma", Name: "roce_dcqcn_enable", Value: "1"}}},
	}
}
