package host

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// RuntimePath is where the runtime (hosts/rocefab-host.sh) goes on a
// server: the unit runs it from there, and the install notes say so.
const RuntimePath = "/usr/local/lib/rocefab/rocefab-host.sh"

// SettingsPath is where a server's host.conf goes: the runtime reads it
// from there unless --settings names another file.
const SettingsPath = "/etc/rocefab/host.conf"

// UnitTemplate is the systemd template unit that runs the runtime, one
// instance per RDMA netdev and shaped interface, named after it.
const UnitTemplate = "rocefab-qos@.service"

// The artifact paths: a server's settings (and, on request, its single-file
// script) below the server's directory, and the runtime and the unit once
// per build below hosts/.
const (
	SettingsFile = "host.conf"
	ScriptFile   = "host.sh"
	RuntimeFile  = "hosts/rocefab-host.sh"
	UnitFile     = "hosts/" + UnitTemplate
)

// htbQuantum is the quantum of every HTB class: the kernel's own cap for a
// derived quantum, above any MTU. The classes are all roots of the tree, so
// they never borrow and the quantum only has to be legal.
const htbQuantum = 200000

// restMinor is the HTB class of everything not shaped, at line rate.
const restMinor = 0xff

// mlx5MaxCableM is the longest cable mlx5 accepts; it silently ignores
// longer ones (en/port_buffer.h MLX5E_MAX_CABLE_LENGTH, hosts.md 1.6).
const mlx5MaxCableM = 999

// runtime is the body of the runtime: the same bytes in
// hosts/rocefab-host.sh and at the end of every single-file host.sh.
//
//go:embed script.bash
var runtime string

// Renderer renders the settings of Linux servers with NVIDIA ConnectX /
// BlueField NICs: <server>/host.conf, which the runtime of the same build
// ([RenderFabric]) reads.
type Renderer struct{}

var _ renderers.Renderer = Renderer{}

// Render returns host.conf for a Linux server. It refuses switches, other
// platforms and a model whose values the NIC tools cannot take.
func (Renderer) Render(d *ir.Device) ([]renderers.Artifact, error) {
	if err := checkServer(d); err != nil {
		return nil, err
	}
	return []renderers.Artifact{confs.Artifact(d.Name+"/"+SettingsFile, renderers.Text, conf(d))}, nil
}

// ScriptRenderer renders the single-file form for one server:
// <server>/host.sh, its settings followed by the runtime, which needs no
// other file.
type ScriptRenderer struct{}

var _ renderers.Renderer = ScriptRenderer{}

// Render returns host.sh for a Linux server, and refuses what [Renderer]
// refuses.
func (ScriptRenderer) Render(d *ir.Device) ([]renderers.Artifact, error) {
	if err := checkServer(d); err != nil {
		return nil, err
	}
	return []renderers.Artifact{{Path: d.Name + "/" + ScriptFile, Format: renderers.Shell, Content: script(d)}}, nil
}

// Runtime returns the host runtime (hosts/rocefab-host.sh), which the
// host target installs at RuntimePath: the same bytes for every fabric.
func Runtime() []byte { return runtimeFile() }

// Shared renders the files every server shares (RenderFabric), as a
// fabric-wide renderer of a build.
type Shared struct{}

var _ renderers.FabricRenderer = Shared{}

// RenderFabric returns the runtime and its systemd unit (RenderFabric).
func (Shared) RenderFabric(fab *ir.Fabric, _ []renderers.Artifact) ([]renderers.Artifact, error) {
	return RenderFabric(fab), nil
}

// RenderFabric returns the files every server of the fabric shares, once
// per build: the runtime and the systemd template unit. A fabric without
// a Linux server gets none.
func RenderFabric(f *ir.Fabric) []renderers.Artifact {
	if f == nil || !slices.ContainsFunc(f.Devices, func(d *ir.Device) bool {
		return d.Platform == ir.PlatformLinux && d.Host != nil
	}) {
		return nil
	}
	return []renderers.Artifact{
		{Path: RuntimeFile, Format: renderers.Shell, Content: runtimeFile()},
		{Path: UnitFile, Format: renderers.Unit, Content: unitTemplate()},
	}
}

func checkServer(d *ir.Device) error {
	if d == nil {
		return errors.New("host: nil device")
	}
	if err := renderers.CheckDevice(d); err != nil {
		return err
	}
	if d.Platform != ir.PlatformLinux || d.Host == nil {
		return fmt.Errorf("host: device %s is a %s %s, not a Linux server", d.Name, d.Platform, d.Role)
	}
	if err := check(d); err != nil {
		return fmt.Errorf("host: %s: %w", d.Name, err)
	}
	return nil
}

