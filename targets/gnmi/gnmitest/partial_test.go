package gnmitest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/openconfig/ygot/ygot"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers/openconfig"
)

// leafTree is the OpenConfig artifact of the test fabric's EOS leaf, with
// d's switch MTU, and its /qos member.
func leafTree(t *testing.T, mtu int) (doc, qos []byte) {
	t.Helper()
	d := *irtest.Fabric().Device("leaf-eos")
	sw := *d.Switch
	sw.MTU = mtu
	d.Switch = &sw
	arts, err := openconfig.Renderer{}.Render(&d)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(arts[0].Content, &top); err != nil {
		t.Fatal(err)
	}
	return arts[0].Content, top["openconfig-qos:qos"]
}

func path(t *testing.T, s string) *gpb.Path {
	t.Helper()
	p, err := ygot.StringToStructuredPath(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func ietf(v string) *gpb.TypedValue {
	return &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(v)}}
}

// TestPartialMatchesWhole holds the partial path to the whole tree's: for
// each request, a server that serves it from the parts it touches ends
// with the same tree, or refuses it with the same code, as one that reads
// and validates the whole tree; and a Get of a path answers the same.
func TestPartialMatchesWhole(t *testing.T) {
	doc, _ := leafTree(t, 9214)
	_, otherQoS := leafTree(t, 4200)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		t.Fatal(err)
	}
	top["openconfig-network-instance:network-instances"] = json.RawMessage(`{"network-instance":[{"name":"default"}]}`)
	doc, _ = json.Marshal(top)
	port := irtest.PortName(ir.PlatformEOS, 1)
	at := func(leaf string) string { return fmt.Sprintf("/interfaces/interface[name=%s]/%s", port, leaf) }
	missingRef := `{"interfaces":{"interface":[{"interface-id":"Nope","config":{"interface-id":"Nope"},"interface-ref":{"config":{"interface":"Nope"}}}]}}`
	reqs := map[string]*gpb.SetRequest{
		"replace qos":         {Replace: []*gpb.Update{{Path: path(t, "/qos"), Val: ietf(string(otherQoS))}}},
		"replace qos twice":   {Replace: []*gpb.Update{{Path: path(t, "/qos"), Val: ietf(string(otherQoS))}}},
		"update mtu":          {Update: []*gpb.Update{{Path: path(t, at("config/mtu")), Val: ietf("9000")}}},
		"prefix and leaf":     {Prefix: path(t, "/interfaces"), Update: []*gpb.Update{{Path: path(t, fmt.Sprintf("/interface[name=%s]/config/mtu", port)), Val: ietf("1500")}}},
		"delete description":  {Delete: []*gpb.Path{path(t, at("config/description"))}},
		"delete qos":          {Delete: []*gpb.Path{path(t, "/qos")}},
		"delete a port":       {Delete: []*gpb.Path{path(t, fmt.Sprintf("/interfaces/interface[name=%s]", port))}},
		"new port":            {Update: []*gpb.Update{{Path: path(t, "/interfaces/interface[name=Ethernet60/1]/config"), Val: ietf(`{"name":"Ethernet60/1","mtu":9214}`)}}},
		"bad mtu":             {Update: []*gpb.Update{{Path: path(t, at("config/mtu")), Val: ietf(`"many"`)}}},
		"mtu out of range":    {Update: []*gpb.Update{{Path: path(t, at("config/mtu")), Val: ietf("70000")}}},
		"bad speed":           {Update: []*gpb.Update{{Path: path(t, at("ethernet/config/port-speed")), Val: ietf(`"openconfig-if-ethernet:SPEED_7GB"`)}}},
		"leafref to nothing":  {Replace: []*gpb.Update{{Path: path(t, "/qos"), Val: ietf(missingRef)}}},
		"qos leaf and a port": {Update: []*gpb.Update{{Path: path(t, "/qos/queues/queue[name=roce]/config/name"), Val: ietf(`"roce"`)}, {Path: path(t, at("config/mtu")), Val: ietf("9100")}}},
	}
	for name, req := range reqs {
		t.Run(name, func(t *testing.T) {
			var docs [2][]byte
			var errs [2]error
			for i, s := range partialAndWhole(t, doc) {
				_, errs[i] = s.set(proto.Clone(req).(*gpb.SetRequest))
				if name == "replace qos twice" && errs[i] == nil {
					_, errs[i] = s.set(proto.Clone(req).(*gpb.SetRequest))
				}
				docs[i] = s.Config()
				if s.part != nil {
					samePart(t, s.part, s.doc)
				}
			}
			if status.Code(errs[0]) != status.Code(errs[1]) {
				t.Fatalf("partial: %v\nwhole: %v", errs[0], errs[1])
			}
			if Canonical(t, docs[0]) != Canonical(t, docs[1]) {
				t.Errorf("partial:\n%s\nwhole:\n%s", docs[0], docs[1])
			}
		})
	}
	for _, p := range []string{"/qos", "/qos/queues", at("config/mtu"), at("config"), "/interfaces/interface[name=Nope]/config/mtu"} {
		t.Run("get "+p, func(t *testing.T) {
			var vals [2]*gpb.TypedValue
			var errs [2]error
			for i, s := range partialAndWhole(t, doc) {
				vals[i], errs[i] = s.node(path(t, p))
			}
			if status.Code(errs[0]) != status.Code(errs[1]) || !proto.Equal(vals[0], vals[1]) {
				t.Errorf("partial: %v %v\nwhole: %v %v", vals[0], errs[0], vals[1], errs[1])
			}
		})
	}
}

// samePart fails when part, kept up to date by a Set, is not what parsing
// doc gives.
func samePart(t *testing.T, part *docPart, doc []byte) {
	t.Helper()
	want, err := parseDoc(doc)
	if err != nil {
		t.Fatal(err)
	}
	flat := func(p *docPart) string {
		var b strings.Builder
		fmt.Fprintf(&b, "qos %d interfaces %d list %d\n", p.qosAt, p.ifAt, p.listAt)
		for _, m := range p.top {
			fmt.Fprintf(&b, "%s=%s\n", m.name, Canonical(t, m.value))
		}
		for _, m := range p.ifMembers {
			fmt.Fprintf(&b, "interfaces/%s=%s\n", m.name, Canonical(t, m.value))
		}
		for _, e := range p.entries {
			fmt.Fprintf(&b, "entry %s=%s\n", e.name, Canonical(t, e.raw))
		}
		return b.String()
	}
	if got, want := flat(part), flat(want); got != want {
		t.Errorf("the parsed tree kept after a Set:\n%s\nparsing the document:\n%s", got, want)
	}
}

// partialAndWhole returns two servers of doc: one that keeps the
// document in parts (what Get and Set do by default) and one that
// rebuilds it whole, which the parts must agree with.
func partialAndWhole(t *testing.T, doc []byte) [2]*Server {
	t.Helper()
	var out [2]*Server
	for i, whole := range []bool{false, true} {
		s, err := New(doc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s.whole = whole
		out[i] = s
	}
	return out
}
