// Package gnmi is the gNMI target: it reads a switch's running OpenConfig
// tree with a gNMI Get of the root and pushes the SetRequest a platform
// computed (renderers.Prototext) with a gNMI Set, over gRPC with TLS unless
// plaintext is asked for by name.
//
// # Commit-confirm
//
// Where the device has the gNMI commit-confirmed extension (gnmi_ext
// Commit, openconfig/reference rpc/gnmi/gnmi-commit-confirmed.md), a push
// is a commit the device reverts by itself unless it is confirmed within
// the timeout; Confirm and Rollback send the extension's confirm and
// cancel. Whether a device has it is what its Capabilities advertise, or
// what the operator says (CommitAlways), since devices that take the
// extension need not advertise it (Cisco NX-OS 10.6.2 does not,
// ironcore-dev/network-operator#171).
//
// A device without it still gets a push that apply can take back: before
// the Set, the target reads the value of every path the request names
// (what a replace or update overwrites, what a delete removes), and
// Rollback sets them back: a replace with the old value, or a delete
// where there was none. A timer in this process does that when Confirm
// does not come in time; unlike the device's own timer it dies with the
// process, which apply's report says of a device it could not confirm.
//
// A push whose Set gets no answer in time, or loses its connection, may
// or may not have been taken (the device can commit and answer late). It
// is recorded as pending all the same, so that Rollback cancels the commit
// by its id or restores what was read before it, and the device's timer
// (or this process's) takes it back when nothing else does; the error says
// the outcome is unknown.
//
// A push waiting for its confirmation is written down in the journal
// (Options.Journal) before it is made and crossed out when it is confirmed
// or taken back, since the extension has no read of a pending commit and
// this process's timer dies with it: the next apply finds it there
// (Pending), and confirms it by its id or takes it back with the values
// read before it. A native commit whose deadline passed was taken back by
// the device; one this process would have taken back stays on the device
// until it is settled.
//
// The target knows transports, not platforms: it does not read the tree
// it fetches, and it pushes the request as the platform wrote it.
package gnmi

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/openconfig/gnmi/proto/gnmi_ext"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/experimental"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/targets"
)

// CommitMode says when a push uses the commit-confirmed extension.
type CommitMode int

// The commit modes.
const (
	// CommitAuto uses the extension where the device's Capabilities
	// advertise it.
	CommitAuto CommitMode = iota
	// CommitAlways uses it on every device.
	CommitAlways
	// CommitNever never uses it: pushes are taken back by this process.
	CommitNever
)

// Options configure the target.
type Options struct {
	// Address returns where d's gNMI server listens ("host:port").
	Address func(d *ir.Device) (string, error)
	// Artifact is the file name the running tree is read as
	// ("<device>/<Artifact>"): the OpenConfig artifact's, which the
	// registry of platforms (targets/routing) names once.
	Artifact string
	// TLS is the client's TLS configuration; nil uses the system's roots
	// and the address's host name.
	TLS *tls.Config
	// Plaintext sends everything, credentials included, unencrypted: for
	// lab devices only, and only when asked for.
	Plaintext bool
	// Username and Password are sent as the "username" and "password"
	// metadata of every RPC (openconfig/reference gnmi-authentication.md).
	Username, Password string
	// Commit says when pushes use the commit-confirmed extension.
	Commit CommitMode
	// Timeout bounds each RPC (30 s when 0).
	Timeout time.Duration
	// Journal records each push until it is confirmed or taken back, so
	// that an apply that did not finish leaves its pushes known (nil: no
	// record outlives the process).
	Journal *targets.Journal
}

// Target is the gNMI target.
type Target struct {
	opts Options

	devices targets.Keyed[string, device]

	mu    sync.Mutex
	notes []string
}

var (
	_ targets.Noter         = (*Target)(nil)
	_ targets.Target        = (*Target)(nil)
	_ targets.Confirmer     = (*Target)(nil)
	_ targets.RollBacker    = (*Target)(nil)
	_ targets.PendingReader = (*Target)(nil)
)

// device is one device's connection and pending push.
type device struct {
	mu     sync.Mutex // one RPC sequence at a time per device
	conn   *grpc.ClientConn
	client gpb.GNMIClient
	caps   *gpb.CapabilityResponse
	// onlyAll is set once the device refused a Get of type CONFIG: it is
	// read with type ALL from then on, its state containers left out.
	onlyAll atomic.Bool
	// pending is the push awaiting Confirm.
	pending *pending
}