// dcqcnKnob says where a DCQCN parameter lives: its reaction or
// notification point and its name in the inbox mlx5 debugfs (the MLNX_OFED
// sysfs name is the intent's name). Sources: hosts.md 1.5 (a) and (b),
// drivers/infiniband/hw/mlx5/cong.c.
type dcqcnKnob struct{ point, debugfs string }

var dcqcnKnobs = map[string]dcqcnKnob{
	"clamp_tgt_rate":                {"rp", "rp_clamp_tgt_rate"},
	"clamp_tgt_rate_after_time_inc": {"rp", "rp_clamp_tgt_rate_ati"},
	"dce_tcp_g":                     {"rp", "rp_dce_tcp_g"},
	"dce_tcp_rtt":                   {"rp", "rp_dce_tcp_rtt"},
	"initial_alpha_value":           {"rp", "rp_initial_alpha_value"},
	"rate_reduce_monitor_period":    {"rp", "rp_rate_reduce_monitor_period"},
	"rate_to_set_on_first_cnp":      {"rp", "rp_rate_to_set_on_first_cnp"},
	"rpg_ai_rate":                   {"rp", "rp_ai_rate"},
	"rpg_byte_reset":                {"rp", "rp_byte_reset"},
	"rpg_gd":                        {"rp", "rp_gd"},
	"rpg_hai_rate":                  {"rp", "rp_hai_rate"},
	"rpg_max_rate":                  {"rp", "rp_max_rate"},
	"rpg_min_dec_fac":               {"rp", "rp_min_dec_fac"},
	"rpg_min_rate":                  {"rp", "rp_min_rate"},
	"rpg_threshold":                 {"rp", "rp_threshold"},
	"rpg_time_reset":                {"rp", "rp_time_reset"},
	"min_time_between_cnps":         {"np", "np_min_time_between_cnps"},
}

// check refuses what the NIC tools would reject or what the script could not
// express safely; the compiler and lint normally stop such a model earlier.
func check(d *ir.Device) error {
	p := d.Host.Profile
	if p == nil {
		return errors.New("no host profile")
	}
	if p.Tool != "mlnx_qos" && p.Tool != "dcb" {
		return fmt.Errorf("NIC tool %q: want mlnx_qos or dcb", p.Tool)
	}
	if p.Trust != "dscp" {
		return fmt.Errorf("trust %q: only dscp is rendered", p.Trust)
	}
	if err := renderers.CheckName("NIC model", p.NICModel); p.NICModel != "" && err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, n := range d.Host.NICs {
		if seen[n.Port] {
			return fmt.Errorf("NIC port %s listed twice", n.Port)
		}
		seen[n.Port] = true
	}
	for dscp, prio := range p.DSCPToPrio {
		if prio < 0 || prio > 7 {
			return fmt.Errorf("DSCP %d maps to priority %d: want 0..7", dscp, prio)
		}
	}
	bw := 0
	for i := range 8 {
		if p.PrioToTC[i] < 0 || p.PrioToTC[i] > 7 {
			return fmt.Errorf("priority %d maps to traffic class %d: want 0..7", i, p.PrioToTC[i])
		}
		switch p.TSA[i] {
		case "ets":
			if p.ETS[i] < 0 || p.ETS[i] > 100 {
				return fmt.Errorf("traffic class %d: ETS share %d %%: want 0..100", i, p.ETS[i])
			}
			bw += p.ETS[i]
		case "strict":
			if p.ETS[i] != 0 {
				return fmt.Errorf("traffic class %d is strict but has an ETS share of %d %%", i, p.ETS[i])
			}
		default:
			return fmt.Errorf("traffic class %d: TSA %q: want strict or ets", i, p.TSA[i])
		}
	}
	if bw != 100 && bw != 0 {
		return fmt.Errorf("ETS shares sum to %d %%, not 100: mlnx_qos and the mlx5 driver refuse that", bw)
	}
	if p.MTU < 68 || p.MTU > 65535 {
		return fmt.Errorf("host MTU %d: want 68..65535", p.MTU)
	}
	if math.IsNaN(p.CableM) || p.CableM < 0 {
		return fmt.Errorf("NIC cable length %g m: want >= 0", p.CableM)
	}
	for _, e := range p.ECNPriorities {
		if e < 0 || e > 7 {
			return fmt.Errorf("ECN priority %d: want 0..7", e)
		}
	}
	if (p.CNPDSCP < 0) != (p.CNPPriority < 0) || p.CNPDSCP > 63 || p.CNPPriority > 7 {
		return fmt.Errorf("CNP DSCP %d and priority %d: want 0..63 and 0..7, or both -1", p.CNPDSCP, p.CNPPriority)
	}
	if p.RoCETOS < 0 || p.RoCETOS > 255 {
		return fmt.Errorf("rdma_cm ToS %d: want 0..255", p.RoCETOS)
	}
	if err := checkCC(p.CCKnobs); err != nil {
		return err
	}
	for _, prm := range p.DCQCN.Params {
		if _, ok := dcqcnKnobs[prm.Name]; !ok {
			return fmt.Errorf("unknown DCQCN parameter %q", prm.Name)
		}
		if prm.Value < 0 || prm.Value > math.MaxUint32 {
			return fmt.Errorf("DCQCN parameter %s = %d: want 0..%d", prm.Name, prm.Value, uint32(math.MaxUint32))
		}
	}
	shaped := map[[2]string]bool{}
	prios := map[string]string{}    // interface and priority -> class
	unmarked := map[string]string{} // interface -> the class that takes unmarked traffic
	limited := map[string]string{}  // RDMA netdev and traffic class -> class
	for _, s := range p.Shaping {
		if s.Class == nil {
			return fmt.Errorf("shaping on %s has no class", s.Interface)
		}
		if s.Transport == ir.TransportRDMA {
			if err := checkMaxrate(d, s, limited); err != nil {
				return err
			}
			continue
		}
		if s.Transport != "" && s.Transport != ir.TransportTCP {
			return fmt.Errorf("class %s: transport %q: want tcp or rdma", s.Class.Name, s.Transport)
		}
		if s.Unmarked {
			if other, ok := unmarked[s.Interface]; ok {
				return fmt.Errorf("classes %s and %s both take unmarked traffic on %s", other, s.Class.Name, s.Interface)
			}
			unmarked[s.Interface] = s.Class.Name
		}
		if s.Class.Priority < 0 || s.Class.Priority > 7 {
			return fmt.Errorf("shaped class %s has priority %d: want 0..7", s.Class.Name, s.Class.Priority)
		}
		if s.RateBits <= 0 || s.RateBits > math.MaxInt64/8 {
			return fmt.Errorf("shaping rate %d bit/s of class %s: want > 0", s.RateBits, s.Class.Name)
		}
		for _, dscp := range s.Class.DSCP {
			if dscp < 0 || dscp > 63 {
				return fmt.Errorf("class %s: DSCP %d: want 0..63", s.Class.Name, dscp)
			}
		}
		k := [2]string{s.Interface, s.Class.Name}
		if shaped[k] {
			return fmt.Errorf("class %s shaped twice on %s", s.Class.Name, s.Interface)
		}
		shaped[k] = true
		pk := fmt.Sprintf("%s/%d", s.Interface, s.Class.Priority)
		if other, ok := prios[pk]; ok {
			return fmt.Errorf("classes %s and %s, both priority %d, shaped on %s: a shaped class needs a priority of its own", other, s.Class.Name, s.Class.Priority, s.Interface)
		}
		prios[pk] = s.Class.Name
	}
	return nil
}

