package gnmitest

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/openconfig/ygot/ygot"
	"github.com/openconfig/ygot/ytypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/rocefab/rocefab/renderers/openconfig/oc"
)

// The server holds its tree as the RFC 7951 document a Get of the root
// returns. A Set or a Get whose paths all lie below /qos or within single
// interfaces (/interfaces/interface[name=X]/...), which is every request
// rocefab sends, is served from those parts of the document alone: they
// are read into the generated structs (with a stub, its name alone, for
// every other interface, so that /qos's references to interfaces resolve),
// changed, validated with their leafrefs, and written back in place of
// the parts they were read from. Reading the whole tree into the structs
// and validating all of it took a device a tenth of a second, which made
// a thousand devices' apply slower than a thousand real switches.
//
// A part and a request give the same result every time, so the result is
// kept, keyed by the digest of both, and a fabric of switches of a few
// shapes validates each distinct change once.

// docPart is the parsed top level of the document: its members, and the
// interfaces list's entries by name.
type docPart struct {
	top   []member
	qosAt int // index in top of /qos, -1 when absent
	ifAt  int // index in top of /interfaces, -1 when absent
	// ifMembers are the interfaces container's members, listAt the index
	// of its interface list (-1 when absent), entries that list's entries.
	ifMembers []member
	listAt    int
	entries   []entry
}

// locate finds /qos and /interfaces among the top-level members.
func (p *docPart) locate() {
	p.qosAt, p.ifAt = -1, -1
	for i, m := range p.top {
		switch localName(m.name) {
		case "qos":
			p.qosAt = i
		case "interfaces":
			p.ifAt = i
		}
	}
}

// entry is one entry of the interface list.
type entry struct {
	name string
	raw  json.RawMessage
}

// parseDoc reads the document's top level and its interface list.
func parseDoc(doc []byte) (*docPart, error) {
	p := &docPart{listAt: -1}
	if err := decodeMembers(doc, &p.top); err != nil {
		return nil, err
	}
	p.locate()
	if p.ifAt < 0 {
		return p, nil
	}
	if err := decodeMembers(p.top[p.ifAt].value, &p.ifMembers); err != nil {
		return nil, fmt.Errorf("/interfaces: %w", err)
	}
	for i, m := range p.ifMembers {
		if localName(m.name) != "interface" {
			continue
		}
		p.listAt = i
		var raws []json.RawMessage
		if err := json.Unmarshal(m.value, &raws); err != nil {
			return nil, fmt.Errorf("/interfaces/interface: not a list: %w", err)
		}
		for _, r := range raws {
			var k struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(r, &k); err != nil {
				return nil, fmt.Errorf("/interfaces/interface: an entry without a name: %w", err)
			}
			p.entries = append(p.entries, entry{name: k.Name, raw: r})
		}
	}
	return p, nil
}

// entryAt returns the index of the interface named name, or -1.
func (p *docPart) entryAt(name string) int {
	for i, e := range p.entries {
		if e.name == name {
			return i
		}
	}
	return -1
}

// reach is what a request touches: /qos (and whether its old content is
// needed, which a replace or delete of /qos whole does not), and the
// interfaces it names.
type reach struct {
	qos, qosOld bool
	ifaces      []string
}

