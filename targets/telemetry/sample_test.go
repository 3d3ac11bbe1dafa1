package telemetry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/compiler/ir"
)

// TestEthtoolMetric: statistics are named as node_exporter's ethtool
// collector names them (its TestBuildEthtoolFQName cases, and the names
// it fills in advance), so a sample reads as a scrape of it.
func TestEthtoolMetric(t *testing.T) {
	for stat, want := range map[string]string{
		"port.rx_errors":               "node_ethtool_port_received_errors",
		"rx_errors":                    "node_ethtool_received_errors_total",
		"Queue[0] AllocFails":          "node_ethtool_queue_0_allocfails",
		"Tx LPI entry count":           "node_ethtool_transmitted_lpi_entry_count",
		"port.VF_admin_queue_requests": "node_ethtool_port_vf_admin_queue_requests",
		"[3]: tx_bytes":                "node_ethtool_3_transmitted_bytes",
		"     err":                     "node_ethtool_err",
		"tx_prio3_pause":               "node_ethtool_transmitted_prio3_pause",
		"rx_crc_errors_phy":            "node_ethtool_received_crc_errors_phy",
		"link_down_events_phy":         "node_ethtool_link_down_events_phy",
	} {
		if got := EthtoolMetric(stat); got != want {
			t.Errorf("EthtoolMetric(%q) = %q, want %q", stat, got, want)
		}
	}
}

// fakeReach answers as a fabric would: each read of a counter adds its
// step, so that every counter has a rate.
type fakeReach struct {
	mu    sync.Mutex
	reads map[string]int
	// runs and gets count the reads by device.
	fail map[string]error
	via  map[string]string
}

func (f *fakeReach) read(d *ir.Device) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads[d.Name]++
	return f.reads[d.Name]
}

func (f *fakeReach) Via(d *ir.Device) (string, error) {
	if err := f.fail[d.Name]; err != nil {
		return "", err
	}
	return f.via[d.Name], nil
}

func (f *fakeReach) GetState(_ context.Context, d *ir.Device, paths []string) ([]*gpb.Notification, error) {
	if strings.Join(paths, " ") != "/interfaces/interface[name=swp1] /qos/interfaces/interface[interface-id=swp1]/output" {
		return nil, fmt.Errorf("paths %q", paths)
	}
	n := f.read(d)
	ifaces := fmt.Sprintf(`{"openconfig-interfaces:interface": [
	  {"name": "swp1", "config": {"name": "swp1"}, "state": {"counters": {"in-octets": "%d", "out-octets": "5", "in-fcs-errors": "0", "carrier-transitions": "2"}},
	   "openconfig-if-ethernet:ethernet": {"state": {"counters": {"in-mac-pause-frames": "0", "out-mac-pause-frames": "%d"}}},
	   "subinterfaces": {"subinterface": [{"index": 0, "state": {"counters": {"in-octets": "9"}}}]}}]}`, 1000*n, 50000*n)
	qos := fmt.Sprintf(`{"interface": [{"interface-id": "swp1", "output": {"queues": {"queue": [{"name": "3", "state": {"ecn-marked-pkts": "%d", "dropped-pkts": "0"}}]}}}]}`, 7*n)
	return []*gpb.Notification{{
		Timestamp: time.Now().UnixNano(),
		Update: []*gpb.Update{
			{Path: &gpb.Path{Elem: []*gpb.PathElem{{Name: "interfaces"}}}, Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(ifaces)}}},
			{Path: &gpb.Path{Elem: []*gpb.PathElem{{Name: "qos"}, {Name: "interfaces"}}}, Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(qos)}}},
			// A leaf update with its keys in the path, as a device may send.
			{Path: &gpb.Path{Elem: []*gpb.PathElem{{Name: "interfaces"}, {Name: "interface", Key: map[string]string{"name": "swp2"}},
				{Name: "state"}, {Name: "counters"}, {Name: "in-octets"}}}, Val: &gpb.TypedValue{Value: &gpb.TypedValue_UintVal{UintVal: uint64(10 * n)}}},
		},
	}}, nil
}

