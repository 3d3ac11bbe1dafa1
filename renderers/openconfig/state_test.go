package openconfig_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/openconfig/ygot/ygot"
	"github.com/openconfig/ygot/ytypes"
	"google.golang.org/protobuf/proto"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/openconfig"
	"github.com/rocefab/rocefab/renderers/openconfig/oc"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/schema"
)

var platform openconfig.Platform

// exampleSwitches compiles the examples once and returns every switch of
// pod-2048 and multitenant, and the irtest fabric's.
var exampleSwitches = sync.OnceValues(func() ([]*ir.Device, error) {
	out := irtest.Fabric().Switches()
	root, err := filepath.Abs("../..")
	if err != nil {
		return nil, err
	}
	for _, ex := range []string{"pod-2048", "multitenant"} {
		in, ds, err := schema.Load(filepath.Join(root, "examples", ex))
		if err != nil || in == nil || ds.HasErrors() {
			return nil, fmt.Errorf("loading %s: %v %v", ex, err, ds)
		}
		f, _ := compiler.Compile(in)
		if f == nil {
			return nil, fmt.Errorf("%s does not compile", ex)
		}
		out = append(out, f.Switches()...)
	}
	return out, nil
})

// switches returns the first and the last switch of each shape of
// exampleSwitches: the others differ from them in their descriptions
// alone.
func switches(t testing.TB) []*ir.Device {
	t.Helper()
	ds, err := exampleSwitches()
	if err != nil {
		t.Fatal(err)
	}
	return openconfig.FirstAndLastOfEachShape(t, ds)
}

func desired(t testing.TB, d *ir.Device) renderers.State {
	t.Helper()
	s, err := platform.Desired(d)
	if err != nil {
		t.Fatalf("%s: Desired: %v", d.Name, err)
	}
	return s
}

func parse(t testing.TB, d *ir.Device, js []byte) renderers.State {
	t.Helper()
	s, err := platform.Parse(d, []renderers.Artifact{{Path: d.Name + "/" + openconfig.FileName, Format: renderers.JSON, Content: js}})
	if err != nil {
		t.Fatalf("%s: Parse: %v\n%s", d.Name, err, js)
	}
	return s
}

func diff(t testing.TB, d *ir.Device, running, want renderers.State) ([]renderers.Change, renderers.Remediation) {
	t.Helper()
	ch, rem, err := platform.Diff(d, running, want)
	if err != nil {
		t.Fatalf("%s: Diff: %v", d.Name, err)
	}
	return ch, rem
}

// inScope reports whether a gNMI path string is in d's declared owned
// scope (openconfig.OwnedPaths): below /qos, or exactly an owned leaf of
// one of its ports.
func inScope(d *ir.Device, p string) bool {
	for _, o := range openconfig.OwnedPaths(d) {
		if p == o.Path || (o.Op == openconfig.Replace && strings.HasPrefix(p, o.Path+"/")) {
			return true
		}
	}
	return false
}

// atDefault reports whether the leaf at gNMI path string p holds its
// YANG default, which the desired state leaves out as a device may.
func atDefault(t *testing.T, p string, v *gpb.TypedValue) bool {
	t.Helper()
	path, err := ygot.StringToStructuredPath(p)
	if err != nil {
		t.Fatal(err)
	}
	e := oc.SchemaTree()["Device"]
	for _, el := range path.GetElem() {
		if e = e.Dir[el.GetName()]; e == nil {
			t.Fatalf("%s: not in the schema", p)
		}
	}
	dflt, ok := e.SingleDefaultValue()
	if !ok {
		return false
	}
	switch v := v.GetValue().(type) {
	case *gpb.TypedValue_BoolVal:
		return strconv.FormatBool(v.BoolVal) == dflt
	case *gpb.TypedValue_UintVal:
		return strconv.FormatUint(v.UintVal, 10) == dflt
	case *gpb.TypedValue_IntVal:
		return strconv.FormatInt(v.IntVal, 10) == dflt
	case *gpb.TypedValue_StringVal:
		return v.StringVal == dflt
	}
	return false
}

