// Package host is the target of Linux servers: it changes a server by
// running the host runtime rocefab renders (hosts/rocefab-host.sh with the
// server's host.conf), over SSH or, for a server at localhost, on this
// machine.
//
// Read runs the installed runtime with --check --json and returns its
// report as <server>/host-state.json, which the host platform
// (renderers/host) parses; a server without the runtime or without
// settings runs nothing yet. Push installs what the remediation carries
// (the server's host.conf, and the runtime when the installed one is not
// this build's), each written beside its place and renamed over it, runs
// the runtime for real (only the sections the remediation names), and
// reads the server back with --check on those sections: a run that
// fails, or leaves a difference, is an error with the runtime's ERROR or
// DRIFT lines, and the server is put back as it was (see Rollback). Every
// command runs behind the configured prefix (sudo -n where the inventory
// says sudo), as root: the runtime writes the NICs and tc.
//
// A server has no commit-confirm of its own. Rollback is rocefab's: Push
// keeps the server's previous host.conf (and runtime, when it replaced
// it), and Rollback installs them again and re-runs the same sections
// with them. That returns the server to its state of before exactly where
// the server was in sync with its previous settings; Push checks that
// first, and where it was not (drift), a rollback sets those settings as
// the previous host.conf says, not as they were, and the rollout's
// read-back reports the difference. A server that had no host.conf
// cannot be rolled back: nothing says what its NICs ran before, and
// Rollback says so. PushConfirmed is Push with a timer in this process
// that rolls back unless Confirm comes in time; if rocefab itself stops,
// the push stays, and the journal (Options.Journal) keeps what undoes it
// for the next apply, which finds it pending and settles it.
package host

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/targets"
)

// Options configure a Target.
type Options struct {
	// Connect logs in to a server: SSH(client) or Local().
	Connect func(ctx context.Context, d *ir.Device) (Conn, error)
	// Prefix goes before every command run on a server, to run it as
	// root ("sudo", "-n": never asking a password that nobody would type)
	// or in another context ("ip", "netns", "exec", NS); empty runs the
	// commands as the user logged in.
	Prefix []string
	// Runtime is the runtime file of this build (hosts/rocefab-host.sh),
	// installed where the server's differs.
	Runtime []byte
	// RuntimePath and SettingsPath are where the runtime and host.conf
	// live on a server, as the remediation names them
	// (renderers/host.RuntimePath, SettingsPath).
	RuntimePath, SettingsPath string
	// StateFile is the name a server's running state is read as, below
	// its directory: the runtime's --check --json report, the file
	// renderers/host parses and the directory target keeps
	// (renderers/host.StateFile, which the registry of platforms names).
	StateFile string
	// Root, when set, is a directory of the server below which both paths
	// are kept instead of /, for a server image or a test.
	Root string
	// CommandTimeout bounds each command (default 15 minutes: the runtime
	// waits up to 900 s for another run's lock); the context of each call
	// bounds the call besides.
	CommandTimeout time.Duration
	// Journal records each push with a timer, with what undoes it, until
	// it is confirmed or rolled back, so that an apply that did not finish
	// leaves its pushes known (nil: no record outlives the process).
	Journal *targets.Journal
}

// SudoPrefix is the prefix of every command on a server the inventory
// reaches with sudo: true: -n fails at once rather than wait for a
// password nobody types (sudo(8), https://www.sudo.ws/docs/man/sudo.man/#n).
// Behind it run `sh -c` (the scripts that read and install the files) and
// the runtime at its path: the sudoers entry docs/transports.md gives
// allows exactly those two, and a test runs it with real sudo.
func SudoPrefix() []string { return []string{"sudo", "-n"} }

// Target reaches Linux servers through their host runtime.
type Target struct {
	opts          Options
	runtimeSHA    string // of the whole file
	runtimeDigest string // its RUNTIME_DIGEST, which host.conf names

	mu      sync.Mutex
	devices targets.Keyed[string, sync.Mutex]
	pending map[string]*pushed
}

