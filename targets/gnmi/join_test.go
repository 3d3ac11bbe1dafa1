package gnmi

import (
	"encoding/json"
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
)

// TestJoinGet: a Get of the root answered with one update per top-level
// container, or the root split across notifications, reads as one
// document; an update at a list entry cannot be placed and says so.
func TestJoinGet(t *testing.T) {
	val := func(s string) *gpb.TypedValue {
		return &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(s)}}
	}
	elem := func(names ...string) *gpb.Path {
		p := &gpb.Path{}
		for _, n := range names {
			p.Elem = append(p.Elem, &gpb.PathElem{Name: n})
		}
		return p
	}
	resp := &gpb.GetResponse{Notification: []*gpb.Notification{
		{Update: []*gpb.Update{{Path: elem("openconfig-qos:qos"), Val: val(`{"queues":{}}`)}}},
		{Update: []*gpb.Update{{Path: elem("openconfig-interfaces:interfaces"), Val: val(`{"interface":[]}`)},
			{Path: elem(), Val: val(`{"openconfig-system:system":{"config":{}}}`)},
			{Path: elem("a", "b"), Val: val(`1`)}}},
	}}
	js, err := joinGet(resp)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(js, &got); err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	want := `{"a":{"b":1},"openconfig-interfaces:interfaces":{"interface":[]},"openconfig-qos:qos":{"queues":{}},"openconfig-system:system":{"config":{}}}`
	if b, _ := json.Marshal(got); string(b) != want {
		t.Errorf("joined %s\nwant %s", b, want)
	}
	resp.Notification[0].Update[0].Path.Elem[0].Key = map[string]string{"name": "x"}
	if _, err := joinGet(resp); err == nil {
		t.Errorf("an update at a list entry was placed")
	}
	one := &gpb.GetResponse{Notification: []*gpb.Notification{{Update: []*gpb.Update{{Path: elem(), Val: val(`{"x":1}`)}}}}}
	if js, err := joinGet(one); err != nil || string(js) != "{\"x\":1}\n" {
		t.Errorf("a whole tree is not read as it came: %q, %v", js, err)
	}
}
