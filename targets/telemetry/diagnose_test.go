package telemetry_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/lint/linttest"
	"github.com/rocefab/rocefab/targets/doctor"
	"github.com/rocefab/rocefab/targets/telemetry"
)

// labFabric compiles a fabric of four servers with two NICs each (the
// default netdevs), two rail leaves (NVUE) and a spine.
func labFabric(t *testing.T) *ir.Fabric {
	t.Helper()
	fab, ds := linttest.CompileSource(t, `name: "lab"
topology: {servers: 4, rails: 2, leaf: {platform: "nvue", model: "SN5600", downlinks: 4, uplinks: 4}}
`)
	if fab == nil || ds.HasErrors() {
		t.Fatalf("compile: %v", ds)
	}
	return fab
}

// stormReach is a fabric whose counters all stand still but for one NIC
// that sends PFC pauses and receives nothing: the gray failure. Switches
// answer over gNMI, servers over their shell.
type stormReach struct {
	mu     sync.Mutex
	reads  map[string]int
	origin string // server
	netdev string
}

func (r *stormReach) Via(d *ir.Device) (string, error) {
	if d.Switch != nil {
		return "gnmi", nil
	}
	return "shell", nil
}

func (r *stormReach) GetState(_ context.Context, d *ir.Device, _ []string) ([]*gpb.Notification, error) {
	var ifaces []string
	for _, p := range d.Switch.Ports {
		ifaces = append(ifaces, fmt.Sprintf(`{"name": %q, "state": {"counters": {"in-octets": "0", "out-octets": "0", "in-fcs-errors": "0", "carrier-transitions": "0"}},
		  "openconfig-if-ethernet:ethernet": {"state": {"counters": {"in-mac-pause-frames": "0", "out-mac-pause-frames": "0", "in-symbol-error": "0"}}}}`, p.Name))
	}
	js := `{"openconfig-interfaces:interface": [` + strings.Join(ifaces, ",") + `]}`
	return []*gpb.Notification{{Update: []*gpb.Update{{Path: &gpb.Path{Elem: []*gpb.PathElem{{Name: "interfaces"}}},
		Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(js)}}}}}}, nil
}

// Show is asked of no switch: they answer over gNMI.
func (r *stormReach) Show(_ context.Context, d *ir.Device, cmds []string) ([]string, error) {
	return nil, fmt.Errorf("%s: Show %q", d.Name, cmds)
}

func (r *stormReach) Run(_ context.Context, d *ir.Device, argv []string) ([]byte, error) {
	r.mu.Lock()
	r.reads[d.Name]++
	n := r.reads[d.Name]
	r.mu.Unlock()
	var b strings.Builder
	for _, nic := range d.Host.NICs {
		pauses := 0
		if d.Name == r.origin && nic.Port == r.netdev {
			pauses = 1_000_000 * n
		}
		fmt.Fprintf(&b, "ethtool %s\nNIC statistics:\n     tx_prio3_pause: %d\n     rx_prio3_pause: 0\n     rx_prio3_bytes: 0\n     tx_prio3_bytes: 0\n     rx_crc_errors_phy: 0\n",
			nic.Port, pauses)
	}
	return []byte(b.String()), nil
}

// TestSampledDiagnosis: what --sample reads is diagnosed as a collector's
// scrapes are: a NIC that pauses without receiving is named the origin
// of a storm, and nothing else is found.
func TestSampledDiagnosis(t *testing.T) {
	fab := labFabric(t)
	w := telemetry.NewWindow()
	reach := &stormReach{reads: map[string]int{}, origin: "gpu-0001", netdev: "eth2"}
	unsampled, err := telemetry.Sample(t.Context(), w, telemetry.SampleOptions{Devices: fab.Devices, Reach: reach, Wait: 50 * time.Millisecond})
	if err != nil || len(unsampled) > 0 {
		t.Fatalf("Sample: %v %+v", err, unsampled)
	}
	rep := doctor.NewModel(fab).Diagnose(w, doctor.DefaultOptions())
	if rep.Unmatched != 0 || rep.Rates == 0 {
		t.Errorf("%d rates, %d unmatched: every sampled series names a port of the fabric", rep.Rates, rep.Unmatched)
	}
	if reach.reads["gpu-0001"] != 2 {
		t.Errorf("gpu-0001 read %d times, want 2", reach.reads["gpu-0001"])
	}
	if len(rep.Findings) != 1 {
		t.Fatalf("findings %+v, want one", rep.Findings)
	}
	f := rep.Findings[0]
	if f.Kind != "pause-storm" || f.Cause != "not-draining" || f.Origin.String() != "gpu-0001:eth2" {
		t.Errorf("finding %s %s at %s, want pause-storm not-draining at gpu-0001:eth2", f.Kind, f.Cause, f.Origin)
	}
}