var (
	_ targets.Target        = (*Target)(nil)
	_ targets.Confirmer     = (*Target)(nil)
	_ targets.PendingReader = (*Target)(nil)
	_ targets.RollBacker    = (*Target)(nil)
)

// digestLine is how the runtime states its digest (renderers/host
// runtimeFile: `readonly RUNTIME_DIGEST='<sha256>'`).
var digestLine = regexp.MustCompile(`(?m)^readonly RUNTIME_DIGEST='([0-9a-f]{64})'$`)

// New returns a host target.
func New(opts Options) (*Target, error) {
	if opts.Connect == nil {
		return nil, errors.New("host target: no way to connect to servers")
	}
	for _, p := range []struct{ name, value string }{{"runtime path", opts.RuntimePath}, {"settings path", opts.SettingsPath}} {
		if !path.IsAbs(p.value) || path.Clean(p.value) != p.value || p.value == "/" {
			return nil, fmt.Errorf("host target: %s %q: want an absolute, clean path of a file", p.name, p.value)
		}
	}
	if opts.StateFile == "" || path.Base(opts.StateFile) != opts.StateFile || opts.StateFile == "." || opts.StateFile == ".." {
		return nil, fmt.Errorf("host target: state file %q: want the name of a file", opts.StateFile)
	}
	if opts.Root != "" && (!path.IsAbs(opts.Root) || path.Clean(opts.Root) != opts.Root) {
		return nil, fmt.Errorf("host target: root %q: want an absolute, clean path", opts.Root)
	}
	m := digestLine.FindSubmatch(opts.Runtime)
	if m == nil {
		return nil, errors.New("host target: the runtime has no RUNTIME_DIGEST line: it is not rocefab-host.sh")
	}
	if opts.CommandTimeout <= 0 {
		opts.CommandTimeout = 15 * time.Minute
	}
	return &Target{opts: opts, runtimeSHA: sha256Hex(opts.Runtime), runtimeDigest: string(m[1]),
		pending: map[string]*pushed{}}, nil
}

// sha256Hex is b's SHA-256 as sha256sum prints it, the form in which the
// runtime's digest and a remediation's settings are compared.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// String describes the target for plans and reports.
func (t *Target) String() string { return "host runtime " + t.runtimePath() }

func (t *Target) runtimePath() string  { return path.Join("/", t.opts.Root, t.opts.RuntimePath) }
func (t *Target) settingsPath() string { return path.Join("/", t.opts.Root, t.opts.SettingsPath) }

// session is one login to a server for one call.
type session struct {
	t    *Target
	d    *ir.Device
	conn Conn
	// journal says the push waits for a confirmation: it is written down
	// in the journal before the server changes.
	journal bool
}

func (t *Target) open(ctx context.Context, d *ir.Device) (*session, error) {
	if d == nil {
		return nil, errors.New("host target: nil device")
	}
	if err := renderers.CheckName("device", d.Name); err != nil {
		return nil, err
	}
	c, err := t.opts.Connect(ctx, d)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	if c == nil {
		return nil, fmt.Errorf("%s: no connection", d.Name)
	}
	return &session{t: t, d: d, conn: c}, nil
}

func (s *session) close() { s.conn.Close() }

// run runs argv behind the prefix.
func (s *session) run(ctx context.Context, argv []string, stdin []byte) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, s.t.opts.CommandTimeout)
	defer cancel()
	full := append(slices.Clone(s.t.opts.Prefix), argv...)
	r, err := s.conn.Run(ctx, full, stdin)
	if err != nil {
		return r, fmt.Errorf("%s: %w", s.d.Name, err)
	}
	return r, nil
}

