package host

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/compiler/platforms"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/rendertest"
)

func runningOf(d *ir.Device, report []byte) []renderers.Artifact {
	return []renderers.Artifact{{Path: d.Name + "/" + StateFile, Format: renderers.JSON, Content: report}}
}

func elementsOf(t *testing.T, s renderers.State, err error) []renderers.Element {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return s.Elements()
}

// TestEverySettingIsPlanned changes each value of a server's settings in
// turn: host.conf, which prints them, and the desired state, which is
// what the runtime makes of them, must both change. A value printed but
// not planned, or planned from somewhere but the settings, fails. The
// settings come from a server with every section (DCQCN parameters, tc
// shaping, a cable length, a CNP class) and, for NIC_CC, from another
// vendor's NIC.
func TestEverySettingIsPlanned(t *testing.T) {
	t.Parallel()
	mlx5 := ofedDevice(t)
	if p := mlx5.Host.Profile; len(p.DCQCN.Params) == 0 || len(shapingPlan(p)) == 0 || p.CableM == 0 || p.CNPDSCP < 0 {
		t.Fatal("the server lacks DCQCN parameters, tc shaping, a cable length or a CNP class: the test would not see those settings")
	}
	vcc := irtest.VendorCCs()[0]
	vendor := vendorDevice(t, vcc.HCA, vcc.Knobs)
	edits := []struct {
		name string
		d    *ir.Device
		edit func(s *settings)
	}{
		{"tool", mlx5, func(s *settings) { s.tool = "dcb" }},
		{"netdev", mlx5, func(s *settings) { s.netdevs[0] = "eth99" }},
		{"hca", mlx5, func(s *settings) { s.hcas[0] = "mlx5_99" }},
		{"mtu", mlx5, func(s *settings) { s.mtu++ }},
		{"trust", mlx5, func(s *settings) { s.trust = "pcp" }},
		{"dscp2prio", mlx5, func(s *settings) { s.dscp2prio[63] = (s.dscp2prio[63] + 1) % 8 }},
		{"prio_tc", mlx5, func(s *settings) { s.prioTC[0], s.prioTC[7] = s.prioTC[7], s.prioTC[0] }},
		{"tsa", mlx5, func(s *settings) {
			s.tsa[s.prioTC[0]] = map[string]string{"ets": "strict", "strict": "ets"}[s.tsa[s.prioTC[0]]]
		}},
		{"tcbw", mlx5, func(s *settings) { s.tcbw[s.prioTC[0]]++ }},
		{"pfc", mlx5, func(s *settings) { s.pfc[0] ^= 1 }},
		{"ecn", mlx5, func(s *settings) { s.ecn[0] ^= 1 }},
		{"cable", mlx5, func(s *settings) { s.cableLen++ }},
		{"cnp dscp", mlx5, func(s *settings) { s.cnpDSCP = (s.cnpDSCP + 1) % 64 }},
		{"cnp prio", mlx5, func(s *settings) { s.cnpPrio = (s.cnpPrio + 1) % 8 }},
		{"dcqcn", mlx5, func(s *settings) { s.dcqcn[0].Value++ }},
		{"tos", mlx5, func(s *settings) { s.tos += 4 }},
		{"maxrate", mlx5, func(s *settings) { s.maxrate[0][1]++ }},
		{"shaping default", mlx5, func(s *settings) { s.shaping[0].deflt++ }},
		{"shaping class", mlx5, func(s *settings) { s.shaping[0].classes[0] = strings.Replace(s.shaping[0].classes[0], " ", " 1", 1) }},
		{"shaping filter", mlx5, func(s *settings) { s.shaping[0].filters = s.shaping[0].filters[1:] }},
		{"nic cc", vendor, func(s *settings) { s.cc[0].Value += "1" }},
	}
	for _, e := range edits {
		base := settingsOf(e.d)
		s := cloneSettings(base)
		e.edit(s)
		if reflect.DeepEqual(s, base) {
			t.Fatalf("%s: the edit changed nothing", e.name)
		}
		printed := func(s *settings) string {
			var b strings.Builder
			writeSettings(&b, e.d, s)
			return b.String()
		}
		if printed(s) == printed(base) {
			t.Errorf("%s: host.conf does not print it", e.name)
		}
		if cmp.Equal(desiredElements(s), desiredElements(base)) {
			t.Errorf("%s: printed in host.conf, but the desired state does not change with it", e.name)
		}
	}
	// And the renderer and Desired take the settings from the model alone.
	var b strings.Builder
	writeSettings(&b, mlx5, settingsOf(mlx5))
	if got := render(t, mlx5); !strings.HasSuffix(got, b.String()) {
		t.Error("host.conf does not end with the settings settingsOf derives")
	}
	desired, err := Renderer{}.Desired(mlx5)
	if diff := cmp.Diff(renderers.Elements(desiredElements(settingsOf(mlx5))).Elements(), elementsOf(t, desired, err)); diff != "" {
		t.Errorf("Desired is not the settings' state:\n%s", diff)
	}
}

