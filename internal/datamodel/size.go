package datamodel

import (
	"math"
	"math/bits"
)

// What a decoded JSON value costs on the heap (measured with runtime.MemStats
// on go1.26 amd64, see BenchmarkHeapPerJSONByte): an `any` holding a string, a
// number or an array boxes it; a map[string]any is a header plus groups of 8
// slots of 32 bytes (a string key and an `any`) and their control words.
const (
	sizeBoxedString = 16 // the string header an `any` points to
	sizeBoxedNumber = 8  // the float64 an `any` points to
	sizeSliceHeader = 24 // the slice header an `any` points to
	sizeInterface   = 16 // one element of []any
	sizeMapHeader   = 48
	sizeSmallMap    = 336 // a map of 1 to 8 entries: header and one group
	sizeMapSlot     = 40  // one slot of a larger map, control word and spare room included
)

// Size estimates the heap bytes of a decoded JSON value (map[string]any,
// []any, string, float64, bool, nil), counting every reference again: a value
// shared twice counts twice, as it does once encoded. For data held in arrays
// and objects (each element takes a 16-byte slot) it is at least the length
// of the compact JSON, numbers of more than 23 characters aside, so a bound
// on it bounds the encodings of the data too. It allocates nothing.
//
// Size walks every reference, so a value whose parts share one another
// (an array holding another twice, sixty levels deep) is small in memory but
// takes a walk exponential in its depth: a bounded caller uses SizeUpTo.
func Size(v any) int64 { return SizeUpTo(v, math.MaxInt64) }

// SizeUpTo is Size, but stops walking as soon as the size passes limit and
// then returns a size above limit (not the whole size). Each step of the walk
// adds to the size, so it visits O(limit) values whatever their sharing.
func SizeUpTo(v any, limit int64) int64 {
	s := sizer{limit: limit}
	s.add(v)
	return s.n
}

type sizer struct{ n, limit int64 }

func (s *sizer) add(v any) {
	switch x := v.(type) {
	case nil, bool:
		// the runtime's static values
	case string:
		s.n += sizeBoxedString + int64(len(x))
	case []any:
		s.n += ArraySize(cap(x))
		for _, e := range x {
			if s.n > s.limit {
				return
			}
			s.add(e)
		}
	case map[string]any:
		s.n += mapSize(len(x))
		for k, e := range x {
			if s.n > s.limit {
				return
			}
			s.n += int64(len(k))
			s.add(e)
		}
	default:
		s.n += sizeBoxedNumber // float64 and the other scalars operations produce
	}
}

// ArraySize is the heap of an []any of n elements held in an `any`, without
// the elements' own bytes.
func ArraySize(n int) int64 { return sizeSliceHeader + sizeInterface*int64(n) }

// mapSize is the heap of a map[string]any of n entries, without its keys' and
// values' own bytes.
func mapSize(n int) int64 {
	switch {
	case n == 0:
		return sizeMapHeader
	case n <= 8:
		return sizeSmallMap
	}
	// Tables keep at most 7 of every 8 slots full and grow by doubling.
	slots := uint64(1) << bits.Len64(uint64(n*8/7))
	return sizeMapHeader + sizeMapSlot*int64(slots)
}
