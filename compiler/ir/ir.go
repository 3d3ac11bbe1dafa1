// Package ir is rocefab's per-device model: the expanded fabric with every
// value each device needs, derived once.
//
// The compiler builds it; lint rules read it; renderers turn each [Device]
// into configuration files. It is plain data: no I/O, no CUE. Values that are
// the same on many devices (the QoS policy, a port class's headroom, a host
// NIC profile) are computed once and shared by pointer, which keeps a
// 100,000-GPU fabric small; treat every value reachable from a Fabric as
// read-only.
//
// Every node that came from the intent keeps the position of the intent
// field it came from, so findings on the model point into the user's file.
package ir

import (
	"cmp"
	"slices"

	"github.com/rocefab/rocefab/compiler/diag"
)

// Role is what a device is in the fabric.
type Role string

// The roles, from the servers up.
const (
	RoleHost       Role = "host"
	RoleLeaf       Role = "leaf"
	RoleSpine      Role = "spine"
	RoleSuperspine Role = "superspine"
)

// Rank orders roles from the top tier down, the order devices are listed in.
func (r Role) Rank() int {
	switch r {
	case RoleSuperspine:
		return 0
	case RoleSpine:
		return 1
	case RoleLeaf:
		return 2
	}
	return 3
}

// The platform names of switches and hosts.
const (
	PlatformEOS   = "eos"
	PlatformNVUE  = "nvue"
	PlatformSONiC = "sonic"
	PlatformNXOS  = "nxos"
	PlatformLinux = "linux"
	// PlatformOpenConfig renders every switch besides its native platform;
	// no device is of it.
	PlatformOpenConfig = "openconfig"
)

// Fabric is the whole compiled fabric.
type Fabric struct {
	Name     string
	Topology Topology
	// Classes are the traffic classes, by priority (highest first would
	// hide the default class; lowest first is what every map lists).
	Classes []*Class
	MTU     MTU
	// Devices are ordered by role (superspines first, hosts last), then by
	// name.
	Devices []*Device
	Links   []*Link
	Tenants []*Tenant
	// Buffers is the buffer policy the intent states, which each switch
	// model's BufferPlan holds or, where its platform cannot, leaves
	// unheld.
	Buffers BufferPolicy
	// Watchdog is the PFC watchdog as every switch's QoS carries it, kept
	// here as well for a fabric judged without a switch.
	Watchdog Watchdog
	// LoadBalancing is the fabric's load-balancing mode ("ecmp",
	// "adaptive" or "spray"); each switch's Balancing says what its
	// platform renders for it.
	LoadBalancing string
	// HostProfile is the profile every server shares (Host.Profile), set
	// also when the fabric has no server, since fabric-wide host settings
	// such as DCQCN still decide what the switches need.
	HostProfile *HostProfile
	// Placement is where every server sits (leaf group, pod), derived from
	// the links by the compiler (compiler/placement), which the scheduler
	// files and explain read. Nothing changes it after compilation; a
	// fabric built without the compiler has none.
	Placement *Placement `json:"-"`

	byName map[string]*Device
}

// BufferPolicy is the fabric's buffer policy: what the intent reserves
// and which platform gaps it accepts.
type BufferPolicy struct {
	// Reserves are the reservations by class name, with percentages as
	// stated (0 included), whether or not a platform holds them.
	Reserves []Reserve
	// ReserveStated is set when the intent writes the reserve itself;
	// otherwise Reserves are the default reserve.
	ReserveStated bool
	// AcceptGaps are the platform gaps the intent accepts ("reserve",
	// "priority-group"), which lint then reports as warnings.
	AcceptGaps []string
	Pos        diag.Pos
}

// Accepts reports whether the policy accepts the platform gap.
func (b BufferPolicy) Accepts(gap string) bool { return slices.Contains(b.AcceptGaps, gap) }

