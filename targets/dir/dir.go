// Package dir is the directory target: each device's running
// configuration is a set of files in <root>/<device>/, in the form the
// device prints it (EOS `show running-config`, NVUE `nv config show -o
// yaml`, config_db.json, OpenConfig JSON, the host's state). It makes
// plan work offline, before any device is reachable, and lets apply be
// rehearsed on a copy of the fabric.
//
// Pushing applies the remediation to the running files with the device's
// platform (renderers.Applier), so that everything outside the owned scope
// stays byte for byte as it was. Commit-confirm is emulated with a backup
// of the device's files under <root>/.rocefab-pending/<device>/: Confirm
// drops it, Rollback restores it exactly, and a commit not confirmed in
// time is restored by the timer or, if the process that pushed is gone, by
// the next read of the device. The fabric lock is <root>/.rocefab.lock.
package dir

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/targets"
)

// Target is the directory target rooted at Root.
type Target struct {
	root     string
	appliers func(d *ir.Device) (renderers.Applier, error)

	mu      sync.Mutex
	devices targets.Keyed[string, sync.Mutex]
	timers  map[string]*time.Timer
}

var (
	_ targets.Target        = (*Target)(nil)
	_ targets.Confirmer     = (*Target)(nil)
	_ targets.RollBacker    = (*Target)(nil)
	_ targets.Locker        = (*Target)(nil)
	_ targets.PendingReader = (*Target)(nil)
)

// New returns the directory target at root (the directory need not exist
// yet). appliers gives the platform that applies a remediation to a
// device's files; a device without one can be read but not pushed to.
func New(root string, appliers func(d *ir.Device) (renderers.Applier, error)) *Target {
	return &Target{root: root, appliers: appliers, timers: map[string]*time.Timer{}}
}

// Root returns the directory the target reads.
func (t *Target) Root() string { return t.root }

// pendingDir holds the backups of unconfirmed commits; lockFile is the
// fabric lock. Both start with a dot, which no device name does.
const (
	pendingDir = ".rocefab-pending"
	lockFile   = ".rocefab.lock"
)

// safeName is what a device or file name must look like to become a path
// below root: one component, not hidden, nothing a shell or a path would
// read specially (the schema's name rule, and the file names renderers
// write).
var safeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

func checkName(what, name string) error {
	if !safeName.MatchString(name) {
		return fmt.Errorf("%s %q: a name of letters, digits, '.', '_' and '-' is needed to name a file", what, name)
	}
	return nil
}

// Format returns the format of a running file from its name.
func Format(name string) renderers.Format {
	switch path.Ext(name) {
	case ".json":
		return renderers.JSON
	case ".yaml", ".yml":
		return renderers.YAML
	case ".sh":
		return renderers.Shell
	case ".env":
		return renderers.Env
	case ".service":
		return renderers.Unit
	}
	return renderers.Text
}

// Read returns the files of <root>/<device>/ (not its subdirectories or
// hidden files), as "<device>/<file>". A device without a directory runs
// nothing yet. A commit whose timer has run out is rolled back first, as
// the device would have done by itself.
func (t *Target) Read(ctx context.Context, d *ir.Device) ([]renderers.Artifact, error) {
	unlock, err := t.current(d)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return t.read(d.Name)
}

// idle is current for a push: it fails, unlocked, while a commit of d is
// pending confirmation.
func (t *Target) idle(d *ir.Device) (unlock func(), err error) {
	unlock, err = t.current(d)
	if err != nil {
		return nil, err
	}
	if p, err := t.pending(d.Name); err != nil || p != nil {
		unlock()
		return nil, errors.Join(err, fmt.Errorf("%s: a commit is pending confirmation", d.Name))
	}
	return unlock, nil
}

// current locks device d and rolls back its commit if its timer has run
// out, as the device would have by itself; the caller unlocks it.
func (t *Target) current(d *ir.Device) (unlock func(), err error) {
	if err := checkName("device", d.Name); err != nil {
		return nil, err
	}
	m := t.devices.Get(d.Name)
	m.Lock()
	if err := t.lapse(d.Name); err != nil {
		m.Unlock()
		return nil, err
	}
	return m.Unlock, nil
}

func (t *Target) read(name string) ([]renderers.Artifact, error) {
	dir := filepath.Join(t.root, name)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []renderers.Artifact
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") || !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, renderers.Artifact{Path: name + "/" + e.Name(), Format: Format(e.Name()), Content: b})
	}
	return out, nil
}