// pending is a push not yet confirmed: by the device's extension (id), or
// by this process (undo, timer).
type pending struct {
	id string
	// deadline is when the device rolls a native commit back by itself.
	deadline time.Time
	undo     *gpb.SetRequest
	timer    *time.Timer
}

// BufferPool is the gRPC buffer pool of the target's connections, with
// tiers between 32 KiB and 1 MiB: gRPC's default pool gives every message
// above 32 KiB (a switch's tree is 50 KiB to a few MiB) a 1 MiB buffer and
// clears it on each use, which was a sixth of a plan's CPU time.
var BufferPool = mem.NewTieredBufferPool(256, 4<<10, 16<<10, 32<<10, 64<<10, 128<<10, 256<<10, 512<<10, 1<<20, 4<<20)

// New returns a gNMI target.
func New(opts Options) (*Target, error) {
	if opts.Address == nil {
		return nil, errors.New("gnmi: no way to find a device's address")
	}
	if opts.Artifact == "" {
		return nil, errors.New("gnmi: no artifact name to read running trees as")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	return &Target{opts: opts}, nil
}

// Close closes every connection and stops the timers of pushes not
// confirmed (which leaves them applied: say so in the report).
func (t *Target) Close() error {
	var errs []error
	for _, dev := range t.devices.Take() {
		dev.mu.Lock()
		if dev.pending != nil && dev.pending.timer != nil {
			dev.pending.timer.Stop()
		}
		if dev.conn != nil {
			errs = append(errs, dev.conn.Close())
		}
		dev.mu.Unlock()
	}
	return errors.Join(errs...)
}

// note keeps something the report says once.
func (t *Target) note(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !slices.Contains(t.notes, s) {
		t.notes = append(t.notes, s)
	}
}

// Notes says what the target did differently from what was asked of it,
// one sentence per device and cause, sorted.
func (t *Target) Notes() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Sorted(slices.Values(t.notes))
}

// device returns d's connection, dialling it the first time.
func (t *Target) device(d *ir.Device) (*device, error) {
	dev := t.devices.Get(d.Name)
	dev.mu.Lock()
	defer dev.mu.Unlock()
	if dev.conn != nil {
		return dev, nil
	}
	addr, err := t.opts.Address(d)
	if err != nil {
		return nil, err
	}
	creds := insecure.NewCredentials()
	if !t.opts.Plaintext {
		cfg := t.opts.TLS
		if cfg == nil {
			cfg = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		creds = credentials.NewTLS(cfg)
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds), experimental.WithBufferPool(BufferPool))
	if err != nil {
		return nil, fmt.Errorf("gnmi %s: %w", addr, err)
	}
	dev.conn, dev.client = conn, gpb.NewGNMIClient(conn)
	return dev, nil
}

// rpc is the context of one RPC: the timeout and the credentials.
func (t *Target) rpc(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, t.opts.Timeout)
	if t.opts.Username != "" || t.opts.Password != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "username", t.opts.Username, "password", t.opts.Password)
	}
	return ctx, cancel
}

// Read returns the device's tree, as a Get of the root in JSON_IETF
// returns it, as "<device>/openconfig.json". A device that answers with
// several updates (one per top-level container) gets them joined into one
// object, in path order.
func (t *Target) Read(ctx context.Context, d *ir.Device) ([]renderers.Artifact, error) {
	dev, err := t.device(d)
	if err != nil {
		return nil, err
	}
	resp, err := t.get(ctx, dev, &gpb.GetRequest{Path: []*gpb.Path{{}}, Encoding: gpb.Encoding_JSON_IETF})
	if err != nil {
		return nil, err
	}
	js, err := joinGet(resp)
	if err != nil {
		return nil, fmt.Errorf("gNMI Get: %w", err)
	}
	return []renderers.Artifact{{Path: d.Name + "/" + t.opts.Artifact, Format: renderers.JSON, Content: js}}, nil
}