// ReservePercent returns the percent reserved for the class, 0 for none.
func (b BufferPolicy) ReservePercent(class string) int {
	for _, r := range b.Reserves {
		if r.Class == class {
			return r.Percent
		}
	}
	return 0
}

// Topology records how the fabric was expanded.
type Topology struct {
	Style   string // "rail-optimized", "clos", "explicit"
	Tiers   int    // 1 (leaves only), 2 or 3
	Servers int
	Rails   int
	Pods    int // 0 below three tiers
	// Oversubscription of each tier boundary as down/up capacity, e.g. 1
	// for 1:1; keyed "leaf" and "spine".
	Oversubscription map[string]float64
	// NICSpeedGbps is the servers' NIC speed the topology states; a NIC
	// whose link gives no speed runs at it. 0 when not stated.
	NICSpeedGbps int
	Pos          diag.Pos
}

// MTU holds the fabric's MTUs.
type MTU struct {
	Switch, Host, RoCE int
	Pos                diag.Pos
}

// Class is one traffic class. Its priority is also its traffic class and
// its egress queue on every device: one number per class end to end is
// what keeps a lossless class lossless on every hop.
type Class struct {
	Name     string
	Priority int
	DSCP     []int // sorted; empty for a default class that lists none
	Lossless bool
	CNP      bool
	Strict   bool
	Default  bool
	// Bandwidth is the ETS share in percent; 0 for strict classes.
	Bandwidth int
	ECN       *ECN // nil when the class does not mark
	// Shape is a host egress limit on this class's traffic, nil if none.
	Pos diag.Pos
}

// ECN is a WRED/ECN marking profile in bytes.
type ECN struct {
	MinBytes, MaxBytes int64
	Probability        int // percent at MaxBytes
	// MinCells and MaxCells are the thresholds the intent gives in buffer
	// cells, 0 for one given in bytes. A class's MinBytes or MaxBytes is
	// then 0, since its bytes depend on the switch: a Queue's ECN holds
	// them converted for its switch's cell size.
	MinCells, MaxCells int64
	Pos                diag.Pos
}

// InCells reports whether a threshold is given in buffer cells.
func (e *ECN) InCells() bool { return e != nil && (e.MinCells > 0 || e.MaxCells > 0) }

// Device is one switch or server.
type Device struct {
	Name     string
	Role     Role
	Platform string
	Model    string
	// Release is the NOS release the device runs when the intent names
	// one (nvue: a Cumulus Linux release, "" for the newest documented,
	// whose spelling renderers then write; sonic: a SONiC release branch
	// such as "202411", "" for the catalog's default).
	Release string
	Rail    int // the rail of a rail leaf, -1 otherwise
	Pod     int // the pod in a three-tier fabric, -1 otherwise
	Switch  *Switch
	Host    *Host
	Pos     diag.Pos
	// Disruption says, for each platform that renders the device (its own
	// and, for a switch, PlatformOpenConfig), what changing each catalog
	// element does (compiler/platforms): "hitless", "port-flap",
	// "traffic-pause" or "reboot". Devices of a platform share the maps;
	// nothing changes them after compilation.
	Disruption map[string]map[string]string `json:"-"`
	// Apply says, for a SONiC switch, how its release takes each change
	// of CONFIG_DB and what applying it disrupts; nil on other platforms.
	// Switches of one model and release share it; nothing changes it
	// after compilation.
	Apply SONiCApply `json:"-"`
	// Verify holds the statement forms of the device's platform that no
	// public source confirms (compiler/platforms, statements.json status
	// "verify"): a renderer that emits one marks it in the artifact.
	// Devices of a platform share the set; nothing changes it after
	// compilation, and a device without one marks nothing.
	Verify map[string]bool `json:"-"`
}

