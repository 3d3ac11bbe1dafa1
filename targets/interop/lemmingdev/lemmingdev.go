// Package lemmingdev serves openconfig/lemming's reference gNMI server
// (github.com/openconfig/lemming/gnmi, v0.5.0) as a switch for the
// interoperability tests: lemming's own schema-validating Set and its
// Subscribe, unchanged, over TLS with a username and password.
//
// lemming v0.5.0 answers Get and Capabilities with Unimplemented. Get is
// served here from lemming's own datastore: a Subscribe ONCE of the root
// on its cache (the same data its Subscribe streams), unmarshalled into
// lemming's generated structs and encoded as RFC 7951 JSON by ygot, with
// the state leaves pruned for a Get of type CONFIG. lemming's structs
// are compressed preferring operational state, and its Set writes their
// shadow paths, the configuration ones: both the read and the encoding
// use those (ygot's PreferShadowPath). Capabilities answers
// the JSON encodings and no extension, where the
// device is made with Capabilities; otherwise it is lemming's own
// Unimplemented, which the gNMI target must live with.
//
// Like the devices lemming stands for, it fills in YANG defaults
// (setupSchema's PopulateDefaults) and reports them.
package lemmingdev

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	lgnmi "github.com/openconfig/lemming/gnmi"
	"github.com/openconfig/lemming/gnmi/oc"
	"github.com/openconfig/ygot/ygot"
	"github.com/openconfig/ygot/ytypes"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Options configure a device.
type Options struct {
	// Name is the gNMI target name of lemming's datastore.
	Name string
	// TLS is the server's TLS configuration (required).
	TLS *tls.Config
	// Username and Password are required as the "username" and
	// "password" metadata of every RPC (gnmi-authentication.md).
	Username, Password string
	// Capabilities answers Capabilities; without it lemming answers
	// Unimplemented.
	Capabilities bool
}

// Device is one lemming switch on 127.0.0.1.
type Device struct {
	*lgnmi.Server // Set and Subscribe are lemming's
	opts          Options

	mu        sync.Mutex
	refuseSet int // Sets still to refuse, a fault of the transport
	// version counts the Sets that reached lemming; cached is the tree
	// read at version cachedAt, and configOnly says whether it was pruned.
	version    int
	cachedAt   int
	cached     *oc.Root
	cachedConf bool

	srv  *grpc.Server
	addr string
}

// Start serves a new lemming switch and returns it.
func Start(opts Options) (*Device, error) {
	if opts.TLS == nil || opts.Name == "" {
		return nil, errors.New("lemmingdev: a device needs a name and a TLS configuration")
	}
	// lemming registers itself on the server it is given: on one that
	// never serves, so that this Device is what the network reaches.
	ls, err := lgnmi.New(grpc.NewServer(), opts.Name, nil)
	if err != nil {
		return nil, err
	}
	d := &Device{Server: ls, opts: opts}
	d.srv = grpc.NewServer(grpc.Creds(credentials.NewTLS(opts.TLS)),
		grpc.UnaryInterceptor(d.unary), grpc.StreamInterceptor(d.stream))
	gpb.RegisterGNMIServer(d.srv, d)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	d.addr = lis.Addr().String()
	go d.srv.Serve(lis)
	return d, nil
}

// Addr is where the device listens.
func (d *Device) Addr() string { return d.addr }

// Stop stops serving.
func (d *Device) Stop() { d.srv.Stop() }

// RefuseSets makes the next n Set RPCs fail with FailedPrecondition
// before they reach lemming: a switch that refuses a change.
func (d *Device) RefuseSets(n int) {
	d.mu.Lock()
	d.refuseSet = n
	d.mu.Unlock()
}

// auth checks the credentials of an RPC.
func (d *Device) auth(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	if u, p := md.Get("username"), md.Get("password"); len(u) != 1 || len(p) != 1 || u[0] != d.opts.Username || p[0] != d.opts.Password {
		return status.Error(codes.Unauthenticated, "bad username or password")
	}
	return nil
}

func (d *Device) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if err := d.auth(ctx); err != nil {
		return nil, err
	}
	if info.FullMethod == gpb.GNMI_Set_FullMethodName {
		d.mu.Lock()
		refuse := d.refuseSet > 0
		if refuse {
			d.refuseSet--
		}
		d.mu.Unlock()
		if refuse {
			return nil, status.Error(codes.FailedPrecondition, "the switch refuses the change (a fault of the test)")
		}
	}
	resp, err := h(ctx, req)
	if info.FullMethod == gpb.GNMI_Set_FullMethodName {
		d.mu.Lock()
		d.version++ // taken or not, the next Get reads the datastore again
		d.mu.Unlock()
	}
	return resp, err
}

func (d *Device) stream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	if err := d.auth(ss.Context()); err != nil {
		return err
	}
	return h(srv, ss)
}

// Capabilities lists the JSON encodings (lemming's generated code keeps
// no list of its models), and no extension; or it is lemming's
// Unimplemented.
func (d *Device) Capabilities(ctx context.Context, req *gpb.CapabilityRequest) (*gpb.CapabilityResponse, error) {
	if !d.opts.Capabilities {
		return d.Server.Capabilities(ctx, req)
	}
	return &gpb.CapabilityResponse{
		SupportedEncodings: []gpb.Encoding{gpb.Encoding_JSON_IETF, gpb.Encoding_JSON},
		GNMIVersion:        "0.10.0",
	}, nil
}