// script runs a POSIX sh script with its arguments ($1...), named name
// ($0) in the shell's messages (POSIX.1-2024 XCU sh, -c).
func (s *session) script(ctx context.Context, name, script string, stdin []byte, args ...string) (Result, error) {
	return s.run(ctx, append([]string{"sh", "-c", script, name}, args...), stdin)
}

// The scripts the target runs on a server: POSIX sh and coreutils
// (test, cat, wc -c, head -c, sha256sum, mkdir -p, mktemp, chmod, mv),
// nothing else. readScript's statuses 3 and 4 say a file is absent:
// neither the runtime (0, 1, 2) nor sh and sudo (1, 126, 127) exit with
// them.
const (
	// readScript: the runtime's report, or status 3 (no runtime) or 4
	// (no settings) with a line saying which.
	readScript = `if [ ! -e "$1" ]; then echo "rocefab: no runtime at $1" >&2; exit 3; fi
if [ ! -e "$2" ]; then echo "rocefab: no settings at $2" >&2; exit 4; fi
exec "$1" --check --json --settings "$2"`
	// beforeScript prints what a push replaces, in one command (each
	// costs a channel and the login shell's start): "settings N" and the N
	// bytes of the settings $1, or "settings absent"; then "runtime same"
	// when the runtime $2 has the SHA-256 $3, else "runtime N" and its N
	// bytes, or "runtime absent". head -c prints no more than was
	// counted, should the file grow meanwhile.
	beforeScript = `set -e
if [ -e "$1" ]; then
	n=$(wc -c <"$1")
	printf 'settings %d\n' "$n"
	head -c "$n" -- "$1"
else
	echo 'settings absent'
fi
if [ -e "$2" ]; then
	sum=$(sha256sum -- "$2")
	if [ "${sum%% *}" = "$3" ]; then
		echo 'runtime same'
	else
		n=$(wc -c <"$2")
		printf 'runtime %d\n' "$n"
		head -c "$n" -- "$2"
	fi
else
	echo 'runtime absent'
fi`
	// installScript writes stdin to $1 with mode $2: into a new file
	// beside it (mktemp creates it 0600, GNU coreutils "mktemp
	// invocation"), then renamed over it (mv within a directory is
	// rename(2), which replaces the file at once), so that the runtime,
	// the systemd unit or a reader never sees half a file.
	installScript = `set -e
umask 022
mkdir -p -- "${1%/*}"
tmp=$(mktemp -- "$1.rocefab-XXXXXX")
trap 'rm -f -- "$tmp"' EXIT
cat >"$tmp"
chmod -- "$2" "$tmp"
mv -f -- "$tmp" "$1"
trap - EXIT`
)

// statusNoRuntime and statusNoSettings are readScript's statuses for a
// runtime or settings that do not exist.
const (
	statusNoRuntime  = 3
	statusNoSettings = 4
)

// Read runs the installed runtime's check and returns its report as
// <server>/host-state.json. A server without the runtime or without its
// settings runs nothing rocefab wrote yet: no artifacts. A report the
// runtime printed with errors (status 2) is returned as it is: the
// platform refuses it with them.
func (t *Target) Read(ctx context.Context, d *ir.Device) ([]renderers.Artifact, error) {
	s, err := t.open(ctx, d)
	if err != nil {
		return nil, err
	}
	defer s.close()
	return s.read(ctx)
}

func (s *session) read(ctx context.Context) ([]renderers.Artifact, error) {
	r, err := s.script(ctx, "rocefab-read", readScript, nil, s.t.runtimePath(), s.t.settingsPath())
	if err != nil {
		return nil, err
	}
	switch {
	case (r.Status == statusNoRuntime || r.Status == statusNoSettings) && bytes.HasPrefix(r.Stderr, []byte("rocefab: no ")):
		return nil, nil
	case r.Status <= 2 && isJSONObject(r.Stdout):
		return []renderers.Artifact{{Path: s.d.Name + "/" + s.t.opts.StateFile, Format: renderers.JSON, Content: r.Stdout}}, nil
	}
	return nil, fmt.Errorf("%s: %s --check --json exited %d without a report: %s", s.d.Name, s.t.runtimePath(), r.Status, s.t.why(r))
}

