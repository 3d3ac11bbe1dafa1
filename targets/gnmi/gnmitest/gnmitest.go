// Package gnmitest is an in-process gNMI target for tests: a real gRPC
// server on 127.0.0.1 that holds one device's OpenConfig tree (as RFC 7951
// text, read into the ygot-generated structs where a request needs them),
// answers Capabilities, Get and Set, implements the gNMI commit-confirmed
// extension (a commit not confirmed in time is rolled back), and injects
// faults: a rejected Set, a connection dropped in the middle of a Set
// (before or after the change is taken), a Set answered late after the
// change is taken, a delay, and the gaps of devices that implement less
// of gNMI: no Capabilities, Get of type ALL only, a commit-confirmed
// extension taken and ignored.
//
// # Where it is more lenient than a device
//
//   - It checks what the YANG schema says (types, ranges, leafrefs, with
//     ygot's ValidateGoStruct) and nothing else: no when or must, no vendor
//     limits (an MTU a platform refuses, a queue count its ASIC lacks).
//   - A Set whose paths all lie below /qos or within single interfaces
//     (every Set rocefab sends) is checked on the parts of the tree it
//     touches (partial.go): /qos with its references to interface names,
//     and the interfaces it names. A reference into what the Set changes
//     from elsewhere in the tree (a subinterface, a network instance) is
//     not checked, where a device checks its whole configuration. Such a
//     Set's result is computed once per distinct tree part and request in
//     the process and reused, which a device does not, but which gives the
//     same tree.
//   - Get ignores the request's data type (CONFIG, STATE) and returns the
//     tree as it holds it (unless Faults.OnlyTypeAll); paths other than the root are answered from the
//     first node a wildcard matches.
//   - Configuration outside its schema (network instances, vendor
//     augmentations at the root) is kept as it was given and returned by a
//     Get of the root, but a Set cannot reach it; a device would take it.
//     Within a container or interface a Set rewrites, members outside the
//     schema are dropped, where a device keeps them: a test that finds
//     foreign configuration intact therefore also shows rocefab did not
//     write there.
//   - It advertises commit-confirmed by an empty Commit extension in its
//     CapabilityResponse, which the extension's specification does not
//     define: real targets do not advertise it (Cisco NX-OS 10.6.2 takes
//     the extension but lists no extensions in Capabilities,
//     ironcore-dev/network-operator#171), hence the target's Always mode.
//   - One commit is pending at a time for the whole device, per the
//     extension's specification; it is not tied to a client session.
//   - It has no Subscribe, no origin other than "" and "openconfig", no
//     configuration locks and no user roles (a username and password are
//     checked when set, nothing more).
package gnmitest

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"net"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/openconfig/gnmi/proto/gnmi_ext"
	"github.com/openconfig/ygot/ygot"
	"github.com/openconfig/ygot/ytypes"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/experimental"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/rocefab/rocefab/renderers/openconfig/oc"
)

// Faults are what the server does wrong on purpose.
type Faults struct {
	// RejectSet refuses every Set with this code and message; nothing is
	// changed. codes.OK means no rejection.
	RejectSet codes.Code
	// DropSet closes the client's connection in the middle of a Set:
	// before the change is taken, or (DropAfterApply) after it.
	DropSet        bool
	DropAfterApply bool
	// Delay holds every RPC this long before answering (or until the
	// client gives up).
	Delay time.Duration
	// SlowSet holds the answer to a Set that changes the tree this long
	// (or until the client gives up) after the change is taken, as a
	// device that commits slowly: a client that times out meanwhile does
	// not know the device took it. A Set that only confirms or cancels a
	// commit answers at once.
	SlowSet time.Duration
	// IgnoreCommit takes the commit-confirmed extension and ignores it:
	// a commit is permanent at once, and a confirm or cancel answers OK
	// and does nothing, as a device that advertises the extension
	// without implementing it.
	IgnoreCommit bool
	// NoCapabilities answers Capabilities with Unimplemented, as
	// openconfig/lemming v0.5.0 does.
	NoCapabilities bool
	// OnlyTypeAll refuses a Get of any data type but ALL with
	// Unimplemented, as google/gnxi's reference server does
	// (gnmi/server.go: "unsupported request type"), and answers a Get
	// of type ALL with the tree's operational state too: every
	// configuration container's leaves repeated in a "state" container
	// beside it, as OpenConfig models them.
	OnlyTypeAll bool
}

