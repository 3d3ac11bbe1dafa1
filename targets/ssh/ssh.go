// Package ssh is the SSH target: it reaches switches through their CLI,
// the way most production fabrics are changed, each platform through its
// own transaction: an EOS configuration session committed with a timer,
// an NVUE revision applied with --confirm, an NX-OS checkpoint file, a
// SONiC GCU checkpoint. Where the device has no commit timer (NX-OS,
// SONiC) rocefab keeps one and rolls the push back to its checkpoint when
// it lapses unconfirmed, as long as the process runs.
//
// A CLI is driven by scrapligo (prompts, privilege levels, paging off,
// the errors a platform prints), SONiC's shell one command per channel,
// both over an SSH connection this package makes
// itself on golang.org/x/crypto/ssh: ssh-agent, key files whose
// passphrase comes from the agent or a terminal prompt, or a password the
// caller read from the environment; host keys checked against known_hosts
// unless the caller asked, loudly, not to. No secret is written to any
// error, log or output of this package.
//
// A target returns a device's running configuration in the form the
// device prints it and pushes the remediation its platform computed;
// parsing and diffing stay with the platform (renderers.Platform).
package ssh

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/scrapli/scrapligo/driver/network"
	"github.com/scrapli/scrapligo/driver/options"
	"github.com/scrapli/scrapligo/platform"
	"github.com/scrapli/scrapligo/util"
	gossh "golang.org/x/crypto/ssh"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/targets"
)

// Endpoint is how one device is reached.
type Endpoint struct {
	// Address is host:port.
	Address string
	// Credentials may be shared by many devices; an encrypted key's
	// passphrase is then asked once.
	Credentials *Credentials
	// HostKeys checks the device's host key; nil means the target's.
	HostKeys *HostKeys
	// Artifact is the file name the device's running configuration is
	// read as ("<device>/<Artifact>"): its platform's artifact, which the
	// registry of platforms (targets/routing) names once.
	Artifact string
}

// Options configure a Target.
type Options struct {
	// Endpoint says how to reach a device.
	Endpoint func(d *ir.Device) (Endpoint, error)
	// HostKeys checks the devices' host keys.
	HostKeys *HostKeys
	// CommandTimeout bounds each command on a device (default 60s); the
	// context of each call bounds the whole call besides.
	CommandTimeout time.Duration
	// Diff, when set, is given the device's own diff of every push, as the
	// device printed it (EOS `show session-config diffs`), before the
	// commit.
	Diff func(device, diff string)
	// Warn, when set, is told what went wrong without failing the call:
	// a confirmed change the device could not save to its startup
	// configuration.
	Warn func(device, msg string)
	// Journal records each push with a commit timer until it is confirmed
	// or rolled back, on the platforms that cannot show their pending
	// commits, so that an apply that did not finish leaves them known
	// (nil: no record outlives the process).
	Journal *targets.Journal
}

// Target reaches devices over SSH.
type Target struct {
	opts Options

	methods targets.Keyed[*Credentials, authMethods]

	mu      sync.Mutex
	pending map[string]*pendingTx // by device: its unconfirmed transaction
}

// pendingTx is a push that waits for its confirmation. Where the device
// has no commit timer of its own, timer is rocefab's: it rolls the push
// back when it lapses, as long as this process runs.
type pendingTx struct {
	name     string
	timer    *time.Timer
	deadline time.Time
}

var (
	_ targets.Target        = (*Target)(nil)
	_ targets.Confirmer     = (*Target)(nil)
	_ targets.RollBacker    = (*Target)(nil)
	_ targets.PendingReader = (*Target)(nil)
)

// New returns an SSH target.
func New(opts Options) (*Target, error) {
	if opts.Endpoint == nil {
		return nil, errors.New("ssh target: no endpoints")
	}
	if opts.HostKeys == nil {
		opts.HostKeys = &HostKeys{}
	}
	if opts.CommandTimeout <= 0 {
		opts.CommandTimeout = 60 * time.Second
	}
	return &Target{opts: opts, pending: map[string]*pendingTx{}}, nil
}