// TestDesiredIsTheYgotTree checks the desired state against ygot itself:
// the artifact unmarshalled into the generated structs and flattened by
// ygot.TogNMINotifications gives, within the declared scope and leaving
// out the leaves at their YANG default, the same paths (as ygot.PathToString writes them) with the same values.
func TestDesiredIsTheYgotTree(t *testing.T) {
	for _, d := range irtest.Fabric().Switches() {
		var dev oc.Device
		if err := oc.Unmarshal(render(t, d), &dev); err != nil {
			t.Fatal(err)
		}
		ns, err := ygot.TogNMINotifications(&dev, 0, ygot.GNMINotificationsConfig{UsePathElem: true})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]*gpb.TypedValue{}
		for _, n := range ns {
			for _, u := range n.GetUpdate() {
				p, err := ygot.PathToString(&gpb.Path{Elem: append(slices.Clone(n.GetPrefix().GetElem()), u.GetPath().GetElem()...)})
				if err != nil {
					t.Fatal(err)
				}
				if inScope(d, p) && !atDefault(t, p, u.GetVal()) {
					want[p] = u.GetVal()
				}
			}
		}
		got := desired(t, d).Elements()
		if len(got) != len(want) {
			t.Errorf("%s: %d elements, ygot has %d leaves in scope", d.Name, len(got), len(want))
		}
		for _, e := range got {
			tv, ok := want[e.Path]
			if !ok {
				t.Errorf("%s: element %s is not a leaf of ygot's tree in scope", d.Name, e.Path)
				continue
			}
			if !sameValue(t, e.Value, tv) {
				t.Errorf("%s: %s = %s, ygot has %v", d.Name, e.Path, e.Value, tv)
			}
		}
	}
}

// sameValue compares an RFC 7951 value with a ygot TypedValue.
func sameValue(t *testing.T, js string, tv *gpb.TypedValue) bool {
	t.Helper()
	var v any
	dec := json.NewDecoder(strings.NewReader(js))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("value %s: %v", js, err)
	}
	return sameAny(v, tv)
}

func sameAny(v any, tv *gpb.TypedValue) bool {
	switch x := tv.GetValue().(type) {
	case *gpb.TypedValue_UintVal:
		return fmt.Sprint(v) == strconv.FormatUint(x.UintVal, 10)
	case *gpb.TypedValue_IntVal:
		return fmt.Sprint(v) == strconv.FormatInt(x.IntVal, 10)
	case *gpb.TypedValue_BoolVal:
		return v == x.BoolVal
	case *gpb.TypedValue_StringVal:
		s, ok := v.(string)
		_, name, qualified := strings.Cut(s, ":")
		return ok && (s == x.StringVal || (qualified && name == x.StringVal))
	case *gpb.TypedValue_LeaflistVal:
		arr, ok := v.([]any)
		if !ok || len(arr) != len(x.LeaflistVal.GetElement()) {
			return false
		}
		for i, el := range x.LeaflistVal.GetElement() {
			if !sameAny(arr[i], el) {
				return false
			}
		}
		return true
	}
	return false
}

// TestDiffOfEqualIsEmpty: diff(render(a), render(a)) is empty for every
// switch of the examples and the irtest fabric, and parsing the artifact
// gives the desired state.
func TestDiffOfEqualIsEmpty(t *testing.T) {
	for _, d := range switches(t) {
		want := desired(t, d)
		if ch, rem := diff(t, d, want, want); len(ch) != 0 || len(rem.Content) != 0 {
			t.Errorf("%s: diff of the desired state with itself: %v", d.Name, ch)
		}
		js := rendertest.RenderOne(t, openconfig.Renderer{}, d, openconfig.FileName, renderers.JSON).Content
		if ch, _ := diff(t, d, parse(t, d, js), want); len(ch) != 0 {
			t.Errorf("%s: the artifact parsed differs from the desired state: %v", d.Name, ch)
		}
	}
}

