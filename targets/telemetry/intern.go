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
type texts struct {
	seed  maphash.Seed
	arena []byte
	offs  []int // text i is arena[offs[i]:offs[i+1]]
	// slots hold a text's hash (the low 32 bits) above its number + 1;
	// 0 is empty; the length is a power of two.
	slots []uint64
}

func newTexts() *texts {
	return &texts{seed: maphash.MakeSeed(), offs: []int{0}, slots: make([]uint64, 1024)}
}

// len is the number of texts interned.
func (t *texts) len() int { return len(t.offs) - 1 }

// bytes returns text i; the caller must not modify it.
func (t *texts) bytes(i uint32) []byte { return t.arena[t.offs[i]:t.offs[i+1]:t.offs[i+1]] }

// intern returns b's number, adding b if it is new (added set).
func (t *texts) intern(b []byte) (id uint32, added bool) {
	h := uint64(uint32(maphash.Bytes(t.seed, b)))
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			id := uint32(t.len())
			t.arena = append(t.arena, b...)
			t.offs = append(t.offs, len(t.arena))
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