// isJSONObject says whether b is one JSON object.
func isJSONObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

// why sums up a failed command: the runtime's ERROR lines and the line
// it died with, else the last lines it printed on stderr.
func (t *Target) why(r Result) string {
	const maxLines, maxLine = 20, 400
	die := path.Base(t.opts.RuntimePath) + ": "
	var picked, tail []string
	for _, src := range [][]byte{r.Stderr, r.Stdout} {
		for line := range strings.Lines(string(src)) {
			line = strings.TrimRight(line, "\r\n")
			if len(line) > maxLine {
				line = line[:maxLine] + "..."
			}
			if strings.HasPrefix(line, "ERROR ") || strings.HasPrefix(line, "DRIFT ") || strings.HasPrefix(line, die) {
				picked = append(picked, line)
			} else if strings.TrimSpace(line) != "" && bytes.Equal(src, r.Stderr) {
				tail = append(tail, line)
			}
		}
	}
	if len(picked) == 0 {
		picked = tail[max(len(tail)-5, 0):]
	}
	if len(picked) == 0 {
		return "it printed nothing"
	}
	if len(picked) > maxLines {
		picked = append(picked[:maxLines], fmt.Sprintf("(and %d lines more)", len(picked)-maxLines))
	}
	return strings.Join(picked, "; ")
}

// remedy is the part of renderers/host's remediation the target acts on:
// the server, the runtime the settings are for, the settings to install
// and the sections to run.
type remedy struct {
	Device  string `json:"device"`
	Runtime string `json:"runtime"`
	Install struct {
		Path    string `json:"path"`
		SHA256  string `json:"sha256"`
		Content string `json:"content"`
	} `json:"install"`
	Sections []string `json:"sections"`
}

// sections are the runtime's sections (rocefab-host.sh --only).
var sections = []string{"mtu", "qos", "ecn", "tos", "shaping", "pfc"}

// decode reads and checks a remediation; nil when there is nothing to
// do. A remediation from a saved plan is data a user could have edited,
// and it is run as root: it may install host.conf only where the target
// keeps it, with the bytes its digest names, for this build's runtime.
func (t *Target) decode(d *ir.Device, rem renderers.Remediation) (*remedy, error) {
	if len(bytes.TrimSpace(rem.Content)) == 0 {
		return nil, nil
	}
	if rem.Format != renderers.JSON {
		return nil, fmt.Errorf("%s: a host remediation in %s: want json", d.Name, rem.Format)
	}
	var r remedy
	if err := json.Unmarshal(rem.Content, &r); err != nil {
		return nil, fmt.Errorf("%s: the remediation is not a host remediation: %w", d.Name, err)
	}
	if r.Device != d.Name {
		return nil, fmt.Errorf("%s: the remediation is for device %q", d.Name, r.Device)
	}
	if r.Install.Path != t.opts.SettingsPath {
		return nil, fmt.Errorf("%s: the remediation installs %q: the settings go to %s only", d.Name, r.Install.Path, t.opts.SettingsPath)
	}
	if sha256Hex([]byte(r.Install.Content)) != r.Install.SHA256 {
		return nil, fmt.Errorf("%s: the settings in the remediation do not have the SHA-256 %q it states", d.Name, r.Install.SHA256)
	}
	if r.Runtime != t.runtimeDigest {
		return nil, fmt.Errorf("%s: the remediation's settings are for runtime %.16s, and this rocefab installs runtime %.16s: plan again with this rocefab", d.Name, r.Runtime, t.runtimeDigest)
	}
	seen := map[string]bool{}
	for _, s := range r.Sections {
		if !slices.Contains(sections, s) || seen[s] {
			return nil, fmt.Errorf("%s: the remediation names section %q: want each of %s at most once", d.Name, s, strings.Join(sections, ", "))
		}
		seen[s] = true
	}
	return &r, nil
}