// running is a device's running configuration as a gNMI Get of the root
// returns it: the rendered tree (of another intent, maybe) plus what
// rocefab does not own, in another member order, with uint64 values as
// numbers, unqualified identities, a set in another order and state
// leaves beside the configuration.
func running(t testing.TB, d *ir.Device, indent bool) []byte {
	t.Helper()
	js := rendertest.RenderOne(t, openconfig.Renderer{}, d, openconfig.FileName, renderers.JSON).Content
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	ifs := doc["openconfig-interfaces:interfaces"].(map[string]any)
	list := ifs["interface"].([]any)
	for _, i := range list {
		i := i.(map[string]any)
		i["state"] = map[string]any{"oper-status": "UP", "counters": map[string]any{"in-octets": "123"}}
		i["arista-intf-augments:load-interval"] = 5
		i["subinterfaces"] = map[string]any{"subinterface": []any{map[string]any{"index": 0, "config": map[string]any{"index": 0}}}}
		i["hold-time"] = map[string]any{"config": map[string]any{"up": 0, "down": 0}}
		eth := i["openconfig-if-ethernet:ethernet"].(map[string]any)
		cfg := eth["config"].(map[string]any)
		cfg["port-speed"] = strings.TrimPrefix(cfg["port-speed"].(string), "openconfig-if-ethernet:")
		cfg["auto-negotiate"] = false
		i["config"].(map[string]any)["enabled"] = true
	}
	ifs["interface"] = append(list,
		map[string]any{"name": "Loopback0", "config": map[string]any{"name": "Loopback0", "type": "iana-if-type:softwareLoopback", "description": "router id"}},
		map[string]any{"name": "Management1", "config": map[string]any{"name": "Management1", "type": "iana-if-type:ethernetCsmacd", "mtu": 1500}})
	q := doc["openconfig-qos:qos"].(map[string]any)
	if qm, ok := q["queue-management-profiles"].(map[string]any); ok {
		for _, p := range qm["queue-management-profile"].([]any) {
			u := p.(map[string]any)["wred"].(map[string]any)["uniform"].(map[string]any)["config"].(map[string]any)
			u["min-threshold"] = json.Number(u["min-threshold"].(string))
		}
	}
	for _, c := range q["classifiers"].(map[string]any)["classifier"].([]any) {
		for _, term := range c.(map[string]any)["terms"].(map[string]any)["term"].([]any) {
			cond := term.(map[string]any)["conditions"].(map[string]any)
			for _, af := range cond {
				set := af.(map[string]any)["config"].(map[string]any)["dscp-set"].([]any)
				slices.Reverse(set)
			}
		}
	}
	for _, qu := range q["queues"].(map[string]any)["queue"].([]any) {
		qu.(map[string]any)["state"] = map[string]any{"name": "x", "queue-id": 0}
	}
	doc["openconfig-network-instance:network-instances"] = map[string]any{"network-instance": []any{map[string]any{
		"name": "default", "protocols": map[string]any{"protocol": []any{map[string]any{"identifier": "openconfig-policy-types:BGP",
			"name": "BGP", "bgp": map[string]any{"global": map[string]any{"config": map[string]any{"as": 65001}}}}}}}}}
	doc["openconfig-system:system"] = map[string]any{"config": map[string]any{"hostname": d.Name}}
	var out []byte
	var err error
	if indent {
		out, err = json.MarshalIndent(doc, "", "  ")
	} else {
		out, err = json.Marshal(doc)
	}
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

// TestParseForeign: a running configuration with foreign sections, another
// order, defaults and state the device prints, and values in the other
// spelling RFC 7951 allows (or devices send), parses to the owned model.
func TestParseForeign(t *testing.T) {
	for _, d := range switches(t) {
		for _, indent := range []bool{false, true} {
			js := running(t, d, indent)
			if ch, _ := diff(t, d, parse(t, d, js), desired(t, d)); len(ch) != 0 {
				t.Errorf("%s: the running configuration with foreign sections parses to another model: %v", d.Name, ch)
			}
		}
	}
	d := irtest.Fabric().Device("leaf-eos")
	for _, e := range parse(t, d, running(t, d, true)).Elements() {
		if strings.Contains(e.Path, "Loopback0") || strings.Contains(e.Path, "Management1") || strings.Contains(e.Path, "/state") ||
			strings.Contains(e.Path, "subinterfaces") || strings.Contains(e.Path, "enabled") {
			t.Errorf("foreign configuration parsed into the owned model: %s", e.Path)
		}
	}
}

// intents are intents a device moves between.
func intents(d *ir.Device) map[string]*ir.Device {
	out := map[string]*ir.Device{"same": d}
	clone := func(f func(s *ir.Switch)) *ir.Device {
		return irtest.WithSwitch(d, func(s *ir.Switch) {
			q := *s.QoS
			q.Queues = slices.Clone(q.Queues)
			s.QoS = &q
			s.Ports = slices.Clone(s.Ports)
			f(s)
		})
	}
	out["ecn"] = clone(func(s *ir.Switch) {
		for i, q := range s.QoS.Queues {
			if q.ECN != nil {
				e := *q.ECN
				e.MinBytes, e.MaxBytes = e.MinBytes/2, e.MaxBytes/2
				s.QoS.Queues[i].ECN = &e
			}
		}
	})
	out["mtu"] = clone(func(s *ir.Switch) { s.MTU = 4200 })
	out["speed"] = clone(func(s *ir.Switch) { s.Ports[0].SpeedGbps = 200 })
	out["no-peer"] = clone(func(s *ir.Switch) { s.Ports[0].Peer, s.Ports[0].PeerPort = "", "" })
	out["no-ecn"] = clone(func(s *ir.Switch) {
		for i := range s.QoS.Queues {
			s.QoS.Queues[i].ECN = nil
		}
	})
	out["weights"] = clone(func(s *ir.Switch) {
		for i, q := range s.QoS.Queues {
			if !q.Strict {
				s.QoS.Queues[i].Weight = q.Weight + i
			}
		}
	})
	return out
}

// TestApplyConverges: applying diff(parse(running a), desired b) to the
// running configuration of a, then parsing, gives desired b; the foreign
// configuration is byte-identical; the result still unmarshals into the
// generated structs.
func TestApplyConverges(t *testing.T) {
	base := irtest.Fabric().Device("leaf-eos")
	vs := intents(base)
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range vs {
			if !yield(k) {
				return
			}
		}
	})
	for _, a := range names {
		for _, b := range names {
			for _, indent := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s-to-%s-indent-%t", a, b, indent), func(t *testing.T) {
					da, db := vs[a], vs[b]
					before := running(t, da, indent)
					want := desired(t, db)
					ch, rem := diff(t, db, parse(t, db, before), want)
					if (a == b) != (len(ch) == 0) {
						t.Fatalf("%d changes from %s to %s", len(ch), a, b)
					}
					checkRemediation(t, db, rem)
					arts, err := platform.Apply([]renderers.Artifact{{Path: db.Name + "/" + openconfig.FileName, Content: before}}, rem)
					if err != nil {
						t.Fatal(err)
					}
					after := arts[0].Content
					if ch, _ := diff(t, db, parse(t, db, after), want); len(ch) != 0 {
						t.Fatalf("after apply, still %d changes: %v\n%s", len(ch), ch, after)
					}
					foreignSame(t, before, after)
					if indent && !json.Valid(after) {
						t.Errorf("not JSON")
					}
				})
			}
		}
	}
}