// get sends req as a Get of the configuration: of type CONFIG, or, on a
// device that refuses that type (google/gnxi's reference server answers
// any type but ALL with Unimplemented, gnmi/server.go), of type ALL with
// every OpenConfig "state" container taken out of the JSON answers, which
// leaves the configuration (OpenConfig keeps operational state in "state"
// containers only: openconfig/public doc/openconfig_style_guide.md,
// "Modeling operational state").
func (t *Target) get(ctx context.Context, dev *device, req *gpb.GetRequest) (*gpb.GetResponse, error) {
	all := dev.onlyAll.Load()
	for {
		req.Type = gpb.GetRequest_CONFIG
		if all {
			req.Type = gpb.GetRequest_ALL
		}
		c, cancel := t.rpc(ctx)
		resp, err := dev.client.Get(c, req)
		cancel()
		if err != nil {
			if code := status.Code(err); !all && (code == codes.Unimplemented || code == codes.InvalidArgument) {
				all = true
				continue
			}
			return nil, fmt.Errorf("gNMI Get (type %s): %w", req.Type, err)
		}
		if all {
			dev.onlyAll.Store(true)
			if err := configOnly(resp); err != nil {
				return nil, fmt.Errorf("gNMI Get (type ALL): %w", err)
			}
		}
		return resp, nil
	}
}

// joinGet makes a Get's updates into one RFC 7951 document.
func joinGet(resp *gpb.GetResponse) ([]byte, error) {
	type part struct {
		names []string
		val   []byte
	}
	var parts []part
	for _, n := range resp.GetNotification() {
		for _, u := range n.GetUpdate() {
			var names []string
			for _, e := range append(slices.Clone(n.GetPrefix().GetElem()), u.GetPath().GetElem()...) {
				if len(e.GetKey()) > 0 {
					return nil, fmt.Errorf("an update at a list entry (%s) cannot be placed in a document", e.GetName())
				}
				names = append(names, e.GetName())
			}
			v := u.GetVal().GetJsonIetfVal()
			if v == nil {
				v = u.GetVal().GetJsonVal()
			}
			if v == nil {
				return nil, fmt.Errorf("an update at /%s is not JSON", strings.Join(names, "/"))
			}
			parts = append(parts, part{names, v})
		}
	}
	if len(parts) == 1 && len(parts[0].names) == 0 {
		v := parts[0].val
		if len(v) > 0 && v[len(v)-1] != '\n' {
			v = append(slices.Clip(v), '\n')
		}
		return v, nil
	}
	slices.SortStableFunc(parts, func(a, b part) int { return strings.Compare(strings.Join(a.names, "/"), strings.Join(b.names, "/")) })
	var members []string
	for _, p := range parts {
		if len(p.names) == 0 {
			inner := strings.TrimSpace(string(p.val))
			if !strings.HasPrefix(inner, "{") || !strings.HasSuffix(inner, "}") {
				return nil, fmt.Errorf("the root is not a JSON object")
			}
			if inner = strings.TrimSpace(inner[1 : len(inner)-1]); inner != "" {
				members = append(members, inner)
			}
			continue
		}
		var m strings.Builder
		for j, n := range p.names {
			fmt.Fprintf(&m, "%q:", n)
			if j < len(p.names)-1 {
				m.WriteString("{")
			}
		}
		m.Write(p.val)
		m.WriteString(strings.Repeat("}", len(p.names)-1))
		members = append(members, m.String())
	}
	return []byte("{" + strings.Join(members, ",") + "}\n"), nil
}

// lock reads the SetRequest rem and locks d's device for it; the caller
// unlocks dev.mu.
func (t *Target) lock(d *ir.Device, rem renderers.Remediation) (*device, *gpb.SetRequest, error) {
	req, err := setRequest(rem)
	if err != nil {
		return nil, nil, err
	}
	dev, err := t.device(d)
	if err != nil {
		return nil, nil, err
	}
	dev.mu.Lock()
	return dev, req, nil
}

// Push applies the SetRequest rem to d.
func (t *Target) Push(ctx context.Context, d *ir.Device, rem renderers.Remediation) error {
	dev, req, err := t.lock(d, rem)
	if err != nil {
		return err
	}
	defer dev.mu.Unlock()
	return t.set(ctx, dev, req)
}