// pushed is what a push changed on a server, kept to undo it.
type pushed struct {
	// noop is a push of an empty remediation: nothing to undo.
	noop bool
	// hadConf and conf are the server's host.conf before the push.
	hadConf bool
	conf    []byte
	// replacedRuntime says the push installed the runtime; hadRuntime
	// and runtime are the one before.
	replacedRuntime, hadRuntime bool
	runtime                     []byte
	sections                    []string
	// drift is where the server differed from its previous settings
	// before the push (the runtime's DRIFT lines): a rollback sets those
	// as the settings say.
	drift []string

	timer    *time.Timer
	deadline time.Time
	// lapsed is set when the timer ran out; lapseErr is how its rollback
	// went.
	lapsed   bool
	lapseErr error
}

// before reads beforeScript's output into p.
func (p *pushed) before(out []byte) error {
	// file reads one "NAME N" or "NAME WORD" line and the N bytes after it.
	file := func(name string) (word string, content []byte, err error) {
		line, rest, ok := bytes.Cut(out, []byte("\n"))
		f := strings.Fields(string(line))
		if !ok || len(f) != 2 || f[0] != name {
			return "", nil, fmt.Errorf("%q where the %s was expected", line, name)
		}
		out = rest
		n, err := strconv.Atoi(f[1])
		if err != nil {
			return f[1], nil, nil
		}
		if n < 0 || n > len(out) {
			return "", nil, fmt.Errorf("the %s's %d bytes were not all printed", name, n)
		}
		content, out = out[:n], out[n:]
		return "", content, nil
	}
	word, conf, err := file("settings")
	switch {
	case err != nil:
		return err
	case conf != nil:
		p.hadConf, p.conf = true, conf
	case word != "absent":
		return fmt.Errorf("settings %q", word)
	}
	word, rt, err := file("runtime")
	switch {
	case err != nil:
		return err
	case rt != nil:
		p.hadRuntime, p.replacedRuntime, p.runtime = true, true, rt
	case word == "same":
		p.hadRuntime = true
	case word == "absent":
		p.replacedRuntime = true
	default:
		return fmt.Errorf("runtime %q", word)
	}
	if len(out) > 0 {
		return fmt.Errorf("%d bytes after the runtime", len(out))
	}
	return nil
}

// runArgs is the runtime's command line with settings at settings.
func (t *Target) runArgs(settings string, secs []string, check bool) []string {
	argv := []string{t.runtimePath()}
	if check {
		argv = append(argv, "--check")
	}
	argv = append(argv, "--settings", settings)
	if len(secs) > 0 {
		argv = append(argv, "--only", strings.Join(secs, ","))
	}
	return argv
}

