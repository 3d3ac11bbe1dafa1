package targets

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// Action is what a plan does to a device.
type Action string

// The actions of a device plan.
const (
	// Create configures a device that runs no configuration rocefab owns
	// yet (its target returned nothing for it).
	Create Action = "create"
	// Update changes a device's owned configuration.
	Update Action = "update"
	// NoOp leaves a device that already runs what the intent wants.
	NoOp Action = "no-op"
	// Unreachable is a device whose running configuration could not be
	// read: the plan says nothing about it, and apply leaves it.
	Unreachable Action = "unreachable"
	// Unsupported is a device whose platform cannot be planned (no model
	// of its running configuration): reported with why, never skipped
	// silently, and left by apply.
	Unsupported Action = "unsupported"
	// Failed is a device whose running configuration was read but could
	// not be parsed or diffed: the reason says what went wrong.
	Failed Action = "error"
)

// Changes reports whether the action changes the device.
func (a Action) Changes() bool { return a == Create || a == Update }

// Platforms returns the platform that models d in the form its target
// reads it. An error says why there is none; d is then planned as
// Unsupported with that reason.
type Platforms func(d *ir.Device) (renderers.Platform, error)

// Lookup returns what find gives for d: the platform that models it, or
// the one that applies changes to it. A nil find, or one that gives
// nothing and no error, is the error none: the callers name the device
// and say what it cannot do then, so the check is written once.
func Lookup[P comparable](find func(d *ir.Device) (P, error), d *ir.Device, none string) (P, error) {
	var zero P
	if find == nil {
		return zero, errors.New(none)
	}
	p, err := find(d)
	if err == nil && p == zero {
		err = errors.New(none)
	}
	return p, err
}

// DefaultParallelism is how many devices are read or pushed at once when
// a request does not say.
const DefaultParallelism = 64

// Request is what Make plans.
type Request struct {
	Devices   []*ir.Device
	Target    Target
	Platforms Platforms
	// Parallelism bounds the devices read at once (DefaultParallelism
	// when 0 or less).
	Parallelism int
	// Timeout bounds each device's read (2 minutes when 0 or less): a
	// device that does not answer is planned unreachable.
	Timeout time.Duration
}

// DevicePlan is one device's part of a plan.
type DevicePlan struct {
	Device   string  `json:"device"`
	Role     ir.Role `json:"role"`
	Platform string  `json:"platform"`
	// Rail is the rail of a rail leaf.
	Rail   *int   `json:"rail,omitempty"`
	Action Action `json:"action"`
	// Reason says why a device is unreachable, unsupported or failed.
	Reason string `json:"reason,omitempty"`
	// Disruption is the worst disruption of the device's changes.
	Disruption renderers.Disruption `json:"disruption,omitempty"`
	// Changes are the element-level differences, in the platform's order.
	Changes []renderers.Change `json:"changes,omitempty"`
	// Remediation is what apply pushes: exactly this, once apply has
	// recomputed it from the intent and the running configuration and
	// found it the same (a plan file is a record, not an authority).
	Remediation *Remediation `json:"remediation,omitempty"`
	// Desired is the device's desired state within the owned scope as
	// the plan computed it (Terraform's "after"): the elements, in path
	// order, its running state was diffed against. Every device the
	// plan diffed records it (create, update, no-op). Apply refuses the
	// plan unless the intent still gives exactly this state; it then
	// gates each wave on it (what a device must hold once pushed) and
	// names with it the paths of a device that went stale, rather than
	// rendering the device again.
	Desired []renderers.Element `json:"-"`
	// Shared, when set, holds the changes and remediation instead
	// (Changes and Remediation are then nil), kept once per shape with
	// the plan's other devices: Body returns them either way.
	Shared *Shared `json:"-"`
	// SharedDesired, when set, holds the desired state instead (Desired
	// is then nil), kept once per shape as Shared keeps the changes:
	// DesiredState returns it either way.
	SharedDesired *Shared `json:"-"`
	// Running is the digest of what the device ran within the scope
	// rocefab owns there when the plan was computed (OwnedDigest); apply
	// refuses the plan when it no longer matches.
	Running *Digest `json:"running,omitempty"`
	// Pending is the device's commit that was pushed and not confirmed
	// when it was read: what it runs now may roll back by itself, so it
	// is not converged whatever its action says.
	Pending *PendingCommit `json:"pending,omitempty"`
}

// Plan is what plan computed and apply carries out. JSON is its source of
// truth: the text view and the plan file are both made from it.
type Plan struct {
	PlanHead
	Devices []DevicePlan `json:"devices"`
}

