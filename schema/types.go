package schema

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

// Fabric is the decoded intent, with the schema's defaults filled in and
// every unit parsed. Field names follow the CUE schema (fabric.cue).
type Fabric struct {
	Name     string            `json:"name"`
	Topology Topology          `json:"topology"`
	Naming   Naming            `json:"naming"`
	MTU      MTU               `json:"mtu"`
	Classes  map[string]Class  `json:"classes"`
	Buffers  Buffers           `json:"buffers"`
	PFC      PFC               `json:"pfc"`
	Routing  Routing           `json:"routing"`
	Hosts    Hosts             `json:"hosts"`
	Tenants  map[string]Tenant `json:"tenants"`
}

// Topology is the fabric's shape: parameters that the compiler expands.
type Topology struct {
	Style      string `json:"style"`
	Servers    int    `json:"servers"`
	Rails      int    `json:"rails"`
	NIC        Link   `json:"nic"`
	Leaf       Leaf   `json:"leaf"`
	Spine      *Tier  `json:"spine"`
	Superspine *Tier  `json:"superspine"`
	Pod        Pod    `json:"pod"`
	Inventory  string `json:"inventory"`
}

// Link is a speed and a cable length.
type Link struct {
	Speed Speed  `json:"speed"`
	Cable Length `json:"cable"`
}

// Leaf describes the leaf switches.
type Leaf struct {
	Platform  string `json:"platform"`
	Model     string `json:"model"`
	Release   string `json:"release"` // the NOS release (nvue, sonic), "" for the platform's default
	Speed     Speed  `json:"speed"`
	Downlinks int    `json:"downlinks"`
	Uplinks   int    `json:"uplinks"`
}

// Tier describes spines or superspines and the links into them.
type Tier struct {
	Platform string `json:"platform"`
	Model    string `json:"model"`
	Release  string `json:"release"` // the NOS release (nvue, sonic), "" for the tier below's or the platform's default
	Speed    Speed  `json:"speed"`
	Cable    Length `json:"cable"`
	Count    int    `json:"count"`
}

// Pod sizes the pods of a three-tier fabric.
type Pod struct {
	Servers int `json:"servers"`
}

// Naming holds the device name patterns.
type Naming struct {
	Leaf       string `json:"leaf"`
	Spine      string `json:"spine"`
	Superspine string `json:"superspine"`
	Server     string `json:"server"`
}

// MTU holds the switch and host MTUs and the RoCE path MTU.
type MTU struct {
	Switch int `json:"switch"`
	Host   int `json:"host"`
	RoCE   int `json:"roce"`
}

// Class is one traffic class.
type Class struct {
	Priority  int   `json:"priority"`
	DSCP      []int `json:"dscp"`
	Lossless  bool  `json:"lossless"`
	CNP       bool  `json:"cnp"`
	Strict    bool  `json:"strict"`
	Default   bool  `json:"default"`
	Bandwidth *int  `json:"bandwidth"`
	ECN       *ECN  `json:"ecn"`
}

// ECN is a class's ECN/WRED marking profile.
type ECN struct {
	Enabled     bool `json:"enabled"`
	Min         Size `json:"min"`
	Max         Size `json:"max"`
	Probability int  `json:"probability"`
}

// Buffers holds the buffer reservations and headroom policy.
type Buffers struct {
	Reserve  map[string]int `json:"reserve"`
	Headroom Size           `json:"headroom"` // Raw "auto" unless a size was given
	// Congestion states how many lossless priority groups of a switch
	// congest at once; nil means every one.
	Congestion *Congestion `json:"congestion,omitempty"`
	// AcceptGaps are the platform gaps the intent accepts ("reserve",
	// "priority-group"): RF117 reports them as warnings, not errors.
	AcceptGaps []string `json:"acceptGaps,omitempty"`
}

// Accepts reports whether the intent accepts the platform gap.
func (b Buffers) Accepts(gap string) bool {
	for _, g := range b.AcceptGaps {
		if g == gap {
			return true
		}
	}
	return false
}

// Congestion is the intent's statement of how much of a switch congests
// at once, for the PFC XOFF point ECN must stay below.
type Congestion struct {
	Queues int `json:"queues,omitempty"` // lossless priority groups congested at once; 0 = every one
}

// CongestedQueues returns the number of congested lossless priority groups
// the intent states, or 0 for every one of a switch.
func (b Buffers) CongestedQueues() int {
	if b.Congestion == nil {
		return 0
	}
	return b.Congestion.Queues
}

// HeadroomAuto reports whether headroom is computed per port.
func (b Buffers) HeadroomAuto() bool { return b.Headroom.Raw == "auto" || b.Headroom.Raw == "" }

// PFC holds the PFC watchdog.
type PFC struct {
	Watchdog Watchdog `json:"watchdog"`
}

// Watchdog is the PFC watchdog.
type Watchdog struct {
	Enabled bool     `json:"enabled"`
	Detect  Duration `json:"detect"`
	Restore Duration `json:"restore"`
	Action  string   `json:"action"`
}

