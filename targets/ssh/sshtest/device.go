package sshtest

import (
	"strings"
	"sync"
)

// device is what every emulator keeps behind its one lock: the faults it
// was given and the lines it was sent. Embedding it gives each emulator
// the same SetFaults and Received, so that a test drives any platform's
// faults, and reads what it was sent, the same way.
type device struct {
	mu       sync.Mutex
	faults   Faults
	received []string
	counters map[string]Counters // by port, printed by the counters commands
	step     map[string]Counters // what counters grow by after each print
}

// SetFaults replaces the device's faults. What each fault does on a
// platform is said on Faults and in the emulator's doc.
func (d *device) SetFaults(f Faults) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.faults = f
}

// Received returns every line or command the device was sent, in order.
func (d *device) Received() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.received...)
}

// copyOf returns a copy of *b taken under the lock, so that a test
// holds a configuration the device can no longer change.
func (d *device) copyOf(b *[]byte) []byte {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]byte(nil), *b...)
}

// replace sets *b to a copy of v under the lock, as another operator
// changing the device would.
func (d *device) replace(b *[]byte, v []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	*b = append([]byte(nil), v...)
}

// readLine reads the next line typed on t, as typed (raw) and without
// the white space around it (line), and records it as received; false
// when the session ended.
func (d *device) readLine(t *Term) (raw, line string, ok bool) {
	raw, err := t.ReadLine()
	if err != nil {
		return "", "", false
	}
	d.mu.Lock()
	d.received = append(d.received, raw)
	d.mu.Unlock()
	return raw, strings.TrimSpace(raw), true
}