// reachOf returns what the paths touch, false when one lies elsewhere (the
// root, /interfaces whole, another container, a list key other than the
// name) and the request is served from the whole tree. whole[i] says
// whether paths[i] is replaced or deleted whole, deletes[i] whether it is
// deleted.
func reachOf(prefix *gpb.Path, paths []*gpb.Path, whole, deletes []bool) (reach, bool) {
	var r reach
	for i, p := range paths {
		elems := append(slices.Clone(prefix.GetElem()), p.GetElem()...)
		if len(elems) == 0 {
			return r, false
		}
		switch localName(elems[0].GetName()) {
		case "qos":
			if len(elems[0].GetKey()) > 0 {
				return r, false
			}
			r.qos = true
			if len(elems) > 1 || !whole[i] {
				r.qosOld = true
			}
		case "interfaces":
			if len(elems) < 2 || len(elems[0].GetKey()) > 0 || localName(elems[1].GetName()) != "interface" {
				return r, false
			}
			name, ok := elems[1].GetKey()["name"]
			if !ok || len(elems[1].GetKey()) != 1 {
				return r, false
			}
			r.ifaces = append(r.ifaces, name)
			if len(elems) == 2 && deletes[i] {
				// /qos may refer to the interface the request removes.
				r.qos, r.qosOld = true, true
			}
		default:
			return r, false
		}
	}
	slices.Sort(r.ifaces)
	r.ifaces = slices.Compact(r.ifaces)
	return r, true
}

// setReach is reachOf for a SetRequest's deletes, replaces and updates; a
// replace or a delete names its subtree whole.
func setReach(req *gpb.SetRequest) (reach, bool) {
	if len(req.GetUnionReplace()) > 0 {
		return reach{}, false
	}
	var paths []*gpb.Path
	var whole, deletes []bool
	for _, p := range req.GetDelete() {
		paths, whole, deletes = append(paths, p), append(whole, true), append(deletes, true)
	}
	for _, u := range req.GetReplace() {
		paths, whole, deletes = append(paths, u.GetPath()), append(whole, true), append(deletes, false)
	}
	for _, u := range req.GetUpdate() {
		paths, whole, deletes = append(paths, u.GetPath()), append(whole, false), append(deletes, false)
	}
	return reachOf(req.GetPrefix(), paths, whole, deletes)
}