// Options configure a server.
type Options struct {
	// CommitConfirm implements and advertises the commit-confirmed
	// extension.
	CommitConfirm bool
	// TLS serves gRPC over TLS with this configuration; nil serves
	// plaintext.
	TLS *tls.Config
	// Username and Password, when set, are required as the metadata
	// "username" and "password" of every RPC (gnmi-authentication.md).
	Username, Password string
}

// Server is one in-process gNMI target.
type Server struct {
	gpb.UnimplementedGNMIServer
	opts Options

	mu    sync.Mutex
	tree  *oc.Device // nil until a request outside partial.go's reach needs it
	extra []member   // root members outside the schema, as given
	doc   []byte     // the whole tree as a Get of the root returns it
	part  *docPart   // doc parsed, nil until needed
	// whole serves every request from the whole tree, as partial.go's
	// test compares.
	whole   bool
	faults  Faults
	pending *commit
	sets    int

	lis   *trackingListener
	srv   *grpc.Server
	addr  string
	stop  sync.Once
	clock func(time.Duration, func()) *time.Timer
}

// member is one top-level member of an RFC 7951 document.
type member struct {
	name  string
	value json.RawMessage
}

// commit is a confirmed commit waiting for its confirmation.
type commit struct {
	id     string
	before *state
	timer  *time.Timer
}

// state is what a rollback restores.
type state struct {
	doc  []byte
	part *docPart
}

var bufferPool = mem.NewTieredBufferPool(256, 4<<10, 16<<10, 32<<10, 64<<10, 128<<10, 256<<10, 512<<10, 1<<20, 4<<20)

var (
	schemaOnce sync.Once
	schemaTree *ytypes.Schema
	schemaErr  error
)

func schema() (*ytypes.Schema, error) {
	schemaOnce.Do(func() { schemaTree, schemaErr = oc.Schema() })
	return schemaTree, schemaErr
}

// New returns a server holding the RFC 7951 document initial (a whole
// device tree: interfaces, QoS, and anything outside the schema), not yet
// listening. The document is checked against the schema when first
// needed (a Set), so that a thousand servers start at once.
func New(initial []byte, opts Options) (*Server, error) {
	var root map[string]json.RawMessage
	if err := json.Unmarshal(initial, &root); err != nil {
		return nil, fmt.Errorf("gnmitest: the initial tree is not a JSON object: %w", err)
	}
	s := &Server{opts: opts, doc: bytes.Clone(initial), clock: time.AfterFunc}
	return s, nil
}

// Start listens on 127.0.0.1 (a free port) and serves until Stop.
func (s *Server) Start() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	s.lis = &trackingListener{Listener: l, conns: map[net.Conn]bool{}}
	// Finer tiers than gRPC's default, whose 1 MiB buffer is cleared for
	// every reply above 32 KiB.
	opts := []grpc.ServerOption{experimental.BufferPool(bufferPool)}
	if s.opts.TLS != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(s.opts.TLS)))
	}
	s.srv = grpc.NewServer(opts...)
	gpb.RegisterGNMIServer(s.srv, s)
	s.addr = l.Addr().String()
	go s.srv.Serve(s.lis)
	return s.addr, nil
}

// Addr is where the server listens.
func (s *Server) Addr() string { return s.addr }

// Stop stops serving and cancels a pending commit's timer.
func (s *Server) Stop() {
	s.stop.Do(func() {
		if s.srv != nil {
			s.srv.Stop()
		}
		s.mu.Lock()
		if s.pending != nil {
			s.pending.timer.Stop()
		}
		s.mu.Unlock()
	})
}

// SetFaults replaces the faults.
func (s *Server) SetFaults(f Faults) {
	s.mu.Lock()
	s.faults = f
	s.mu.Unlock()
}

// Config returns the tree as a Get of the root returns it.
func (s *Server) Config() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.doc)
}

// Sets counts the Set RPCs that changed the tree.
func (s *Server) Sets() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sets
}

