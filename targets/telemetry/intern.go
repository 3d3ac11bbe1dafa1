package telemetry

import (
	"bytes"
	"hash/maphash"
)

// texts interns byte strings into one arena, numbered from 0 in the
// order they were first seen. Its open-addressing table holds only
// integers, so a million label sets cost the garbage collector nothing to
// scan and a lookup one probe of a flat slice in the common case.
type texts struct {
	seed   maphash.Seed
	arena  []byte
	offs   []int    // text i is arena[offs[i]:offs[i+1]]
	hashes []uint64 // each text's hash, to compare and to grow without rehashing
	slots  []uint32 // text number + 1; 0 is empty; the length is a power of two
}

func newTexts() *texts {
	return &texts{seed: maphash.MakeSeed(), offs: []int{0}, slots: make([]uint32, 1024)}
}

// len is the number of texts interned.
func (t *texts) len() int { return len(t.offs) - 1 }

// bytes returns text i; the caller must not modify it.
func (t *texts) bytes(i uint32) []byte { return t.arena[t.offs[i]:t.offs[i+1]:t.offs[i+1]] }

// intern returns b's number, adding b if it is new.
func (t *texts) intern(b []byte) uint32 {
	h := maphash.Bytes(t.seed, b)
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			id := uint32(t.len())
			t.arena = append(t.arena, b...)
			t.offs = append(t.offs, len(t.arena))
			t.hashes = append(t.hashes, h)
			t.slots[i] = id + 1
			if 4*t.len() > 3*len(t.slots) {
				t.grow()
			}
			return id
		}
		if t.hashes[s-1] == h && bytes.Equal(t.bytes(s-1), b) {
			return s - 1
		}
	}
}

func (t *texts) grow() {
	t.slots = make([]uint32, 2*len(t.slots))
	mask := uint64(len(t.slots) - 1)
	for id, h := range t.hashes {
		i := h & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = uint32(id) + 1
	}
}