func (f *fakeReach) Run(_ context.Context, d *ir.Device, argv []string) ([]byte, error) {
	if len(argv) != 6 || argv[0] != "sh" || argv[1] != "-c" || argv[2] != serverScript || argv[4] != "eth0" || argv[5] != "eth1" {
		return nil, fmt.Errorf("argv %q", argv)
	}
	n := f.read(d)
	return fmt.Appendf(nil, `ethtool eth0
NIC statistics:
     rx_packets: 12
     tx_prio3_pause: %d
     rx_prio3_pause: 0
     rx_prio3_bytes: %d
     rx_crc_errors_phy: 0
ethtool eth1
NIC statistics:
     tx_prio3_pause: 0
     rx_prio3_discards: %d
hw mlx5_0/ports/1/hw_counters/rp_cnp_ignored %d
hw mlx5_0/ports/1/hw_counters/out_of_buffer 4
hw mlx5_1/ports/1/hw_counters/np_cnp_sent 0
`, 3000*n, 100*n, 2*n, 40*n), nil
}

// Show is asked of no switch here: the switch reached over SSH is an
// NVUE one, which is not sampleable over SSH.
func (f *fakeReach) Show(_ context.Context, d *ir.Device, cmds []string) ([]string, error) {
	return nil, fmt.Errorf("%s: Show %q", d.Name, cmds)
}