// input is the document of the parts r touches, which the structs are
// read from: the old /qos when needed, the touched interfaces whole, and
// when /qos is touched a stub of every other interface.
func (p *docPart) input(r reach) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	ifName := `"openconfig-interfaces:interfaces"`
	if p.ifAt >= 0 {
		n, _ := json.Marshal(p.top[p.ifAt].name)
		ifName = string(n)
	}
	b.WriteString(ifName)
	b.WriteString(`:{"interface":[`)
	n := 0
	add := func(raw []byte) {
		if n > 0 {
			b.WriteByte(',')
		}
		b.Write(raw)
		n++
	}
	for _, name := range r.ifaces {
		if i := p.entryAt(name); i >= 0 {
			add(p.entries[i].raw)
		}
	}
	if r.qos {
		for _, e := range p.entries {
			if _, touched := slices.BinarySearch(r.ifaces, e.name); touched {
				continue
			}
			name, err := json.Marshal(e.name)
			if err != nil {
				return nil, err
			}
			add(fmt.Appendf(nil, `{"name":%s,"config":{"name":%s}}`, name, name))
		}
	}
	b.WriteString("]}")
	if r.qosOld && p.qosAt >= 0 {
		name, _ := json.Marshal(p.top[p.qosAt].name)
		b.WriteByte(',')
		b.Write(name)
		b.WriteByte(':')
		b.Write(p.top[p.qosAt].value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// result is what a Set made of the parts it touched.
type result struct {
	err    error // the status the Set fails with
	qos    json.RawMessage
	hasQos bool
	// ifaces holds the touched interfaces that exist after the Set.
	ifaces map[string]json.RawMessage
}

// results keeps each distinct Set's result and each distinct Get's value,
// by the digest of the parts and the request. A result is computed once
// even when many servers ask for it at the same time, as the devices of
// a wave do.
var results = struct {
	sync.Mutex
	m map[[sha256.Size]byte]*cell
}{m: map[[sha256.Size]byte]*cell{}}

// cell is one result, computed once.
type cell struct {
	once sync.Once
	v    any
}

// maxResults bounds results; past it the cache starts again empty.
const maxResults = 1 << 14

func cached(key [sha256.Size]byte, compute func() any) any {
	results.Lock()
	c, ok := results.m[key]
	if !ok {
		if len(results.m) >= maxResults {
			clear(results.m)
		}
		c = &cell{}
		results.m[key] = c
	}
	results.Unlock()
	c.once.Do(func() { c.v = compute() })
	return c.v
}

func digest(parts ...[]byte) [sha256.Size]byte {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}

// partialTree reads a parts document into the structs.
func partialTree(in []byte) (*oc.Device, error) {
	t := &oc.Device{}
	if err := oc.Unmarshal(in, t, &ytypes.IgnoreExtraFields{}); err != nil {
		return nil, fmt.Errorf("the tree does not fit the schema: %w", err)
	}
	return t, nil
}

// setPartial serves a Set from the parts it touches; false when the
// request reaches elsewhere (callers hold mu).
func (s *Server) setPartial(req *gpb.SetRequest) (bool, error) {
	r, ok := setReach(req)
	if !ok {
		return false, nil
	}
	p, err := s.parsed()
	if err != nil {
		return true, status.Error(codes.Internal, err.Error())
	}
	in, err := p.input(r)
	if err != nil {
		return true, status.Error(codes.Internal, err.Error())
	}
	bare := &gpb.SetRequest{Prefix: req.GetPrefix(), Delete: req.GetDelete(), Replace: req.GetReplace(), Update: req.GetUpdate()}
	rb, err := proto.MarshalOptions{Deterministic: true}.Marshal(bare)
	if err != nil {
		return true, status.Error(codes.Internal, err.Error())
	}
	res := cached(digest([]byte("set"), in, rb), func() any { return computeSet(in, bare, r) }).(*result)
	if res.err != nil {
		return true, res.err
	}
	part, doc := p.with(r, res)
	s.setDoc(doc, part)
	return true, nil
}

// computeSet makes req on the parts document in and validates the result.
func computeSet(in []byte, req *gpb.SetRequest, r reach) *result {
	t, err := partialTree(in)
	if err != nil {
		return &result{err: status.Error(codes.Internal, err.Error())}
	}
	sch, err := schema()
	if err != nil {
		return &result{err: status.Error(codes.Internal, err.Error())}
	}
	one := *sch
	one.Root = t
	if err := ytypes.UnmarshalSetRequest(&one, req); err != nil {
		return &result{err: status.Errorf(codes.InvalidArgument, "%v", err)}
	}
	if err := t.ΛValidate(); err != nil {
		return &result{err: status.Errorf(codes.InvalidArgument, "the result does not validate: %v", err)}
	}
	js, err := ygot.Marshal7951(t, &ygot.RFC7951JSONConfig{AppendModuleName: true})
	if err != nil {
		return &result{err: status.Error(codes.Internal, err.Error())}
	}
	out, err := parseDoc(js)
	if err != nil {
		return &result{err: status.Error(codes.Internal, err.Error())}
	}
	res := &result{ifaces: map[string]json.RawMessage{}}
	if out.qosAt >= 0 {
		res.qos, res.hasQos = out.top[out.qosAt].value, true
	}
	for _, e := range out.entries {
		if _, touched := slices.BinarySearch(r.ifaces, e.name); touched {
			res.ifaces[e.name] = e.raw
		}
	}
	return res
}

// with returns the document with the parts r touched replaced by res,
// parsed and as text.
func (p *docPart) with(r reach, res *result) (*docPart, []byte) {
	q := &docPart{top: slices.Clone(p.top), ifMembers: p.ifMembers, listAt: p.listAt, entries: p.entries}
	if r.qos {
		switch {
		case res.hasQos && p.qosAt >= 0:
			q.top[p.qosAt].value = res.qos
		case res.hasQos:
			q.top = append(q.top, member{name: "openconfig-qos:qos", value: res.qos})
		case p.qosAt >= 0:
			q.top[p.qosAt].value = nil // removed below
		}
	}
	if len(r.ifaces) > 0 {
		q.entries = slices.Clone(p.entries)
		for _, name := range r.ifaces {
			raw, keep := res.ifaces[name]
			i := slices.IndexFunc(q.entries, func(e entry) bool { return e.name == name })
			switch {
			case keep && i >= 0:
				q.entries[i].raw = raw
			case keep:
				// A new interface goes where the device's name order puts it.
				at := slices.IndexFunc(q.entries, func(e entry) bool { return e.name > name })
				if at < 0 {
					at = len(q.entries)
				}
				q.entries = slices.Insert(q.entries, at, entry{name: name, raw: raw})
			case i >= 0:
				q.entries = slices.Delete(q.entries, i, i+1)
			}
		}
		raws := make([]json.RawMessage, len(q.entries))
		for i, e := range q.entries {
			raws[i] = e.raw
		}
		list, _ := json.Marshal(raws)
		q.ifMembers = slices.Clone(p.ifMembers)
		if p.listAt >= 0 {
			q.ifMembers[p.listAt].value = list
		} else {
			q.listAt = len(q.ifMembers)
			q.ifMembers = append(q.ifMembers, member{name: "interface", value: list})
		}
		ifs := object(q.ifMembers)
		if p.ifAt >= 0 {
			q.top[p.ifAt].value = ifs
		} else {
			q.top = append(q.top, member{name: "openconfig-interfaces:interfaces", value: ifs})
		}
	}
	q.top = slices.DeleteFunc(q.top, func(m member) bool { return m.value == nil })
	q.locate()
	return q, append(object(q.top), '\n')
}

// object writes members as a JSON object, one member a line.
func object(members []member) []byte {
	var b bytes.Buffer
	b.WriteString("{")
	for i, m := range members {
		if i > 0 {
			b.WriteString(",")
		}
		name, _ := json.Marshal(m.name)
		b.WriteString("\n  ")
		b.Write(name)
		b.WriteString(": ")
		b.Write(m.value)
	}
	b.WriteString("\n}")
	return b.Bytes()
}

// getPartial answers a Get of one path below /qos or within one
// interface from the parts it names; false when the path lies elsewhere
// (callers hold mu).
func (s *Server) getPartial(p *gpb.Path) (*gpb.TypedValue, bool, error) {
	r, ok := reachOf(nil, []*gpb.Path{p}, []bool{false}, []bool{false})
	if !ok {
		return nil, false, nil
	}
	doc, err := s.parsed()
	if err != nil {
		return nil, true, status.Error(codes.Internal, err.Error())
	}
	in, err := doc.input(reach{qosOld: r.qos, ifaces: r.ifaces})
	if err != nil {
		return nil, true, status.Error(codes.Internal, err.Error())
	}
	ps, err := ygot.PathToString(p)
	if err != nil {
		return nil, true, status.Errorf(codes.InvalidArgument, "%v", err)
	}
	type answer struct {
		v   *gpb.TypedValue
		err error
	}
	a := cached(digest([]byte("get"), in, []byte(ps)), func() any {
		t, err := partialTree(in)
		if err != nil {
			return answer{err: status.Error(codes.Internal, err.Error())}
		}
		v, err := nodeOf(t, p)
		return answer{v, err}
	}).(answer)
	if a.err != nil {
		return nil, true, a.err
	}
	return proto.Clone(a.v).(*gpb.TypedValue), true, nil
}

// parsed returns the parsed document, parsing it the first time after a
// change (callers hold mu).
func (s *Server) parsed() (*docPart, error) {
	if s.part == nil {
		p, err := parseDoc(s.doc)
		if err != nil {
			return nil, fmt.Errorf("the tree is not an RFC 7951 document: %w", err)
		}
		s.part = p
	}
	return s.part, nil
}

// setDoc takes doc as the device's tree, with part its parsed form (nil
// to parse it when needed); the structs are read from it again when a
// request needs them whole (callers hold mu).
func (s *Server) setDoc(doc []byte, part *docPart) {
	s.doc, s.part, s.tree, s.extra = doc, part, nil, nil
}