// Pending reports whether a confirmed commit waits for its confirmation.
func (s *Server) Pending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending != nil
}

// loadTree builds the ygot tree from the document (callers hold mu).
func (s *Server) loadTree() error {
	if s.tree != nil {
		return nil
	}
	var root []member
	if err := decodeMembers(s.doc, &root); err != nil {
		return err
	}
	known := rootNames()
	in := map[string]json.RawMessage{}
	s.extra = nil
	for _, m := range root {
		if known[localName(m.name)] {
			in[m.name] = m.value
		} else {
			s.extra = append(s.extra, m)
		}
	}
	js, err := json.Marshal(in)
	if err != nil {
		return err
	}
	t := &oc.Device{}
	if err := oc.Unmarshal(js, t, &ytypes.IgnoreExtraFields{}); err != nil {
		return fmt.Errorf("the tree does not fit the schema: %w", err)
	}
	s.tree = t
	return nil
}

// render writes the tree and the members outside the schema as the
// document a Get of the root returns (callers hold mu).
func (s *Server) render() error {
	js, err := ygot.Marshal7951(s.tree, ygot.JSONIndent("  "), &ygot.RFC7951JSONConfig{AppendModuleName: true})
	if err != nil {
		return err
	}
	var root []member
	if err := decodeMembers(js, &root); err != nil {
		return err
	}
	root = append(root, s.extra...)
	for i, m := range root {
		var ind bytes.Buffer
		if json.Indent(&ind, m.value, "  ", "  ") == nil {
			root[i].value = ind.Bytes()
		}
	}
	s.doc, s.part = append(object(root), '\n'), nil
	return nil
}