// checkMaxrate checks an RDMA class limit: RDMA netdevs of the server, a
// rate the tool can write (mlnx_qos -r takes whole Gbit/s, dcb maxrate
// kbit/s: hosts.md 1.2, 2; the kernel UAPI counts kbit/s), and one class
// per traffic class and NIC.
func checkMaxrate(d *ir.Device, s ir.Shape, limited map[string]string) error {
	p := d.Host.Profile
	if s.Class.Priority < 0 || s.Class.Priority > 7 {
		return fmt.Errorf("limited class %s has priority %d: want 0..7", s.Class.Name, s.Class.Priority)
	}
	unit, what := int64(1000), "whole kbit/s (dcb maxrate)"
	if p.Tool == "mlnx_qos" {
		unit, what = 1_000_000_000, "whole Gbit/s (mlnx_qos -r)"
	}
	if s.RateBits <= 0 || s.RateBits%unit != 0 || s.RateBits/1000 > math.MaxUint32*1000 {
		return fmt.Errorf("class %s: RDMA limit %d bit/s: the NIC takes %s", s.Class.Name, s.RateBits, what)
	}
	if len(s.NICs) == 0 {
		return fmt.Errorf("class %s: RDMA limit on no NIC", s.Class.Name)
	}
	tc := p.PrioToTC[s.Class.Priority]
	for _, n := range s.NICs {
		if !slices.ContainsFunc(d.Host.NICs, func(x ir.NIC) bool { return x.Port == n }) {
			return fmt.Errorf("class %s: RDMA limit on %s, which is not an RDMA netdev of %s", s.Class.Name, n, d.Name)
		}
		k := n + "/" + strconv.Itoa(tc)
		if other, ok := limited[k]; ok {
			return fmt.Errorf("classes %s and %s share traffic class %d on %s: a limited class needs a traffic class of its own", other, s.Class.Name, tc, n)
		}
		limited[k] = s.Class.Name
	}
	return nil
}

// quote single-quotes s for bash. Every string from the model goes through
// it, although names are already checked, so that the script stays safe
// whatever reaches it.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = quote(s)
	}
	return strings.Join(q, " ")
}