// Port is one switch port with what faces it.
type Port struct {
	Name      string
	SpeedGbps int
	CableM    float64
	Peer      string // device name
	PeerPort  string
	Facing    Role // the peer's role
	// Lanes is how many SerDes lanes of its cage the port uses (8 for a
	// whole OSFP cage, 4 for each port of a 2x400G breakout); 0 when
	// unknown, as in an explicit inventory.
	Lanes int
	// SKU is the port as its SONiC SKU's port map creates it; nil when the
	// model has no port map (lint reports it) and on other platforms. It
	// is shared by the same port of every switch of a tier and must not be
	// changed.
	SKU *SKUPort
	// Headroom is the port class's PFC headroom per lossless priority.
	Headroom *Headroom
}

// SKUPort is a port as its SONiC SKU's port map creates it (platform.json
// and hwsku.json, compiler/platforms): its SerDes lane numbers, alias and
// front-panel index, and the parent port and breakout mode that make it.
type SKUPort struct {
	SerDes                       []int
	Alias                        string
	Index                        int
	BreakoutParent, BreakoutMode string
}

// Switch is what a switch needs beyond its identity.
type Switch struct {
	Ports   []Port
	MTU     int
	QoS     *QoS        // shared by every switch
	Buffers *BufferPlan // shared by switches of one model and port mix
	// Headrooms are the distinct port classes of this switch, by speed then
	// cable length.
	Headrooms []*Headroom
	// LoadBalancing is "ecmp", "adaptive" or "spray".
	LoadBalancing string
	// Balancing is what the platform renders for LoadBalancing and whether
	// it reorders the packets of a flow.
	Balancing Balancing
	// Derived are the values the switch is configured with beyond its
	// port classes and buffer plan: first the port MTU as the platform
	// takes it (MTU is the intent's, which a platform may lower), then the
	// PFC watchdog's times and each marking class's ECN thresholds, as
	// programmed. Switches of one platform, policy and cell size share it.
	Derived []Derivation
	// CageGbps is the speed of the model's fastest port, which uses a
	// whole cage (compiler/platforms: the catalog's port counts); 0 when
	// the catalog does not know the model. A port below it runs part of
	// its cage's lanes.
	CageGbps int
}

// ECNField names the derivation in Switch.Derived of a class's ECN
// threshold what ("min" or "max"), e.g. "ecn-min[roce]".
func ECNField(what, class string) string { return "ecn-" + what + "[" + class + "]" }

// Programmed returns the value of the derivation named field in Derived,
// as the switch is programmed with it, and whether there is one.
func (s *Switch) Programmed(field string) (int64, bool) {
	for _, d := range s.Derived {
		if d.Field == field {
			return d.Value, true
		}
	}
	return 0, false
}

// QoS is the fabric's QoS policy as every switch applies it.
type QoS struct {
	// DSCPToTC maps each DSCP to a traffic class (= priority).
	DSCPToTC [64]int
	// TCToQueue maps each traffic class to an egress queue (identity).
	TCToQueue [8]int
	// TCToPG maps each traffic class to an ingress priority group: a
	// lossless class to its own group (its priority), the rest to 0.
	TCToPG [8]int
	// Queues are the queues that carry a class, by ID.
	Queues []Queue
	// PFC lists the lossless priorities.
	PFC      []int
	Watchdog Watchdog
	// CNP is the class CNPs travel in, nil when there is none.
	CNP *Class
	// DefaultClass takes every DSCP no class lists.
	DefaultClass *Class
}

// Queue is one egress queue and how it is scheduled.
type Queue struct {
	ID       int
	Class    *Class
	Strict   bool
	Weight   int  // ETS/DWRR percent; 0 when strict
	Lossless bool // PFC on this priority
	// ECN is the marking profile in bytes as programmed (rounded up to
	// whole cells on platforms that count cells); nil for none.
	ECN *ECN
}

// Watchdog is the PFC watchdog.
type Watchdog struct {
	Enabled   bool
	DetectMs  int
	RestoreMs int
	Action    string // "drop", "forward", "alert"
	Pos       diag.Pos
}