func (s *Server) auth(ctx context.Context) error {
	if s.opts.Username == "" && s.opts.Password == "" {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	if first(md.Get("username")) != s.opts.Username || first(md.Get("password")) != s.opts.Password {
		return status.Error(codes.Unauthenticated, "bad username or password")
	}
	return nil
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// delay waits the fault's delay, or until the client gives up.
// admit lets an RPC in: its caller authenticated, after the delay the
// faults ask for. It returns the faults the RPC runs under, read once so
// that a test changing them mid-call does not split the call.
func (s *Server) admit(ctx context.Context) (Faults, error) {
	if err := s.auth(ctx); err != nil {
		return Faults{}, err
	}
	if err := s.delay(ctx); err != nil {
		return Faults{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faults, nil
}

func (s *Server) delay(ctx context.Context) error {
	s.mu.Lock()
	d := s.faults.Delay
	s.mu.Unlock()
	if d <= 0 {
		return nil
	}
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return status.FromContextError(ctx.Err()).Err()
	}
}

// Capabilities lists the generated code's models and JSON encodings, and
// the commit-confirmed extension when it is implemented.
func (s *Server) Capabilities(ctx context.Context, _ *gpb.CapabilityRequest) (*gpb.CapabilityResponse, error) {
	f, err := s.admit(ctx)
	if err != nil {
		return nil, err
	}
	if f.NoCapabilities {
		return nil, status.Error(codes.Unimplemented, "Capabilities is not implemented")
	}
	resp := &gpb.CapabilityResponse{
		SupportedModels:    oc.ΓModelData,
		SupportedEncodings: []gpb.Encoding{gpb.Encoding_JSON_IETF, gpb.Encoding_JSON},
		GNMIVersion:        "0.10.0",
	}
	if s.opts.CommitConfirm {
		resp.Extension = []*gnmi_ext.Extension{{Ext: &gnmi_ext.Extension_Commit{Commit: &gnmi_ext.Commit{}}}}
	}
	return resp, nil
}

// Get answers each path: the root with the whole document, another path
// with the node's JSON.
func (s *Server) Get(ctx context.Context, req *gpb.GetRequest) (*gpb.GetResponse, error) {
	if _, err := s.admit(ctx); err != nil {
		return nil, err
	}
	switch req.GetEncoding() {
	case gpb.Encoding_JSON_IETF, gpb.Encoding_JSON:
	default:
		return nil, status.Errorf(codes.Unimplemented, "encoding %s: JSON_IETF and JSON are supported", req.GetEncoding())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	withState := s.faults.OnlyTypeAll
	if withState && req.GetType() != gpb.GetRequest_ALL {
		return nil, status.Errorf(codes.Unimplemented, "unsupported request type: %s", req.GetType())
	}
	n := &gpb.Notification{Timestamp: time.Now().UnixNano(), Prefix: req.GetPrefix()}
	paths := req.GetPath()
	if len(paths) == 0 {
		paths = []*gpb.Path{{}}
	}
	for _, p := range paths {
		full := &gpb.Path{Elem: append(slices.Clone(req.GetPrefix().GetElem()), p.GetElem()...)}
		if len(full.GetElem()) == 0 {
			doc := s.doc
			if withState {
				doc = addState(doc)
			}
			n.Update = append(n.Update, &gpb.Update{Path: p, Val: jsonVal(req.GetEncoding(), doc)})
			continue
		}
		v, err := s.node(full)
		if err != nil {
			return nil, err
		}
		if withState && v.GetJsonIetfVal() != nil {
			v = jsonVal(gpb.Encoding_JSON_IETF, addState(v.GetJsonIetfVal()))
		}
		if req.GetEncoding() == gpb.Encoding_JSON && v.GetJsonIetfVal() != nil {
			v = jsonVal(gpb.Encoding_JSON, v.GetJsonIetfVal())
		}
		n.Update = append(n.Update, &gpb.Update{Path: p, Val: v})
	}
	return &gpb.GetResponse{Notification: []*gpb.Notification{n}}, nil
}

// addState returns doc with a "state" container beside every "config"
// container, holding the same leaves and a counter, as a device reports
// operational state in a Get of type ALL. A document it cannot read is
// returned as it is.
func addState(doc []byte) []byte {
	var v any
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return doc
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				walk(c)
				if local := k[strings.LastIndex(k, ":")+1:]; local == "config" {
					if m, ok := c.(map[string]any); ok {
						st := map[string]any{"counters": map[string]any{"in-pkts": "7"}}
						maps.Copy(st, m)
						v[strings.TrimSuffix(k, "config")+"state"] = st
					}
				}
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(v)
	out, err := json.Marshal(v)
	if err != nil {
		return doc
	}
	return out
}

func jsonVal(enc gpb.Encoding, b []byte) *gpb.TypedValue {
	if enc == gpb.Encoding_JSON {
		return &gpb.TypedValue{Value: &gpb.TypedValue_JsonVal{JsonVal: bytes.Clone(b)}}
	}
	return &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: bytes.Clone(b)}}
}

// node returns the value at a path of the tree (callers hold mu).
func (s *Server) node(p *gpb.Path) (*gpb.TypedValue, error) {
	if !s.whole {
		if v, done, err := s.getPartial(p); done {
			return v, err
		}
	}
	if err := s.loadTree(); err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return nodeOf(s.tree, p)
}

// nodeOf returns the value at a path of tree.
func nodeOf(tree *oc.Device, p *gpb.Path) (*gpb.TypedValue, error) {
	sch, err := schema()
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	nodes, err := ytypes.GetNode(sch.RootSchema(), tree, p, &ytypes.GetHandleWildcards{}, &ytypes.GetPartialKeyMatch{})
	if err != nil || len(nodes) == 0 || isNil(nodes[0].Data) {
		ps, _ := ygot.PathToString(p)
		return nil, status.Errorf(codes.NotFound, "%s: no such node", ps)
	}
	if gs, ok := nodes[0].Data.(ygot.GoStruct); ok {
		js, err := ygot.Marshal7951(gs, &ygot.RFC7951JSONConfig{AppendModuleName: true})
		if err != nil {
			return nil, status.Error(codes.Internal, err.Error())
		}
		return &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: js}}, nil
	}
	v, err := ygot.EncodeTypedValue(nodes[0].Data, gpb.Encoding_JSON_IETF)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return v, nil
}

