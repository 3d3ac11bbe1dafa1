package targets_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/dir/dirtest"
)

// fakePlatform models a device's configuration as "key=value" lines in
// one file, <device>/cfg.txt. Keys starting with "owned." are in the
// owned scope; every other line (comments too) is foreign configuration
// that must come through any apply byte for byte. The desired state is
// per device: want[name] maps owned keys to values.
type fakePlatform struct {
	mu   sync.Mutex
	want map[string]map[string]string
	// parseErr makes Parse fail for these devices.
	parseErr map[string]bool
}

var (
	_ renderers.Platform = (*fakePlatform)(nil)
	_ renderers.Applier  = (*fakePlatform)(nil)
)

// kinds gives each owned key's catalog element and disruptions say what
// changing each does.
var (
	kinds       = map[string]string{"owned.pfc": "pfc", "owned.ecn": "ecn", "owned.mtu": "mtu"}
	disruptions = renderers.Disruptions{"pfc": "traffic-pause", "ecn": "hitless", "mtu": "port-flap"}
)

func (p *fakePlatform) Desired(d *ir.Device) (renderers.State, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var es renderers.Elements
	for k, v := range p.want[d.Name] {
		es = append(es, renderers.Element{Path: k, Value: v, Kind: kinds[k]})
	}
	return es, nil
}

func (p *fakePlatform) Parse(d *ir.Device, running []renderers.Artifact) (renderers.State, error) {
	p.mu.Lock()
	bad := p.parseErr[d.Name]
	p.mu.Unlock()
	if bad {
		return nil, errors.New("cfg.txt:1: unexpected token")
	}
	var es renderers.Elements
	for _, a := range running {
		for line := range strings.Lines(string(a.Content)) {
			k, v, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
			if ok && strings.HasPrefix(k, "owned.") {
				es = append(es, renderers.Element{Path: k, Value: v, Kind: kinds[k]})
			}
		}
	}
	return es, nil
}

// Diff returns the element changes and, as remediation, one "set k v" or
// "unset k" line per change.
func (p *fakePlatform) Diff(d *ir.Device, running, desired renderers.State) ([]renderers.Change, renderers.Remediation, error) {
	return dirtest.SetUnset(running, desired, disruptions)
}

// Apply edits cfg.txt in place: a set replaces the key's line where it
// is or appends it, an unset drops it; every other line stays as it is.
func (p *fakePlatform) Apply(running []renderers.Artifact, rem renderers.Remediation) ([]renderers.Artifact, error) {
	out := slices.Clone(running)
	idx := -1
	for i, a := range out {
		if strings.HasSuffix(a.Path, "/cfg.txt") {
			idx = i
		}
	}
	if idx < 0 {
		return nil, errors.New("no cfg.txt to apply to")
	}
	content, err := dirtest.EditLines(out[idx].Content, rem.Content)
	if err != nil {
		return nil, err
	}
	out[idx] = renderers.Artifact{Path: out[idx].Path, Format: out[idx].Format, Content: content}
	return out, nil
}

// fakeTarget holds running configurations in memory, with commit-confirm
// (a pending commit reverts when its timer lapses), rollback and faults
// injected per device.
type fakeTarget struct {
	p *fakePlatform

	mu      sync.Mutex
	running map[string][]renderers.Artifact
	pending map[string]*pending
	pushes  map[string]int // pushes each device took
	// faults
	readErr    map[string]error         // Read fails
	reject     map[string]error         // Push fails and changes nothing
	hang       map[string]bool          // Push blocks until its context ends
	confirmErr map[string]error         // Confirm fails
	drop       map[string]bool          // Push applies the first line, then the device is gone
	ignore     map[string]bool          // Push succeeds but changes nothing (the gate must catch it)
	gate       map[string]chan struct{} // Push waits for the channel to close
	started    chan string              // told each device whose push starts
	gone       map[string]bool          // reads fail: the device is unreachable
}

type pending struct {
	before []renderers.Artifact
	timer  *time.Timer
}

func newTarget(p *fakePlatform) *fakeTarget {
	return &fakeTarget{p: p, running: map[string][]renderers.Artifact{}, pending: map[string]*pending{},
		pushes: map[string]int{}, readErr: map[string]error{}, reject: map[string]error{}, hang: map[string]bool{},
		confirmErr: map[string]error{}, drop: map[string]bool{}, ignore: map[string]bool{}, gate: map[string]chan struct{}{},
		gone: map[string]bool{}}
}