// foreignSame checks that what rocefab does not own is byte-identical:
// every top-level member but /qos and /interfaces, every interface but
// the owned ports' entries, and within those every member but config and
// ethernet.
func foreignSame(t *testing.T, before, after []byte) {
	t.Helper()
	fb, fa := foreign(t, before), foreign(t, after)
	for k, v := range fb {
		if fa[k] != v {
			t.Errorf("foreign %s changed:\nbefore %s\nafter  %s", k, v, fa[k])
		}
	}
	if len(fa) != len(fb) {
		t.Errorf("%d foreign parts before, %d after", len(fb), len(fa))
	}
}

// foreign returns the raw bytes of each foreign part of a document.
func foreign(t *testing.T, js []byte) map[string]string {
	t.Helper()
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for k, v := range doc {
		switch k {
		case "openconfig-qos:qos":
		case "openconfig-interfaces:interfaces":
			var ifs struct{ Interface []map[string]json.RawMessage }
			if err := json.Unmarshal(v, &ifs); err != nil {
				t.Fatal(err)
			}
			for _, i := range ifs.Interface {
				name := string(i["name"])
				for m, raw := range i {
					if name == `"Loopback0"` || name == `"Management1"` || (m != "config" && m != "openconfig-if-ethernet:ethernet") {
						out[name+"/"+m] = string(raw)
					}
				}
			}
		default:
			out[k] = string(v)
		}
	}
	return out
}

