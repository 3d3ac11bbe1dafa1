package renderers

import (
	"sync"
	"sync/atomic"
)

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

// A ContentPool hands out the buffers one kind of artifact is written
// into, and takes them back once a build has written them: a 100,000-GPU
// fabric renders a gigabyte of artifacts, each written to its file and
// dropped, and allocating each anew made the collector run for that
// gigabyte. A buffer goes back only through RenderFabric, for a sink that
// keeps no content (ContentDiscarder), and only from an artifact made by
// Artifact, whose Content must then be the buffer's alone. Its zero value
// is ready; it is safe for concurrent use.
type ContentPool struct {
	size SizeHint
	free sync.Pool // of *[]byte
}

// Get returns an empty buffer with room for at least n bytes, and for the
// largest artifact of the kind so far.
func (p *ContentPool) Get(n int) []byte {
	n = max(n, p.size.Size())
	if b, ok := p.free.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:0]
	}
	return make([]byte, 0, n)
}

// Artifact returns the artifact of content, which Get gave and which
// nothing else holds, so that RenderFabric may reuse its bytes once
// written.
func (p *ContentPool) Artifact(path string, format Format, content []byte) Artifact {
	p.size.Saw(len(content))
	return Artifact{Path: path, Format: format, Content: content, pool: p}
}

// recycle gives the pooled artifacts' buffers back to their pools.
func recycle(arts []Artifact) {
	for _, a := range arts {
		if a.pool != nil && a.Content != nil {
			b := a.Content[:0]
			a.pool.free.Put(&b)
		}
	}
}
