package telemetry

import (
	"bytes"
	"hash/maphash"
)

// table is an open-addressing table of numbers, found by a hash and an
// equality its user gives. It holds only integers, so a million label
// sets cost the garbage collector nothing to scan. Each slot keeps the
// hash beside the number, so a probe that meets another entry tells it
// apart without reading that entry, and the table is kept at most half
// full, so a probe for a new entry meets few: a window's first scrape
// adds a million and a half label sets.
//
// A table serves only to find an entry again: a window drops its tables
// once a file is read (release) and builds them anew the next time an
// entry must be looked up rather than predicted, which a scrape in the
// same order as the last never does.
type table struct {
	// slots hold a hash (its low 32 bits) above a number + 1; 0 is
	// empty; the length is a power of two; nil once released.
	slots []uint64
	n     int
	// touched keeps touch's reads from being optimized away.
	touched uint64
}

// same tells whether the entry numbered id is the one sought.
type same interface{ same(id uint32) bool }

// find returns the number of the entry with hash h that e says is the
// one sought, or (ok false) the slot where it goes.
func find[E same](t *table, h uint64, e E) (id uint32, slot uint64, ok bool) {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0, i, false
		}
		if s>>32 == h && e.same(uint32(s)-1) {
			return uint32(s) - 1, i, true
		}
	}
}

// put files number id with hash h in the slot find returned.
func (t *table) put(slot, h uint64, id uint32) {
	t.slots[slot] = h<<32 | uint64(id+1)
	t.n++
	if 2*t.n > len(t.slots) {
		t.resize(2 * len(t.slots))
	}
}

// resize moves the entries into a table of n slots.
func (t *table) resize(n int) {
	old := t.slots
	t.slots = make([]uint64, n)
	mask := uint64(n - 1)
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

// touch reads the slot each sample's label set hashes to, before the
// samples are filed. The table outgrows the processor's caches, and a
// lookup waits for its slot to come from memory; these reads do not
// depend on each other, so the processor has many under way at once, and
// the lookups that follow find their slots in the cache.
func (t *table) touch(samples []sample) {
	if len(t.slots) == 0 {
		return
	}
	mask := uint64(len(t.slots) - 1)
	var any uint64
	for i := range samples {
		any |= t.slots[samples[i].hash&mask]
	}
	t.touched = any
}

// release drops the slots; the entries stay with the table's user.
func (t *table) release() { t.slots, t.n = nil, 0 }

// rebuild makes the slots anew for the n entries numbered from 0 that
// hash hashes.
func (t *table) rebuild(n int, hash func(id uint32) uint64) {
	size := 1024
	for size < 2*(n+1) {
		size *= 2
	}
	t.slots = make([]uint64, size)
	for id := range uint32(n) {
		h := hash(id)
		_, slot, _ := find(t, h, never{})
		t.slots[slot] = h<<32 | uint64(id+1)
	}
	t.n = n
}

// never finds no entry: filing entries known to differ.
type never struct{}

func (never) same(uint32) bool { return false }

// texts interns byte strings into one arena, numbered from 0 in the
// order they were first seen, through a table.
//
// The arena is kept in chunks of a megabyte, so that it grows without
// copying what it holds.
type texts struct {
	seed   maphash.Seed
	chunks [][]byte
	// at locates text i in one word, so that comparing a text costs one
	// read of at rather than two: its chunk above bit 40, its offset in
	// the chunk in bits 20 to 39, its length below.
	at  chunked[uint64]
	tab table
}

// A text's offset and length each take 20 bits of texts.at: a text is
// part of one line, and lines are shorter than the scanner's 1 MB
// (Window.parse); a longer text starts a chunk of its own, at offset 0.
const (
	textBits = 20
	textMask = 1<<textBits - 1
)

func newTexts() *texts { return &texts{seed: maphash.MakeSeed()} }

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

// hash is a text's hash in the table.
func (t *texts) hash(b []byte) uint64 { return uint64(uint32(maphash.Bytes(t.seed, b))) }

// textIs finds text b.
type textIs struct {
	t *texts
	b []byte
}

func (q textIs) same(id uint32) bool { return bytes.Equal(q.t.bytes(id), q.b) }

// intern returns b's number, adding b if it is new (added set); h is
// b's hash.
func (t *texts) intern(b []byte, h uint64) (id uint32, added bool) {
	if t.tab.slots == nil {
		t.tab.rebuild(t.len(), func(id uint32) uint64 { return t.hash(t.bytes(id)) })
	}
	id, slot, ok := find(&t.tab, h, textIs{t, b})
	if ok {
		return id, false
	}
	id = uint32(t.len())
	t.add(b)
	t.tab.put(slot, h, id)
	return id, true
}