// Headroom is the PFC headroom one port class (speed and cable length)
// needs per lossless priority.
type Headroom struct {
	Name      string // e.g. "400G-30m", usable as a profile name on every platform
	SpeedGbps int
	CableM    float64
	Xoff      int64 // bytes absorbed after XOFF is sent
	Xon       int64 // bytes below which XON is sent
	Size      int64 // headroom reserved per port and lossless priority
	// Required is what the physics needs; Size is less only when the user
	// fixed the headroom, which lint reports.
	Required int64
	Derived  []Derivation
	Pos      diag.Pos
}

// BufferPlan is how one switch model's buffer is split.
type BufferPlan struct {
	Model      string
	ASIC       string
	TotalBytes int64
	CellBytes  int
	Ports      int // ports that carry lossless traffic
	// Reserves are the pools held for single classes, by class name.
	Reserves []Reserve
	// ReserveName names the reserving classes for comments ("roce", or
	// "finetune, training"); ReservePercent is their total share.
	ReserveName    string
	ReservePercent int
	LosslessBytes  int64 // the reserved lossless pool; 0 where the platform holds none
	// SDKReservedBytes is the buffer the ASIC's SDK keeps out of every
	// pool the plan renders (Broadcom XGS under SONiC); 0 elsewhere.
	SDKReservedBytes int64
	HeadroomBytes    int64 // sum of headroom over ports and lossless priorities, at most the platform's largest pool
	// HeadroomNeeded is the sum of headroom over ports and lossless
	// priorities; above HeadroomBytes when the platform's headroom pool
	// cannot take it all (EOS), which lint reports.
	HeadroomNeeded int64
	LossyBytes     int64 // what is left; negative when over budget
	// Shared is set where the platform holds no share of the buffer for
	// one class (EOS, NX-OS): nothing is reserved (Reserves is empty,
	// LosslessBytes 0), the lossless priority groups draw on the shared
	// pool with the platform's own dynamic threshold, and Unheld says what
	// the intent asked to reserve (RF117 reports it).
	Shared bool
	// PoolBytes is the pool the lossless priority groups' dynamic
	// thresholds draw on, the pool of XoffPoint: LosslessBytes where the
	// reserve is held, the buffer less the headroom carved from it where
	// nothing is.
	PoolBytes int64
	// AlphaLog2 is the dynamic-threshold exponent of XoffPoint (α =
	// 2^AlphaLog2): the catalog's for the switch, or its platform's
	// default where the plan is Shared.
	AlphaLog2 int
	// Unheld are the reservations the intent asks for that a Shared plan
	// does not hold, with their names, total percent and the bytes they
	// would have held, as ReserveName, ReservePercent and LosslessBytes
	// would give them; empty where the reserve is held.
	Unheld        []Reserve
	UnheldName    string
	UnheldPercent int
	UnheldBytes   int64
	// Convention is how the ASIC reads a SONiC lossless BUFFER_PROFILE:
	// "spectrum" (size = xoff + xon is the headroom) or "broadcom-xgs"
	// (size is the reserved minimum PGMinBytes, xoff the headroom, and
	// HeadroomBytes the shared headroom pool); "" when unknown.
	Convention string
	// PGMinBytes is each lossless priority group's reserved minimum and
	// MinimumBytes their sum over ports (broadcom-xgs; 0 otherwise).
	PGMinBytes, MinimumBytes int64
	// XoffPoint is the ingress occupancy at which a lossless priority group
	// sends PFC XOFF when CongestedQueues groups are congested at once; ECN
	// must mark below it.
	XoffPoint int64
	// CongestedQueues is the N of XoffPoint: the lossless priority groups
	// of the switch congested at once (every lossless port times the
	// lossless priorities unless the intent states fewer).
	CongestedQueues int
	// MarkingNeeded is the marking probability, 0..1, at which DCQCN's
	// cuts balance its increases for the fluid model's flows on the
	// switch's fastest port (compiler/physics MarkingNeeded): ECN must mark
	// at least this much where PFC pauses. 0 when not derived.
	MarkingNeeded float64
	Derived       []Derivation
	Pos           diag.Pos
}

