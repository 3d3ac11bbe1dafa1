package openconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/openconfig/goyang/pkg/yang"
	"github.com/openconfig/ygot/ygot"

	"github.com/rocefab/rocefab/renderers"
)

// Apply applies a remediation (a SetRequest from [Platform.Diff]) to a
// running openconfig.json the way a gNMI target applies a Set: deletes,
// then replaces, then updates (gNMI specification 3.4.3). It edits the
// JSON text in place: every byte outside the paths the request names is
// kept, so foreign configuration (other interfaces, subinterfaces, network
// instances, vendor augmentations) is byte-identical afterwards. A member
// it creates is qualified as RFC 7951 asks and indented like the document.
//
// It applies what remediations hold: a replace of a container or leaf, an
// update of a leaf, a delete of anything. It refuses a replace of the root
// (which would delete every configuration rocefab does not own) and an
// update that merges an object, which a remediation never sends. With no
// openconfig.json among running, it creates one beside the device's other
// files; with no running file at all it cannot name the device and says so.
func (Platform) Apply(running []renderers.Artifact, rem renderers.Remediation) ([]renderers.Artifact, error) {
	out := slices.Clone(running)
	if len(rem.Content) == 0 {
		return out, nil
	}
	if rem.Format != renderers.Prototext {
		return nil, fmt.Errorf("openconfig: a remediation in %q, not a gNMI SetRequest in %q", rem.Format, renderers.Prototext)
	}
	req, err := ReadSetRequest(rem.Content)
	if err != nil {
		return nil, fmt.Errorf("openconfig: %w", err)
	}
	at, err := renderers.RunningFile(running, FileName)
	if err != nil {
		return nil, fmt.Errorf("openconfig: %w", err)
	}
	var src []byte
	if at >= 0 {
		src = bytes.Clone(running[at].Content)
	} else {
		out = append(out, renderers.Artifact{Path: renderers.NewArtifactPath(running, FileName), Format: renderers.JSON})
		at = len(out) - 1
		src = []byte("{}\n")
	}
	if src, err = applySet(src, req); err != nil {
		return nil, fmt.Errorf("openconfig: %s: %w", out[at].Path, err)
	}
	out[at].Content = src
	return out, nil
}

// applySet applies req to the document src.
func applySet(src []byte, req *gpb.SetRequest) ([]byte, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		src = []byte("{}\n")
	}
	full := func(p *gpb.Path) []*gpb.PathElem {
		return append(slices.Clone(req.GetPrefix().GetElem()), p.GetElem()...)
	}
	var err error
	for _, p := range req.GetDelete() {
		if src, err = edit(src, full(p), nil, opDelete); err != nil {
			return nil, err
		}
	}
	for _, u := range req.GetReplace() {
		if src, err = edit(src, full(u.GetPath()), u.GetVal(), opReplace); err != nil {
			return nil, err
		}
	}
	for _, u := range req.GetUpdate() {
		if src, err = edit(src, full(u.GetPath()), u.GetVal(), opUpdate); err != nil {
			return nil, err
		}
	}
	return src, nil
}

type editOp uint8

const (
	opDelete editOp = iota
	opReplace
	opUpdate
)

// editor is one edit of a document.
type editor struct {
	src  []byte
	unit string // the document's indentation step; "" when it is compact
}

// edit applies one operation at elems.
func edit(src []byte, elems []*gpb.PathElem, val *gpb.TypedValue, op editOp) ([]byte, error) {
	p := pathString(elems)
	if len(elems) == 0 && op != opDelete {
		return nil, fmt.Errorf("a %s of the root is not applied: it would delete every configuration rocefab does not own", opName(op))
	}
	root, err := parseJSON(src)
	if err != nil {
		return nil, fmt.Errorf("the running configuration is not JSON: %w", err)
	}
	if root.kind != '{' {
		return nil, fmt.Errorf("the running configuration is not a JSON object")
	}
	sroot, err := schema()
	if err != nil {
		return nil, err
	}
	var value []byte
	if op != opDelete {
		if value, err = jsonValue(val); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if op == opUpdate && len(value) > 0 && value[0] == '{' {
			return nil, fmt.Errorf("%s: an update that merges an object is not applied (remediations update leaves)", p)
		}
	}
	e := &editor{src: src, unit: indentUnit(src)}
	return e.at(root, sroot, "", elems, value, op, p)
}

func opName(op editOp) string {
	return [...]string{"delete", "replace", "update"}[op]
}