// checkRemediation checks a SetRequest's shape: replace only at /qos,
// updates and deletes only at owned leaves of d's ports, never a replace
// of the root or of /interfaces; and its text reads back to the same
// request and writes the same bytes again.
func checkRemediation(t *testing.T, d *ir.Device, rem renderers.Remediation) {
	t.Helper()
	if len(rem.Content) == 0 {
		return
	}
	if rem.Format != renderers.Prototext {
		t.Fatalf("remediation format %q", rem.Format)
	}
	req, err := openconfig.ReadSetRequest(rem.Content)
	if err != nil {
		t.Fatal(err)
	}
	again, err := openconfig.MarshalSetRequest(req)
	if err != nil || !bytes.Equal(again, rem.Content) {
		t.Errorf("the SetRequest does not write back to the same text (%v)", err)
	}
	owned := map[string]openconfig.Operation{}
	for _, o := range openconfig.OwnedPaths(d) {
		owned[o.Path] = o.Op
	}
	for _, r := range req.GetReplace() {
		if p, _ := ygot.PathToString(r.GetPath()); owned[p] != openconfig.Replace {
			t.Errorf("replace at %s, which is not replaced", p)
		}
		if !json.Valid(r.GetVal().GetJsonIetfVal()) {
			t.Errorf("replace value is not JSON")
		}
	}
	for _, u := range req.GetUpdate() {
		if p, _ := ygot.PathToString(u.GetPath()); owned[p] != openconfig.Update {
			t.Errorf("update at %s, which is not an owned leaf", p)
		}
	}
	for _, del := range req.GetDelete() {
		if p, _ := ygot.PathToString(del); owned[p] != openconfig.Update {
			t.Errorf("delete at %s, which is not an owned leaf", p)
		}
	}
}

// TestRemediation checks the request for a few changes: a new ECN
// threshold replaces /qos and nothing else, a new MTU updates one leaf per
// port and leaves /qos, a port that lost its peer loses its description.
func TestRemediation(t *testing.T) {
	base := irtest.Fabric().Device("leaf-eos")
	vs := intents(base)
	have := parse(t, base, running(t, base, false))
	for name, wantOps := range map[string][3]int{"ecn": {0, 1, 0}, "mtu": {0, 0, 3}, "no-peer": {1, 0, 0}, "speed": {0, 0, 1}} {
		d := vs[name]
		ch, rem := diff(t, d, have, desired(t, d))
		req, err := openconfig.ReadSetRequest(rem.Content)
		if err != nil {
			t.Fatal(err)
		}
		if got := [3]int{len(req.GetDelete()), len(req.GetReplace()), len(req.GetUpdate())}; got != wantOps {
			t.Errorf("%s: %d deletes, %d replaces, %d updates; want %v\n%s", name, got[0], got[1], got[2], wantOps, rem.Content)
		}
		for _, c := range ch {
			if name == "speed" && c.Disruption != renderers.PortFlap {
				t.Errorf("a new port speed is %s, want port-flap", c.Disruption)
			}
		}
	}
	// Kind and disruption come from the catalog through the device.
	d := *vs["ecn"]
	d.Disruption = map[string]map[string]string{ir.PlatformOpenConfig: {"ecn": "traffic-pause"}}
	ch, _ := diff(t, &d, have, desired(t, &d))
	for _, c := range ch {
		if c.Kind != "ecn" || c.Disruption != renderers.TrafficPause {
			t.Errorf("%s: element %q, %s; want ecn, traffic-pause", c.Path, c.Kind, c.Disruption)
		}
	}
}