// Set applies a SetRequest atomically: deletes, replaces, updates on a
// copy of the tree, which must validate before it is taken. With the
// commit-confirmed extension it commits, confirms or cancels.
func (s *Server) Set(ctx context.Context, req *gpb.SetRequest) (*gpb.SetResponse, error) {
	f, err := s.admit(ctx)
	if err != nil {
		return nil, err
	}
	if f.RejectSet != codes.OK {
		return nil, status.Error(f.RejectSet, "the device refuses the change")
	}
	if f.DropSet && !f.DropAfterApply {
		s.lis.dropAll()
		<-ctx.Done()
		return nil, status.Error(codes.Unavailable, "connection dropped")
	}
	resp, err := s.set(req)
	if f.SlowSet > 0 && err == nil && changes(req) {
		select {
		case <-time.After(f.SlowSet):
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		}
	}
	if f.DropSet {
		s.lis.dropAll()
		<-ctx.Done()
		return nil, status.Error(codes.Unavailable, "connection dropped")
	}
	return resp, err
}

// changes reports whether a Set changes the tree, rather than only
// confirming or cancelling a commit.
func changes(req *gpb.SetRequest) bool {
	return len(req.GetDelete())+len(req.GetReplace())+len(req.GetUpdate())+len(req.GetUnionReplace()) > 0
}

func (s *Server) set(req *gpb.SetRequest) (*gpb.SetResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var cm *gnmi_ext.Commit
	for _, e := range req.GetExtension() {
		if c := e.GetCommit(); c != nil {
			if !s.opts.CommitConfirm {
				return nil, status.Error(codes.Unimplemented, "the commit-confirmed extension is not supported")
			}
			cm = c
		}
	}
	if cm != nil && s.faults.IgnoreCommit {
		if _, ok := cm.GetAction().(*gnmi_ext.Commit_Commit); !ok {
			return &gpb.SetResponse{Timestamp: time.Now().UnixNano()}, nil
		}
		cm = nil
	}
	if cm != nil {
		if cm.GetId() == "" {
			return nil, status.Error(codes.InvalidArgument, "a commit without an id")
		}
		switch cm.GetAction().(type) {
		case *gnmi_ext.Commit_Confirm:
			return s.finish(cm.GetId(), false)
		case *gnmi_ext.Commit_Cancel:
			return s.finish(cm.GetId(), true)
		case *gnmi_ext.Commit_Commit:
		default:
			return nil, status.Errorf(codes.Unimplemented, "commit action %T", cm.GetAction())
		}
	}
	if s.pending != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "commit %s waits for its confirmation", s.pending.id)
	}
	before := &state{doc: s.doc, part: s.part}
	if err := s.apply(req); err != nil {
		return nil, err
	}
	s.sets++
	if cm != nil {
		d := 10 * time.Minute // the extension's default
		if rd := cm.GetCommit().GetRollbackDuration(); rd != nil {
			d = rd.AsDuration()
		}
		id := cm.GetId()
		p := &commit{id: id, before: before}
		p.timer = s.clock(d, func() { s.lapse(id) })
		s.pending = p
	}
	return &gpb.SetResponse{Timestamp: time.Now().UnixNano()}, nil
}

// apply makes req on a copy of the tree and takes the copy if it
// validates (callers hold mu).
func (s *Server) apply(req *gpb.SetRequest) error {
	for _, p := range allPaths(req) {
		if o := p.GetOrigin(); o != "" && o != "openconfig" {
			return status.Errorf(codes.Unimplemented, "origin %q: only openconfig", o)
		}
	}
	if !s.whole {
		if done, err := s.setPartial(req); done {
			return err
		}
	}
	if err := s.loadTree(); err != nil {
		return status.Error(codes.Internal, err.Error())
	}
	cp, err := ygot.DeepCopy(s.tree)
	if err != nil {
		return status.Error(codes.Internal, err.Error())
	}
	sch, err := schema()
	if err != nil {
		return status.Error(codes.Internal, err.Error())
	}
	one := *sch
	one.Root = cp
	if err := ytypes.UnmarshalSetRequest(&one, req); err != nil {
		return status.Errorf(codes.InvalidArgument, "%v", err)
	}
	if err := cp.(*oc.Device).ΛValidate(); err != nil {
		return status.Errorf(codes.InvalidArgument, "the result does not validate: %v", err)
	}
	s.tree = cp.(*oc.Device)
	if err := s.render(); err != nil {
		return status.Error(codes.Internal, err.Error())
	}
	return nil
}