// Close forgets the credentials' agent connections.
func (t *Target) Close() error {
	for _, m := range t.methods.Take() {
		m.close()
	}
	return nil
}

// driver is what one platform's CLI transaction does.
type driver interface {
	// scrapli is the scrapligo platform definition (assets/platforms).
	scrapli() string
	// deviceTimer reports whether the device rolls back a commit made
	// with a timer by itself; without, rocefab keeps the timer.
	deviceTimer() bool
	read(c *cli) ([]byte, error)
	// push enters lines in a transaction and commits it: with a timer
	// the device (or, without deviceTimer, rocefab) rolls it back after
	// it, without one for good. On an error nothing of lines is left
	// applied unless the error says so. The transaction is named tx, or
	// by the device: push returns the name confirm and rollback take,
	// also with an error.
	push(c *cli, tx string, lines []string, timer time.Duration, diff func(string)) (string, error)
	confirm(c *cli, tx string) error
	rollback(c *cli, tx string) error
}

// drivers by the device's platform (ir.Device.Platform).
var drivers = map[string]driver{
	"eos":   eos{},
	"nxos":  nxos{},
	"nvue":  nvue{},
	"sonic": sonic{},
}

// Platforms returns the platforms whose CLI the target speaks, sorted.
func Platforms() []string {
	return slices.Sorted(maps.Keys(drivers))
}

// Supports reports whether the target speaks to a platform's CLI.
func Supports(platform string) bool {
	_, ok := drivers[platform]
	return ok
}

// undone is a failed push that left nothing on the device: the device
// refused it and the driver took back what it had taken. Nothing waits
// for a confirmation or a rollback after it.
type undone struct{ err error }

func (u *undone) Error() string { return u.err.Error() }
func (u *undone) Unwrap() error { return u.err }

// cli is one open CLI session with a device.
type cli struct {
	device string
	warn   func(string)
	d      *network.Driver
	client *gossh.Client
	stop   func() bool
	ctx    context.Context
}

// DeviceError is an error the device printed in answer to a command.
type DeviceError struct {
	Device, Command, Output string
}

func (e *DeviceError) Error() string {
	return fmt.Sprintf("%s refused %q: %s", e.Device, e.Command, strings.TrimSpace(e.Output))
}

// send runs one command at the current prompt and returns its output, or
// a *DeviceError when the device printed one of the platform's errors.
func (c *cli) send(cmd string) (string, error) {
	r, err := c.d.Driver.SendCommand(cmd)
	if err != nil {
		return "", c.lost(cmd, err)
	}
	if r.Failed != nil {
		return r.Result, &DeviceError{Device: c.device, Command: strings.TrimSpace(cmd), Output: r.Result}
	}
	return r.Result, nil
}

// lost explains an error of the channel: the context ended (the
// connection was closed by it) or the device went away.
func (c *cli) lost(cmd string, err error) error {
	if c.ctx.Err() != nil {
		return fmt.Errorf("%s: %w while sending %q", c.device, c.ctx.Err(), strings.TrimSpace(cmd))
	}
	if errors.Is(err, util.ErrConnectionError) {
		return fmt.Errorf("%s: the connection was lost while sending %q", c.device, strings.TrimSpace(cmd))
	}
	if errors.Is(err, util.ErrTimeoutError) {
		return fmt.Errorf("%s: no prompt came back after %q: %v", c.device, strings.TrimSpace(cmd), err)
	}
	return fmt.Errorf("%s: sending %q: %w", c.device, strings.TrimSpace(cmd), err)
}

func (c *cli) close() {
	c.stop()
	// The platform's on-close leaves with `exit`; the device hanging up
	// first is how that ends.
	if c.d != nil {
		_ = c.d.Close()
	}
	c.client.Close()
}