// push applies r: see the package doc. On failure the server is put back
// and the error says how that went.
func (s *session) push(ctx context.Context, r *remedy) (*pushed, error) {
	t, name := s.t, s.d.Name
	p := &pushed{sections: r.Sections}
	res, err := s.script(ctx, "rocefab-before", beforeScript, nil, t.settingsPath(), t.runtimePath(), t.runtimeSHA)
	if err != nil {
		return nil, err
	}
	if res.Status != 0 {
		return nil, fmt.Errorf("%s: cannot read its settings %s and runtime %s (status %d): %s", name, t.settingsPath(), t.runtimePath(), res.Status, t.why(res))
	}
	if err := p.before(res.Stdout); err != nil {
		return nil, fmt.Errorf("%s: reading its settings %s and runtime %s: %w", name, t.settingsPath(), t.runtimePath(), err)
	}
	if p.hadConf && p.hadRuntime {
		// Where the server is not what its previous settings say, a
		// rollback cannot put it back as it was: note where.
		res, err = s.run(ctx, t.runArgs(t.settingsPath(), p.sections, true), nil)
		if err != nil {
			return nil, err
		}
		if res.Status != 0 {
			p.drift = []string{t.why(res)}
		}
	}
	// From here on the server changes: a push with a timer is written
	// down first, with what undoes it.
	if s.journal {
		if err := t.record(s.d, p); err != nil {
			return nil, err
		}
	}
	fail := func(err error) (*pushed, error) {
		note, rerr := s.restore(context.WithoutCancel(ctx), p)
		if s.journal && rerr == nil {
			// Put back: nothing waits. One that could not be stays
			// written down, as what the next apply must settle.
			_ = t.opts.Journal.Remove(name)
		}
		switch {
		case rerr != nil:
			return nil, &targets.PutBackError{Err: err, PutBack: rerr}
		case note != "":
			return nil, fmt.Errorf("%w; its previous settings were installed and run again (%s)", err, note)
		}
		return nil, fmt.Errorf("%w; its previous settings were installed and run again", err)
	}
	if p.replacedRuntime {
		if err := s.install(ctx, t.runtimePath(), "0755", t.opts.Runtime); err != nil {
			return fail(err)
		}
	}
	if err := s.install(ctx, t.settingsPath(), "0644", []byte(r.Install.Content)); err != nil {
		return fail(err)
	}
	res, err = s.run(ctx, t.runArgs(t.settingsPath(), p.sections, false), nil)
	if err != nil {
		return fail(err)
	}
	if res.Status != 0 {
		return fail(fmt.Errorf("%s: the runtime failed (status %d): %s", name, res.Status, t.why(res)))
	}
	res, err = s.run(ctx, t.runArgs(t.settingsPath(), p.sections, true), nil)
	if err != nil {
		return fail(err)
	}
	if res.Status != 0 {
		return fail(fmt.Errorf("%s: after the run, the runtime's check still finds differences (status %d): %s", name, res.Status, t.why(res)))
	}
	return p, nil
}

// install writes content to file on the server (installScript).
func (s *session) install(ctx context.Context, file, mode string, content []byte) error {
	res, err := s.script(ctx, "rocefab-install", installScript, content, file, mode)
	if err != nil {
		return err
	}
	if res.Status != 0 {
		return fmt.Errorf("%s: cannot install %s (status %d): %s", s.d.Name, file, res.Status, s.t.why(res))
	}
	return nil
}

// errNoEarlier is a server that had no settings before the push.
var errNoEarlier = errors.New("it had no host.conf before this push, so nothing says what its NICs and tc ran before: the pushed settings stay in place")

// restore installs the server's files of before p and runs its previous
// settings' sections. note says where the server had drifted from them,
// which the run set as the settings say rather than as they were.
func (s *session) restore(ctx context.Context, p *pushed) (note string, err error) {
	t := s.t
	if p.noop {
		return "", nil
	}
	if !p.hadConf {
		return "", fmt.Errorf("%s: %w", s.d.Name, errNoEarlier)
	}
	if p.replacedRuntime && p.hadRuntime {
		if err := s.install(ctx, t.runtimePath(), "0755", p.runtime); err != nil {
			return "", err
		}
	}
	if err := s.install(ctx, t.settingsPath(), "0644", p.conf); err != nil {
		return "", err
	}
	if !p.hadRuntime {
		return "", fmt.Errorf("%s: its previous host.conf is back, but it had no runtime to run it with", s.d.Name)
	}
	res, err := s.run(ctx, t.runArgs(t.settingsPath(), p.sections, false), nil)
	if err != nil {
		return "", err
	}
	if res.Status != 0 {
		return "", fmt.Errorf("%s: running its previous settings failed (status %d): %s", s.d.Name, res.Status, t.why(res))
	}
	if len(p.drift) > 0 {
		note = "before the push it differed from them: " + strings.Join(p.drift, "; ")
	}
	return note, nil
}