// Get answers each path from lemming's datastore as RFC 7951 JSON.
func (d *Device) Get(ctx context.Context, req *gpb.GetRequest) (*gpb.GetResponse, error) {
	switch req.GetEncoding() {
	case gpb.Encoding_JSON_IETF, gpb.Encoding_JSON:
	default:
		return nil, status.Errorf(codes.Unimplemented, "encoding %s: JSON_IETF and JSON are supported", req.GetEncoding())
	}
	root, sch, err := d.tree(ctx, req.GetType() == gpb.GetRequest_CONFIG)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	n := &gpb.Notification{Prefix: req.GetPrefix()}
	paths := req.GetPath()
	if len(paths) == 0 {
		paths = []*gpb.Path{{}}
	}
	for _, p := range paths {
		full := &gpb.Path{Elem: append(append([]*gpb.PathElem(nil), req.GetPrefix().GetElem()...), p.GetElem()...)}
		var node any = root
		if len(full.GetElem()) > 0 {
			nodes, err := ytypes.GetNode(sch.RootSchema(), root, full, &ytypes.GetHandleWildcards{}, &ytypes.PreferShadowPath{})
			if err != nil || len(nodes) == 0 || isNil(nodes[0].Data) {
				ps, _ := ygot.PathToString(full)
				return nil, status.Errorf(codes.NotFound, "%s: no such node", ps)
			}
			node = nodes[0].Data
		}
		var v *gpb.TypedValue
		if gs, ok := node.(ygot.GoStruct); ok {
			js, err := ygot.Marshal7951(gs, &ygot.RFC7951JSONConfig{AppendModuleName: true, PreferShadowPath: true})
			if err != nil {
				return nil, status.Error(codes.Internal, err.Error())
			}
			v = &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: js}}
		} else if v, err = ygot.EncodeTypedValue(node, gpb.Encoding_JSON_IETF); err != nil {
			return nil, status.Error(codes.Internal, err.Error())
		}
		if req.GetEncoding() == gpb.Encoding_JSON && v.GetJsonIetfVal() != nil {
			v = &gpb.TypedValue{Value: &gpb.TypedValue_JsonVal{JsonVal: v.GetJsonIetfVal()}}
		}
		n.Update = append(n.Update, &gpb.Update{Path: p, Val: v})
	}
	return &gpb.GetResponse{Notification: []*gpb.Notification{n}}, nil
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	gs, ok := v.(ygot.GoStruct)
	return ok && gs == nil
}

// schema is lemming's schema, read once: oc.Schema unzips and parses it
// on every call.
var schema = sync.OnceValues(oc.Schema)

// tree reads lemming's datastore into its generated structs: a Subscribe
// ONCE of the root on its cache, through lemming's local client. With
// configOnly, the state leaves are pruned. The tree is read again after
// each Set, not for each Get: rocefab reads a path at a time to take a
// push back.
func (d *Device) tree(ctx context.Context, configOnly bool) (*oc.Root, *ytypes.Schema, error) {
	base, err := schema()
	if err != nil {
		return nil, nil, err
	}
	d.mu.Lock()
	version := d.version
	if d.cached != nil && d.cachedAt == version && d.cachedConf == configOnly {
		root := d.cached
		d.mu.Unlock()
		return root, base, nil
	}
	d.mu.Unlock()
	ns, err := Once(ctx, d.LocalClient(), d.opts.Name)
	if err != nil {
		return nil, nil, err
	}
	sch := &ytypes.Schema{Root: &oc.Root{}, SchemaTree: base.SchemaTree, Unmarshal: base.Unmarshal}
	if err := ytypes.UnmarshalNotifications(sch, ns, &ytypes.IgnoreExtraFields{}, &ytypes.PreferShadowPath{}); err != nil {
		return nil, nil, fmt.Errorf("reading lemming's datastore: %w", err)
	}
	root := sch.Root.(*oc.Root)
	if configOnly {
		if err := ygot.PruneConfigFalse(sch.RootSchema(), root); err != nil {
			return nil, nil, err
		}
	}
	d.mu.Lock()
	if d.version == version {
		d.cached, d.cachedAt, d.cachedConf = root, version, configOnly
	}
	d.mu.Unlock()
	return root, sch, nil
}

// Once subscribes to the root of target with mode ONCE and returns every
// notification up to the sync response.
func Once(ctx context.Context, c gpb.GNMIClient, target string) ([]*gpb.Notification, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sc, err := c.Subscribe(ctx)
	if err != nil {
		return nil, err
	}
	err = sc.Send(&gpb.SubscribeRequest{Request: &gpb.SubscribeRequest_Subscribe{Subscribe: &gpb.SubscriptionList{
		Prefix:       &gpb.Path{Target: target, Origin: "openconfig"},
		Mode:         gpb.SubscriptionList_ONCE,
		Encoding:     gpb.Encoding_PROTO,
		Subscription: []*gpb.Subscription{{Path: &gpb.Path{}}},
	}}})
	if err != nil {
		return nil, err
	}
	var out []*gpb.Notification
	for {
		resp, err := sc.Recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if resp.GetSyncResponse() {
			return out, nil
		}
		if n := resp.GetUpdate(); n != nil {
			out = append(out, n)
		}
	}
}