// ExitError is a command of a device's shell that exited with a failure.
type ExitError struct {
	Device, Command string
	Status          int
	Output          string
}

func (e *ExitError) Error() string {
	return fmt.Sprintf("%s: %q exited with status %d: %s", e.Device, e.Command, e.Status, strings.TrimSpace(e.Output))
}

// run runs one command in a channel of its own, without a terminal, as
// `ssh host cmd` does: for devices whose management is a Linux shell,
// where a command's exit status says whether it failed and its input can
// be a file's content. A failure is an *ExitError with what the command
// printed on both outputs.
func (c *cli) run(cmd string, stdin []byte) (string, error) {
	sess, err := c.client.NewSession()
	if err != nil {
		return "", c.lost(cmd, err)
	}
	defer sess.Close()
	var out, errOut strings.Builder
	sess.Stdout, sess.Stderr = &out, &errOut
	if stdin != nil {
		sess.Stdin = strings.NewReader(string(stdin))
	}
	err = sess.Run(cmd)
	var ee *gossh.ExitError
	switch {
	case err == nil:
		return out.String(), nil
	case errors.As(err, &ee):
		return out.String(), &ExitError{Device: c.device, Command: cmd, Status: ee.ExitStatus(), Output: strings.TrimSpace(errOut.String() + "\n" + out.String())}
	case c.ctx.Err() != nil:
		return "", fmt.Errorf("%s: %w while running %q", c.device, c.ctx.Err(), cmd)
	}
	return "", fmt.Errorf("%s: the connection was lost while running %q: %v", c.device, cmd, err)
}

// shellDriver is a driver whose device is run command by command
// (cli.run), not through a CLI session.
type shellDriver interface {
	shell() bool
}

// pendingDriver is a driver whose device shows, to any later connection,
// a commit that waits for its confirmation.
type pendingDriver interface {
	// pending returns the transaction of rocefab's unconfirmed commit on
	// the device ("" for none) and when the device rolls it back (zero
	// when it does not say).
	pending(c *cli) (tx string, deadline time.Time, err error)
}

// formatDriver is a driver whose remediation is not CLI lines.
type formatDriver interface {
	format() renderers.Format
}