// Push applies rem to d and checks it took; a push that fails is undone
// at once where the server had settings before, and the error says what
// the server runs.
func (t *Target) Push(ctx context.Context, d *ir.Device, rem renderers.Remediation) error {
	_, err := t.lockedPush(ctx, d, rem, false)
	return err
}

func (t *Target) lockedPush(ctx context.Context, d *ir.Device, rem renderers.Remediation, confirmed bool) (*pushed, error) {
	unlock, err := t.lock(d)
	if err != nil {
		return nil, err
	}
	defer unlock()
	t.mu.Lock()
	p := t.pending[d.Name]
	if p != nil && p.lapsed {
		delete(t.pending, d.Name)
		p = nil
	}
	t.mu.Unlock()
	if p != nil {
		return nil, fmt.Errorf("%s: a push is waiting for its confirmation", d.Name)
	}
	r, err := t.decode(d, rem)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return &pushed{noop: true}, nil
	}
	s, err := t.open(ctx, d)
	if err != nil {
		return nil, err
	}
	defer s.close()
	s.journal = confirmed
	return s.push(ctx, r)
}

// PushConfirmed pushes rem as Push does and rolls it back (Rollback) when
// Confirm has not come within timeout. The timer runs in this process:
// the server has none.
func (t *Target) PushConfirmed(ctx context.Context, d *ir.Device, rem renderers.Remediation, timeout time.Duration) error {
	p, err := t.lockedPush(ctx, d, rem, true)
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p.deadline = time.Now().Add(timeout)
	p.timer = time.AfterFunc(timeout, func() { t.lapse(d, p) })
	t.pending[d.Name] = p
	return nil
}

// lapse rolls back a push whose confirmation did not come in time.
func (t *Target) lapse(d *ir.Device, p *pushed) {
	m := t.devices.Get(d.Name)
	m.Lock()
	defer m.Unlock()
	t.mu.Lock()
	mine := t.pending[d.Name] == p && !p.lapsed
	t.mu.Unlock()
	if !mine {
		return
	}
	err := t.undo(context.Background(), d, p)
	if err == nil {
		err = t.opts.Journal.Remove(d.Name)
	}
	t.mu.Lock()
	p.lapsed, p.lapseErr = true, err
	t.mu.Unlock()
}

// undo restores what p changed; a drift note is not an error (the
// rollout's read-back reports the difference).
func (t *Target) undo(ctx context.Context, d *ir.Device, p *pushed) error {
	if p.noop {
		return nil
	}
	if !p.hadConf {
		return fmt.Errorf("%s: %w", d.Name, errNoEarlier)
	}
	s, err := t.open(ctx, d)
	if err != nil {
		return err
	}
	defer s.close()
	_, err = s.restore(ctx, p)
	return err
}