// TestSetRequestText reads the remediation text back with protobuf-go's
// own text parser and compares the request with the one it writes.
func TestSetRequestText(t *testing.T) {
	req := &gpb.SetRequest{
		Prefix: &gpb.Path{Origin: "openconfig", Target: "leaf-1"},
		Delete: []*gpb.Path{{Elem: []*gpb.PathElem{{Name: "a"}, {Name: "b", Key: map[string]string{"z": "1", "name": "x]\"\\\n\x01é"}}}}},
		Replace: []*gpb.Update{{Path: &gpb.Path{Elem: []*gpb.PathElem{{Name: "qos"}}},
			Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte("{\"a\":\"b\\\"c\"}\x00\xff")}}}},
		Update: []*gpb.Update{{Path: &gpb.Path{Elem: []*gpb.PathElem{{Name: "c"}}}, Val: &gpb.TypedValue{Value: &gpb.TypedValue_StringVal{StringVal: "s"}}}},
	}
	text, err := openconfig.MarshalSetRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	back, err := openconfig.ReadSetRequest(text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if !proto.Equal(req, back) {
		t.Errorf("read back another request:\n%s", text)
	}
	req.Update[0].Val = &gpb.TypedValue{Value: &gpb.TypedValue_UintVal{UintVal: 1}}
	if _, err := openconfig.MarshalSetRequest(req); err == nil {
		t.Errorf("a typed scalar value was written")
	}
}

// TestParseRejects: values outside their type, a list entry without its
// key and documents that are not JSON are errors that name the line and
// the path; none is read as a value.
func TestParseRejects(t *testing.T) {
	d := irtest.Fabric().Device("leaf-eos")
	good := string(render(t, d))
	for name, c := range map[string]struct{ from, to, want string }{
		"mtu range":   {`"mtu": 9214`, `"mtu": 70000`, "config/mtu: 70000 is outside"},
		"mtu string":  {`"mtu": 9214`, `"mtu": "x"`, "is not an integer"},
		"speed":       {`"openconfig-if-ethernet:SPEED_400GB"`, `"openconfig-if-ethernet:SPEED_401GB"`, "not an identity"},
		"enum":        {`"type": "IPV4"`, `"type": "IPV5"`, "not one of"},
		"bool":        {`"enable-flow-control": false`, `"enable-flow-control": "no"`, "not true or false"},
		"dscp":        {`"dscp-set": [`, `"dscp-set": [64,`, "outside 0..63"},
		"key":         {`"name": "dscp-ipv4",`, ``, "without its key"},
		"syntax":      {`"mtu": 9214`, `"mtu": 9214,,`, "line"},
		"null":        {`"mtu": 9214`, `"mtu": null`, "null"},
		"leaf object": {`"mtu": 9214`, `"mtu": {}`, "object"},
	} {
		bad := strings.Replace(good, c.from, c.to, 1)
		if name == "key" { // the entry's key, not its config leaf: the second one
			i := strings.Index(good, c.from) + len(c.from)
			bad = good[:i] + strings.Replace(good[i:], c.from, c.to, 1)
		}
		if bad == good {
			t.Fatalf("%s: %q is not in the artifact", name, c.from)
		}
		_, err := platform.Parse(d, []renderers.Artifact{{Path: d.Name + "/" + openconfig.FileName, Content: []byte(bad)}})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), openconfig.FileName) {
			t.Errorf("%s: error %v, want one naming the file and saying %q", name, err, c.want)
		}
	}
	// No file: the device runs nothing yet.
	s, err := platform.Parse(d, []renderers.Artifact{{Path: d.Name + "/eos.cfg"}})
	if err != nil || len(s.Elements()) != 0 {
		t.Errorf("no openconfig.json: %v, %d elements", err, len(s.Elements()))
	}
}

// TestApplyValid: applying the remediation from one intent's artifact to
// another's gives a tree that ygot reads and validates (types, ranges and
// leafrefs between the replaced /qos and the updated interfaces).
func TestApplyValid(t *testing.T) {
	vs := intents(irtest.Fabric().Device("leaf-eos"))
	for a, da := range vs {
		for b, db := range vs {
			before := render(t, da)
			_, rem := diff(t, db, parse(t, db, before), desired(t, db))
			arts, err := platform.Apply([]renderers.Artifact{{Path: db.Name + "/" + openconfig.FileName, Content: before}}, rem)
			if err != nil {
				t.Fatalf("%s to %s: %v", a, b, err)
			}
			var dev oc.Device
			if err := oc.Unmarshal(arts[0].Content, &dev); err != nil {
				t.Fatalf("%s to %s: the applied tree does not unmarshal: %v", a, b, err)
			}
			if err := ygot.ValidateGoStruct(&dev); err != nil {
				t.Errorf("%s to %s: the applied tree does not validate: %v", a, b, err)
			}
		}
	}
}

