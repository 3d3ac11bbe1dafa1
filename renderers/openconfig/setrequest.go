package openconfig

import (
	"fmt"
	"slices"
	"strings"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/openconfig/ygot/ygot"
	"google.golang.org/protobuf/encoding/prototext"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// Diff returns the changes that make running into desired, in path order,
// each with the disruption the catalog gives its element on OpenConfig,
// and the gNMI SetRequest that makes them, in protobuf text format.
//
// The request replaces /qos whole when anything below it changes (the
// fabric's QoS policy is rocefab's alone, and a replace drops a stale
// classifier term that an update would leave), and updates each owned leaf
// of a port that changes, or deletes it when the intent no longer gives it
// (a port that lost its peer keeps no stale description). It never
// replaces the root or /interfaces: a replace deletes what its value omits
// (gNMI specification 3.4.4), and that would take the device's other
// interfaces, subinterfaces and management port with it.
//
// desired must be this platform's [State] (from Desired): the /qos replace
// carries its tree. running may be any state.
func (Platform) Diff(d *ir.Device, running, desired renderers.State) ([]renderers.Change, renderers.Remediation, error) {
	want, ok := desired.(*State)
	if !ok || want == nil {
		return nil, renderers.Remediation{}, fmt.Errorf("openconfig: the desired state is %T, not an OpenConfig desired state", desired)
	}
	var ds renderers.Disruptions
	if d != nil {
		ds = d.Disruption[ir.PlatformOpenConfig]
	}
	var changes []renderers.Change
	if have, ok := sortedElements(running); ok {
		changes = diffElements(have, want.elements, ds)
	} else {
		changes = renderers.DiffElements(have, want.elements, ds)
	}
	floorDisruption.Raise(changes)
	if len(changes) == 0 {
		return nil, renderers.Remediation{}, nil
	}
	req, err := setRequest(changes, want)
	if err != nil {
		return nil, renderers.Remediation{}, fmt.Errorf("openconfig: %w", err)
	}
	text, err := MarshalSetRequest(req)
	if err != nil {
		return nil, renderers.Remediation{}, fmt.Errorf("openconfig: internal error: %w", err)
	}
	return changes, renderers.Remediation{Format: renderers.Prototext, Content: text}, nil
}

// setRequest makes the changes into a SetRequest.
func setRequest(changes []renderers.Change, want *State) (*gpb.SetRequest, error) {
	req := &gpb.SetRequest{}
	qos := false
	for _, c := range changes {
		if c.Path == "/qos" || strings.HasPrefix(c.Path, "/qos/") {
			qos = true
			continue
		}
		p, err := ygot.StringToStructuredPath(c.Path)
		if err != nil {
			return nil, fmt.Errorf("internal error: path %s: %w", c.Path, err)
		}
		if c.After == nil {
			req.Delete = append(req.Delete, p)
			continue
		}
		req.Update = append(req.Update, &gpb.Update{Path: p, Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(*c.After)}}})
	}
	if qos {
		p := &gpb.Path{Elem: []*gpb.PathElem{{Name: "qos"}}}
		if want.qos == "" {
			req.Delete = append(req.Delete, p)
		} else {
			req.Replace = append(req.Replace, &gpb.Update{Path: p, Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(want.qos)}}})
		}
	}
	return req, nil
}