// at walks to elems below the object obj (schema node sn, namespace ns)
// and applies op there.
func (e *editor) at(obj *jnode, sn *snode, ns string, elems []*gpb.PathElem, value []byte, op editOp, p string) ([]byte, error) {
	if len(elems) == 0 { // a delete of the root: of what rocefab may delete, nothing is at the root itself
		return nil, fmt.Errorf("a delete of the root is not applied")
	}
	el := elems[0]
	_, local := splitQName(el.GetName())
	var csn *snode
	if sn != nil {
		csn = sn.children[local]
	}
	module := ns
	if csn != nil {
		module = csn.module
	}
	mi := -1
	for i, m := range obj.members {
		mod, name := splitQName(m.name)
		if name == local && (mod == "" || csn == nil || mod == csn.module) {
			mi = i
			break
		}
	}
	last := len(elems) == 1
	keyed := len(el.GetKey()) > 0
	if mi < 0 {
		if op == opDelete {
			return e.src, nil // deleting what is not there succeeds (gNMI specification 3.4.6)
		}
		text, err := e.build(csn, elems, value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		name := local
		if module != ns || ns == "" {
			name = module + ":" + local
		}
		return e.insertMember(obj, name, text), nil
	}
	m := obj.members[mi]
	if !keyed {
		switch {
		case last && op == opDelete:
			return e.remove(obj, mi), nil
		case last:
			if m.value.kind == '{' && value[0] != '{' || m.value.kind != '{' && value[0] == '{' {
				return nil, fmt.Errorf("%s: a value of another shape than the node", p)
			}
			return e.splice(m.value, e.localize(value, module, m.value.start)), nil
		case m.value.kind != '{':
			return nil, fmt.Errorf("%s: %s is not an object", p, local)
		}
		return e.at(m.value, csn, module, elems[1:], value, op, p)
	}
	// A list entry: the array's element whose keys match.
	arr := m.value
	if arr.kind != '[' {
		return nil, fmt.Errorf("%s: %s is not a list (a JSON array)", p, local)
	}
	for i, ent := range arr.elems {
		if ent.kind != '{' || !keysMatch(ent, el.GetKey(), e.src) {
			continue
		}
		switch {
		case last && op == opDelete:
			return e.remove(arr, i), nil
		case last:
			if value[0] != '{' {
				return nil, fmt.Errorf("%s: a list entry's value is an object", p)
			}
			return e.splice(ent, e.localize(value, module, ent.start)), nil
		}
		return e.at(ent, csn, module, elems[1:], value, op, p)
	}
	if op == opDelete {
		return e.src, nil
	}
	text, err := e.buildEntry(csn, el, elems[1:], value)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return e.appendElem(arr, text), nil
}

// keysMatch reports whether list entry ent has the keys of a path element.
func keysMatch(ent *jnode, keys map[string]string, src []byte) bool {
	for k, v := range keys {
		m, _, ok := ent.member(k)
		if !ok || m.value.kind == '{' || m.value.kind == '[' || keyText(m.value, src) != v {
			return false
		}
	}
	return true
}

// build writes the JSON value that makes elems exist with value at the
// end (elems[0] being the member created): nested objects, and a list
// with one entry for a keyed element.
func (e *editor) build(sn *snode, elems []*gpb.PathElem, value []byte) (string, error) {
	el := elems[0]
	if len(el.GetKey()) > 0 {
		ent, err := e.buildEntry(sn, el, elems[1:], value)
		if err != nil {
			return "", err
		}
		return "[" + ent + "]", nil
	}
	if len(elems) == 1 {
		return string(unqualify(value, moduleOf(sn))), nil
	}
	_, local := splitQName(elems[1].GetName())
	var csn *snode
	if sn != nil {
		csn = sn.children[local]
	}
	inner, err := e.build(csn, elems[1:], value)
	if err != nil {
		return "", err
	}
	return "{" + quote(qualified(sn, csn, local)) + ":" + inner + "}", nil
}

// buildEntry writes a list entry with el's keys and the rest of the path.
func (e *editor) buildEntry(sn *snode, el *gpb.PathElem, rest []*gpb.PathElem, value []byte) (string, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range slices.Sorted(mapKeys(el.GetKey())) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(quote(k) + ":" + keyJSON(sn, k, el.GetKey()[k]))
	}
	if len(rest) == 0 {
		if len(value) < 2 || value[0] != '{' {
			return "", fmt.Errorf("a list entry's value is an object")
		}
		// The value's own members follow the keys, but for the keys.
		value = unqualify(value, moduleOf(sn))
		n, err := parseJSON(value)
		if err != nil || n.kind != '{' {
			return "", fmt.Errorf("a list entry's value is an object")
		}
		for _, m := range n.members {
			_, local := splitQName(m.name)
			if _, isKey := el.GetKey()[local]; isKey {
				continue
			}
			b.WriteString("," + quote(m.name) + ":")
			b.Write(value[m.value.start:m.value.end])
		}
		b.WriteByte('}')
		return b.String(), nil
	}
	_, local := splitQName(rest[0].GetName())
	var csn *snode
	if sn != nil {
		csn = sn.children[local]
	}
	inner, err := e.build(csn, rest, value)
	if err != nil {
		return "", err
	}
	b.WriteString("," + quote(qualified(sn, csn, local)) + ":" + inner + "}")
	return b.String(), nil
}

