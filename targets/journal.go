package targets

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// A push waiting for its confirmation is known to the process that made
// it. When that process dies (killed mid-wave, its machine rebooted), a
// device whose platform shows its pending commits (EOS configuration
// sessions) still tells the next apply; one that does not (the gNMI
// commit-confirmed extension has no read of a pending commit; a timer
// kept by rocefab dies with it) would look converged while it holds a
// push nobody confirms, or one its timer is about to take back. So the
// transports write down each push before they make it, in a journal
// beside the fabric lock, and cross it out when it is confirmed or taken
// back; the next plan and apply read it.

// Journal is a directory of the pushes that wait for their confirmation,
// one file per device. A nil *Journal records nothing.
type Journal struct {
	dir string
	// mu orders writes and removals, so that removing the emptied
	// directory never races a write into it.
	mu sync.Mutex
}

// NewJournal returns the journal kept in dir (created on first use).
func NewJournal(dir string) *Journal { return &Journal{dir: dir} }

// JournalEntry is one device's push waiting for its confirmation.
type JournalEntry struct {
	Device string `json:"device"`
	// Transport is the transport that pushed it: only it can read Undo.
	Transport string `json:"transport"`
	// ID names the push on the device: a commit id, session, revision or
	// checkpoint, by which it is confirmed or rolled back.
	ID string `json:"id,omitempty"`
	// Deadline is when the device takes the push back by itself; zero
	// when only a timer of the pushing process would have, which died
	// with it: such a push stays until it is settled.
	Deadline time.Time `json:"deadline,omitzero"`
	// Undo is what takes the push back, in the transport's own form.
	Undo []byte `json:"undo,omitempty"`
	// PID, Host and Since say which apply pushed it, and when.
	PID   int       `json:"pid"`
	Host  string    `json:"host"`
	Since time.Time `json:"since"`
}

// path is the file of device's entry: device names are host names, but
// the escape keeps any name inside the directory.
func (j *Journal) path(device string) string {
	return filepath.Join(j.dir, url.PathEscape(device)+".json")
}

// Record writes e down, replacing the device's previous entry. It is
// written whole or not at all, so a crash never leaves half an entry.
func (j *Journal) Record(e JournalEntry) error {
	if j == nil {
		return nil
	}
	if e.PID == 0 {
		e.PID = os.Getpid()
	}
	if e.Host == "" {
		e.Host, _ = os.Hostname()
	}
	if e.Since.IsZero() {
		e.Since = time.Now().UTC().Truncate(time.Second)
	}
	body, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := os.MkdirAll(j.dir, 0o755); err != nil {
		return fmt.Errorf("pending-push journal: %w", err)
	}
	p := j.path(e.Device)
	f, err := os.CreateTemp(j.dir, "."+filepath.Base(p)+".rocefab-*")
	if err != nil {
		return fmt.Errorf("pending-push journal: %w", err)
	}
	_, werr := f.Write(append(body, '\n'))
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("pending-push journal %s: %w", p, err)
	}
	if err := os.Rename(f.Name(), p); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("pending-push journal: %w", err)
	}
	return nil
}

// Remove crosses out device's entry: its push was confirmed or taken
// back. The directory goes with its last entry, since rocefab made it.
func (j *Journal) Remove(device string) error {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := os.Remove(j.path(device)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("pending-push journal: %w", err)
	}
	// Fails while other entries remain, which is what is wanted.
	_ = os.Remove(j.dir)
	return nil
}

// Load returns device's entry, nil when it has none. An entry that cannot
// be read is an error naming its file: a push may be pending there.
func (j *Journal) Load(device string) (*JournalEntry, error) {
	if j == nil {
		return nil, nil
	}
	p := j.path(device)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pending-push journal: %w", err)
	}
	var e JournalEntry
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("pending-push journal %s: %w; it records a push that may wait for its confirmation: check the device, then remove the file", p, err)
	}
	if e.Device != device {
		return nil, fmt.Errorf("pending-push journal %s: it names device %q, not %q; check the device, then remove the file", p, e.Device, device)
	}
	return &e, nil
}