// cloneSettings copies s deeply, so that an edit leaves s as it was.
func cloneSettings(s *settings) *settings {
	c := *s
	c.netdevs, c.hcas = slices.Clone(s.netdevs), slices.Clone(s.hcas)
	c.pfc, c.ecn = slices.Clone(s.pfc), slices.Clone(s.ecn)
	c.dcqcn, c.cc, c.maxrate = slices.Clone(s.dcqcn), slices.Clone(s.cc), slices.Clone(s.maxrate)
	c.shaping = slices.Clone(s.shaping)
	for i, si := range c.shaping {
		c.shaping[i].classes, c.shaping[i].filters = slices.Clone(si.classes), slices.Clone(si.filters)
	}
	return &c
}

// stateLayoutIsTheRuntimes checks that the report rocefab rewrites is
// laid out byte for byte as the runtime wrote report, the --check --json
// of a drifted server, which has unmanaged settings and notes to lay out
// (the drift test calls it with dcb's).
func stateLayoutIsTheRuntimes(t *testing.T, report []byte) {
	t.Helper()
	doc, err := decodeState("report", report)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Unmanaged) == 0 || len(doc.Notes) == 0 {
		t.Fatalf("the report has no unmanaged settings or notes to lay out:\n%s", report)
	}
	if got := encodeState(doc); !bytes.Equal(got, report) {
		t.Errorf("rocefab's layout differs from the runtime's:\n%s", cmp.Diff(string(report), string(got)))
	}
}

// TestJSONStrIsJSON: the strings the report's layout quotes are JSON.
func TestJSONStrIsJSON(t *testing.T) {
	for _, s := range []string{"a\\b\"c\nd\te\rf\x01g", "ünïcode", ""} {
		if got := jsonStr(s); !json.Valid([]byte(got)) {
			t.Errorf("jsonStr(%q) = %s, not JSON", s, got)
		}
	}
}

// TestDiffOfItselfIsEmpty: diff(render(a), render(a)) is empty for every
// server of the test fabric, and so is the diff of the state written as
// the runtime reports it.
func TestDiffOfItselfIsEmpty(t *testing.T) {
	r := Renderer{}
	for _, d := range handled(irtest.Fabric()) {
		desired, err := r.Desired(d)
		if err != nil {
			t.Fatal(err)
		}
		changes, rem, err := r.Diff(d, desired, desired)
		if err != nil || len(changes) > 0 || len(rem.Content) > 0 {
			t.Errorf("%s: diff of the desired state with itself: %v %v %s", d.Name, err, changes, rem.Content)
		}
		running, err := r.Parse(d, runningOf(d, reportOf(d, desired.Elements(), nil)))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(desired.Elements(), running.Elements()); diff != "" {
			t.Errorf("%s: a report of the desired state parses to another state:\n%s", d.Name, diff)
		}
	}
}

// reportOf writes a report whose have is es (and want too), with notes.
func reportOf(d *ir.Device, es []renderers.Element, unmanaged []unmanagedDoc) []byte {
	doc := &stateDoc{Device: d.Name, Runtime: runtimeDigest, Tool: d.Host.Profile.Tool, Unmanaged: unmanaged,
		Notes: []string{"eth0: a note the host wrote"}}
	for _, e := range es {
		doc.Settings = append(doc.Settings, stateSetting{Path: e.Path, Have: new(e.Value), Want: new(e.Value)})
	}
	return encodeState(doc)
}