// open connects to d and opens its CLI with paging off.
func (t *Target) open(ctx context.Context, d *ir.Device) (*cli, driver, error) {
	drv, ok := drivers[d.Platform]
	if !ok {
		return nil, nil, fmt.Errorf("%s: rocefab does not speak the %s CLI over SSH", d.Name, d.Platform)
	}
	ep, err := t.opts.Endpoint(d)
	if err != nil {
		return nil, nil, err
	}
	if ep.Credentials == nil {
		return nil, nil, fmt.Errorf("%s: no credentials", d.Name)
	}
	host, _, err := net.SplitHostPort(ep.Address)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: address %q: %w", d.Name, ep.Address, err)
	}
	m := t.methods.Get(ep.Credentials)
	keys := ep.HostKeys
	if keys == nil {
		keys = t.opts.HostKeys
	}
	client, err := dial(ctx, d.Name, ep.Address, ep.Credentials, m, keys)
	if err != nil {
		return nil, nil, err
	}
	if sd, ok := drv.(shellDriver); ok && sd.shell() {
		stop := context.AfterFunc(ctx, func() { client.Close() })
		return &cli{device: d.Name, client: client, stop: stop, ctx: ctx, warn: t.warner(d)}, drv, nil
	}
	timeout := t.opts.CommandTimeout
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < timeout {
		timeout = max(time.Until(dl), time.Millisecond)
	}
	p, err := platform.NewPlatform(drv.scrapli(), host,
		options.WithCustomTransport(&shell{client: client}),
		options.WithTimeoutOps(timeout),
		options.WithTimeoutSocket(timeout),
	)
	if err != nil {
		client.Close()
		return nil, nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	nd, err := p.GetNetworkDriver()
	if err != nil {
		client.Close()
		return nil, nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	// scrapligo's operations take no context: closing the connection is
	// what cuts one short.
	stop := context.AfterFunc(ctx, func() { client.Close() })
	c := &cli{device: d.Name, d: nd, client: client, stop: stop, ctx: ctx, warn: t.warner(d)}
	if err := nd.Open(); err != nil {
		stop()
		client.Close()
		return nil, nil, c.lost("the CLI's opening commands", err)
	}
	return c, drv, nil
}

// warner tells Options.Warn about d.
func (t *Target) warner(d *ir.Device) func(string) {
	return func(msg string) {
		if t.opts.Warn != nil {
			t.opts.Warn(d.Name, msg)
		}
	}
}

// Probe connects to d, logs in and opens its CLI, and leaves: whether d
// can be reached, and what that costs, without reading anything.
func (t *Target) Probe(ctx context.Context, d *ir.Device) error {
	c, _, err := t.open(ctx, d)
	if err != nil {
		return err
	}
	c.close()
	return nil
}

// Read returns d's running configuration as the device prints it.
func (t *Target) Read(ctx context.Context, d *ir.Device) ([]renderers.Artifact, error) {
	ep, err := t.opts.Endpoint(d)
	if err != nil {
		return nil, err
	}
	if ep.Artifact == "" {
		return nil, fmt.Errorf("%s: no artifact name to read its running configuration as", d.Name)
	}
	c, drv, err := t.open(ctx, d)
	if err != nil {
		return nil, err
	}
	defer c.close()
	b, err := drv.read(c)
	if err != nil {
		return nil, err
	}
	return []renderers.Artifact{{Path: d.Name + "/" + ep.Artifact, Format: renderers.Text, Content: b}}, nil
}

// Push applies rem and commits it for good.
func (t *Target) Push(ctx context.Context, d *ir.Device, rem renderers.Remediation) error {
	return t.push(ctx, d, rem, 0)
}

// PushConfirmed applies rem in a commit the device rolls back by itself
// unless Confirm comes within timeout.
func (t *Target) PushConfirmed(ctx context.Context, d *ir.Device, rem renderers.Remediation, timeout time.Duration) error {
	if timeout < time.Second {
		return fmt.Errorf("%s: a commit timer of %s: the devices count it in seconds", d.Name, timeout)
	}
	return t.push(ctx, d, rem, timeout)
}

func (t *Target) push(ctx context.Context, d *ir.Device, rem renderers.Remediation, timer time.Duration) error {
	want := renderers.Text
	if fd, ok := drivers[d.Platform].(formatDriver); ok {
		want = fd.format()
	}
	if rem.Format != want {
		return fmt.Errorf("%s: a %s remediation, where %s takes %s", d.Name, rem.Format, d.Platform, want)
	}
	lines := remediationLines(rem.Content)
	if len(lines) == 0 {
		if timer > 0 {
			// Nothing to push: its confirmation and rollback have
			// nothing to do either.
			t.mu.Lock()
			t.pending[d.Name] = &pendingTx{}
			t.mu.Unlock()
		}
		return nil
	}
	c, drv, err := t.open(ctx, d)
	if err != nil {
		return err
	}
	defer c.close()
	tx, err := txName()
	if err != nil {
		return err
	}
	var diff func(string)
	if t.opts.Diff != nil {
		diff = func(s string) { t.opts.Diff(d.Name, s) }
	}
	p := &pendingTx{name: tx}
	if timer > 0 {
		p.deadline = time.Now().Add(timer)
		if err := t.record(d, drv, p); err != nil {
			return err
		}
	}
	t.mu.Lock()
	t.pending[d.Name] = p
	t.mu.Unlock()
	name, err := drv.push(c, tx, lines, timer, diff)
	t.mu.Lock()
	renamed := name != "" && name != p.name
	if renamed {
		p.name = name
	}
	t.mu.Unlock()
	if renamed && timer > 0 {
		err = errors.Join(err, t.record(d, drv, p))
	}
	var u *undone
	switch {
	case errors.As(err, &u), timer == 0 && err == nil:
		t.mu.Lock()
		delete(t.pending, d.Name)
		t.mu.Unlock()
		if timer > 0 {
			err = errors.Join(err, t.opts.Journal.Remove(d.Name))
		}
	case timer > 0 && !drv.deviceTimer():
		// Also after a failed push: what the device took of it, its
		// checkpoint takes back.
		t.mu.Lock()
		p.timer, p.deadline = time.AfterFunc(timer, func() { t.lapse(d, p) }), time.Now().Add(timer)
		t.mu.Unlock()
	}
	return err
}

// lapse rolls back a push whose confirmation did not come in time, for a
// device without a commit timer of its own. The rollout that waits for
// the lapse reads the device back and reports what it finds.
func (t *Target) lapse(d *ir.Device, p *pendingTx) {
	t.mu.Lock()
	if t.pending[d.Name] != p {
		t.mu.Unlock()
		return
	}
	delete(t.pending, d.Name)
	t.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*t.opts.CommandTimeout)
	defer cancel()
	c, drv, err := t.open(ctx, d)
	if err != nil {
		return
	}
	defer c.close()
	if drv.rollback(c, p.name) == nil {
		_ = t.opts.Journal.Remove(d.Name) // read again as pending, and settled, if it stays
	}
}