// Reserve is a share of the shared buffer held for one class alone.
type Reserve struct {
	Class    string
	Percent  int
	Lossless bool // the class is lossless
}

// Fits reports whether reservations and headroom fit in the buffer.
func (b *BufferPlan) Fits() bool { return b.LossyBytes >= 0 }

// Host is what a server needs beyond its identity.
type Host struct {
	NICs    []NIC
	Profile *HostProfile // shared by every host
	// ReorderedBy names a switch whose per-packet load balancing can
	// deliver this server's packets out of order; "" when every path
	// keeps a flow's order.
	ReorderedBy string
}

// NIC is one RDMA NIC port of a server.
type NIC struct {
	Port      string // netdev, e.g. "eth2"
	HCA       string // RDMA device, e.g. "mlx5_0"
	Rail      int
	SpeedGbps int
	CableM    float64
	Peer      string
	PeerPort  string
}

// HostProfile is the NIC and host configuration every server shares.
type HostProfile struct {
	NICModel string
	Tool     string // "mlnx_qos" or "dcb"
	Trust    string // "dscp"
	// DSCPToPrio maps each DSCP to a priority (the NIC's dscp2prio).
	DSCPToPrio [64]int
	// PrioToTC maps priorities to NIC traffic classes (identity).
	PrioToTC [8]int
	PFC      [8]bool
	// TSA is "strict" or "ets" per traffic class; ETS the ETS share.
	TSA [8]string
	ETS [8]int
	// CableM is the cable length the NIC sizes its receive headroom for.
	CableM float64
	MTU    int
	// ECN is enabled for these priorities on the NIC (reaction and
	// notification points).
	ECNPriorities []int
	DCQCN         DCQCN
	// CNPDSCP and CNPPriority are what the NIC sends CNPs with; -1 when
	// there is no CNP class.
	CNPDSCP, CNPPriority int
	// RoCETOS is the ToS byte rdma_cm uses (cma_roce_tos): DSCP << 2 of
	// RDMACMClass.
	RoCETOS int
	// RDMACMClass is the class rdma_cm QPs (NVMe-oF, iSER) are marked
	// with: the intent's hosts.rdmaCM.class, else the class shaped over
	// RDMA, else the first lossless class; nil when there is none.
	RDMACMClass *Class
	// DefaultPriority is the priority of the default class, which takes
	// every DSCP no class lists (unmarked traffic); -1 when there is none.
	DefaultPriority int
	// Frontend is the servers' frontend interface and FrontendGbps its
	// speed (0 unknown); "" when the intent names none.
	Frontend     string
	FrontendGbps int
	// NICFirmware are firmware (NV config, mlxconfig) settings the NICs
	// need, such as ROCE_ADAPTIVE_ROUTING_EN=1 when switches reorder.
	NICFirmware []Param
	Shaping     []Shape
	// CCKnobs are the congestion-control settings of a NIC whose driver
	// is not mlx5, in the order the runtime writes them to each HCA; none
	// for mlx5, which takes ECNPriorities, CNPDSCP and DCQCN instead.
	CCKnobs []CCKnob
	// NICModelStated is the NIC model as the intent names it; NICModel
	// is the catalog's spelling of it when the catalog knows it.
	NICModelStated string
	// NCCLEnv is the fabric-wide NCCL environment the intent sets, sorted
	// by name, which every tenant's Env starts from.
	NCCLEnv []EnvVar
	// ShapedClasses are the class names the intent's host shaping lists,
	// sorted, including any that Shaping lacks because they are invalid.
	ShapedClasses []string
	// RDMACMStated is set when the intent names the rdma_cm class itself
	// rather than leaving RDMACMClass to be chosen.
	RDMACMStated bool
	Derived      []Derivation
	Pos          diag.Pos
}

