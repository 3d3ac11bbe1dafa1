package targets_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/targets"
)

// fabric returns leaves (two rails), spines and servers, named as the
// compiler names them.
func fabric(leaves, spines, hosts int) []*ir.Device {
	var out []*ir.Device
	for i := range spines {
		out = append(out, &ir.Device{Name: fmt.Sprintf("spine-%02d", i), Role: ir.RoleSpine, Platform: "fake", Rail: -1, Pod: -1})
	}
	for i := range leaves {
		out = append(out, &ir.Device{Name: fmt.Sprintf("leaf-r%d-%02d", i%2, i/2), Role: ir.RoleLeaf, Platform: "fake", Rail: i % 2, Pod: -1})
	}
	for i := range hosts {
		out = append(out, &ir.Device{Name: fmt.Sprintf("gpu-%03d", i), Role: ir.RoleHost, Platform: "fake", Rail: -1, Pod: -1})
	}
	return out
}

// foreign is configuration rocefab does not own, around and between the
// owned lines: it must come through every apply byte for byte.
const foreign = "# managed by netops\nhostname %s\nrouter bgp 65000\n  neighbor 10.0.0.1 remote-as 65001\n"

// world is a fabric whose switches run an old template: PFC off (a
// traffic-pause change) and an MTU line the intent no longer has (a
// port flap); servers only miss the ECN threshold (hitless).
type world struct {
	devs []*ir.Device
	p    *fakePlatform
	t    *fakeTarget
	// before is every device's running configuration before any apply.
	before map[string]string
}

func newWorld(devs []*ir.Device) *world {
	w := &world{devs: devs, p: &fakePlatform{want: map[string]map[string]string{}, parseErr: map[string]bool{}}, before: map[string]string{}}
	w.t = newTarget(w.p)
	for _, d := range devs {
		w.p.want[d.Name] = map[string]string{"owned.pfc": "3", "owned.ecn": "150"}
		cfg := fmt.Sprintf(foreign, d.Name)
		if d.Role == ir.RoleHost {
			cfg = "owned.pfc=3\n" + cfg + "owned.ecn=100\n"
		} else {
			cfg = "owned.pfc=0\n" + cfg + "owned.ecn=150\nowned.mtu=1500\n! end\n"
		}
		w.t.set(d.Name, cfg)
		w.before[d.Name] = cfg
	}
	return w
}

func (w *world) platforms(d *ir.Device) (renderers.Platform, error) {
	if d.Platform != "fake" {
		return nil, fmt.Errorf("platform %s has no model of its running configuration", d.Platform)
	}
	return w.p, nil
}