// Routing holds the load-balancing mode.
type Routing struct {
	LoadBalancing string `json:"loadBalancing"`
}

// Hosts holds the server-side settings.
type Hosts struct {
	NIC   NIC              `json:"nic"`
	DCQCN DCQCN            `json:"dcqcn"`
	Shape map[string]Shape `json:"shape"`
	NCCL  NCCL             `json:"nccl"`
	// Frontend is the servers' frontend interface, nil when the intent
	// names none.
	Frontend *Frontend `json:"frontend"`
	// RDMACM is the class rdma_cm QPs are marked with, nil for the default.
	RDMACM *RDMACM `json:"rdmaCM"`
	// GPU is the servers' GPU vendor: "nvidia" (NCCL) or "amd" (RCCL).
	GPU string `json:"gpu"`
}

// Frontend is the servers' frontend (TCP/IP) interface.
type Frontend struct {
	Interface string `json:"interface"`
	Speed     Speed  `json:"speed"`
}

// RDMACM names the class of QPs made through rdma_cm.
type RDMACM struct {
	Class string `json:"class"`
}

// The transports a shaped class's traffic leaves a server by.
const (
	TransportTCP  = "tcp"
	TransportRDMA = "rdma"
)

// NIC describes the servers' RDMA NICs.
type NIC struct {
	Model string   `json:"model"`
	Tool  string   `json:"tool"`
	Ports []string `json:"ports"`
	Cable Length   `json:"cable"`
	// Models gives servers another NIC model than Model: server name
	// range ("gpu-[0008-0015]") to model.
	Models map[string]string `json:"models"`
}

// DCQCN holds the NIC congestion-control settings.
type DCQCN struct {
	Enabled    bool           `json:"enabled"`
	Parameters map[string]int `json:"parameters"`
}

// Shape is an egress rate limit on a host interface.
type Shape struct {
	// Transport is TransportTCP (kernel traffic, tc on Interface) or
	// TransportRDMA (a per-traffic-class limit in the RDMA NICs).
	Transport string   `json:"transport"`
	Interface string   `json:"interface"`
	NICs      []string `json:"nics"`
	Rate      Rate     `json:"rate"`
	// Unmarked, for TCP, says whether traffic with a DSCP no class lists
	// counts as the class; nil means yes.
	Unmarked *bool `json:"unmarked"`
}

// NCCL holds the NCCL settings shared by every tenant.
type NCCL struct {
	HCA          []string          `json:"hca"`
	GIDIndex     *int              `json:"gidIndex"` // nil: NCCL detects it
	Timeout      int               `json:"timeout"`
	TrafficClass *int              `json:"trafficClass"`
	Env          map[string]string `json:"env"`
}

// Tenant is a job (or group of jobs) bound to a traffic class.
type Tenant struct {
	Class   string      `json:"class"`
	Servers StringList  `json:"servers"`
	NCCL    *TenantNCCL `json:"nccl"`
}

// TenantNCCL overrides NCCL settings for one tenant.
type TenantNCCL struct {
	TrafficClass *int              `json:"trafficClass"`
	Env          map[string]string `json:"env"`
}

// StringList is a string or a list of strings.
type StringList []string

// UnmarshalJSON accepts "a" as well as ["a", "b"].
func (l *StringList) UnmarshalJSON(b []byte) error {
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte(`"`)) {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*l = StringList{s}
		return nil
	}
	var ss []string
	if err := json.Unmarshal(b, &ss); err != nil {
		return err
	}
	*l = ss
	return nil
}

// raw reads a JSON string or number as its text.
func raw(b []byte) string {
	var s string
	if json.Unmarshal(b, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(b))
}

// Written is a unit field's text as the user wrote it. Each unit type
// embeds it, so that each reads and writes JSON as that text alone: it is
// parsed with its position at load time (parseUnits), and written back
// as the user wrote it.
type Written struct {
	Raw string
}

// UnmarshalJSON keeps the text; parsing happens with positions at load time.
func (w *Written) UnmarshalJSON(b []byte) error { w.Raw = raw(b); return nil }

// MarshalJSON writes the text as the user wrote it.
func (w Written) MarshalJSON() ([]byte, error) { return json.Marshal(w.Raw) }

// Size is a size as the user wrote it and as parsed. Cells is set when the
// user wrote "N cells"; then Bytes is zero until the compiler knows the
// platform's cell size.
type Size struct {
	Written
	Bytes int64
	Cells int64
}

// Rate is a rate in bits per second.
type Rate struct {
	Written
	Bits int64
}

// Speed is a port speed in Gbit/s.
type Speed struct {
	Written
	Gbps int
}

// Length is a cable length in metres.
type Length struct {
	Written
	Metres float64
}

// Duration is a duration.
type Duration struct {
	Written
	D time.Duration
}

// Ms is the duration in whole milliseconds, as most platforms take it.
func (d Duration) Ms() int { return int(d.D.Milliseconds()) }

var _ = strconv.Itoa
