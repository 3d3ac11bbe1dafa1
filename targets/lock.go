package targets

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// LockError says that another apply holds the fabric.
type LockError struct {
	Path   string
	Holder LockHolder
}

func (e *LockError) Error() string {
	return fmt.Sprintf("another apply holds the fabric: %s (pid %d on %s since %s); if no apply runs there, remove the file",
		e.Path, e.Holder.PID, e.Holder.Host, e.Holder.Since)
}

// LockHolder is what a lock file records of the apply that holds it.
type LockHolder struct {
	PID   int    `json:"pid"`
	Host  string `json:"host"`
	Since string `json:"since"`
}

// LockFile takes the fabric lock at path: it creates the file, which must
// not exist, and release removes it. A lock left by a process of this host
// that no longer runs is taken over, since nothing can release it; any
// other lock is refused with a *LockError naming its holder.
func LockFile(path string) (release func() error, err error) {
	host, _ := os.Hostname()
	me := LockHolder{PID: os.Getpid(), Host: host, Since: time.Now().UTC().Format(time.RFC3339)}
	body, err := json.Marshal(me)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("fabric lock: %w", err)
	}
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, werr := f.Write(append(body, '\n'))
			cerr := f.Close()
			if err := errors.Join(werr, cerr); err != nil {
				os.Remove(path)
				return nil, fmt.Errorf("fabric lock %s: %w", path, err)
			}
			return func() error {
				if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return fmt.Errorf("releasing the fabric lock %s: %w", path, err)
				}
				return nil
			}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("fabric lock: %w", err)
		}
		var holder LockHolder
		b, rerr := os.ReadFile(path)
		if rerr == nil {
			rerr = json.Unmarshal(b, &holder)
		}
		if rerr != nil || holder.Host != host || alive(holder.PID) || attempt > 0 {
			return nil, &LockError{Path: path, Holder: holder}
		}
		// The holder was this host's and is gone: take its lock over.
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, &LockError{Path: path, Holder: holder}
		}
	}
}

// alive reports whether a process with pid runs on this host.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Keyed holds one V per key, made on first use, safe for concurrent
// use: a target's lock or connection per device, its agent per set of
// credentials. The zero value is ready for use.
type Keyed[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]*V
}

// Get returns key's V, making a zero one the first time.
func (k *Keyed[K, V]) Get(key K) *V {
	k.mu.Lock()
	defer k.mu.Unlock()
	v := k.m[key]
	if v == nil {
		if k.m == nil {
			k.m = map[K]*V{}
		}
		v = new(V)
		k.m[key] = v
	}
	return v
}

// Take returns every V made so far and forgets them, for a Close that
// releases what they hold; a later Get makes a new one.
func (k *Keyed[K, V]) Take() map[K]*V {
	k.mu.Lock()
	defer k.mu.Unlock()
	m := k.m
	k.m = nil
	return m
}