// PlanHead is what a plan says of itself before its devices: the plan
// file writes and reads it as it is, ahead of the shapes and devices it
// streams.
type PlanHead struct {
	// FormatVersion is the plan file format (PlanFormatVersion).
	FormatVersion int `json:"format_version"`
	// Rocefab is the version that made the plan; apply refuses a plan of
	// another version, whose platforms may read or diff differently.
	Rocefab string `json:"rocefab"`
	Fabric  string `json:"fabric"`
	// Intent is the intent the plan was made from.
	Intent IntentRef `json:"intent"`
	// Target says where running configurations were read.
	Target string `json:"target"`
	// Only is the --only pattern that restricted the devices, if any.
	Only string `json:"only,omitempty"`
}

// IntentRef binds a plan to its intent.
type IntentRef struct {
	// Path is the intent's path relative to the plan file's directory (as
	// given, for a plan not written to a file).
	Path string `json:"path"`
	// SHA256 is the digest of the intent's files (and its inventory).
	SHA256 string `json:"sha256"`
}

// Make reads every device's running configuration from the target and
// plans it against its desired state, reading up to Parallelism devices at
// once. Devices that cannot be read, modelled or diffed are planned with
// an action and reason that say so; the error is only for a plan that
// could not be made at all (ctx cancelled).
func Make(ctx context.Context, req Request) (*Plan, error) {
	out := make([]DevicePlan, len(req.Devices))
	finished := forEach(ctx, len(req.Devices), req.Parallelism, func(i int) {
		out[i] = planDevice(ctx, req, req.Devices[i])
	})
	if !finished {
		return nil, fmt.Errorf("plan interrupted: %w", context.Cause(ctx))
	}
	slices.SortFunc(out, func(a, b DevicePlan) int { return strings.Compare(a.Device, b.Device) })
	p := &Plan{PlanHead: PlanHead{FormatVersion: PlanFormatVersion}, Devices: out}
	if err := MarkPending(ctx, p, req.Target, req.Devices, req.Parallelism); err != nil {
		return nil, err
	}
	return p, nil
}