// set sends one Set and says, when it failed, whether the device may hold
// the change: a Set is atomic (gNMI specification 3.4.3), so a refusal
// leaves nothing, but a connection lost during the Set, or an answer that
// does not come in time, leaves the outcome unknown ([uncertain]).
func (t *Target) set(ctx context.Context, dev *device, req *gpb.SetRequest) error {
	c, cancel := t.rpc(ctx)
	defer cancel()
	_, err := dev.client.Set(c, req)
	if err == nil {
		return nil
	}
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled, codes.Unknown, codes.Internal:
		return &uncertainError{fmt.Errorf("gNMI Set: %w (the device may or may not have taken the change: read it again)", err)}
	}
	return fmt.Errorf("gNMI Set refused, nothing changed: %w", err)
}

// uncertainError is a Set whose outcome is unknown.
type uncertainError struct{ error }

func (e *uncertainError) Unwrap() error { return e.error }

// uncertain reports whether err is a Set the device may have taken.
func uncertain(err error) bool {
	var u *uncertainError
	return errors.As(err, &u)
}

// setRequest reads a remediation's SetRequest.
func setRequest(rem renderers.Remediation) (*gpb.SetRequest, error) {
	if rem.Format != renderers.Prototext {
		return nil, fmt.Errorf("gnmi: a remediation in %q, not a gNMI SetRequest in %q", rem.Format, renderers.Prototext)
	}
	req := &gpb.SetRequest{}
	if err := prototext.Unmarshal(rem.Content, req); err != nil {
		return nil, fmt.Errorf("gnmi: the remediation is not a SetRequest: %w", err)
	}
	if len(req.GetExtension()) > 0 {
		return nil, fmt.Errorf("gnmi: the remediation carries extensions; the target adds its own")
	}
	return req, nil
}

// commitConfirmed reports whether pushes to dev use the extension.
func (t *Target) commitConfirmed(ctx context.Context, name string, dev *device) (bool, error) {
	switch t.opts.Commit {
	case CommitAlways:
		return true, nil
	case CommitNever:
		return false, nil
	}
	if dev.caps == nil {
		c, cancel := t.rpc(ctx)
		defer cancel()
		caps, err := dev.client.Capabilities(c, &gpb.CapabilityRequest{})
		switch {
		case status.Code(err) == codes.Unimplemented:
			// A device that lists no capabilities (openconfig/lemming
			// v0.5.0) advertises no extension either: its pushes are
			// taken back by this process, which the report says once.
			caps = &gpb.CapabilityResponse{}
			t.note(name + ": gNMI Capabilities is not implemented; its pushes were taken back by rocefab, not by a commit-confirmed on the device")
		case err != nil:
			return false, fmt.Errorf("gNMI Capabilities: %w", err)
		}
		dev.caps = caps
	}
	for _, e := range dev.caps.GetExtension() {
		if e.GetCommit() != nil {
			return true, nil
		}
	}
	return false, nil
}

// PushConfirmed applies rem as a commit that is taken back unless Confirm
// comes within timeout: by the device (the commit-confirmed extension) or
// by this process (see the package documentation).
func (t *Target) PushConfirmed(ctx context.Context, d *ir.Device, rem renderers.Remediation, timeout time.Duration) error {
	dev, req, err := t.lock(d, rem)
	if err != nil {
		return err
	}
	defer dev.mu.Unlock()
	if p := dev.pending; p != nil && p.id != "" && time.Now().After(p.deadline) {
		dev.pending = nil // the device rolled it back when its timer ran out
	}
	if dev.pending != nil {
		return fmt.Errorf("gnmi: a push to %s waits for its confirmation", d.Name)
	}
	native, err := t.commitConfirmed(ctx, d.Name, dev)
	if err != nil {
		return err
	}
	if native {
		id, err := commitID(d)
		if err != nil {
			return err
		}
		if err := t.record(d, targets.JournalEntry{ID: id, Deadline: secondAfter(time.Now().Add(timeout))}); err != nil {
			return err
		}
		cr := &gnmi_ext.Commit{Id: id, Action: &gnmi_ext.Commit_Commit{Commit: &gnmi_ext.CommitRequest{RollbackDuration: durationpb.New(timeout)}}}
		withExt := &gpb.SetRequest{Prefix: req.GetPrefix(), Delete: req.GetDelete(), Replace: req.GetReplace(), Update: req.GetUpdate(),
			Extension: []*gnmi_ext.Extension{{Ext: &gnmi_ext.Extension_Commit{Commit: cr}}}}
		if err := t.set(ctx, dev, withExt); err != nil {
			if uncertain(err) {
				// The device may hold the commit: Rollback cancels it by
				// its id, and the device's timer takes it back otherwise.
				dev.pending = &pending{id: id, deadline: time.Now().Add(timeout)}
			} else {
				err = errors.Join(err, t.opts.Journal.Remove(d.Name))
			}
			return err
		}
		dev.pending = &pending{id: id, deadline: time.Now().Add(timeout)}
		return nil
	}
	undo, err := t.undo(ctx, dev, req)
	if err != nil {
		return fmt.Errorf("reading what the push overwrites, to take it back: %w", err)
	}
	undoText, err := prototext.Marshal(undo)
	if err != nil {
		return err
	}
	if err := t.record(d, targets.JournalEntry{Undo: undoText}); err != nil {
		return err
	}
	err = t.set(ctx, dev, req)
	if err != nil && !uncertain(err) {
		return errors.Join(err, t.opts.Journal.Remove(d.Name))
	}
	// A push the device may have taken is pending like one it took:
	// restoring what was read before it is right either way.
	p := &pending{undo: undo}
	p.timer = time.AfterFunc(timeout, func() {
		dev.mu.Lock()
		defer dev.mu.Unlock()
		if dev.pending != p {
			return
		}
		if t.set(context.Background(), dev, p.undo) == nil {
			dev.pending = nil
			_ = t.opts.Journal.Remove(d.Name) // read again as pending, and settled, if it stays
		}
	})
	dev.pending = p
	return err
}

