package telemetry

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/compiler/ir"
)

// gnmiStatePaths are the containers whose state holds every counter of
// docs/doctor.md section 4 for the switch's fabric ports: each port's
// interface (openconfig-interfaces state/counters, openconfig-if-ethernet
// ethernet/state/counters) and its egress queues (openconfig-qos
// output/queues/queue/state), named by their keys. Ports are named rather
// than matched with a wildcard: the model knows them, ports outside the
// fabric (management) are not read, and every answer is one update per
// path.
func gnmiStatePaths(d *ir.Device) []string {
	paths := make([]string, 0, 2*len(d.Switch.Ports))
	for _, p := range d.Switch.Ports {
		paths = append(paths, "/interfaces/interface[name="+p.Name+"]", "/qos/interfaces/interface[interface-id="+p.Name+"]/output")
	}
	return paths
}

// gnmiListKeys are the keys of the OpenConfig lists on the way to the
// counters, by the list's path without keys (openconfig-interfaces
// interface "name"; openconfig-qos interface "interface-id", queue
// "name"): a list entry of a JSON value carries its key as a member, and
// gnmic labels the series by it. A list not here holds nothing doctor
// reads and is skipped.
var gnmiListKeys = map[string]string{
	"interfaces/interface":                         "name",
	"qos/interfaces/interface":                     "interface-id",
	"qos/interfaces/interface/output/queues/queue": "name",
}

// sampleGNMI reads switch d's counters with one gNMI Get and writes them
// as gnmic's Prometheus output names them.
func sampleGNMI(ctx context.Context, reach Reach, d *ir.Device, w *bufio.Writer) error {
	start := time.Now()
	paths := gnmiStatePaths(d)
	ns, err := reach.GetState(ctx, d, paths)
	if err != nil {
		return fmt.Errorf("%s: %w", d.Name, err)
	}
	ms := midpoint(start)
	n := 0
	for _, nf := range ns {
		at := ms
		if ts := nf.GetTimestamp(); ts > 0 {
			// The device's own time of the read: both samples of a
			// series come from the same clock.
			at = ts / int64(time.Millisecond)
		}
		for _, u := range nf.GetUpdate() {
			elems := slices.Concat(nf.GetPrefix().GetElem(), u.GetPath().GetElem())
			k, err := writeUpdate(w, d.Name, elems, u.GetVal(), at)
			if err != nil {
				return fmt.Errorf("%s: gNMI Get: %w", d.Name, err)
			}
			n += k
		}
	}
	if n == 0 {
		return fmt.Errorf("%s: gNMI Get of the state of %d ports: %w", d.Name, len(d.Switch.Ports), errNoCounters)
	}
	return nil
}

// gnmiNode is where a walk of an update stands: the path's names joined
// by "/" (without keys) and the labels of the list keys passed.
type gnmiNode struct {
	path   string
	labels []string // name, value pairs
}

func (g gnmiNode) child(name string) gnmiNode {
	name = localName(name)
	if g.path != "" {
		name = g.path + "/" + name
	}
	return gnmiNode{path: name, labels: g.labels}
}

func (g gnmiNode) keyed(list, key, value string) gnmiNode {
	l := append(slices.Clip(g.labels), labelName(localName(list)+"_"+key), value)
	return gnmiNode{path: g.path, labels: l}
}

// writeUpdate writes the counters of one update (a leaf, or a container
// as JSON) as gnmic's Prometheus output names them: the path's names
// joined by "_", every character outside [a-zA-Z0-9_] replaced by "_",
// labelled by source (the device) and each list key as <list>_<key>
// (openconfig/gnmic outputs/prometheus_output/prometheus_common.go;
// docs/doctor.md section 4). Module prefixes of JSON_IETF names
// ("openconfig-if-ethernet:ethernet") are dropped, as a path names them.
// It returns how many series doctor reads it wrote.
func writeUpdate(w *bufio.Writer, device string, elems []*gpb.PathElem, v *gpb.TypedValue, ms int64) (int, error) {
	g := gnmiNode{labels: []string{"source", device}}
	for _, e := range elems {
		g = g.child(e.GetName())
		keys := e.GetKey()
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			g = g.keyed(e.GetName(), k, keys[k])
		}
	}
	var js []byte
	switch x := v.GetValue().(type) {
	case *gpb.TypedValue_JsonIetfVal:
		js = x.JsonIetfVal
	case *gpb.TypedValue_JsonVal:
		js = x.JsonVal
	case *gpb.TypedValue_UintVal:
		return writeLeaf(w, g, strconv.FormatUint(x.UintVal, 10), ms), nil
	case *gpb.TypedValue_IntVal:
		return writeLeaf(w, g, strconv.FormatInt(x.IntVal, 10), ms), nil
	case *gpb.TypedValue_StringVal:
		return writeLeaf(w, g, x.StringVal, ms), nil
	default:
		return 0, nil
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var val any
	if err := dec.Decode(&val); err != nil {
		return 0, fmt.Errorf("the value at /%s is not JSON: %v", g.path, err)
	}
	return walkJSON(w, g, val, ms), nil
}

// walkJSON writes the counters below a JSON value.
func walkJSON(w *bufio.Writer, g gnmiNode, val any, ms int64) int {
	n := 0
	switch x := val.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			n += walkJSON(w, g.child(k), x[k], ms)
		}
	case []any:
		key, ok := gnmiListKeys[g.path]
		if !ok {
			return 0
		}
		list := g.path[strings.LastIndex(g.path, "/")+1:]
		for _, e := range x {
			m, ok := e.(map[string]any)
			if !ok {
				continue
			}
			kv, ok := jsonMember(m, key)
			if !ok {
				continue
			}
			n += walkJSON(w, g.keyed(list, key, kv), m, ms)
		}
	case json.Number:
		return writeLeaf(w, g, x.String(), ms)
	case string:
		// RFC 7951 section 6.1: 64-bit integers are JSON strings.
		return writeLeaf(w, g, x, ms)
	}
	return n
}

// jsonMember returns member name of m (with or without a module prefix)
// as text.
func jsonMember(m map[string]any, name string) (string, bool) {
	for k, v := range m {
		if localName(k) != name {
			continue
		}
		switch v := v.(type) {
		case string:
			return v, true
		case json.Number:
			return v.String(), true
		}
	}
	return "", false
}

// writeLeaf writes the leaf at g when doctor reads it.
func writeLeaf(w *bufio.Writer, g gnmiNode, value string, ms int64) int {
	return writeKnown(w, labelName(g.path), value, ms, g.labels...)
}

// localName drops a module prefix ("openconfig-qos:qos" is "qos").
func localName(s string) string { return s[strings.LastIndexByte(s, ':')+1:] }

// labelName replaces every character outside [a-zA-Z0-9_] by "_", as
// gnmic names metrics and labels.
func labelName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}