// Push applies rem to the device's files with its platform and writes
// the files whose bytes changed, each replaced whole (written beside and
// renamed), so that a reader never sees half a file.
func (t *Target) Push(ctx context.Context, d *ir.Device, rem renderers.Remediation) error {
	unlock, err := t.idle(d)
	if err != nil {
		return err
	}
	defer unlock()
	_, err = t.push(d, rem)
	return err
}

// push applies rem and returns the files it created.
func (t *Target) push(d *ir.Device, rem renderers.Remediation) (created []string, err error) {
	a, err := targets.Lookup(t.appliers, d, "no platform applies changes to its files")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	running, err := t.read(d.Name)
	if err != nil {
		return nil, err
	}
	after, err := a.Apply(running, rem)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	had := map[string][]byte{}
	for _, r := range running {
		had[r.Path] = r.Content
	}
	// Check every path before writing any. A device with no files gets
	// its first ones by name alone (renderers.NewArtifactPath).
	for i, f := range after {
		if len(running) == 0 && !strings.Contains(f.Path, "/") {
			after[i].Path = d.Name + "/" + f.Path
			f = after[i]
		}
		dev, file, ok := strings.Cut(f.Path, "/")
		if !ok || dev != d.Name || checkName("file", file) != nil {
			return nil, fmt.Errorf("%s: the platform returned %q, not a file of the device's directory", d.Name, f.Path)
		}
	}
	for _, f := range after {
		old, ok := had[f.Path]
		if ok && bytes.Equal(old, f.Content) {
			continue
		}
		_, file, _ := strings.Cut(f.Path, "/")
		if err := writeFile(filepath.Join(t.root, d.Name, file), f.Content); err != nil {
			return created, err
		}
		if !ok {
			created = append(created, file)
		}
	}
	return created, nil
}

// writeFile replaces p whole, keeping its mode.
func writeFile(p string, content []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(p); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".rocefab-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(content)
	cerr := f.Close()
	if err := errors.Join(werr, cerr, os.Chmod(f.Name(), mode)); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), p); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// pendingCommit is what the backup of an unconfirmed commit records.
type pendingCommit struct {
	// Deadline is when the commit rolls back unless confirmed.
	Deadline time.Time `json:"deadline"`
	// Files are the device's files before the push (copied beside);
	// Created are the files the push created, which a rollback removes.
	Files   []string `json:"files"`
	Created []string `json:"created"`
	// CreatedDir is set when the device had no directory before the push:
	// a rollback removes the directory only then, never one it did not
	// make.
	CreatedDir bool `json:"created_dir,omitempty"`
}

func (t *Target) pendingPath(name string) string { return filepath.Join(t.root, pendingDir, name) }

// pending returns the device's unconfirmed commit, nil if none.
func (t *Target) pending(name string) (*pendingCommit, error) {
	b, err := os.ReadFile(filepath.Join(t.pendingPath(name), "pending.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var p pendingCommit
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: the backup of its pending commit is unreadable: %w", name, err)
	}
	return &p, nil
}

func (t *Target) savePending(name string, p *pendingCommit) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(t.pendingPath(name), "pending.json"), append(b, '\n'))
}

// PushConfirmed backs up the device's files, pushes rem, and rolls the
// device back to the backup when Confirm is not called within timeout. A
// push that fails is rolled back at once.
func (t *Target) PushConfirmed(ctx context.Context, d *ir.Device, rem renderers.Remediation, timeout time.Duration) error {
	unlock, err := t.idle(d)
	if err != nil {
		return err
	}
	defer unlock()
	running, err := t.read(d.Name)
	if err != nil {
		return err
	}
	p := &pendingCommit{Deadline: time.Now().Add(timeout).UTC()}
	if _, err := os.Lstat(filepath.Join(t.root, d.Name)); errors.Is(err, fs.ErrNotExist) {
		p.CreatedDir = true
	}
	for _, r := range running {
		_, file, _ := strings.Cut(r.Path, "/")
		if err := writeFile(filepath.Join(t.pendingPath(d.Name), "files", file), r.Content); err != nil {
			return fmt.Errorf("%s: backing up %s: %w", d.Name, file, err)
		}
		p.Files = append(p.Files, file)
	}
	if err := t.savePending(d.Name, p); err != nil {
		return fmt.Errorf("%s: backing up: %w", d.Name, err)
	}
	created, err := t.push(d, rem)
	p.Created = created
	if err != nil {
		if rerr := t.restore(d.Name, p); rerr != nil {
			return fmt.Errorf("%w; restoring the files of before: %v", err, rerr)
		}
		return err
	}
	if err := t.savePending(d.Name, p); err != nil {
		return fmt.Errorf("%s: recording the commit: %w", d.Name, err)
	}
	t.mu.Lock()
	t.timers[d.Name] = time.AfterFunc(timeout, func() {
		m := t.devices.Get(d.Name)
		m.Lock()
		defer m.Unlock()
		_ = t.lapse(d.Name)
	})
	t.mu.Unlock()
	return nil
}