// commitID names a commit: the device and random bits, unique enough that
// a confirm never matches another client's commit.
func commitID(d *ir.Device) (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "rocefab-" + d.Name + "-" + hex.EncodeToString(b[:]), nil
}

// undo reads, for every path req names, what the device holds there, and
// returns the request that restores it.
func (t *Target) undo(ctx context.Context, dev *device, req *gpb.SetRequest) (*gpb.SetRequest, error) {
	var paths []*gpb.Path
	paths = append(paths, req.GetDelete()...)
	for _, u := range append(slices.Clone(req.GetReplace()), req.GetUpdate()...) {
		paths = append(paths, u.GetPath())
	}
	out := &gpb.SetRequest{Prefix: req.GetPrefix()}
	for _, p := range paths {
		if len(p.GetElem()) == 0 && len(req.GetPrefix().GetElem()) == 0 {
			return nil, fmt.Errorf("a push that names the root is not taken back")
		}
		resp, err := t.get(ctx, dev, &gpb.GetRequest{Prefix: req.GetPrefix(), Path: []*gpb.Path{p}, Encoding: gpb.Encoding_JSON_IETF})
		switch {
		case status.Code(err) == codes.NotFound:
			out.Delete = append(out.Delete, p)
			continue
		case err != nil:
			return nil, err
		}
		var val *gpb.TypedValue
		for _, n := range resp.GetNotification() {
			for _, u := range n.GetUpdate() {
				val = u.GetVal()
			}
		}
		if val == nil {
			out.Delete = append(out.Delete, p)
			continue
		}
		out.Replace = append(out.Replace, &gpb.Update{Path: p, Val: val})
	}
	return out, nil
}

// Confirm makes d's pending push permanent.
func (t *Target) Confirm(ctx context.Context, d *ir.Device) error {
	return t.settle(d, "waits for its confirmation", func(dev *device, p *pending) error {
		if p.id != "" {
			ext := &gnmi_ext.Commit{Id: p.id, Action: &gnmi_ext.Commit_Confirm{Confirm: &gnmi_ext.CommitConfirm{}}}
			if err := t.endCommit(ctx, dev, d, ext); err != nil {
				return fmt.Errorf("confirming: %w", err)
			}
		} else if p.timer != nil && !p.timer.Stop() {
			return fmt.Errorf("gnmi: %s: the push was taken back before the confirmation", d.Name)
		}
		// A push read from the journal has no timer: it is on the device
		// until taken back, and confirming it is crossing it out.
		return nil
	})
}