// take removes d's pending push for Confirm or Rollback.
func (t *Target) take(d *ir.Device, what string) (*pushed, error) {
	if d == nil {
		return nil, errors.New("host target: nil device")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.pending[d.Name]
	if p == nil {
		return nil, fmt.Errorf("%s: no push of this apply waits to be %s", d.Name, what)
	}
	delete(t.pending, d.Name)
	if p.timer != nil {
		p.timer.Stop()
	}
	return p, nil
}

// settle holds d's lock, takes its pending push for Confirm or Rollback,
// and settles it with f.
func (t *Target) settle(d *ir.Device, what string, f func(p *pushed) error) error {
	unlock, err := t.lock(d)
	if err != nil {
		return err
	}
	defer unlock()
	p, err := t.take(d, what)
	if err != nil {
		return err
	}
	return f(p)
}

// Confirm keeps d's pending push. One whose timer ran out was rolled
// back: Confirm says so, and how the rollback went.
func (t *Target) Confirm(ctx context.Context, d *ir.Device) error {
	return t.settle(d, "confirmed", func(p *pushed) error {
		if p.lapsed {
			if p.lapseErr != nil {
				return fmt.Errorf("%s: its confirm timer lapsed, and rolling back failed: %v", d.Name, p.lapseErr)
			}
			return fmt.Errorf("%s: its confirm timer lapsed: the push was rolled back", d.Name)
		}
		return t.opts.Journal.Remove(d.Name)
	})
}

// Rollback undoes d's pending push: its previous host.conf (and runtime)
// installed again and the pushed sections run with them. A server that
// had no host.conf before cannot be: the error says so and the push
// stays.
func (t *Target) Rollback(ctx context.Context, d *ir.Device) error {
	return t.settle(d, "rolled back", func(p *pushed) error {
		if p.lapsed {
			return p.lapseErr
		}
		if err := t.undo(ctx, d, p); err != nil {
			return err
		}
		return t.opts.Journal.Remove(d.Name)
	})
}

// lock holds d's mutex, one call at a time per server, until unlock.
func (t *Target) lock(d *ir.Device) (unlock func(), err error) {
	if d == nil {
		return nil, errors.New("host target: nil device")
	}
	m := t.devices.Get(d.Name)
	m.Lock()
	return m.Unlock, nil
}

// undoRecord is what the journal keeps of a push to take it back.
type undoRecord struct {
	Noop            bool     `json:"noop,omitempty"`
	HadConf         bool     `json:"hadConf"`
	Conf            []byte   `json:"conf,omitempty"`
	ReplacedRuntime bool     `json:"replacedRuntime"`
	HadRuntime      bool     `json:"hadRuntime"`
	Runtime         []byte   `json:"runtime,omitempty"`
	Sections        []string `json:"sections"`
	Drift           []string `json:"drift,omitempty"`
}

// record writes d's push p down in the journal before the server changes.
func (t *Target) record(d *ir.Device, p *pushed) error {
	undo, err := json.Marshal(undoRecord{Noop: p.noop, HadConf: p.hadConf, Conf: p.conf, ReplacedRuntime: p.replacedRuntime,
		HadRuntime: p.hadRuntime, Runtime: p.runtime, Sections: p.sections, Drift: p.drift})
	if err != nil {
		return err
	}
	if err := t.opts.Journal.Record(targets.JournalEntry{Device: d.Name, Transport: "host", Undo: undo}); err != nil {
		return fmt.Errorf("%s: not pushed: %w", d.Name, err)
	}
	return nil
}

// Pending returns d's push that waits for its confirmation: this
// process's, until its timer lapses, or one the journal records of an
// apply that did not finish, which stays on the server until it is
// settled (its timer died with that apply) and so has no deadline.
func (t *Target) Pending(ctx context.Context, d *ir.Device) (*targets.PendingCommit, error) {
	unlock, err := t.lock(d)
	if err != nil {
		return nil, err
	}
	defer unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	if p := t.pending[d.Name]; p != nil {
		if p.lapsed || p.noop {
			return nil, nil
		}
		return &targets.PendingCommit{Device: d.Name, Deadline: p.deadline.UTC().Truncate(time.Second)}, nil
	}
	e, err := t.opts.Journal.Load(d.Name)
	if err != nil || e == nil {
		return nil, err
	}
	var u undoRecord
	if e.Transport != "host" {
		err = fmt.Errorf("it records a push by %s: settle it through that transport", e.Transport)
	} else {
		err = json.Unmarshal(e.Undo, &u)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: the pending-push journal: %w", d.Name, err)
	}
	t.pending[d.Name] = &pushed{noop: u.Noop, hadConf: u.HadConf, conf: u.Conf, replacedRuntime: u.ReplacedRuntime,
		hadRuntime: u.HadRuntime, runtime: u.Runtime, sections: u.Sections, drift: u.Drift}
	return &targets.PendingCommit{Device: d.Name}, nil
}