// planDevice plans one device.
func planDevice(ctx context.Context, req Request, d *ir.Device) DevicePlan {
	dp := DevicePlan{Device: d.Name, Role: d.Role, Platform: d.Platform}
	if d.Rail >= 0 && d.Role == ir.RoleLeaf {
		dp.Rail = new(d.Rail)
	}
	p, err := Lookup(req.Platforms, d, "no platform models it")
	if err != nil {
		dp.Action, dp.Reason = Unsupported, err.Error()
		return dp
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	running, err := safeRead(rctx, req.Target, d)
	cancel()
	if err != nil {
		dp.Action, dp.Reason = Unreachable, err.Error()
		return dp
	}
	have, want, changes, rem, err := diffDevice(p, d, running)
	if have != nil {
		dg := OwnedDigest(have)
		dp.Running = &dg
	}
	if err != nil {
		dp.Action, dp.Reason = Failed, err.Error()
		return dp
	}
	dp.Desired = desiredElements(want)
	if len(changes) == 0 {
		dp.Action = NoOp
		return dp
	}
	dp.Action = Update
	if len(running) == 0 {
		dp.Action = Create
	}
	dp.Changes = changes
	ds := make([]renderers.Disruption, len(changes))
	for i, c := range changes {
		ds[i] = c.Disruption
	}
	dp.Disruption = renderers.Worst(ds...)
	dp.Remediation = &Remediation{Format: rem.Format, Content: rem.Content}
	return dp
}

// diffDevice parses running and diffs it against d's desired state; it
// returns the parsed state as soon as there is one, and the desired state
// it was diffed against.
func diffDevice(p renderers.Platform, d *ir.Device, running []renderers.Artifact) (have, want renderers.State, changes []renderers.Change, rem renderers.Remediation, err error) {
	have, err = safeParse(p, d, running)
	if err != nil {
		return nil, nil, nil, rem, fmt.Errorf("reading its running configuration: %w", err)
	}
	want, err = safeDesired(p, d)
	if err != nil {
		return have, nil, nil, rem, fmt.Errorf("computing its desired state: %w", err)
	}
	changes, rem, err = safeDiff(p, d, have, want)
	if err != nil {
		return have, nil, nil, rem, fmt.Errorf("diffing: %w", err)
	}
	return have, want, changes, rem, nil
}

// desiredElements is the desired state as a plan records it: its
// elements in path order, an empty list (never nil) for a state of none.
func desiredElements(want renderers.State) []renderers.Element {
	es := want.Elements()
	if es == nil {
		es = []renderers.Element{}
	}
	return es
}

// Summary counts a plan's devices by what happens to them.
type Summary struct {
	// Change is the number of devices to change; ByDisruption splits them
	// by their worst disruption.
	Change       int                          `json:"change"`
	ByDisruption map[renderers.Disruption]int `json:"by_disruption"`
	Unchanged    int                          `json:"unchanged"`
	Unreachable  int                          `json:"unreachable"`
	Unsupported  int                          `json:"unsupported"`
	Failed       int                          `json:"failed"`
	// Pending is the number of devices that hold an unconfirmed commit.
	Pending int `json:"pending,omitempty"`
}

// Summary counts p's devices.
func (p *Plan) Summary() Summary {
	s := Summary{ByDisruption: map[renderers.Disruption]int{}}
	for _, d := range p.Devices {
		switch d.Action {
		case Create, Update:
			s.Change++
			s.ByDisruption[d.Disruption]++
		case NoOp:
			s.Unchanged++
		case Unreachable:
			s.Unreachable++
		case Unsupported:
			s.Unsupported++
		default:
			s.Failed++
		}
		if d.Pending != nil {
			s.Pending++
		}
	}
	return s
}

// Empty reports whether p changes no device and no device holds an
// unconfirmed commit: a fabric with one is not converged.
func (p *Plan) Empty() bool {
	s := p.Summary()
	return s.Change == 0 && s.Pending == 0
}

// Complete reports whether every device of p was read and diffed: no
// device unreachable or failed (unsupported ones are a known gap, not a
// failure of the plan).
func (p *Plan) Complete() bool {
	s := p.Summary()
	return s.Unreachable == 0 && s.Failed == 0
}

// disruptionOrder lists the classes from least to most disruptive, for
// summaries.
var disruptionOrder = []renderers.Disruption{renderers.Hitless, renderers.PortFlap, renderers.TrafficPause, renderers.Reboot}

// String gives the summary in one line, as "12 devices to change: 8
// hitless, 4 traffic-pause; 324 unchanged".
func (s Summary) String() string {
	var b strings.Builder
	if s.Change == 0 {
		b.WriteString("no changes")
	} else {
		fmt.Fprintf(&b, "%s to change:", count(s.Change, "device", "devices"))
		sep := " "
		classes := slices.Clone(disruptionOrder)
		for d := range s.ByDisruption {
			if !slices.Contains(classes, d) {
				classes = append(classes, d)
			}
		}
		for _, d := range classes {
			if n := s.ByDisruption[d]; n > 0 {
				fmt.Fprintf(&b, "%s%d %s", sep, n, d)
				sep = ", "
			}
		}
	}
	fmt.Fprintf(&b, "; %d unchanged", s.Unchanged)
	for _, x := range []struct {
		n    int
		what string
	}{{s.Unreachable, "unreachable"}, {s.Unsupported, "unsupported"}, {s.Failed, "failed"}, {s.Pending, "pending confirmation"}} {
		if x.n > 0 {
			fmt.Fprintf(&b, "; %d %s", x.n, x.what)
		}
	}
	return b.String()
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// forEach calls fn for 0..n-1 on up to parallelism goroutines; once ctx is
// done it starts no more calls (those running finish). It reports whether
// every call ran.
func forEach(ctx context.Context, n, parallelism int, fn func(i int)) bool {
	if parallelism <= 0 {
		parallelism = DefaultParallelism
	}
	parallelism = min(parallelism, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range parallelism {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	started := 0
feed:
	for ; started < n; started++ {
		if ctx.Err() != nil {
			break
		}
		select {
		case next <- started:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return started == n
}

// The calls into platforms and targets below turn a panic into an error:
// a bug in one platform's parser must cost one device, not the apply of a
// fabric with pushes in flight.

func safeRead(ctx context.Context, t Target, d *ir.Device) (arts []renderers.Artifact, err error) {
	defer func() { err = unnamed(d.Name, err) }()
	defer recoverAs(&err)
	return t.Read(ctx, d)
}

// unnamed returns err without the device's name in front of its message:
// every line that reports an error of a device (a plan's reason, an
// event, a failed wave, a stale device) names the device already, and the
// transports name it in their errors too, which said it twice ("gpu-0000:
// gpu-0000: SSH login ..."). The error still wraps err.
func unnamed(device string, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	trimmed := msg
	for strings.HasPrefix(trimmed, device+": ") {
		trimmed = trimmed[len(device)+2:]
	}
	if trimmed == msg {
		return err
	}
	return &unnamedError{msg: trimmed, err: err}
}

type unnamedError struct {
	msg string
	err error
}

func (e *unnamedError) Error() string { return e.msg }
func (e *unnamedError) Unwrap() error { return e.err }

func safeParse(p renderers.Platform, d *ir.Device, running []renderers.Artifact) (s renderers.State, err error) {
	defer recoverAs(&err)
	return p.Parse(d, running)
}

// safeDesired is also an error for a platform that gives no state and no
// error: every caller reads the state's elements.
func safeDesired(p renderers.Platform, d *ir.Device) (s renderers.State, err error) {
	defer recoverAs(&err)
	s, err = p.Desired(d)
	if err == nil && s == nil {
		err = errors.New("the platform gave no desired state")
	}
	return s, err
}

func safeDiff(p renderers.Platform, d *ir.Device, have, want renderers.State) (cs []renderers.Change, rem renderers.Remediation, err error) {
	defer recoverAs(&err)
	return p.Diff(d, have, want)
}

func recoverAs(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("internal error (a bug: please report it): %v", r)
	}
}