// MarshalSetRequest writes req in protobuf text format, the form gnmic
// and gnmi_cli read a request in, one field per line, two-space indent.
// It is written here rather than with prototext.Marshal, whose output
// protobuf-go deliberately varies between builds (a random extra space),
// since a plan must print the same bytes for the same change. It writes
// the fields a remediation uses: prefix, delete, replace and update; paths
// with origin, elements, keys and target; values as JSON_IETF, JSON or a
// string. A request with anything else (an extension, a typed scalar) is
// an error, never written without it. [ReadSetRequest] reads the output
// back to an equal request (a test checks it).
func MarshalSetRequest(req *gpb.SetRequest) ([]byte, error) {
	if len(req.GetExtension()) > 0 || len(req.GetUnionReplace()) > 0 {
		return nil, fmt.Errorf("a SetRequest with extensions or union_replace is not written as a remediation")
	}
	w := &textWriter{}
	if req.GetPrefix() != nil {
		w.message("prefix", func() { w.path(req.GetPrefix()) })
	}
	for _, p := range req.GetDelete() {
		w.message("delete", func() { w.path(p) })
	}
	for _, u := range req.GetReplace() {
		w.message("replace", func() { w.update(u) })
	}
	for _, u := range req.GetUpdate() {
		w.message("update", func() { w.update(u) })
	}
	if w.err != nil {
		return nil, w.err
	}
	return w.b, nil
}

// ReadSetRequest reads a SetRequest in protobuf text format.
func ReadSetRequest(b []byte) (*gpb.SetRequest, error) {
	req := &gpb.SetRequest{}
	if err := prototext.Unmarshal(b, req); err != nil {
		return nil, fmt.Errorf("not a gNMI SetRequest in protobuf text format: %w", err)
	}
	return req, nil
}

type textWriter struct {
	b     []byte
	depth int
	err   error
}

func (w *textWriter) indent() {
	for range w.depth {
		w.b = append(w.b, "  "...)
	}
}

func (w *textWriter) message(name string, body func()) {
	w.indent()
	w.b = append(w.b, name...)
	w.b = append(w.b, ": {\n"...)
	w.depth++
	body()
	w.depth--
	w.indent()
	w.b = append(w.b, "}\n"...)
}

func (w *textWriter) field(name string, v []byte) {
	w.indent()
	w.b = append(w.b, name...)
	w.b = append(w.b, ": "...)
	w.b = appendQuoted(w.b, v)
	w.b = append(w.b, '\n')
}

func (w *textWriter) path(p *gpb.Path) {
	if p.GetOrigin() != "" {
		w.field("origin", []byte(p.GetOrigin()))
	}
	for _, e := range p.GetElem() {
		w.message("elem", func() {
			w.field("name", []byte(e.GetName()))
			for _, k := range slices.Sorted(mapKeys(e.GetKey())) {
				w.message("key", func() {
					w.field("key", []byte(k))
					w.field("value", []byte(e.GetKey()[k]))
				})
			}
		})
	}
	if p.GetTarget() != "" {
		w.field("target", []byte(p.GetTarget()))
	}
}

func (w *textWriter) update(u *gpb.Update) {
	if u.GetPath() != nil {
		w.message("path", func() { w.path(u.GetPath()) })
	}
	v := u.GetVal()
	if v == nil {
		return
	}
	w.message("val", func() {
		switch x := v.GetValue().(type) {
		case *gpb.TypedValue_JsonIetfVal:
			w.field("json_ietf_val", x.JsonIetfVal)
		case *gpb.TypedValue_JsonVal:
			w.field("json_val", x.JsonVal)
		case *gpb.TypedValue_StringVal:
			w.field("string_val", []byte(x.StringVal))
		default:
			p, _ := ygot.PathToString(u.GetPath())
			w.err = fmt.Errorf("%s: a %T value is not written as a remediation", p, x)
		}
	})
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// appendQuoted writes v as a text-format string: printable ASCII as it
// is, quotes and backslashes escaped, every other byte as an octal
// escape, which the text format reads back to the same bytes.
func appendQuoted(b, v []byte) []byte {
	b = slices.Grow(b, len(v)+len(v)/4+2)
	b = append(b, '"')
	run := 0 // start of the run of bytes written as they are
	for i, c := range v {
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			continue
		}
		b = append(b, v[run:i]...)
		run = i + 1
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		default:
			b = append(b, '\\', '0'+(c>>6), '0'+((c>>3)&7), '0'+(c&7))
		}
	}
	b = append(b, v[run:]...)
	return append(b, '"')
}