// finish confirms or cancels the pending commit (callers hold mu).
func (s *Server) finish(id string, cancel bool) (*gpb.SetResponse, error) {
	switch {
	case s.pending == nil:
		return nil, status.Error(codes.FailedPrecondition, "no commit waits for a confirmation")
	case s.pending.id != id:
		return nil, status.Errorf(codes.InvalidArgument, "commit %s waits, not %s", s.pending.id, id)
	}
	s.pending.timer.Stop()
	if cancel {
		s.setDoc(s.pending.before.doc, s.pending.before.part)
	}
	s.pending = nil
	return &gpb.SetResponse{Timestamp: time.Now().UnixNano()}, nil
}

// lapse rolls back commit id when its timer runs out unconfirmed.
func (s *Server) lapse(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == nil || s.pending.id != id {
		return
	}
	s.setDoc(s.pending.before.doc, s.pending.before.part)
	s.pending = nil
}

func allPaths(req *gpb.SetRequest) []*gpb.Path {
	out := []*gpb.Path{req.GetPrefix()}
	out = append(out, req.GetDelete()...)
	for _, u := range append(slices.Clone(req.GetReplace()), req.GetUpdate()...) {
		out = append(out, u.GetPath())
	}
	return out
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	if gs, ok := v.(ygot.GoStruct); ok {
		return gs == nil
	}
	return false
}

// decodeMembers reads the top-level members of a JSON object in order.
func decodeMembers(js []byte, out *[]member) error {
	dec := json.NewDecoder(bytes.NewReader(js))
	t, err := dec.Token()
	if err != nil || t != json.Delim('{') {
		return fmt.Errorf("not a JSON object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		*out = append(*out, member{name: name, value: v})
	}
	return nil
}

// rootNames are the top-level members the schema models.
var rootNames = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	t := reflect.TypeFor[oc.Device]()
	for i := 0; i < t.NumField(); i++ {
		for _, p := range strings.Split(t.Field(i).Tag.Get("path"), "|") {
			if first, _, _ := strings.Cut(p, "/"); first != "" {
				out[first] = true
			}
		}
	}
	return out
})

// localName drops an RFC 7951 module qualifier.
func localName(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			return s[i+1:]
		}
	}
	return s
}

// trackingListener remembers its connections, so that a fault can drop
// them all.
type trackingListener struct {
	net.Listener
	mu    sync.Mutex
	conns map[net.Conn]bool
}

func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.mu.Lock()
		l.conns[c] = true
		l.mu.Unlock()
	}
	return c, err
}

func (l *trackingListener) dropAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.conns {
		c.Close()
		delete(l.conns, c)
	}
}

// Started is a server holding initial, started, and stopped when t
// ends; it fails t when the server cannot be made or cannot listen.
func Started(t testing.TB, initial []byte, opts Options) *Server {
	t.Helper()
	s, err := New(initial, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// Canonical is the JSON document b with its members sorted, to compare
// two documents' content whatever their members' order and spacing; it
// fails t when b is not JSON.
func Canonical(t testing.TB, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v:\n%s", err, b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// shared is the one certificate Certs hands out, made on first use.
var shared = sync.OnceValues(func() (certPair, error) {
	srv, pool, err := SelfSigned()
	return certPair{srv, pool}, err
})

type certPair struct {
	srv  *tls.Config
	pool *x509.CertPool
}

// Certs returns one self-signed server configuration for 127.0.0.1 and the
// pool that trusts it, the same for every call in the process: a key and
// certificate per test server would cost more than most tests that use
// them. It fails t when none can be made.
func Certs(t testing.TB) (*tls.Config, *x509.CertPool) {
	t.Helper()
	c, err := shared()
	if err != nil {
		t.Fatalf("gnmitest: a self-signed certificate: %v", err)
	}
	return c.srv, c.pool
}

// SelfSigned returns a server TLS configuration with a fresh certificate
// for 127.0.0.1 and the pool a client trusts it with.
func SelfSigned() (*tls.Config, *x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "gnmitest"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}}, MinVersion: tls.VersionTLS12}, pool, nil
}