// Rollback takes back d's pending push now.
func (t *Target) Rollback(ctx context.Context, d *ir.Device) error {
	return t.settle(d, "to take back", func(dev *device, p *pending) error {
		if p.id != "" {
			ext := &gnmi_ext.Commit{Id: p.id, Action: &gnmi_ext.Commit_Cancel{Cancel: &gnmi_ext.CommitCancel{}}}
			if err := t.endCommit(ctx, dev, d, ext); err != nil {
				return fmt.Errorf("cancelling the commit: %w", err)
			}
			return nil
		}
		if p.timer != nil {
			p.timer.Stop()
		}
		if err := t.set(ctx, dev, p.undo); err != nil {
			return fmt.Errorf("taking the push back: %w", err)
		}
		return nil
	})
}

// settle ends d's pending push with end, d's device locked, and crosses
// it out; with none pending it says there is no push to d that does
// what the caller asked (what).
func (t *Target) settle(d *ir.Device, what string, end func(dev *device, p *pending) error) error {
	dev, err := t.device(d)
	if err != nil {
		return err
	}
	dev.mu.Lock()
	defer dev.mu.Unlock()
	p := dev.pending
	if p == nil {
		return fmt.Errorf("gnmi: no push to %s %s", d.Name, what)
	}
	if err := end(dev, p); err != nil {
		return err
	}
	dev.pending = nil
	return t.opts.Journal.Remove(d.Name)
}

// endCommit sends d's device the commit action ext (its confirmation or
// cancellation), dev locked. A device that holds no such commit took it
// back when its timer ran out: the push is no longer pending and is
// crossed out of the journal.
func (t *Target) endCommit(ctx context.Context, dev *device, d *ir.Device, ext *gnmi_ext.Commit) error {
	err := t.set(ctx, dev, &gpb.SetRequest{Extension: []*gnmi_ext.Extension{{Ext: &gnmi_ext.Extension_Commit{Commit: ext}}}})
	if err != nil && status.Code(errors.Unwrap(err)) == codes.FailedPrecondition {
		dev.pending = nil
		err = errors.Join(err, t.opts.Journal.Remove(d.Name))
	}
	return err
}

// record writes d's push down in the journal before it is made.
func (t *Target) record(d *ir.Device, e targets.JournalEntry) error {
	e.Device, e.Transport = d.Name, "gnmi"
	if err := t.opts.Journal.Record(e); err != nil {
		return fmt.Errorf("gnmi: %s: not pushed: %w", d.Name, err)
	}
	return nil
}

// Pending returns d's push that waits for its confirmation: this
// process's, or one the journal records of an apply that did not finish.
// A native commit past its deadline was taken back by the device and is
// crossed out; a push whose timer was this process's stays on the device
// until it is settled, and is pending with no deadline.
func (t *Target) Pending(ctx context.Context, d *ir.Device) (*targets.PendingCommit, error) {
	dev, err := t.device(d)
	if err != nil {
		return nil, err
	}
	dev.mu.Lock()
	defer dev.mu.Unlock()
	if p := dev.pending; p != nil {
		if p.id != "" && time.Now().After(p.deadline) {
			dev.pending = nil
			return nil, t.opts.Journal.Remove(d.Name)
		}
		return &targets.PendingCommit{Device: d.Name, Deadline: p.deadline.UTC().Truncate(time.Second)}, nil
	}
	e, err := t.opts.Journal.Load(d.Name)
	if err != nil || e == nil {
		return nil, err
	}
	if e.Transport != "gnmi" {
		return nil, fmt.Errorf("gnmi: the pending-push journal records a push by %s: settle it through that transport", e.Transport)
	}
	if e.ID != "" {
		if time.Now().After(e.Deadline) {
			return nil, t.opts.Journal.Remove(d.Name)
		}
		dev.pending = &pending{id: e.ID, deadline: e.Deadline}
		return &targets.PendingCommit{Device: d.Name, Deadline: e.Deadline}, nil
	}
	undo := &gpb.SetRequest{}
	if err := prototext.Unmarshal(e.Undo, undo); err != nil {
		return nil, fmt.Errorf("gnmi: the pending-push journal's undo for %s is no SetRequest: %w", d.Name, err)
	}
	dev.pending = &pending{undo: undo}
	return &targets.PendingCommit{Device: d.Name}, nil
}

// secondAfter is t rounded up to the second: a deadline recorded early
// would let the next apply think a commit the device still holds gone.
func secondAfter(t time.Time) time.Time {
	return t.Add(time.Second - 1).UTC().Truncate(time.Second)
}