// changedDevice returns d with another MTU, dscp2prio, PFC and shaping
// rate, so that every section has something to write.
func changedDevice(d *ir.Device) *ir.Device {
	c := cloneHost(d)
	p := c.Host.Profile
	// The classes the compiler attaches from the catalog.
	m := map[string]string{}
	for _, e := range platforms.Elements() {
		m[e] = platforms.Disruption(ir.PlatformLinux, e)
	}
	c.Disruption = map[string]map[string]string{ir.PlatformLinux: m}
	p.MTU = 9000
	p.DSCPToPrio[12] = 1
	p.PFC[3], p.PFC[4] = false, true
	p.RoCETOS = 0
	for i, s := range p.Shaping {
		if s.Transport != ir.TransportRDMA {
			s.RateBits = 25_000_000_000
			p.Shaping[i] = s
		}
	}
	return c
}

// TestApplyConverges: applying diff(parse(running), desired(b)) to a
// running report, then parsing, gives desired(b); every byte outside the
// settings written stays, and an HTB class of an earlier intent goes.
func TestApplyConverges(t *testing.T) {
	r := Renderer{}
	a := ofedDevice(t)
	b := changedDevice(a)
	da, err := r.Desired(a)
	if err != nil {
		t.Fatal(err)
	}
	// The running state is a's, with a class b does not have and a
	// setting missing.
	es := da.Elements()
	es = slices.DeleteFunc(es, func(e renderers.Element) bool { return e.Path == "eth3/mtu" })
	es = append(es, renderers.Element{Path: "eth0/shaping/class/1:12", Value: "root 1Gbit 1Gbit 200000"})
	before := runningOf(a, reportOf(a, es, nil))
	before = append(before, renderers.Artifact{Path: a.Name + "/notes.txt", Format: renderers.Text, Content: []byte("foreign\n")})
	running, err := r.Parse(b, before)
	if err != nil {
		t.Fatal(err)
	}
	db, changes, rem := rendertest.Diff(t, r, b, running)
	kinds := map[string]renderers.Disruption{}
	for _, c := range changes {
		kinds[c.Path] = c.Disruption
	}
	for p, want := range map[string]renderers.Disruption{"eth2/pfc": renderers.PortFlap, "eth2/mtu": renderers.TrafficPause,
		"eth3/mtu": renderers.TrafficPause, "eth0/shaping/class/1:12": renderers.Hitless, "mlx5_0/tos": renderers.Hitless} {
		if kinds[p] != want {
			t.Errorf("change of %s: disruption %q, want %q (changes %v)", p, kinds[p], want, changes)
		}
	}
	var rd remedy
	if err := json.Unmarshal(rem.Content, &rd); err != nil {
		t.Fatal(err)
	}
	if got, want := rd.Sections, []string{"mtu", "qos", "tos", "shaping", "pfc"}; !slices.Equal(got, want) {
		t.Errorf("sections %v, want %v", got, want)
	}
	if rd.Install.Content != string(conf(b)) || rd.Install.Path != SettingsPath || rd.Install.SHA256 != digest(rd.Install.Content) {
		t.Error("the remediation does not install b's host.conf")
	}
	after, err := r.Apply(before, rem)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) || !bytes.Equal(after[1].Content, before[1].Content) {
		t.Error("Apply changed a file it does not own")
	}
	if !strings.Contains(string(after[0].Content), `"notes": [`+"\n"+`    "eth0: a note the host wrote"`) {
		t.Errorf("Apply lost the notes:\n%s", after[0].Content)
	}
	again, err := r.Parse(b, after)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(db.Elements(), again.Elements()); diff != "" {
		t.Errorf("after apply, the running state is not the desired one:\n%s", diff)
	}
	if c, _, _ := r.Diff(b, again, db); len(c) > 0 {
		t.Errorf("a second diff has changes: %v", c)
	}
}