// take removes d's pending transaction for Confirm or Rollback; one whose
// rocefab-side timer already fired is gone.
func (t *Target) take(d *ir.Device, what string) (*pendingTx, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.pending[d.Name]
	if !ok {
		return nil, fmt.Errorf("%s: no commit of this apply waits to be %s (its timer may have lapsed and rolled it back)", d.Name, what)
	}
	if p.timer != nil && !p.timer.Stop() {
		return nil, fmt.Errorf("%s: its confirm timer lapsed: the push is being rolled back", d.Name)
	}
	delete(t.pending, d.Name)
	return p, nil
}

// restore puts back a transaction whose confirmation or rollback failed,
// with its timer running again for what remains of it.
func (t *Target) restore(d *ir.Device, p *pendingTx) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p.timer != nil {
		p.timer = time.AfterFunc(max(time.Until(p.deadline), 0), func() { t.lapse(d, p) })
	}
	t.pending[d.Name] = p
}

// Confirm makes d's pending commit permanent.
func (t *Target) Confirm(ctx context.Context, d *ir.Device) error {
	return t.settle(ctx, d, "confirmed", driver.confirm)
}

// Rollback takes back d's last push that is not confirmed.
func (t *Target) Rollback(ctx context.Context, d *ir.Device) error {
	return t.settle(ctx, d, "rolled back", driver.rollback)
}

// settle ends d's pending commit with end (a driver's confirm or
// rollback), named verb in the error when there is none. A commit that
// could not be ended stays pending: unconfirmed, the push must still be
// rolled back, by the device's timer, a Rollback, or rocefab's timer at
// once.
func (t *Target) settle(ctx context.Context, d *ir.Device, verb string, end func(driver, *cli, string) error) error {
	p, err := t.take(d, verb)
	if err != nil {
		return err
	}
	if p.name == "" {
		return nil
	}
	c, drv, err := t.open(ctx, d)
	if err == nil {
		defer c.close()
		err = end(drv, c, p.name)
	}
	if err != nil {
		t.restore(d, p)
		return err
	}
	return t.opts.Journal.Remove(d.Name)
}

