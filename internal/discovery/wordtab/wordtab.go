// Package wordtab is a set of distinct words numbered in the order they were
// added, kept in a few flat arrays without pointers: all the words end to
// end in one string, where each ends, and an open-addressing hash table of
// word numbers. The discovery packages keep their static vocabularies
// (WordNet's, the word vectors') in it rather than in maps and slices of
// strings, so a garbage collection cycle marks three objects instead of
// hundreds of thousands of strings and map slots.
package wordtab

import "hash/maphash"

// Table is a built set. It is immutable and safe for concurrent use; the
// zero Table is empty.
type Table struct {
	text  string   // the words end to end
	ends  []uint32 // word i is text[ends[i-1]:ends[i]] (ends[-1] is 0)
	slots []uint64 // 0 is free, else a word's hash tag and number (slot)
	seed  maphash.Seed
}

// A slot holds the high 32 bits of its word's hash above the word's
// number plus 1: a probe passes over another word's slot without reading
// the word, as a map's control bytes let it.
func slot(h uint64, id int32) uint64 { return h&^(1<<32-1) | (uint64(id) + 1) }

// Builder adds words to a set until Table is called.
type Builder struct {
	text  []byte
	ends  []uint32
	slots []uint64
	seed  maphash.Seed
}

// NewBuilder returns a builder sized for about n words. A table holds at
// most 1<<31 - 1 words and 4 GiB of text (numbers and offsets are 32
// bits); the data the discovery packages decode is bounded far below.
func NewBuilder(n int) *Builder {
	n = max(n, 0)
	b := &Builder{seed: maphash.MakeSeed()}
	b.ends = make([]uint32, 0, n)
	b.slots = make([]uint64, slotsFor(n))
	return b
}

// slotsFor is the table size that keeps n words at most half full (a
// power of two, so a hash is reduced by masking).
func slotsFor(n int) int {
	s := 8
	for s < 2*n {
		s *= 2
	}
	return s
}

// Add returns the number of w, and whether w is new.
func (b *Builder) Add(w string) (int32, bool) {
	if b.slots == nil {
		*b = *NewBuilder(0)
	}
	h := maphash.String(b.seed, w)
	j, id, found := find(b.text, b.ends, b.slots, h, w)
	if found {
		return id, false
	}
	id = int32(len(b.ends))
	b.text = append(b.text, w...)
	b.ends = append(b.ends, uint32(len(b.text)))
	b.slots[j] = slot(h, id)
	if 2*len(b.ends) > len(b.slots) {
		b.rehash(2 * len(b.slots))
	}
	return id, true
}

// Lookup returns the number of w, if the builder holds it.
func (b *Builder) Lookup(w string) (int32, bool) {
	_, id, ok := find(b.text, b.ends, b.slots, maphash.String(b.seed, w), w)
	return id, ok
}

// Len is the number of words added.
func (b *Builder) Len() int { return len(b.ends) }

// rehash moves the words to a hash table of size slots.
func (b *Builder) rehash(size int) {
	b.slots = make([]uint64, size)
	mask := uint64(len(b.slots) - 1)
	start := uint32(0)
	for i, end := range b.ends {
		h := maphash.Bytes(b.seed, b.text[start:end])
		j := h & mask
		for b.slots[j] != 0 {
			j = (j + 1) & mask
		}
		b.slots[j] = slot(h, int32(i))
		start = end
	}
}

// Table returns the set built; the builder must not be used afterwards.
func (b *Builder) Table() Table {
	if b.slots == nil {
		return Table{}
	}
	// A size hint above the words added leaves the table emptier than it
	// need be: half the memory, one more hashing of each word.
	if size := slotsFor(len(b.ends)); size < len(b.slots) {
		b.rehash(size)
	}
	// One copy into a string, so Word returns substrings without
	// allocating; the builder's spare capacity is left behind with it.
	return Table{text: string(b.text), ends: b.ends[:len(b.ends):len(b.ends)], slots: b.slots, seed: b.seed}
}

// Len is the number of words.
func (t *Table) Len() int { return len(t.ends) }

// Word returns word i; it panics if i is not below Len, as indexing a
// slice would.
func (t *Table) Word(i int32) string {
	start := uint32(0)
	if i > 0 {
		start = t.ends[i-1]
	}
	return t.text[start:t.ends[i]]
}

// Lookup returns the number of w, if the table holds it.
func (t *Table) Lookup(w string) (int32, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	_, id, ok := find(t.text, t.ends, t.slots, maphash.String(t.seed, w), w)
	return id, ok
}

// find probes slots for w (hash h) from its home slot: it returns w's
// number if present, else the free slot where it would go. The table is
// never more than half full, so a free slot always ends the probe.
func find[T string | []byte](text T, ends []uint32, slots []uint64, h uint64, w string) (j uint64, id int32, found bool) {
	mask := uint64(len(slots) - 1)
	for j = h & mask; ; j = (j + 1) & mask {
		s := slots[j]
		if s == 0 {
			return j, 0, false
		}
		if (s^h)>>32 != 0 {
			continue // another hash
		}
		i := uint32(s) - 1
		start := uint32(0)
		if i > 0 {
			start = ends[i-1]
		}
		if string(text[start:ends[i]]) == w {
			return j, int32(i), true
		}
	}
}