func (w *world) plan(t *testing.T, tg targets.Target) *targets.Plan {
	t.Helper()
	p, err := targets.Make(t.Context(), targets.Request{Devices: w.devs, Target: tg, Platforms: w.platforms, Parallelism: 4})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPlanActions(t *testing.T) {
	devs := fabric(2, 1, 2)
	devs = append(devs,
		&ir.Device{Name: "leaf-new", Role: ir.RoleLeaf, Platform: "fake", Rail: -1},
		&ir.Device{Name: "leaf-down", Role: ir.RoleLeaf, Platform: "fake", Rail: -1},
		&ir.Device{Name: "leaf-garbled", Role: ir.RoleLeaf, Platform: "fake", Rail: -1},
		&ir.Device{Name: "sonic-00", Role: ir.RoleLeaf, Platform: "sonic", Rail: -1},
		&ir.Device{Name: "gpu-same", Role: ir.RoleHost, Platform: "fake", Rail: -1})
	w := newWorld(devs)
	w.t.set("leaf-new", "")
	w.t.running["leaf-new"] = nil
	w.t.readErr["leaf-down"] = errors.New("dial tcp 10.0.0.9:6030: connection refused")
	w.p.parseErr["leaf-garbled"] = true
	w.t.set("gpu-same", "hostname gpu-same\nowned.ecn=150\nowned.pfc=3\n")

	p := w.plan(t, w.t)
	got := map[string]string{}
	for _, d := range p.Devices {
		got[d.Device] = fmt.Sprintf("%s %s %s", d.Action, d.Disruption, d.Reason)
	}
	want := map[string]string{
		"spine-00":     "update traffic-pause ",
		"leaf-r0-00":   "update traffic-pause ",
		"leaf-r1-00":   "update traffic-pause ",
		"gpu-000":      "update hitless ",
		"gpu-001":      "update hitless ",
		"gpu-same":     "no-op  ",
		"leaf-new":     "create traffic-pause ",
		"leaf-down":    "unreachable  dial tcp 10.0.0.9:6030: connection refused",
		"leaf-garbled": "error  reading its running configuration: cfg.txt:1: unexpected token",
		"sonic-00":     "unsupported  platform sonic has no model of its running configuration",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if s := p.Summary().String(); s != "6 devices to change: 2 hitless, 4 traffic-pause; 1 unchanged; 1 unreachable; 1 unsupported; 1 failed" {
		t.Errorf("summary: %s", s)
	}
	if p.Empty() || p.Complete() {
		t.Errorf("Empty %v Complete %v, want false false", p.Empty(), p.Complete())
	}
	// Devices in name order, each change with its disruption, and nothing
	// of the foreign configuration in the plan.
	for i := 1; i < len(p.Devices); i++ {
		if p.Devices[i-1].Device >= p.Devices[i].Device {
			t.Errorf("devices out of order: %s before %s", p.Devices[i-1].Device, p.Devices[i].Device)
		}
	}
	var leaf targets.DevicePlan
	for _, d := range p.Devices {
		if d.Device == "leaf-r0-00" {
			leaf = d
		}
	}
	wantChanges := []renderers.Change{
		{Path: "owned.mtu", Before: new("1500"), Kind: "mtu", Disruption: renderers.PortFlap},
		{Path: "owned.pfc", Before: new("0"), After: new("3"), Kind: "pfc", Disruption: renderers.TrafficPause},
	}
	if diff := cmp.Diff(wantChanges, leaf.Changes); diff != "" {
		t.Errorf("leaf changes (-want +got):\n%s", diff)
	}
	if got := string(leaf.Remediation.Content); got != "unset owned.mtu\nset owned.pfc 3\n" {
		t.Errorf("leaf remediation %q", got)
	}
	owned := renderers.Elements{{Path: "owned.pfc", Value: "0"}, {Path: "owned.ecn", Value: "150"}, {Path: "owned.mtu", Value: "1500"}}
	if leaf.Running == nil || leaf.Running.SHA256 != targets.OwnedDigest(owned).SHA256 {
		t.Errorf("leaf running digest %+v", leaf.Running)
	}
	if leaf.Rail == nil || *leaf.Rail != 0 {
		t.Errorf("leaf rail %v", leaf.Rail)
	}
	var buf bytes.Buffer
	if err := targets.WritePlan(&buf, p); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"bgp", "hostname", "netops", "neighbor"} {
		if strings.Contains(buf.String(), s) {
			t.Errorf("the plan holds foreign configuration %q", s)
		}
	}
}

func TestPlanNoChanges(t *testing.T) {
	w := newWorld(fabric(2, 1, 1))
	for _, d := range w.devs {
		w.t.set(d.Name, fmt.Sprintf(foreign, d.Name)+"owned.pfc=3\nowned.ecn=150\n")
	}
	p := w.plan(t, w.t)
	if !p.Empty() || !p.Complete() {
		t.Errorf("Empty %v Complete %v, want true true", p.Empty(), p.Complete())
	}
	if s := p.Summary().String(); s != "no changes; 4 unchanged" {
		t.Errorf("summary: %s", s)
	}
}

func TestPlanInterrupted(t *testing.T) {
	w := newWorld(fabric(4, 2, 8))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := targets.Make(ctx, targets.Request{Devices: w.devs, Target: w.t, Platforms: w.platforms}); err == nil {
		t.Error("an interrupted plan returned no error")
	}
}

// A platform that panics costs its device, not the plan.
func TestPlanPlatformPanics(t *testing.T) {
	w := newWorld(fabric(1, 0, 0))
	p, err := targets.Make(t.Context(), targets.Request{Devices: w.devs, Target: w.t,
		Platforms: func(*ir.Device) (renderers.Platform, error) { return panicky{w.p}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Devices[0]; d.Action != targets.Failed || !strings.Contains(d.Reason, "internal error") {
		t.Errorf("device %+v, want error with internal error", d)
	}
}

type panicky struct{ *fakePlatform }

func (panicky) Desired(*ir.Device) (renderers.State, error) { panic("index out of range") }

func TestPlanFileRoundTrip(t *testing.T) {
	w := newWorld(fabric(2, 1, 2))
	w.t.readErr["gpu-001"] = errors.New("timeout")
	p := w.plan(t, w.t)
	p.Rocefab, p.Fabric, p.Target = "v1.2.3", "pod-2", "directory running"
	p.Intent = targets.IntentRef{Path: "fabric.cue", SHA256: "abc"}
	// A remediation that is not text is kept exactly, as base64.
	p.Devices[0].Remediation = &targets.Remediation{Format: "proto", Content: []byte{0xff, 0, 0x80, '\n'}}
	var buf bytes.Buffer
	if err := targets.WritePlan(&buf, p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"text": "unset owned.mtu\nset owned.pfc 3\n"`) || !strings.Contains(buf.String(), `"base64": "/wCACg=="`) {
		t.Errorf("remediations not as text and base64:\n%s", buf.String())
	}
	back, err := targets.ReadPlan(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p, back); diff != "" {
		t.Errorf("round trip (-wrote +read):\n%s", diff)
	}
	var again bytes.Buffer
	if err := targets.WritePlan(&again, back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("writing a plan read back gives other bytes")
	}

	if !strings.Contains(buf.String(), `"desired_shapes": [`) || !strings.Contains(buf.String(), `"path": "owned.ecn",`+"\n"+`          "value": "150",`) {
		t.Errorf("the desired states are not in the file:\n%s", buf.String())
	}
	version := fmt.Sprintf(`"format_version": %d`, targets.PlanFormatVersion)
	for name, c := range map[string]struct{ edit, want string }{
		"newer version":    {version, fmt.Sprintf(`"format_version": %d`, targets.PlanFormatVersion+1)},
		"previous version": {version, fmt.Sprintf(`"format_version": %d`, targets.PlanFormatVersion-1)},
		"unknown field":    {`"fabric": "pod-2"`, `"fabric": "pod-2", "extra": 1`},
		"no version":       {version + ",", ``},
		"unknown action":   {`"action": "unreachable"`, `"action": "replace"`},
		"both encodings":   {`"base64": "/wCACg=="`, `"base64": "/wCACg==", "text": "x"`},
		"not json at all":  {`{`, `[`},
	} {
		in := strings.Replace(buf.String(), c.edit, c.want, 1)
		if in == buf.String() {
			t.Fatalf("%s: the edit changed nothing", name)
		}
		_, err := targets.ReadPlan(strings.NewReader(in))
		if err == nil {
			t.Errorf("%s: read without error", name)
		}
		if fe, ok := errors.AsType[*targets.FormatError](err); (name == "newer version" || name == "previous version") != ok {
			t.Errorf("%s: FormatError %v, error %v", name, fe, err)
		}
	}

	// A file of format 2, as the rocefab before this one wrote it: no
	// desired states, and refused as a format to make again.
	_, err = targets.ReadPlan(strings.NewReader(formatTwo))
	if fe, ok := errors.AsType[*targets.FormatError](err); !ok || fe.Version != 2 || !strings.Contains(err.Error(), "make the plan again") {
		t.Errorf("a format 2 file: %v", err)
	}

	// A device the plan diffed without its desired state, which the
	// gate holds it to.
	at := slices.IndexFunc(p.Devices, func(d targets.DevicePlan) bool { return d.Action == targets.Update })
	p.Devices[at].Desired = nil
	var none bytes.Buffer
	if err := targets.WritePlan(&none, p); err != nil {
		t.Fatal(err)
	}
	if _, err := targets.ReadPlan(&none); err == nil || !strings.Contains(err.Error(), p.Devices[at].Device+": action update without its desired state") {
		t.Errorf("a device without its desired state: %v", err)
	}
}

// formatTwo is a plan file of format 2 (one leaf to update), as the
// rocefab before format 3 wrote it and read it back.
const formatTwo = `{
  "format_version": 2,
  "rocefab": "v1.2.3",
  "fabric": "pod-2",
  "intent": {
    "path": "fabric.cue",
    "sha256": "abc"
  },
  "target": "directory running",
  "shapes": [
    {
      "sha256": "d4da52f8fb56e12cc8a566d4abfe85410b4a38bd00517ad9484b4ea3a9eb576f",
      "changes": [
        {
          "path": "owned.pfc",
          "before": "0",
          "after": "3",
          "element": "pfc",
          "disruption": "traffic-pause"
        }
      ],
      "remediation": {
        "format": "text",
        "text": "set owned.pfc 3\n"
      }
    }
  ],
  "devices": [
    {
      "device": "leaf-r0-00",
      "role": "leaf",
      "platform": "fake",
      "rail": 0,
      "action": "update",
      "disruption": "traffic-pause",
      "running": {
        "sha256": "e3b0"
      },
      "body": {
        "shape": "d4da52f8fb56e12cc8a566d4abfe85410b4a38bd00517ad9484b4ea3a9eb576f",
        "sha256": "d4da52f8fb56e12cc8a566d4abfe85410b4a38bd00517ad9484b4ea3a9eb576f"
      }
    }
  ]
}
`

// TestOwnedDigest: the digest is of the elements, in any order, and
// tells a path from its value.
func TestOwnedDigest(t *testing.T) {
	a := targets.OwnedDigest(renderers.Elements{{Path: "x.b", Value: "1"}, {Path: "x.a", Value: "2"}})
	b := targets.OwnedDigest(renderers.Elements{{Path: "x.a", Value: "2"}, {Path: "x.b", Value: "1"}})
	if a.SHA256 != b.SHA256 {
		t.Error("the digest depends on the order of the elements")
	}
	if c := targets.OwnedDigest(renderers.Elements{{Path: "x.a", Value: "3"}, {Path: "x.b", Value: "1"}}); c.SHA256 == a.SHA256 {
		t.Error("the digest ignores a value")
	}
	// The digest is of "len:path" "len:value" lines in path order, which
	// plan files written before keep: a large state, written in blocks,
	// digests as its text does.
	var big renderers.Elements
	var text strings.Builder
	for i := range 3000 {
		e := renderers.Element{Path: fmt.Sprintf("PORT|Ethernet%04d|description", i), Value: strings.Repeat("é", i%7)}
		big = append(big, e)
		fmt.Fprintf(&text, "%d:%s%d:%s\n", len(e.Path), e.Path, len(e.Value), e.Value)
	}
	if got, want := targets.OwnedDigest(big).SHA256, fmt.Sprintf("%x", sha256.Sum256([]byte(text.String()))); got != want {
		t.Errorf("the digest of 3,000 elements is %s, its text's %s", got, want)
	}
	d1 := targets.OwnedDigest(renderers.Elements{{Path: "ab", Value: "c"}})
	d2 := targets.OwnedDigest(renderers.Elements{{Path: "a", Value: "bc"}})
	if d1.SHA256 == d2.SHA256 {
		t.Error("the digest ignores where a path ends")
	}
}