// Pending returns d's unconfirmed commit, nil when it has none. A device
// that shows its pending commits (pendingDriver) is asked, so that a
// commit an apply left behind when it was killed is found by the next
// one, which can then confirm or roll it back by the transaction's name.
// The others' pushes are known to this process and to the journal, which
// outlives it: a push whose device keeps the timer (NVUE) is pending until
// its deadline; one whose timer was rocefab's stays on the device until it
// is settled, and is pending with no deadline.
func (t *Target) Pending(ctx context.Context, d *ir.Device) (*targets.PendingCommit, error) {
	if drv, ok := drivers[d.Platform]; ok {
		if _, ok := drv.(pendingDriver); !ok {
			return t.journaled(d, drv)
		}
	}
	c, drv, err := t.open(ctx, d)
	if err != nil {
		return nil, err
	}
	defer c.close()
	tx, deadline, err := drv.(pendingDriver).pending(c)
	if err != nil || tx == "" {
		return nil, err
	}
	t.mu.Lock()
	if p := t.pending[d.Name]; p == nil || p.name != tx {
		t.pending[d.Name] = &pendingTx{name: tx, deadline: deadline}
	}
	t.mu.Unlock()
	return &targets.PendingCommit{Device: d.Name, Deadline: deadline}, nil
}

// journaled is Pending for a device that cannot show its pending commits.
func (t *Target) journaled(d *ir.Device, drv driver) (*targets.PendingCommit, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p := t.pending[d.Name]; p != nil && p.name != "" {
		if p.timer != nil {
			return &targets.PendingCommit{Device: d.Name, Deadline: p.deadline.UTC().Truncate(time.Second)}, nil
		}
		if !drv.deviceTimer() {
			return &targets.PendingCommit{Device: d.Name}, nil
		}
		if time.Now().Before(p.deadline) {
			return &targets.PendingCommit{Device: d.Name, Deadline: p.deadline}, nil
		}
		delete(t.pending, d.Name) // the device's timer rolled it back
	}
	e, err := t.opts.Journal.Load(d.Name)
	if err != nil || e == nil {
		return nil, err
	}
	if e.Transport != "ssh" {
		return nil, fmt.Errorf("the pending-push journal records a push by %s: settle it through that transport", e.Transport)
	}
	if !drv.deviceTimer() {
		t.pending[d.Name] = &pendingTx{name: e.ID}
		return &targets.PendingCommit{Device: d.Name}, nil
	}
	if !time.Now().Before(e.Deadline) {
		return nil, t.opts.Journal.Remove(d.Name)
	}
	t.pending[d.Name] = &pendingTx{name: e.ID, deadline: e.Deadline}
	return &targets.PendingCommit{Device: d.Name, Deadline: e.Deadline}, nil
}

// record writes d's push p down in the journal, with the deadline of the
// device's own timer where it keeps one.
func (t *Target) record(d *ir.Device, drv driver, p *pendingTx) error {
	if _, ok := drv.(pendingDriver); ok {
		return nil // the device shows it
	}
	e := targets.JournalEntry{Device: d.Name, Transport: "ssh", ID: p.name}
	if drv.deviceTimer() {
		e.Deadline = p.deadline.Add(time.Second - 1).UTC().Truncate(time.Second)
	}
	if err := t.opts.Journal.Record(e); err != nil {
		return fmt.Errorf("%s: not pushed: %w", d.Name, err)
	}
	return nil
}

// remediationLines are the lines to type: blank lines dropped, the
// indentation the platform gave kept (the CLIs read it as the running
// configuration prints it).
func remediationLines(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimRight(l, " \t\r")
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// txPrefix starts the name of every transaction rocefab opens: the
// sessions it may settle; others belong to other operators.
const txPrefix = "rocefab-"

// txName names a transaction: unique, so that two applies never enter the
// same session, and short, since prompts show it.
func txName() (string, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return txPrefix + hex.EncodeToString(b[:]), nil
}

// timerText is a commit timer as hh:mm:ss, rounded up to the second.
func timerText(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second)
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
}

// shownConfig is the configuration a show command printed as out: the
// blank lines the CLI prints before it dropped, and ending in a newline
// as the platform's own text does, so that it compares with it.
func shownConfig(out string, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	s := strings.TrimLeft(out, "\n")
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return []byte(s), nil
}
