package sonic_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/compiler/platforms"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/sonic"
)

// runningDB is a switch's running config_db.json after rocefab rendered
// d onto it, the way `config save` writes it (keys sorted, four-space
// indent): d's tables, its breakouts in BREAKOUT_CFG, and what the
// switch has of its own: tables rocefab does not write (one with a
// list, rows without fields), fields SONiC fills in on rocefab's rows,
// another port with its own buffer profile, priority groups and cable,
// the default maps and schedulers. With stale, it also holds what an
// older rendering left in the owned scope: another priority-group layout
// and a queue rocefab no longer configures. The edits then change it.
func runningDB(t testing.TB, d *ir.Device, stale bool, edits ...func(db map[string]map[string]map[string]any)) []byte {
	t.Helper()
	arts, err := sonic.Renderer{}.Render(d)
	if err != nil {
		t.Fatal(err)
	}
	db := map[string]map[string]map[string]any{}
	for _, a := range arts {
		var m map[string]map[string]map[string]any
		if err := json.Unmarshal(a.Content, &m); err != nil {
			t.Fatal(err)
		}
		maps.Copy(db, m)
	}
	set := func(table, key string, fields map[string]any) {
		if db[table] == nil {
			db[table] = map[string]map[string]any{}
		}
		if db[table][key] == nil {
			db[table][key] = map[string]any{}
		}
		maps.Copy(db[table][key], fields)
	}
	set("DEVICE_METADATA", "localhost", map[string]any{"hostname": d.Name, "hwsku": d.Model, "buffer_model": "traditional"})
	set("LOOPBACK_INTERFACE", "Loopback0", nil)
	set("LOOPBACK_INTERFACE", "Loopback0|10.1.0.1/32", nil)
	set("BGP_NEIGHBOR", "10.0.0.1", map[string]any{"asn": "65100", "name": "spine"})
	set("ACL_TABLE", "DATAACL", map[string]any{"policy_desc": "DATAACL", "ports": []any{"Ethernet0", "Ethernet8"}, "type": "L3"})
	for _, p := range d.Switch.Ports {
		set("PORT", p.Name, map[string]any{"fec": "rs", "autoneg": "off"})
		set("PORT_QOS_MAP", p.Name, map[string]any{"pfc_to_pg_map": "AZURE"})
	}
	other := "Ethernet9999"
	set("PORT", other, map[string]any{"admin_status": "down", "lanes": "9999", "speed": "100000", "mtu": "9100", "description": "spare"})
	set("PORT_QOS_MAP", other, map[string]any{"dscp_to_tc_map": "AZURE", "pfc_enable": "3,4"})
	set("BUFFER_PROFILE", "pg_lossless_100000_5m_profile", map[string]any{"pool": "ingress_lossless_pool", "xoff": "1000", "size": "2000", "dynamic_th": "0"})
	set("BUFFER_PG", other+"|3-4", map[string]any{"profile": "pg_lossless_100000_5m_profile"})
	set("CABLE_LENGTH", "AZURE", map[string]any{other: "5m"})
	set("PFC_WD", "GLOBAL", map[string]any{"BIG_RED_SWITCH": "enable"})
	set("PFC_WD", other, map[string]any{"action": "drop", "detection_time": "400", "restoration_time": "400"})
	set("DSCP_TO_TC_MAP", "AZURE", map[string]any{"0": "1", "26": "1"})
	set("SCHEDULER", "scheduler.default", map[string]any{"type": "DWRR", "weight": "14"})
	if stale {
		p := d.Switch.Ports[0].Name
		set("BUFFER_PG", p+"|0-7", map[string]any{"profile": "ingress_lossy_profile"})
		set("QUEUE", p+"|7", map[string]any{"scheduler": "scheduler.default"})
	}
	for _, e := range edits {
		e(db)
	}
	b, err := sonic.EncodingJSON(db, "    ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func runningArts(d *ir.Device, db []byte) []renderers.Artifact {
	return []renderers.Artifact{
		{Path: d.Name + "/" + sonic.FileName, Format: renderers.JSON, Content: db},
		{Path: d.Name + "/notes.txt", Format: renderers.Text, Content: []byte("not a configuration\n")},
	}
}

func desired(t testing.TB, d *ir.Device) renderers.State {
	t.Helper()
	s, err := sonic.Renderer{}.Desired(d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func parse(t testing.TB, d *ir.Device, running []renderers.Artifact) renderers.State {
	t.Helper()
	s, err := sonic.Renderer{}.Parse(d, running)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stateDevices are the SONiC switches the properties hold for: every
// example's, and the test fabric's.
func stateDevices(t *testing.T) []*ir.Device {
	out := sonicDevicesOfExamples(t)
	for _, d := range irtest.Fabric().Switches() {
		if d.Platform == ir.PlatformSONiC {
			out = append(out, d)
		}
	}
	return out
}

// changed returns d with another intent applied: a new MTU, ECN
// thresholds, watchdog timers, a longer cable on one port, and without its
// last port (which then lies outside the scope and must stay as it is).
func changed(d *ir.Device) *ir.Device {
	return irtest.WithSwitch(d, func(sw *ir.Switch) {
		q := *sw.QoS
		q.Queues = slices.Clone(q.Queues)
		for i, qq := range q.Queues {
			if qq.ECN != nil {
				e := *qq.ECN
				e.MinBytes, e.MaxBytes = e.MinBytes/2, e.MaxBytes/2
				q.Queues[i].ECN = &e
			}
		}
		q.Watchdog.DetectMs, q.Watchdog.RestoreMs = 300, 900
		sw.QoS = &q
		sw.MTU = 9100
		sw.Ports = slices.Clone(sw.Ports[:len(sw.Ports)-1])
		sw.Ports[0].CableM += 7
	})
}

// pools returns d with another buffer plan: pool sizes and the shared
// headroom pool change, which SONiC takes only by config reload.
func pools(d *ir.Device) *ir.Device {
	return irtest.WithSwitch(d, func(sw *ir.Switch) {
		bp := *sw.Buffers
		bp.LosslessBytes -= 4096
		bp.LossyBytes += 4096
		bp.HeadroomBytes += 1024
		sw.Buffers = &bp
	})
}

func elementsEqual(t *testing.T, what string, got, want []renderers.Element) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	g := map[string]string{}
	for _, e := range got {
		g[e.Path] = e.Value
	}
	n := 0
	for _, e := range want {
		if v, ok := g[e.Path]; !ok || v != e.Value {
			if n++; n <= 5 {
				t.Errorf("%s: %s = %q, want %q", what, e.Path, v, e.Value)
			}
		}
		delete(g, e.Path)
	}
	for p, v := range g {
		if n++; n <= 10 {
			t.Errorf("%s: %s = %q is not desired", what, p, v)
		}
	}
	t.Errorf("%s: %d elements, want %d", what, len(got), len(want))
}

// TestDiffOfItselfIsEmpty: diff(render(a), render(a)) is empty, and the
// running configuration of a switch rocefab rendered a onto, with the
// switch's own tables and fields around it, parses to a's desired state.
func TestDiffOfItselfIsEmpty(t *testing.T) {
	for _, d := range stateDevices(t) {
		want := desired(t, d)
		changes, rem, err := sonic.Renderer{}.Diff(d, want, want)
		if err != nil || len(changes) != 0 || len(rem.Content) != 0 {
			t.Errorf("%s: diff of the desired state with itself: %v, %s, %v", d.Name, changes, rem.Content, err)
		}
		have := parse(t, d, runningArts(d, runningDB(t, d, false)))
		elementsEqual(t, d.Name+" parsed", have.Elements(), want.Elements())
		if changes, _, err := (sonic.Renderer{}).Diff(d, have, want); err != nil || len(changes) != 0 {
			t.Errorf("%s: diff of the parsed running state: %v %v", d.Name, changes, err)
		}
	}
}

// flatten reads a config_db.json into "TABLE|key|field" → the value's JSON.
func flatten(t *testing.T, b []byte) map[string]string {
	t.Helper()
	var db map[string]map[string]map[string]json.RawMessage
	if err := json.Unmarshal(b, &db); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for table, rows := range db {
		for key, fields := range rows {
			if len(fields) == 0 {
				out[table+"|"+key] = "{}"
			}
			for f, v := range fields {
				out[table+"|"+key+"|"+f] = string(v)
			}
		}
	}
	return out
}

// tablesRaw returns each top-level table's bytes as they stand.
func tablesRaw(t *testing.T, b []byte) map[string]string {
	t.Helper()
	var db map[string]json.RawMessage
	if err := json.Unmarshal(b, &db); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for k, v := range db {
		out[k] = string(v)
	}
	return out
}

// TestApplyReachesDesired: applying diff(parse(running), render(b)) to a
// running configuration rendered from a, with the switch's own tables and
// fields and stale rows of an older rendering, then parsing it, gives
// render(b) within the scope; a second diff is empty; tables outside the
// scope keep their bytes and every field outside the scope its value.
func TestApplyReachesDesired(t *testing.T) {
	for _, a := range stateDevices(t) {
		for name, b := range map[string]*ir.Device{"same": a, "changed": changed(a), "pools": pools(a)} {
			run := runningDB(t, a, true)
			arts := runningArts(a, run)
			have := parse(t, b, arts)
			want := desired(t, b)
			changes, rem, err := sonic.Renderer{}.Diff(b, have, want)
			if err != nil || len(changes) == 0 {
				t.Fatalf("%s %s: %d changes, %v", a.Name, name, len(changes), err)
			}
			if err := (sonic.Renderer{}).CheckScope(b, rem); err != nil {
				t.Errorf("%s %s: its own remediation: %v", a.Name, name, err)
			}
			after, err := sonic.Renderer{}.Apply(arts, rem)
			if err != nil {
				t.Fatalf("%s %s: apply: %v\n%s", a.Name, name, err, rem.Content)
			}
			if len(after) != len(arts) || !bytes.Equal(after[1].Content, arts[1].Content) || !bytes.Equal(arts[0].Content, run) {
				t.Fatalf("%s %s: apply changed another file, or its input", a.Name, name)
			}
			elementsEqual(t, a.Name+" "+name+" after apply", parse(t, b, after).Elements(), want.Elements())
			if again, _, _ := (sonic.Renderer{}).Diff(b, parse(t, b, after), want); len(again) != 0 {
				t.Errorf("%s %s: a second diff: %v", a.Name, name, again)
			}
			owned := map[string]bool{}
			for _, s := range []renderers.State{have, want} {
				for _, e := range s.Elements() {
					owned[e.Path] = true
				}
			}
			before, got := flatten(t, run), flatten(t, after[0].Content)
			for p, v := range before {
				if !owned[p] && got[p] != v {
					t.Errorf("%s %s: %s was %s, is %q after apply", a.Name, name, p, v, got[p])
				}
			}
			rawBefore, rawAfter := tablesRaw(t, run), tablesRaw(t, after[0].Content)
			for _, table := range []string{"DEVICE_METADATA", "LOOPBACK_INTERFACE", "BGP_NEIGHBOR", "ACL_TABLE"} {
				if rawBefore[table] != rawAfter[table] {
					t.Errorf("%s %s: table %s changed:\n%s\n---\n%s", a.Name, name, table, rawBefore[table], rawAfter[table])
				}
			}
			var r sonic.Remediation
			if err := json.Unmarshal(rem.Content, &r); err != nil {
				t.Fatal(err)
			}
			checkRemediation(t, a.Name+" "+name, b, changes, r)
		}
	}
}

// checkRemediation: stale rows go as a whole; a patch holds only what the
// switch's release admits, and a change the switch can only take by config
// reload puts every change in that part, each a reboot's disruption; every
// change is at least as disruptive as the catalog says of its table.
func checkRemediation(t *testing.T, what string, d *ir.Device, changes []renderers.Change, r sonic.Remediation) {
	t.Helper()
	ops := append(slices.Clone(r.ApplyPatch), r.ConfigReload...)
	stale := "/BUFFER_PG/" + d.Switch.Ports[0].Name + "|0-7"
	if !slices.ContainsFunc(ops, func(o sonic.PatchOp) bool { return o.Op == "remove" && o.Path == stale }) {
		t.Errorf("%s: the stale priority group %s is not removed: %+v", what, stale, ops)
	}
	if d.Apply == nil {
		if len(r.ConfigReload) != 0 {
			t.Errorf("%s: a switch without release rules gets a config reload", what)
		}
		return
	}
	refused := 0
	for i, op := range ops {
		if m := opMethod(t, d, op); m == "config-reload" {
			refused++
			if i < len(r.ApplyPatch) {
				t.Errorf("%s: %s %s is in the patch, but the release takes it by %s", what, op.Op, op.Path, m)
			}
		}
	}
	if (refused > 0) != (len(r.ConfigReload) > 0) || refused > 0 && len(r.ApplyPatch) > 0 {
		t.Errorf("%s: %d refused operations, but %d patch and %d reload operations", what, refused, len(r.ApplyPatch), len(r.ConfigReload))
	}
	for _, c := range changes {
		table, _, _ := strings.Cut(c.Path, "|")
		if table != "BREAKOUT_CFG" && len(r.ConfigReload) > 0 && (c.Disruption != renderers.Reboot || c.Method != "config-reload") {
			t.Errorf("%s: %s rides a config reload but is %s by %s", what, c.Path, c.Disruption, c.Method)
		}
		if cls := d.Apply.Disruption(table); renderers.Worst(c.Disruption, renderers.Disruption(cls)) != c.Disruption {
			t.Errorf("%s: %s is %s, less than its table's %s", what, c.Path, c.Disruption, cls)
		}
	}
}

// opMethod is how the switch's release takes op, read back from the
// remediation's JSON: the pointer's tokens and an object value's members.
func opMethod(t *testing.T, d *ir.Device, op sonic.PatchOp) string {
	t.Helper()
	var path []string
	for _, p := range strings.Split(op.Path[1:], "/") {
		path = append(path, strings.NewReplacer("~1", "/", "~0", "~").Replace(p))
	}
	var members []string
	if len(op.Value) > 0 && op.Value[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(op.Value))
		dec.Token()
		members = []string{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			members = append(members, k.(string))
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				t.Fatal(err)
			}
		}
	}
	return d.Apply.Method(op.Op, path, members)
}

// TestFirstPush: a switch that runs none of rocefab's tables gets them
// added whole (a table it lacks) or row by row (a table it has), with
// no config_db.json at all it gets one, and the result parses to the
// desired state.
func TestFirstPush(t *testing.T) {
	d := irtest.Fabric().Device("leaf-sonic")
	want := desired(t, d)
	bare := []byte("{\n    \"DEVICE_METADATA\": {\n        \"localhost\": {\n            \"hostname\": \"leaf-sonic\"\n        }\n    },\n    \"PORT\": {\n        \"Ethernet0\": {\n            \"fec\": \"rs\"\n        }\n    }\n}\n")
	for name, arts := range map[string][]renderers.Artifact{
		"bare":    runningArts(d, bare),
		"no file": {{Path: d.Name + "/notes.txt", Content: []byte("x")}},
	} {
		have := parse(t, d, arts)
		changes, rem, err := sonic.Renderer{}.Diff(d, have, want)
		if err != nil || len(changes) != len(want.Elements()) {
			t.Fatalf("%s: %d changes for %d elements, %v", name, len(changes), len(want.Elements()), err)
		}
		if err := (sonic.Renderer{}).CheckScope(d, rem); err != nil {
			t.Errorf("%s: its own remediation: %v", name, err)
		}
		after, err := sonic.Renderer{}.Apply(arts, rem)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		elementsEqual(t, name, parse(t, d, after).Elements(), want.Elements())
		if name == "bare" && !bytes.Contains(after[0].Content, []byte("\"hostname\": \"leaf-sonic\"")) {
			t.Errorf("%s: DEVICE_METADATA lost", name)
		}
	}
}

// TestParseOwnsOnlyTheScope: fields outside the scope are never read, and
// an owned field that is not a string is an error naming its line.
func TestParseOwnsOnlyTheScope(t *testing.T) {
	d := irtest.Fabric().Device("leaf-sonic")
	have := parse(t, d, runningArts(d, runningDB(t, d, false)))
	for _, e := range have.Elements() {
		for _, foreign := range []string{"DEVICE_METADATA|", "Ethernet9999", "|AZURE|0", "|fec", "|autoneg", "pfc_to_pg_map", "BIG_RED_SWITCH", "scheduler.default", "pg_lossless_100000_5m_profile"} {
			if strings.Contains(e.Path, foreign) {
				t.Errorf("%s was read into the owned model", e.Path)
			}
		}
	}
	bad := []byte("{\"PORT\": {\"" + d.Switch.Ports[0].Name + "\": {\"mtu\": 9100}}}")
	if _, err := (sonic.Renderer{}).Parse(d, runningArts(d, bad)); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a numeric mtu: %v", err)
	}
}