// TestApplyCreates: a device without openconfig.json gets one, and a
// remediation that names the root is refused.
func TestApplyCreates(t *testing.T) {
	d := irtest.Fabric().Device("leaf-eos")
	want := desired(t, d)
	_, rem := diff(t, d, parse(t, d, []byte("{}")), want)
	arts, err := platform.Apply([]renderers.Artifact{{Path: d.Name + "/eos.cfg", Content: []byte("hostname x\n")}}, rem)
	if err != nil {
		t.Fatal(err)
	}
	if len(arts) != 2 || arts[1].Path != d.Name+"/"+openconfig.FileName || string(arts[0].Content) != "hostname x\n" {
		t.Fatalf("apply to a device without openconfig.json: %v", arts)
	}
	if ch, _ := diff(t, d, parse(t, d, arts[1].Content), want); len(ch) != 0 {
		t.Errorf("the created file differs from the desired state: %v", ch)
	}
	// A device with no files at all gets the file by name alone, which
	// its target places in the device's directory.
	if fresh, err := platform.Apply(nil, rem); err != nil || len(fresh) != 1 || fresh[0].Path != openconfig.FileName || !bytes.Equal(fresh[0].Content, arts[1].Content) {
		t.Errorf("apply with no running file: %v, %v", fresh, err)
	}
	root := &gpb.SetRequest{Replace: []*gpb.Update{{Path: &gpb.Path{}, Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte("{}")}}}}}
	text, _ := openconfig.MarshalSetRequest(root)
	if _, err := platform.Apply(arts, renderers.Remediation{Format: renderers.Prototext, Content: text}); err == nil || !strings.Contains(err.Error(), "root") {
		t.Errorf("a replace of the root was applied: %v", err)
	}
}

// FuzzParse: no input panics the reader; what it reads is sorted, unique
// and in scope, and reads the same again after an apply that changes
// nothing.
func FuzzParse(f *testing.F) {
	d := irtest.Fabric().Device("leaf-eos")
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"openconfig-qos:qos":{"queues":{"queue":[{"name":1}]}}}`))
	f.Add(running(f, d, false))
	f.Add(render(&testing.T{}, d))
	f.Fuzz(func(t *testing.T, js []byte) {
		s, err := platform.Parse(d, []renderers.Artifact{{Path: d.Name + "/" + openconfig.FileName, Content: js}})
		if err != nil {
			return
		}
		es := s.Elements()
		for i, e := range es {
			if i > 0 && es[i-1].Path >= e.Path {
				t.Fatalf("elements not sorted and unique: %s, %s", es[i-1].Path, e.Path)
			}
			if !inScope(d, e.Path) {
				t.Fatalf("element %s out of scope", e.Path)
			}
		}
	})
}

// FuzzApply: no running file panics the applier; what it returns is JSON
// and, when the remediation was made for it, converges.
func FuzzApply(f *testing.F) {
	d := irtest.Fabric().Device("leaf-eos")
	want, err := platform.Desired(d)
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"openconfig-interfaces:interfaces":{"interface":[{"name":"Ethernet1/1"}]}}`))
	f.Add(running(f, intents(d)["ecn"], true))
	f.Fuzz(func(t *testing.T, js []byte) {
		s, err := platform.Parse(d, []renderers.Artifact{{Path: d.Name + "/" + openconfig.FileName, Content: js}})
		if err != nil {
			return
		}
		_, rem, err := platform.Diff(d, s, want)
		if err != nil {
			t.Fatal(err)
		}
		arts, err := platform.Apply([]renderers.Artifact{{Path: d.Name + "/" + openconfig.FileName, Content: js}}, rem)
		if err != nil {
			return // a document the applier cannot edit (a leaf where an object is wanted) is an error, not a panic
		}
		after, err := platform.Parse(d, arts)
		if err != nil {
			t.Fatalf("the applied document does not parse: %v\n%s", err, arts[0].Content)
		}
		if ch, _, _ := platform.Diff(d, after, want); len(ch) != 0 {
			t.Fatalf("apply did not converge: %v\n%s", ch, arts[0].Content)
		}
	})
}