// TestSample: two rounds, Wait apart, each device's counters named as
// their collectors name them, a rate for each; devices that cannot be
// read are listed and asked once.
func TestSample(t *testing.T) {
	server := &ir.Device{Name: "gpu-0001", Role: "server", Platform: "linux",
		Host: &ir.Host{NICs: []ir.NIC{{Port: "eth0", HCA: "mlx5_0"}, {Port: "eth1", HCA: "mlx5_1"}}}}
	leaf := &ir.Device{Name: "leaf-00", Role: "leaf", Platform: "nvue", Switch: &ir.Switch{Ports: []ir.Port{{Name: "swp1"}}}}
	cliLeaf := &ir.Device{Name: "leaf-01", Role: "leaf", Platform: "nvue", Switch: &ir.Switch{}}
	gone := &ir.Device{Name: "gpu-0002", Role: "server", Platform: "linux", Host: &ir.Host{}}
	reach := &fakeReach{reads: map[string]int{},
		via:  map[string]string{"gpu-0001": viaShell, "leaf-00": viaGNMI, "leaf-01": viaCLI},
		fail: map[string]error{"gpu-0002": errors.New("gpu-0002: the inventory gives it no transport")}}
	var steps []string
	var rounds [2]bytes.Buffer
	w := NewWindow()
	unsampled, err := Sample(t.Context(), w, SampleOptions{Devices: []*ir.Device{server, leaf, cliLeaf, gone}, Reach: reach,
		Wait: 20 * time.Millisecond, Parallelism: 2, Progress: progressFunc(func(s string) { steps = append(steps, s) }),
		Record: [2]io.Writer{&rounds[0], &rounds[1]}})
	if err != nil {
		t.Fatal(err)
	}
	if reach.reads["gpu-0001"] != 2 || reach.reads["leaf-00"] != 2 {
		t.Errorf("reads %v, want two of each device", reach.reads)
	}
	wantSteps := []string{"sampling the counters (1 of 2) 4", "waiting 20ms between the samples 0", "sampling the counters (2 of 2) 2"}
	if strings.Join(steps, "|") != strings.Join(wantSteps, "|") {
		t.Errorf("steps %q, want %q", steps, wantSteps)
	}
	if len(unsampled) != 2 || unsampled[0].Device != "gpu-0002" || unsampled[1].Device != "leaf-01" ||
		!strings.Contains(unsampled[1].Error, "not sampleable over SSH") || !strings.Contains(unsampled[1].Error, "gNMI") {
		t.Errorf("unsampled %+v", unsampled)
	}
	got := map[string]float64{}
	for k, r := range w.Rates() {
		if r.Seconds < 0.015 {
			t.Errorf("%s: a window of %gs, want at least the wait", r.Series(), r.Seconds)
		}
		got[fmt.Sprintf("%s %s %s %d %s", k.Device, k.Port, k.Counter, k.Priority, k.Queue)] = r.PerSecond * r.Seconds
	}
	want := map[string]float64{
		"gpu-0001 eth0 tx-pause 3 ":            3000,
		"gpu-0001 eth0 rx-pause 3 ":            0,
		"gpu-0001 eth0 rx-bytes 3 ":            100,
		"gpu-0001 eth0 rx-errors -1 ":          0,
		"gpu-0001 eth1 tx-pause 3 ":            0,
		"gpu-0001 eth1 drops 3 ":               2,
		"gpu-0001 mlx5_0 cnp-ignored -1 ":      40,
		"gpu-0001 mlx5_1 cnp-sent -1 ":         0,
		"leaf-00 swp1 rx-bytes -1 ":            1000,
		"leaf-00 swp1 tx-bytes -1 ":            0,
		"leaf-00 swp1 rx-errors -1 ":           0,
		"leaf-00 swp1 carrier-transitions -1 ": 0,
		"leaf-00 swp1 rx-pause -1 ":            0,
		"leaf-00 swp1 tx-pause -1 ":            50000,
		"leaf-00 swp1 ecn-marks -1 3":          7,
		"leaf-00 swp1 drops -1 3":              0,
		"leaf-00 swp2 rx-bytes -1 ":            10,
	}
	for k, v := range want {
		g, ok := got[k]
		if !ok || g < v*0.999 || g > v*1.001 {
			t.Errorf("%s: increase %g (found %v), want %g", k, g, ok, v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d series, want %d: %v", len(got), len(want), got)
	}

	// What Record kept reads back, as two scrapes, into the same rates.
	again := NewWindow()
	for i := range rounds {
		if err := again.Read(&rounds[i], fmt.Sprintf("round %d", i+1), 0); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for k, r := range again.Rates() {
		n++
		if g := got[fmt.Sprintf("%s %s %s %d %s", k.Device, k.Port, k.Counter, k.Priority, k.Queue)]; g != r.PerSecond*r.Seconds {
			t.Errorf("%s: increase %g read back from the record, %g sampled", r.Series(), r.PerSecond*r.Seconds, g)
		}
	}
	if n != len(got) {
		t.Errorf("%d series read back from the record, %d sampled", n, len(got))
	}
}

// progressFunc records each step with its total.
type progressFunc func(string)

func (p progressFunc) Step(what string, total int) { p(fmt.Sprintf("%s %d", what, total)) }
func (p progressFunc) Add()                        {}

// TestSampleCancel: an interrupt during the wait ends sampling with the
// context's error.
func TestSampleCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	reach := &fakeReach{reads: map[string]int{}, via: map[string]string{"leaf-00": viaGNMI}}
	leaf := &ir.Device{Name: "leaf-00", Role: "leaf", Platform: "nvue", Switch: &ir.Switch{Ports: []ir.Port{{Name: "swp1"}}}}
	_, err := Sample(ctx, NewWindow(), SampleOptions{Devices: []*ir.Device{leaf}, Reach: reach, Wait: time.Hour,
		Progress: progressFunc(func(s string) {
			if strings.HasPrefix(s, "waiting") {
				cancel()
			}
		})})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
}

// slowReach answers each server's read after a delay that makes the later
// devices answer first.
type slowReach struct{ fakeReach }

func (s *slowReach) Run(ctx context.Context, d *ir.Device, argv []string) ([]byte, error) {
	var i int
	fmt.Sscanf(d.Name, "gpu-%d", &i)
	time.Sleep(time.Duration(20-i) * time.Millisecond)
	return s.fakeReach.Run(ctx, d, argv)
}

// TestSampleOrder: the window holds the devices in the order they were
// given, whatever order they answer in, so that a report does not depend
// on which device answered first.
func TestSampleOrder(t *testing.T) {
	reach := &slowReach{fakeReach{reads: map[string]int{}, via: map[string]string{}}}
	var devs []*ir.Device
	for i := range 20 {
		d := &ir.Device{Name: fmt.Sprintf("gpu-%04d", i), Role: "server", Platform: "linux",
			Host: &ir.Host{NICs: []ir.NIC{{Port: "eth0", HCA: "mlx5_0"}, {Port: "eth1", HCA: "mlx5_1"}}}}
		reach.via[d.Name] = viaShell
		devs = append(devs, d)
	}
	w := NewWindow()
	if _, err := Sample(t.Context(), w, SampleOptions{Devices: devs, Reach: reach, Wait: time.Millisecond, Parallelism: 8}); err != nil {
		t.Fatal(err)
	}
	var order []string
	for k := range w.Rates() {
		if len(order) == 0 || order[len(order)-1] != k.Device {
			order = append(order, k.Device)
		}
	}
	if len(order) != len(devs) {
		t.Fatalf("devices in the window's order %q, want each once", order)
	}
	for i, name := range order {
		if name != devs[i].Name {
			t.Fatalf("devices in the window's order %q, want the order given", order)
		}
	}
}