// DCQCN is the NIC congestion control.
type DCQCN struct {
	Enabled bool
	// Params are explicit parameter overrides, by name; firmware defaults
	// apply to the rest.
	Params []Param
	Pos    diag.Pos
}

// CCKnob is one congestion-control setting of a NIC driver's own
// interface: Driver "bnxt_re" (configfs bnxt_re/<hca>/ports/1/cc/<name>,
// applied with its apply file) or "irdma" (configfs irdma/<hca>/<name>),
// Value as the driver prints it back.
type CCKnob struct {
	Driver, Name, Value string
}

// Param is one named integer parameter.
type Param struct {
	Name  string
	Value int
}

// Shape is an egress rate limit of one class's traffic leaving a server.
type Shape struct {
	Class *Class
	// Transport is "tcp" (kernel traffic on Interface, shaped with tc) or
	// "rdma" (RDMA traffic on the NICs, limited per traffic class in the
	// NIC: mlnx_qos -r or dcb maxrate, hosts.md §1.2, §2).
	Transport string
	// Interface is where tcp traffic leaves; "" for rdma.
	Interface string
	// NICs are the RDMA netdevs an rdma limit applies to, in NIC order;
	// empty for tcp.
	NICs     []string
	RateBits int64
	// Unmarked, for tcp, counts traffic with a DSCP no class lists (the
	// default class's DSCPs, and unmarked sockets) as the class.
	Unmarked bool
	Pos      diag.Pos
}

// The transports of a Shape.
const (
	TransportTCP  = "tcp"
	TransportRDMA = "rdma"
)

// Link joins two ports.
type Link struct {
	A, B      Endpoint
	SpeedGbps int
	CableM    float64
	// Pos is the link's element in an explicit inventory; unset for links
	// the compiler expanded.
	Pos diag.Pos
}

// Endpoint is one end of a link.
type Endpoint struct {
	Device, Port string
}

// String formats the endpoint as device:port.
func (e Endpoint) String() string { return e.Device + ":" + e.Port }

// The collective libraries a tenant's environment is for.
const (
	LibraryNCCL = "nccl"
	LibraryRCCL = "rccl"
)

// Tenant is a job bound to a class, with its NCCL environment.
type Tenant struct {
	Name  string
	Class *Class
	// Servers are the server names the tenant runs on, sorted; empty means
	// any server.
	Servers []string
	// Env is the NCCL environment, sorted by name.
	Env []EnvVar
	// TrafficClass is NCCL_IB_TC.
	TrafficClass int
	// Library is the collective library the environment is for: "nccl"
	// (NVIDIA GPUs) or "rccl" (AMD GPUs), which reads the same NCCL_*
	// variables (ROCm/rccl src/include/param.h, src/transport/net_ib.cc).
	Library string
	// ClassName is the class the intent named; Class is nil when no class
	// has that name (lint reports it).
	ClassName string
	// UnknownServers are names the intent gave that no server has.
	UnknownServers []string
	// NCCLOverride is set when the intent set the tenant's NCCL traffic
	// class or environment itself.
	NCCLOverride bool
	// NoRDMA is set for a tenant on a lossy class that states no traffic
	// class of its own: its environment keeps NCCL off RDMA
	// (NCCL_IB_DISABLE=1) rather than send RDMA on a priority PFC does not
	// protect, and carries no NCCL_IB_* setting.
	NoRDMA bool
	// ReorderedBy names a switch whose per-packet load balancing reorders
	// the tenant's traffic, which is why its environment turns NCCL's
	// adaptive-routing mode on; "" when no path reorders.
	ReorderedBy string
	// TrafficClassFrom says which intent field states TrafficClass:
	// StatedByTenant (the tenant's own NCCL traffic class), StatedByHosts
	// (the fabric-wide one), or "" when it is derived from the class's
	// DSCP.
	TrafficClassFrom string
	// StatedEnv is the NCCL environment the tenant's intent sets itself,
	// sorted by name, with the values as stated: Env may override one
	// (NCCL_IB_DISABLE of a tenant kept off RDMA).
	StatedEnv []EnvVar
	// Derived holds the derivation of TrafficClass, as explain shows it
	// for the tenant's servers.
	Derived []Derivation
	Pos     diag.Pos
}