// FuzzParse: any running config_db.json either fails to parse with an
// error, or parses, and then the remediation of its diff to the desired
// state applies and reaches that state.
func FuzzParse(f *testing.F) {
	d := irtest.Fabric().Device("leaf-sonic")
	f.Add(runningDB(f, d, true))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"PORT": {"Ethernet0": {"mtu": "1500", "x": [1, {"y": null}]}}, "BUFFER_PG": {"Ethernet0|0-7": {}}}`))
	f.Add([]byte(`{"PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "100"}}, "QUEUE": {"Ethernet0|9": {"scheduler": "s"}}}`))
	want := desired(f, d)
	f.Fuzz(func(t *testing.T, src []byte) {
		arts := []renderers.Artifact{{Path: d.Name + "/" + sonic.FileName, Format: renderers.JSON, Content: src}}
		have, err := sonic.Renderer{}.Parse(d, arts)
		if err != nil {
			return
		}
		_, rem, err := sonic.Renderer{}.Diff(d, have, want)
		if err != nil {
			t.Fatal(err)
		}
		after, err := sonic.Renderer{}.Apply(arts, rem)
		if err != nil {
			t.Fatalf("apply: %v\n%s", err, rem.Content)
		}
		got, err := sonic.Renderer{}.Parse(d, after)
		if err != nil {
			t.Fatalf("parse after apply: %v\n%s", err, after[0].Content)
		}
		if !slices.Equal(got.Elements(), want.Elements()) {
			t.Fatalf("apply did not reach the desired state\n%s", after[0].Content)
		}
	})
}

