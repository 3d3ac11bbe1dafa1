package telemetry

import (
	"bytes"
	"hash/maphash"
)

// texts interns byte strings into one arena, numbered from 0 in the
// order they were first seen. Its open-addressing table holds only
// integers, so a million label sets cost the garbage collector nothing to
// scan. Each slot keeps the text's hash beside its number, so a probe
// that meets another text is told apart without reading that text, and
// the table is kept at most half full, so a probe for a new text meets
// few: a window's first scrape interns a million and a half of them.
//
// The arena is kept in chunks of a megabyte, so that it grows without
// copying what it holds.
//
// The table serves only to find a text again; a window drops it once a
// file is read (release) and builds it anew the next time a text must be
// looked up rather than predicted, which a scrape in the same order as
// the last never does.
type texts struct {
	seed   maphash.Seed
	chunks [][]byte
	// at locates text i in one word, so that comparing a text costs one
	// read of at rather than two: its chunk above bit 40, its offset in
	// the chunk in bits 20 to 39, its length below.
	at chunked[uint64]
	// slots hold a text's hash (the low 32 bits) above its number + 1;
	// 0 is empty; the length is a power of two; nil once released.
	slots []uint64
}

// A text's offset and length each take 20 bits of texts.at: a text is
// part of one line, and lines are shorter than the scanner's 1 MB
// (Window.parse); a longer text starts a chunk of its own, at offset 0.
const (
	textBits = 20
	textMask = 1<<textBits - 1
)

func newTexts() *texts {
	return &texts{seed: maphash.MakeSeed(), slots: make([]uint64, 1024)}
}

// textChunk is the size of the arena's chunks.
const textChunk = 1 << 20

// len is the number of texts interned.
func (t *texts) len() int { return t.at.n }

// bytes returns text i; the caller must not modify it.
func (t *texts) bytes(i uint32) []byte {
	a := *t.at.at(int(i))
	c, off, n := a>>(2*textBits), a>>textBits&textMask, a&textMask
	return t.chunks[c][off : off+n : off+n]
}

// add appends b to the arena.
func (t *texts) add(b []byte) {
	n := len(t.chunks)
	if n == 0 || cap(t.chunks[n-1])-len(t.chunks[n-1]) < len(b) {
		t.chunks = append(t.chunks, make([]byte, 0, max(textChunk, len(b))))
		n++
	}
	c := &t.chunks[n-1]
	t.at.add(uint64(n-1)<<(2*textBits) | uint64(len(*c))<<textBits | uint64(len(b)))
	*c = append(*c, b...)
}

// intern returns b's number, adding b if it is new (added set).
func (t *texts) intern(b []byte) (id uint32, added bool) {
	if t.slots == nil {
		t.rebuild()
	}
	h := t.hash(b)
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			id := uint32(t.len())
			t.add(b)
			t.slots[i] = h<<32 | uint64(id+1)
			if 2*t.len() > len(t.slots) {
				t.grow()
			}
			return id, true
		}
		if s>>32 == h {
			if id := uint32(s) - 1; bytes.Equal(t.bytes(id), b) {
				return id, false
			}
		}
	}
}

func (t *texts) hash(b []byte) uint64 { return uint64(uint32(maphash.Bytes(t.seed, b))) }

// release drops the table; the texts stay.
func (t *texts) release() { t.slots = nil }

// rebuild makes the table anew from the texts, at most half full.
func (t *texts) rebuild() {
	n := 1024
	for n < 2*(t.len()+1) {
		n *= 2
	}
	t.slots = make([]uint64, n)
	mask := uint64(n - 1)
	for id := range uint32(t.len()) {
		h := t.hash(t.bytes(id))
		i := h & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = h<<32 | uint64(id+1)
	}
}

func (t *texts) grow() {
	old := t.slots
	t.slots = make([]uint64, 2*len(old))
	mask := uint64(len(t.slots) - 1)
	for _, s := range old {
		if s == 0 {
			continue
		}
		i := s >> 32 & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}
