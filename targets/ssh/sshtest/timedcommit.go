package sshtest

import (
	"sync"
	"time"
)

// commitTimer keeps a device's one commit whose timer runs: EOS's `commit
// timer`, NVUE's `nv config apply --confirm`. Unless the commit is
// confirmed or reverted first, the timer puts back the configuration the
// commit replaced. K is what the platform names a commit by: EOS's
// session, NVUE's revision. Its unexported methods run under the device's
// lock; Pending and the timer take it.
type commitTimer[K comparable] struct {
	lock *sync.Mutex // the device's lock
	p    *pendingCommit[K]
}

// pendingCommit is a commit whose timer runs.
type pendingCommit[K comparable] struct {
	id       K
	cfg      *[]byte // the configuration the commit changed
	before   []byte  // what *cfg was before it
	timer    *time.Timer
	deadline time.Time
}

// Pending returns the commit whose timer runs, by the platform's name for
// it (an EOS session, an NVUE revision); the zero value when none does.
func (c *commitTimer[K]) Pending() K {
	c.lock.Lock()
	defer c.lock.Unlock()
	id, _ := c.pending()
	return id
}

// start sets *cfg to after; with a timer, the commit named id is pending
// until it is confirmed or reverted, or the timer reverts it.
func (c *commitTimer[K]) start(cfg *[]byte, after []byte, id K, timer time.Duration) {
	before := *cfg
	*cfg = after
	if timer <= 0 {
		return
	}
	p := &pendingCommit[K]{id: id, cfg: cfg, before: before, deadline: time.Now().Add(timer)}
	p.timer = time.AfterFunc(timer, func() {
		c.lock.Lock()
		defer c.lock.Unlock()
		if c.p == p {
			*p.cfg = p.before
			c.p = nil
		}
	})
	c.p = p
}

// pending returns the name of the commit whose timer runs; false when
// none does.
func (c *commitTimer[K]) pending() (id K, ok bool) {
	if c.p == nil {
		return id, false
	}
	return c.p.id, true
}

// confirm keeps the pending commit for good.
func (c *commitTimer[K]) confirm() {
	c.p.timer.Stop()
	c.p = nil
}

// revert puts back the configuration the pending commit replaced.
func (c *commitTimer[K]) revert() {
	c.p.timer.Stop()
	*c.p.cfg = c.p.before
	c.p = nil
}