func (t *fakeTarget) set(device, cfg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.running[device] = []renderers.Artifact{{Path: device + "/cfg.txt", Format: renderers.Text, Content: []byte(cfg)}}
}

func (t *fakeTarget) cfg(device string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	arts := t.running[device]
	if len(arts) == 0 {
		return ""
	}
	return string(arts[0].Content)
}

func (t *fakeTarget) Read(ctx context.Context, d *ir.Device) ([]renderers.Artifact, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.readErr[d.Name]; err != nil {
		return nil, err
	}
	if t.gone[d.Name] {
		return nil, errors.New("connection refused")
	}
	return slices.Clone(t.running[d.Name]), nil
}

func (t *fakeTarget) Push(ctx context.Context, d *ir.Device, rem renderers.Remediation) error {
	return t.push(ctx, d, rem, 0)
}

func (t *fakeTarget) push(ctx context.Context, d *ir.Device, rem renderers.Remediation, timeout time.Duration) error {
	t.mu.Lock()
	started, gate, hang := t.started, t.gate[d.Name], t.hang[d.Name]
	t.mu.Unlock()
	if started != nil {
		started <- d.Name
	}
	if gate != nil {
		<-gate
	}
	if hang {
		<-ctx.Done()
		return ctx.Err()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gone[d.Name] {
		return errors.New("connection refused")
	}
	if err := t.reject[d.Name]; err != nil {
		return err
	}
	before := t.running[d.Name]
	if len(before) == 0 {
		before = []renderers.Artifact{{Path: d.Name + "/cfg.txt", Format: renderers.Text}}
	}
	t.pushes[d.Name]++
	if t.ignore[d.Name] {
		return nil
	}
	if t.drop[d.Name] {
		first, _, _ := bytes.Cut(rem.Content, []byte("\n"))
		rem.Content = append(first, '\n')
	}
	after, err := t.p.Apply(before, rem)
	if err != nil {
		return err
	}
	if timeout > 0 {
		name := d.Name
		pd := &pending{before: t.running[name]}
		pd.timer = time.AfterFunc(timeout, func() {
			t.mu.Lock()
			defer t.mu.Unlock()
			if t.pending[name] == pd {
				t.running[name] = pd.before
				delete(t.pending, name)
			}
		})
		t.pending[name] = pd
	}
	t.running[d.Name] = after
	if t.drop[d.Name] {
		t.gone[d.Name] = true
		return errors.New("connection reset by peer")
	}
	return nil
}

// confirmTarget is fakeTarget with commit-confirm.
type confirmTarget struct{ *fakeTarget }

func (t confirmTarget) PushConfirmed(ctx context.Context, d *ir.Device, rem renderers.Remediation, timeout time.Duration) error {
	return t.push(ctx, d, rem, timeout)
}

func (t confirmTarget) Confirm(ctx context.Context, d *ir.Device) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.confirmErr[d.Name]; err != nil {
		return err
	}
	pd := t.pending[d.Name]
	if pd == nil {
		return errors.New("no commit is pending")
	}
	pd.timer.Stop()
	delete(t.pending, d.Name)
	return nil
}

// fullTarget is fakeTarget with commit-confirm and an immediate rollback.
type fullTarget struct{ confirmTarget }

func (t fullTarget) Rollback(ctx context.Context, d *ir.Device) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gone[d.Name] {
		return errors.New("connection refused")
	}
	pd := t.pending[d.Name]
	if pd == nil {
		return errors.New("no commit is pending")
	}
	pd.timer.Stop()
	t.running[d.Name] = pd.before
	delete(t.pending, d.Name)
	return nil
}

// lockingTarget adds a fabric lock held in memory.
type lockingTarget struct {
	fullTarget
	held *sync.Mutex
}

func (t lockingTarget) Lock(ctx context.Context, devs []*ir.Device) (func() error, error) {
	if !t.held.TryLock() {
		return nil, errors.New("the fabric is locked by another apply")
	}
	return func() error { t.held.Unlock(); return nil }, nil
}

var (
	_ targets.Target     = (*fakeTarget)(nil)
	_ targets.Confirmer  = confirmTarget{}
	_ targets.RollBacker = fullTarget{}
	_ targets.Locker     = lockingTarget{}
)