// TestParseScope: a report of another server is refused, so is one with
// errors; settings of interfaces the intent does not name are not read.
func TestParseScope(t *testing.T) {
	r := Renderer{}
	d := ofedDevice(t)
	es := []renderers.Element{{Path: "eth2/mtu", Value: "4200"}, {Path: "eth9/mtu", Value: "1500"}, {Path: "eth2/bogus", Value: "1"}}
	s, err := r.Parse(d, runningOf(d, reportOf(d, es, []unmanagedDoc{{Path: "eth9/ecn/rp/0", Why: "x"}})))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Elements(); len(got) != 1 || got[0].Path != "eth2/mtu" || len(s.(*State).Unmanaged()) != 0 {
		t.Errorf("parsed %v, unmanaged %v: want eth2/mtu alone", got, s.(*State).Unmanaged())
	}
	// Any order of the settings, and the settings of other interfaces,
	// read the same.
	desired, err := r.Desired(d)
	if err != nil {
		t.Fatal(err)
	}
	all := desired.Elements()
	rev := slices.Clone(all)
	slices.Reverse(rev)
	rev = append(rev, renderers.Element{Path: "eth1/mtu", Value: "1500"}, renderers.Element{Path: "ib0/pfc", Value: "0,0,0,0,0,0,0,0"})
	got, err := r.Parse(d, runningOf(d, reportOf(d, rev, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(all, got.Elements()); diff != "" {
		t.Errorf("settings in reverse order, with other interfaces', parse to another state:\n%s", diff)
	}
	other := cloneHost(d)
	other.Name = "gpu-0001"
	if _, err := r.Parse(d, runningOf(d, reportOf(other, es, nil))); err == nil || !strings.Contains(err.Error(), "gpu-0001") {
		t.Errorf("a report of another server: %v", err)
	}
	doc := &stateDoc{Device: d.Name, Errors: []string{"eth2: mlnx_qos -i eth2 failed"}}
	if _, err := r.Parse(d, runningOf(d, encodeState(doc))); err == nil || !strings.Contains(err.Error(), "mlnx_qos -i eth2 failed") {
		t.Errorf("a report with errors: %v", err)
	}
	if s, err := r.Parse(d, nil); err != nil || len(s.Elements()) != 0 {
		t.Errorf("no report: %v %v", s, err)
	}
}

func FuzzParse(f *testing.F) {
	d := irtest.Fabric().Device("gpu-0000")
	desired, err := Renderer{}.Desired(d)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(reportOf(d, desired.Elements(), []unmanagedDoc{{Path: "eth2/ecn/rp/0", Why: "inbox"}}))
	f.Add([]byte(`{"device":"gpu-0000","settings":[{"path":"eth2/pfc","have":null,"want":"1"}]}`))
	f.Add([]byte(`{"device":"gpu-0000","settings":[{"path":"","have":"x"}]}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		r := Renderer{}
		s, err := r.Parse(d, runningOf(d, src))
		if err != nil {
			return
		}
		changes, rem, err := r.Diff(d, s, desired)
		if err != nil {
			t.Fatal(err)
		}
		after, err := r.Apply(runningOf(d, src), rem)
		if err != nil {
			t.Fatal(err)
		}
		again, err := r.Parse(d, after)
		if err != nil {
			t.Fatal(err)
		}
		if c, _, _ := r.Diff(d, again, desired); len(c) > 0 {
			t.Fatalf("not converged after %d changes: %v", len(changes), c)
		}
	})
}

// BenchmarkParseDiff parses one server's running report and diffs it
// against its desired state: per server of a plan.
func BenchmarkParseDiff(b *testing.B) {
	d := irtest.Fabric().Device("gpu-0000")
	r := Renderer{}
	desired, err := r.Desired(d)
	if err != nil {
		b.Fatal(err)
	}
	es := desired.Elements()
	es[0].Value = "drifted"
	running := runningOf(d, reportOf(d, es, nil))
	b.ReportAllocs()
	for b.Loop() {
		s, err := r.Parse(d, running)
		if err != nil {
			b.Fatal(err)
		}
		if c, _, err := r.Diff(d, s, desired); err != nil || len(c) != 1 {
			b.Fatal(err, c)
		}
	}
}