// Pending returns the device's unconfirmed commit, nil when it has none;
// one whose timer has run out is rolled back first, as the device would
// have done by itself.
func (t *Target) Pending(ctx context.Context, d *ir.Device) (*targets.PendingCommit, error) {
	var pc *targets.PendingCommit
	err := t.withPending(d, func(p *pendingCommit) error {
		if p != nil {
			pc = &targets.PendingCommit{Device: d.Name, Deadline: p.Deadline}
		}
		return nil
	})
	return pc, err
}

// withPending runs f on the device's pending commit, nil when it has
// none, with the device locked and a lapsed commit rolled back first.
func (t *Target) withPending(d *ir.Device, f func(p *pendingCommit) error) error {
	unlock, err := t.current(d)
	if err != nil {
		return err
	}
	defer unlock()
	p, err := t.pending(d.Name)
	if err != nil {
		return err
	}
	return f(p)
}

// Confirm keeps the pushed files and drops the backup. A commit whose
// timer ran out is already rolled back: Confirm says so.
func (t *Target) Confirm(ctx context.Context, d *ir.Device) error {
	return t.withPending(d, func(p *pendingCommit) error {
		if p == nil {
			return fmt.Errorf("%s: no commit is pending confirmation (its timer may have run out and rolled it back)", d.Name)
		}
		t.stopTimer(d.Name)
		if err := os.RemoveAll(t.pendingPath(d.Name)); err != nil {
			return err
		}
		// The last confirmation leaves no trace (Remove fails while other
		// commits are pending).
		os.Remove(filepath.Join(t.root, pendingDir))
		return nil
	})
}

// Rollback restores the files of before the pending commit exactly.
func (t *Target) Rollback(ctx context.Context, d *ir.Device) error {
	if err := checkName("device", d.Name); err != nil {
		return err
	}
	m := t.devices.Get(d.Name)
	m.Lock()
	defer m.Unlock()
	p, err := t.pending(d.Name)
	if err != nil {
		return err
	}
	if p == nil {
		return fmt.Errorf("%s: no commit is pending to roll back", d.Name)
	}
	t.stopTimer(d.Name)
	return t.restore(d.Name, p)
}

// lapse rolls back the device's pending commit if its timer has run out.
// The caller holds the device's lock.
func (t *Target) lapse(name string) error {
	p, err := t.pending(name)
	if err != nil || p == nil || time.Now().Before(p.Deadline) {
		return err
	}
	return t.restore(name, p)
}

// restore puts back the backed-up files, removes those the push created,
// and drops the backup.
func (t *Target) restore(name string, p *pendingCommit) error {
	for _, file := range p.Files {
		if checkName("file", file) != nil {
			return fmt.Errorf("%s: the backup names %q, not a file", name, file)
		}
		b, err := os.ReadFile(filepath.Join(t.pendingPath(name), "files", file))
		if err != nil {
			return fmt.Errorf("%s: restoring %s: %w", name, file, err)
		}
		dst := filepath.Join(t.root, name, file)
		if now, err := os.ReadFile(dst); err == nil && bytes.Equal(now, b) {
			continue
		}
		if err := writeFile(dst, b); err != nil {
			return fmt.Errorf("%s: restoring %s: %w", name, file, err)
		}
	}
	for _, file := range p.Created {
		if checkName("file", file) != nil || slices.Contains(p.Files, file) {
			continue
		}
		if err := os.Remove(filepath.Join(t.root, name, file)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: removing %s: %w", name, file, err)
		}
	}
	if p.CreatedDir {
		// The push created the device's directory: a device that ran
		// nothing had none. Remove fails, and keeps it, when it holds
		// anything.
		os.Remove(filepath.Join(t.root, name))
	}
	t.stopTimer(name)
	if err := os.RemoveAll(t.pendingPath(name)); err != nil {
		return err
	}
	os.Remove(filepath.Join(t.root, pendingDir))
	return nil
}

func (t *Target) stopTimer(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tm := t.timers[name]; tm != nil {
		tm.Stop()
		delete(t.timers, name)
	}
}

// Lock takes the fabric lock file, <root>/.rocefab.lock.
func (t *Target) Lock(ctx context.Context, devices []*ir.Device) (func() error, error) {
	return targets.LockFile(filepath.Join(t.root, lockFile))
}

// String describes the target for plans and reports.
func (t *Target) String() string { return "directory " + filepath.ToSlash(t.root) }