// BenchmarkParseDiff parses a 64-port leaf's running config_db.json
// (64 ports of 800G on an Arista-7060X6-64PE, with the switch's own
// tables) and diffs it against a changed intent.
func BenchmarkParseDiff(b *testing.B) {
	sku, ok := platforms.LookupSONiCSKU("7060X6-64PE")
	if !ok {
		b.Fatal("no 7060X6-64PE SKU in the catalog")
	}
	a := skuDevice(b, sku, 800, 1)
	if len(a.Switch.Ports) != 64 {
		b.Fatalf("%d ports", len(a.Switch.Ports))
	}
	target := changed(a)
	arts := runningArts(a, runningDB(b, a, true))
	want := desired(b, target)
	b.ReportAllocs()
	for b.Loop() {
		have, err := sonic.Renderer{}.Parse(target, arts)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := (sonic.Renderer{}).Diff(target, have, want); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCheckScopeRefuses: a remediation with an operation or a breakout
// outside the switch's owned scope is refused, by CheckScope with the
// switch and by Apply (the emulated switch) without it, and names the
// operation.
func TestCheckScopeRefuses(t *testing.T) {
	d := irtest.Fabric().Device("leaf-sonic")
	have := parse(t, d, runningArts(d, runningDB(t, d, true)))
	_, rem, err := sonic.Renderer{}.Diff(d, have, desired(t, d))
	if err != nil {
		t.Fatal(err)
	}
	var r sonic.Remediation
	if err := json.Unmarshal(rem.Content, &r); err != nil {
		t.Fatal(err)
	}
	port := d.Switch.Ports[0].Name
	for _, tc := range []struct {
		name  string
		edit  func(r *sonic.Remediation)
		want  string
		apply bool // Apply, without the switch, refuses it too
	}{
		{"remove a foreign table", func(r *sonic.Remediation) {
			r.ApplyPatch = append(r.ApplyPatch, sonic.PatchOp{Op: "remove", Path: "/BGP_NEIGHBOR"})
		}, "(remove /BGP_NEIGHBOR): table BGP_NEIGHBOR is not rocefab's", true},
		{"replace the hostname", func(r *sonic.Remediation) {
			r.ConfigReload = append(r.ConfigReload, sonic.PatchOp{Op: "replace", Path: "/DEVICE_METADATA/localhost/hostname", Value: json.RawMessage(`"pwned"`)})
		}, "(replace /DEVICE_METADATA/localhost/hostname): field hostname of DEVICE_METADATA|localhost is not rocefab's", true},
		{"a foreign field of an owned row", func(r *sonic.Remediation) {
			r.ApplyPatch = append(r.ApplyPatch, sonic.PatchOp{Op: "replace", Path: "/PORT/" + port + "/fec", Value: json.RawMessage(`"none"`)})
		}, "field fec of PORT|" + port + " is not rocefab's", false},
		{"remove a port", func(r *sonic.Remediation) {
			r.ApplyPatch = append(r.ApplyPatch, sonic.PatchOp{Op: "remove", Path: "/PORT/" + port})
		}, "removing a port or the PORT table is never rocefab's", false},
		{"a foreign port's priority groups", func(r *sonic.Remediation) {
			r.ApplyPatch = append(r.ApplyPatch, sonic.PatchOp{Op: "remove", Path: "/BUFFER_PG/Ethernet9999|3-4"})
		}, "row BUFFER_PG|Ethernet9999|3-4 is not rocefab's", false},
		{"a row with a foreign field", func(r *sonic.Remediation) {
			r.ApplyPatch = append(r.ApplyPatch, sonic.PatchOp{Op: "add", Path: "/PORT_QOS_MAP/" + port, Value: json.RawMessage(`{"pfc_enable": "3,4", "pfc_to_pg_map": "X"}`)})
		}, "field pfc_to_pg_map of PORT_QOS_MAP|" + port + " is not rocefab's", false},
		{"a breakout of another port", func(r *sonic.Remediation) {
			r.Breakout = append(r.Breakout, sonic.Breakout{Port: "Ethernet9999", Mode: "1x400G"})
		}, "breakout of Ethernet9999 to 1x400G", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := r
			e.ApplyPatch = slices.Clone(r.ApplyPatch)
			e.ConfigReload = slices.Clone(r.ConfigReload)
			e.Breakout = slices.Clone(r.Breakout)
			tc.edit(&e)
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			bad := renderers.Remediation{Format: renderers.JSON, Content: b}
			err = sonic.Renderer{}.CheckScope(d, bad)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "outside the owned scope") {
				t.Errorf("CheckScope: %v, want %q", err, tc.want)
			}
			if _, err := (sonic.Renderer{}).Apply(runningArts(d, runningDB(t, d, true)), bad); tc.apply && (err == nil || !strings.Contains(err.Error(), "outside the owned scope")) {
				t.Errorf("Apply: %v", err)
			}
		})
	}
}