func moduleOf(n *snode) string {
	if n == nil {
		return ""
	}
	return n.module
}

// qualified is the member name of child c (named local) under parent p.
func qualified(p, c *snode, local string) string {
	if c != nil && p != nil && c.module != p.module {
		return c.module + ":" + local
	}
	return local
}

// keyJSON writes a key's value as its leaf's type wants it: a number for
// an integer key of at most 32 bits, a string otherwise.
func keyJSON(list *snode, k, v string) string {
	if list != nil {
		if leaf := list.children[k]; leaf != nil && leaf.typ != nil && isDigits(strings.TrimPrefix(v, "-")) {
			switch leaf.typ.Kind {
			case yang.Yint8, yang.Yint16, yang.Yint32, yang.Yuint8, yang.Yuint16, yang.Yuint32:
				return v
			}
		}
	}
	return quote(v)
}

// jsonValue is the JSON a TypedValue carries: JSON_IETF or JSON as it is,
// a scalar written as JSON.
func jsonValue(v *gpb.TypedValue) ([]byte, error) {
	var raw []byte
	switch x := v.GetValue().(type) {
	case *gpb.TypedValue_JsonIetfVal:
		raw = x.JsonIetfVal
	case *gpb.TypedValue_JsonVal:
		raw = x.JsonVal
	case *gpb.TypedValue_StringVal:
		return []byte(quote(x.StringVal)), nil
	case *gpb.TypedValue_BoolVal:
		return fmt.Appendf(nil, "%t", x.BoolVal), nil
	case *gpb.TypedValue_UintVal:
		return fmt.Appendf(nil, "%d", x.UintVal), nil
	case *gpb.TypedValue_IntVal:
		return fmt.Appendf(nil, "%d", x.IntVal), nil
	case nil:
		return nil, fmt.Errorf("no value")
	default:
		return nil, fmt.Errorf("a %T value is not applied", x)
	}
	n, err := parseJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("the value is not JSON: %w", err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw[n.start:n.end]); err != nil {
		return nil, fmt.Errorf("the value is not JSON: %w", err)
	}
	return b.Bytes(), nil
}

// localize drops, from the top-level members of an object value, the
// module qualifier that equals the module of the node it is put in
// (RFC 7951 section 4 qualifies a name only where the module changes),
// and indents it for its place in the document.
func (e *editor) localize(value []byte, module string, at int) []byte {
	return e.indent(unqualify(value, module), at)
}

// unqualify drops, from the top-level members of an object value, the
// module qualifier that equals module.
func unqualify(value []byte, module string) []byte {
	if len(value) > 0 && value[0] == '{' {
		if n, err := parseJSON(value); err == nil && n.kind == '{' {
			var b bytes.Buffer
			b.WriteByte('{')
			for i, m := range n.members {
				if i > 0 {
					b.WriteByte(',')
				}
				mod, local := splitQName(m.name)
				name := m.name
				if mod == module {
					name = local
				}
				b.WriteString(quote(name) + ":")
				b.Write(value[m.value.start:m.value.end])
			}
			b.WriteByte('}')
			value = b.Bytes()
		}
	}
	return value
}

// indent re-indents a compact value for the line the offset at is on.
func (e *editor) indent(value []byte, at int) []byte {
	if e.unit == "" || len(value) == 0 || (value[0] != '{' && value[0] != '[') {
		return value
	}
	var b bytes.Buffer
	if json.Indent(&b, value, lineIndent(e.src, at), e.unit) != nil {
		return value
	}
	return b.Bytes()
}

