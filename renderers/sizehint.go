package renderers

import "sync/atomic"

// maxSizeHint bounds what a SizeHint hands out: a hint is an allocation
// made before anything is written, and one unusually large artifact should
// not make every later buffer that large.
const maxSizeHint = 16 << 20

// SizeHint remembers the largest artifact of one kind rendered so far in
// this process, so that the next one's buffer is allocated once at about
// its final size instead of grown by doubling: a fabric renders thousands
// of artifacts of a kind, of nearly the same size, and the copies of a
// doubling buffer are about as many bytes again as the artifact, garbage
// the collector then scans for. Its zero value is ready; it is safe for
// concurrent use.
type SizeHint struct{ n atomic.Int64 }

// Size returns the capacity to give a new buffer: the largest size seen,
// or 0 before the first.
func (h *SizeHint) Size() int { return int(h.n.Load()) }

// Saw records an artifact of n bytes.
func (h *SizeHint) Saw(n int) {
	n = min(n, maxSizeHint)
	for {
		old := h.n.Load()
		if int64(n) <= old || h.n.CompareAndSwap(old, int64(n)) {
			return
		}
	}
}