// The intent fields a tenant's TrafficClass can come from.
const (
	StatedByTenant = "tenant"
	StatedByHosts  = "hosts"
)

// EnvVar is one environment variable.
type EnvVar struct {
	Name, Value string
}

// Derivation is one derived value with its formula and inputs, as
// `rocefab explain` shows it.
type Derivation struct {
	Field   string
	Value   int64
	Unit    string
	Formula string
	Inputs  []Input
	Source  string
}

// Input is one input of a derivation, its value with its unit, and the
// intent field it came from when it came from one.
type Input struct {
	Name, Value string
	Pos         diag.Pos
}

// Index rebuilds the name index after Devices changed. The compiler calls
// it; readers use [Fabric.Device].
func (f *Fabric) Index() {
	f.byName = make(map[string]*Device, len(f.Devices))
	for _, d := range f.Devices {
		f.byName[d.Name] = d
	}
}

// Device returns the device with that name, or nil.
func (f *Fabric) Device(name string) *Device {
	if f.byName == nil {
		f.Index()
	}
	return f.byName[name]
}

// Class returns the class with that name, or nil.
func (f *Fabric) Class(name string) *Class {
	for _, c := range f.Classes {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// SortDevices orders devices by role rank, then name.
func SortDevices(ds []*Device) {
	slices.SortFunc(ds, func(a, b *Device) int {
		return cmp.Or(cmp.Compare(a.Role.Rank(), b.Role.Rank()), cmp.Compare(a.Name, b.Name))
	})
}

// Switches returns the switches, in device order.
func (f *Fabric) Switches() []*Device {
	return where(f.Devices, func(d *Device) bool { return d.Switch != nil })
}

// FirstSwitchQoS returns the QoS policy every switch shares, as the
// first switch in device order carries it; nil without a switch, or
// before the compiler has set it.
func (f *Fabric) FirstSwitchQoS() *QoS {
	for _, d := range f.Devices {
		if d.Switch != nil {
			return d.Switch.QoS
		}
	}
	return nil
}

// Hosts returns the servers, in device order.
func (f *Fabric) Hosts() []*Device {
	return where(f.Devices, func(d *Device) bool { return d.Host != nil })
}

// LosslessClasses returns the lossless classes, by priority.
func (f *Fabric) LosslessClasses() []*Class {
	return where(f.Classes, func(c *Class) bool { return c.Lossless })
}

// where returns the elements of xs that keep keeps, in their order, and
// nil for none: a new slice, which the caller may change without
// changing the fabric.
func where[T any](xs []T, keep func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

// Port returns the switch port with that name, or nil.
func (s *Switch) Port(name string) *Port {
	for i := range s.Ports {
		if s.Ports[i].Name == name {
			return &s.Ports[i]
		}
	}
	return nil
}

// Balancing is how a switch spreads traffic over the members of its ECMP
// groups, as its platform renders the intent's loadBalancing.
type Balancing struct {
	// Mode is "ecmp" (a flow keeps one path), "flowlet" (a flow moves only
	// between bursts, keeping its order) or "per-packet" (each packet may
	// take another path).
	Mode     string
	Rendered string // the statement that selects the mode
	Source   string
	// Reorders is set when the mode is per-packet and the switch has an
	// ECMP group to apply it to: two or more member ports at a speed the
	// mode runs at toward the same next tier.
	Reorders bool
}