func (e *editor) splice(n *jnode, with []byte) []byte {
	out := make([]byte, 0, len(e.src)-(n.end-n.start)+len(with))
	out = append(out, e.src[:n.start]...)
	out = append(out, with...)
	return append(out, e.src[n.end:]...)
}

// insertMember adds "name": text as the last member of obj.
func (e *editor) insertMember(obj *jnode, name, text string) []byte {
	ind := lineIndent(e.src, obj.start)
	member := quote(name) + ":"
	if e.unit != "" {
		member += " "
	}
	val := text
	if e.unit != "" && (text[0] == '{' || text[0] == '[') {
		var b bytes.Buffer
		if json.Indent(&b, []byte(text), ind+e.unit, e.unit) == nil {
			val = b.String()
		}
	}
	member += val
	if len(obj.members) == 0 {
		inner := member
		if e.unit != "" {
			inner = "\n" + ind + e.unit + member + "\n" + ind
		}
		return e.replaceSpan(obj.start, obj.end, "{"+inner+"}")
	}
	lastEnd := obj.members[len(obj.members)-1].value.end
	sep := ","
	if e.unit != "" {
		sep = ",\n" + ind + e.unit
	}
	return e.replaceSpan(lastEnd, lastEnd, sep+member)
}

// appendElem adds text as the last element of arr.
func (e *editor) appendElem(arr *jnode, text string) []byte {
	ind := lineIndent(e.src, arr.start)
	val := text
	if e.unit != "" {
		var b bytes.Buffer
		if json.Indent(&b, []byte(text), ind+e.unit, e.unit) == nil {
			val = b.String()
		}
	}
	if len(arr.elems) == 0 {
		if e.unit != "" {
			val = "\n" + ind + e.unit + val + "\n" + ind
		}
		return e.replaceSpan(arr.start, arr.end, "["+val+"]")
	}
	lastEnd := arr.elems[len(arr.elems)-1].end
	sep := ","
	if e.unit != "" {
		sep = ",\n" + ind + e.unit
	}
	return e.replaceSpan(lastEnd, lastEnd, sep+val)
}

// remove deletes member or element i of container c (an object or an
// array) with the comma that separates it, leaving an empty container
// when it was the only one.
func (e *editor) remove(c *jnode, i int) []byte {
	// span is where item j stands: a member from its name's quote to the
	// end of its value, an element as itself.
	span := func(j int) (start, end int) {
		if c.kind == '{' {
			return c.members[j].start, c.members[j].value.end
		}
		return c.elems[j].start, c.elems[j].end
	}
	n := len(c.members) + len(c.elems)
	switch {
	case n == 1 && c.kind == '{':
		return e.replaceSpan(c.start, c.end, "{}")
	case n == 1:
		return e.replaceSpan(c.start, c.end, "[]")
	case i < n-1:
		start, _ := span(i)
		next, _ := span(i + 1)
		return e.replaceSpan(start, next, "")
	}
	_, prevEnd := span(i - 1)
	_, end := span(i)
	return e.replaceSpan(prevEnd, end, "")
}

func (e *editor) replaceSpan(from, to int, with string) []byte {
	out := make([]byte, 0, len(e.src)-(to-from)+len(with))
	out = append(out, e.src[:from]...)
	out = append(out, with...)
	return append(out, e.src[to:]...)
}

// indentUnit is the indentation step of a document: the white space that
// starts its second line, "" for a document on one line.
func indentUnit(src []byte) string {
	nl := bytes.IndexByte(src, '\n')
	if nl < 0 || nl == len(src)-1 {
		return ""
	}
	rest := src[nl+1:]
	n := 0
	for n < len(rest) && (rest[n] == ' ' || rest[n] == '\t') {
		n++
	}
	if n == 0 {
		return ""
	}
	return string(rest[:n])
}

// lineIndent is the white space that starts the line holding offset at
// ("" for a negative offset).
func lineIndent(src []byte, at int) string {
	if at < 0 {
		return ""
	}
	start := bytes.LastIndexByte(src[:at], '\n') + 1
	n := start
	for n < len(src) && (src[n] == ' ' || src[n] == '\t') {
		n++
	}
	return string(src[start:n])
}

// pathString is elems as a gNMI path string, for messages.
func pathString(elems []*gpb.PathElem) string {
	s, err := ygot.PathToString(&gpb.Path{Elem: elems})
	if err != nil {
		return fmt.Sprint(elems)
	}
	return s
}
