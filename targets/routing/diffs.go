package routing

import (
	"maps"
	"strings"
	"sync"
)

// deviceDiffs keeps what each device printed as its own diff of a push
// (EOS `show session-config diffs`, NVUE `nv config diff`, what SONiC's
// config commands printed), for apply's report: an operator reads what
// the device itself says changed next to what rocefab planned. Pushes run
// in parallel, hence the lock.
type deviceDiffs struct {
	mu sync.Mutex
	by map[string]string
}

// add records a device's diff; a second push of the device in one apply
// adds its diff after the first.
func (d *deviceDiffs) add(device, diff string) {
	diff = strings.TrimRight(diff, " \t\r\n")
	if d == nil || strings.TrimSpace(diff) == "" {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.by == nil {
		d.by = map[string]string{}
	}
	if prev, ok := d.by[device]; ok {
		diff = prev + "\n" + diff
	}
	d.by[device] = diff
}

// all returns the diffs by device; nil when no device printed one.
func (d *deviceDiffs) all() map[string]string {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.by) == 0 {
		return nil
	}
	return maps.Clone(d.by)
}
