package renderers_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/eos"
	"github.com/rocefab/rocefab/renderers/host"
	"github.com/rocefab/rocefab/renderers/nvue"
	"github.com/rocefab/rocefab/renderers/nxos"
	"github.com/rocefab/rocefab/renderers/sonic"
)

// TestRefusesOtherDevices checks that each platform's renderer refuses
// what is not one of its devices, rather than print half a configuration:
// no device, every device of the test fabric on another platform, its own
// device moved to another platform or stripped of its switch and server
// parts, and, for a switch platform, its switch without a QoS policy and
// a server put on the platform, for the servers' platform a server
// without a NIC profile. What each platform refuses of its own devices'
// values its own tests check.
func TestRefusesOtherDevices(t *testing.T) {
	f := irtest.Fabric()
	for _, c := range []struct {
		platform string
		r        renderers.Renderer
		own      string // a device of the platform in the test fabric
	}{
		{ir.PlatformEOS, eos.Renderer{}, "leaf-eos"},
		{ir.PlatformNXOS, nxos.Renderer{}, "leaf-nxos"},
		{ir.PlatformNVUE, nvue.Renderer{}, "leaf-nvue"},
		{ir.PlatformSONiC, sonic.Renderer{}, "leaf-sonic"},
		{ir.PlatformLinux, host.Renderer{}, "gpu-0000"},
	} {
		refused := map[string]*ir.Device{"no device": nil}
		for _, d := range f.Devices {
			if d.Platform != c.platform {
				refused[d.Name+" on "+d.Platform] = d
			}
		}
		own := f.Device(c.own)
		moved, bare := *own, *own
		moved.Platform = "windows"
		bare.Switch, bare.Host = nil, nil
		refused["on another platform"], refused["neither switch nor server"] = &moved, &bare
		if own.Switch != nil {
			server := *own
			server.Switch, server.Host = nil, f.Device("gpu-0000").Host
			refused["a server"] = &server
			refused["no QoS"] = irtest.WithSwitch(own, func(sw *ir.Switch) { sw.QoS = nil })
		} else {
			h, noProfile := *own.Host, *own
			h.Profile, noProfile.Host = nil, &h
			refused["no NIC profile"] = &noProfile
		}
		for name, d := range refused {
			if arts, err := c.r.Render(d); err == nil {
				t.Errorf("%s: %s: rendered %d artifacts, want an error", c.platform, name, len(arts))
			}
		}
	}
}

// TestCheckQoSRanges: the test fabric's policy passes, and a class, queue
// or lossless priority outside 0..7 in any of the four places is refused,
// naming the place and the value.
func TestCheckQoSRanges(t *testing.T) {
	for name, c := range map[string]struct {
		edit func(q *ir.QoS)
		want string
	}{
		"valid":    {func(*ir.QoS) {}, ""},
		"dscp map": {func(q *ir.QoS) { q.DSCPToTC[5] = 8 }, "DSCP 5 maps to traffic class 8, outside 0..7"},
		"tc map":   {func(q *ir.QoS) { q.TCToQueue[2] = -1 }, "traffic class 2 maps to queue -1, outside 0..7"},
		"queue":    {func(q *ir.QoS) { q.Queues = append(q.Queues, ir.Queue{ID: 9}) }, "queue 9 outside 0..7"},
		"pfc":      {func(q *ir.QoS) { q.PFC = []int{3, 8} }, "lossless priority 8 outside 0..7"},
	} {
		q := *irtest.Fabric().Device("leaf-eos").Switch.QoS
		q.Queues = slices.Clone(q.Queues)
		c.edit(&q)
		err := renderers.CheckQoSRanges(&q)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}