// cableLen is the cable length mlx5 takes: whole metres, rounded up so the
// headroom is never short, within what the driver accepts.
func cableLen(m float64) int {
	if m <= 0 {
		return 0
	}
	return min(int(math.Ceil(m)), mlx5MaxCableM)
}

// rateArg formats bits/s the way tc reads them, exactly.
func rateArg(bits int64) string {
	units := []string{"", "K", "M", "G", "T"}
	i := 0
	for i < len(units)-1 && bits >= 1000 && bits%1000 == 0 {
		bits /= 1000
		i++
	}
	return strconv.FormatInt(bits, 10) + units[i] + "bit"
}

// prioKey is everything of a profile prioSummary reads.
type prioKey struct {
	dscpToPrio [64]int
	prioToTC   [8]int
	pfc        [8]bool
	tsa        [8]string
	ets        [8]int
	ecn        uint8 // bit p: priority p is an ECN priority
	cnp        int
}

// prioSummaries are the summaries made so far, by what they read: the
// servers of a fabric share a handful of profiles, and each summary is a
// dozen formatted lines. At most maxPrioSummaries are kept.
var (
	prioSummaries    sync.Map // prioKey -> []string
	prioSummaryCount atomic.Int64
)

const maxPrioSummaries = 256

// prioSummary lists, per priority, the DSCPs that map to it, the largest
// group last as "every other DSCP". The lines are shared: read them only.
func prioSummary(p *ir.HostProfile) []string {
	k := prioKey{dscpToPrio: p.DSCPToPrio, prioToTC: p.PrioToTC, pfc: p.PFC, tsa: p.TSA, ets: p.ETS, cnp: p.CNPPriority}
	for _, e := range p.ECNPriorities {
		if e >= 0 && e <= 7 {
			k.ecn |= 1 << e
		}
	}
	if s, ok := prioSummaries.Load(k); ok {
		return s.([]string)
	}
	s := makePrioSummary(p)
	if prioSummaryCount.Load() < maxPrioSummaries {
		if _, loaded := prioSummaries.LoadOrStore(k, s); !loaded {
			prioSummaryCount.Add(1)
		}
	}
	return s
}

// makePrioSummary is prioSummary made anew.
func makePrioSummary(p *ir.HostProfile) []string {
	var groups [8][]int
	for d, prio := range p.DSCPToPrio {
		groups[prio] = append(groups[prio], d)
	}
	largest := 0
	for i := range groups {
		if len(groups[i]) > len(groups[largest]) {
			largest = i
		}
	}
	var out []string
	for prio, g := range groups {
		if len(g) == 0 {
			continue
		}
		var what []string
		if p.PFC[prio] {
			what = append(what, "lossless (PFC)")
		}
		if slices.Contains(p.ECNPriorities, prio) {
			what = append(what, "ECN/DCQCN")
		}
		if prio == p.CNPPriority {
			what = append(what, "CNPs")
		}
		tc := p.PrioToTC[prio]
		if p.TSA[tc] == "strict" {
			what = append(what, fmt.Sprintf("tc %d strict", tc))
		} else {
			what = append(what, fmt.Sprintf("tc %d ETS %d %%", tc, p.ETS[tc]))
		}
		dscps := "DSCP " + renderers.JoinInts(g, ",")
		if prio == largest && len(g) > 8 {
			dscps = "every other DSCP"
		}
		out = append(out, fmt.Sprintf("priority %d: %s; %s", prio, dscps, strings.Join(what, ", ")))
	}
	return out
}

// ccKnobName and ccKnobValue are the shapes the runtime takes in NIC_CC
// (setting_shape): a driver's attribute name, and a value as bnxt_re
// ("%#x") or irdma (decimal) print it.
var (
	ccKnobName  = regexp.MustCompile(`^[a-z0-9_]{1,32}$`)
	ccKnobValue = regexp.MustCompile(`^(0|0x[0-9a-f]{1,8}|[1-9][0-9]{0,9})$`)
)

// checkCC refuses congestion-control knobs the runtime would not take: one
// driver it knows, attribute names and values of the shapes it parses.
func checkCC(ks []ir.CCKnob) error {
	for _, k := range ks {
		if k.Driver != "bnxt_re" && k.Driver != "irdma" {
			return fmt.Errorf("congestion control driver %q: want bnxt_re or irdma", k.Driver)
		}
		if k.Driver != ks[0].Driver {
			return fmt.Errorf("congestion control of two drivers, %s and %s, on one server", ks[0].Driver, k.Driver)
		}
		if !ccKnobName.MatchString(k.Name) || !ccKnobValue.MatchString(k.Value) {
			return fmt.Errorf("%s congestion control knob %q = %q: want a name of a-z, 0-9 and _ and a value in hex (0x..) or decimal", k.Driver, k.Name, k.Value)
		}
	}
	return nil
}
