package renderers

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWorst(t *testing.T) {
	for _, c := range []struct {
		in   []Disruption
		want Disruption
	}{
		{nil, Hitless},
		{[]Disruption{Hitless, PortFlap}, PortFlap},
		{[]Disruption{TrafficPause, PortFlap, Hitless}, TrafficPause},
		{[]Disruption{Hitless, Reboot, TrafficPause}, Reboot},
		{[]Disruption{Hitless, "typo"}, "typo"}, // unknown ranks as a reboot
	} {
		if got := Worst(c.in...); got != c.want {
			t.Errorf("Worst(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestDisruptionsOf(t *testing.T) {
	ds := Disruptions{"pfc": "port-flap", "ecn": "", "odd": "sometimes"}
	for kind, want := range map[string]Disruption{"pfc": PortFlap, "ecn": Hitless, "": Hitless, "mtu": Hitless, "odd": Reboot} {
		if got := ds.Of(kind); got != want {
			t.Errorf("Of(%q) = %q, want %q", kind, got, want)
		}
	}
	if _, err := ParseDisruption("flap"); err == nil {
		t.Error("ParseDisruption(flap) accepted")
	}
}

// TestFloorsRaise: a floor raises its kind's changes to it and never
// lowers one; a change of a kind without a floor keeps its disruption.
func TestFloorsRaise(t *testing.T) {
	f := Floors{KindPortSpeed: PortFlap}
	changes := []Change{
		{Path: "speed", Kind: KindPortSpeed, Disruption: Hitless},
		{Path: "speed-too", Kind: KindPortSpeed, Disruption: Reboot},
		{Path: "description", Disruption: Hitless},
		{Path: "buffers", Kind: "pool-percent", Disruption: TrafficPause},
	}
	f.Raise(changes)
	want := []Disruption{PortFlap, Reboot, Hitless, TrafficPause}
	for i, c := range changes {
		if c.Disruption != want[i] {
			t.Errorf("%s: %q, want %q", c.Path, c.Disruption, want[i])
		}
	}
}

func TestDiffElements(t *testing.T) {
	running := Elements{
		{Path: "interface Ethernet1 > mtu", Value: "9000", Kind: "mtu"},
		{Path: "interface Ethernet1 > description", Value: "to gpu-0"},
		{Path: "qos map dscp 26 to traffic-class 3", Kind: "dscp-map"},
		{Path: "qos map dscp 8 to traffic-class 1", Kind: "dscp-map"},
	}
	desired := Elements{
		{Path: "qos map dscp 26 to traffic-class 3", Kind: "dscp-map"},
		{Path: "interface Ethernet1 > mtu", Value: "9214", Kind: "mtu"},
		{Path: "interface Ethernet1 > description", Value: "to gpu-0"},
		{Path: "priority-flow-control priority 3 no-drop", Kind: "pfc"},
	}
	ds := Disruptions{"mtu": "traffic-pause", "pfc": "traffic-pause", "dscp-map": "hitless"}
	got := DiffElements(running.Elements(), desired.Elements(), ds)
	want := []Change{
		{Path: "interface Ethernet1 > mtu", Before: new("9000"), After: new("9214"), Kind: "mtu", Disruption: TrafficPause},
		{Path: "priority-flow-control priority 3 no-drop", After: new(""), Kind: "pfc", Disruption: TrafficPause},
		{Path: "qos map dscp 8 to traffic-class 1", Before: new(""), Kind: "dscp-map", Disruption: Hitless},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DiffElements (-want +got):\n%s", diff)
	}
	for i, a := range []string{"modify", "add", "remove"} {
		if got[i].Action() != a {
			t.Errorf("change %d: action %s, want %s", i, got[i].Action(), a)
		}
	}
	if d := DiffElements(desired.Elements(), desired.Elements(), ds); len(d) != 0 {
		t.Errorf("diff of a state with itself: %v", d)
	}
}

// TestRunningFile: the running artifact of a file is found by its base
// name, a device without it has none, and two of them are refused with
// both paths named.
func TestRunningFile(t *testing.T) {
	running := []Artifact{{Path: "leaf/notes.txt"}, {Path: "leaf/eos.cfg"}}
	if at, err := RunningFile(running, "eos.cfg"); at != 1 || err != nil {
		t.Errorf("RunningFile = %d, %v, want 1", at, err)
	}
	if at, err := RunningFile(running, "nxos.cfg"); at != -1 || err != nil {
		t.Errorf("RunningFile of a missing file = %d, %v, want -1", at, err)
	}
	running = append(running, Artifact{Path: "other/eos.cfg"})
	if _, err := RunningFile(running, "eos.cfg"); err == nil || err.Error() != "two running configurations, leaf/eos.cfg and other/eos.cfg" {
		t.Errorf("two running files: %v", err)
	}
}