// leaf64 is a 64-port leaf of the irtest fabric.
func leaf64() *ir.Device { return irtest.EOSLeaf(64) }

// cpuTime is the process's user and system CPU time so far. On a shared
// machine wall time per operation says more about the neighbours than
// about the code; CPU time per operation (GC included) does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per operation since start.
func reportCPU(b *testing.B, start time.Duration) {
	if b.N > 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
	}
}

// BenchmarkParseDiff64 measures what plan does per OpenConfig device: read
// a 64-port leaf's running configuration (with foreign sections) and diff
// it against its desired state (computed once, as plan does per device,
// reported on its own).
func BenchmarkParseDiff64(b *testing.B) {
	d := leaf64()
	run := running(b, intents(d)["ecn"], false)
	want := desired(b, d)
	b.Logf("running configuration: %d bytes", len(run))
	b.Run("parse+diff", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cpuTime()
		for b.Loop() {
			have := parse(b, d, run)
			if ch, _ := diff(b, d, have, want); len(ch) == 0 {
				b.Fatal("no change")
			}
		}
		reportCPU(b, cpu)
	})
	b.Run("desired", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cpuTime()
		for b.Loop() {
			desired(b, d)
		}
		reportCPU(b, cpu)
	})
	b.Run("ygot-unmarshal", func(b *testing.B) {
		for b.Loop() {
			var dev oc.Device
			if err := oc.Unmarshal(render(&testing.T{}, d), &dev, &ytypes.IgnoreExtraFields{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestCheckScope: every switch's remediation from an older intent passes
// its scope check; one with an operation on a path outside the owned
// scope appended is refused, naming the operation and the path.
func TestCheckScope(t *testing.T) {
	for _, d := range irtest.Fabric().Switches() {
		for name, old := range intents(d) {
			_, rem := diff(t, d, parse(t, d, running(t, old, true)), desired(t, d))
			if err := platform.CheckScope(d, rem); err != nil {
				t.Errorf("%s from %s: its own remediation: %v", d.Name, name, err)
			}
		}
	}
	d := irtest.Fabric().Device("leaf-eos")
	_, rem := diff(t, d, parse(t, d, running(t, intents(d)["ecn"], true)), desired(t, d))
	port := d.Switch.Ports[0].Name
	for _, tc := range []struct{ extra, want string }{
		{"delete: <elem: <name: \"system\">>\n", "delete /system"},
		{"replace: <path: <elem: <name: \"interfaces\">> val: <json_ietf_val: \"{}\">>\n", "replace /interfaces"},
		{"update: <path: <elem: <name: \"system\"> elem: <name: \"config\"> elem: <name: \"hostname\">> val: <json_ietf_val: \"\\\"pwned\\\"\">>\n", "update /system/config/hostname"},
		{"delete: <elem: <name: \"interfaces\"> elem: <name: \"interface\" key: <key: \"name\" value: \"" + port + "\">>>\n", "delete /interfaces/interface[name=" + port + "]"},
		{"update: <path: <elem: <name: \"interfaces\"> elem: <name: \"interface\" key: <key: \"name\" value: \"Management1\">> elem: <name: \"config\"> elem: <name: \"mtu\">> val: <json_ietf_val: \"1500\">>\n", "update /interfaces/interface[name=Management1]/config/mtu"},
		{"prefix: <elem: <name: \"system\">>\n", "prefix /system"},
	} {
		bad := renderers.Remediation{Format: rem.Format, Content: append(slices.Clone(rem.Content), tc.extra...)}
		err := platform.CheckScope(d, bad)
		if err == nil || !strings.Contains(err.Error(), tc.want+": outside the owned scope") {
			t.Errorf("with %q: %v, want %q", tc.extra, err, tc.want)
		}
	}
}
