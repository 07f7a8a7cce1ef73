package wordnet

// lists are many short lists laid end to end in one array, so the
// thesaurus holds a few large pointer-free arrays rather than a slice per
// word or synset: list i is items[start[i]:start[i+1]].
type lists[T any] struct {
	start []uint32
	items []T
}

// at returns list i; the caller must not change it.
func (l *lists[T]) at(i int32) []T {
	a, b := l.start[i], l.start[i+1]
	return l.items[a:b:b]
}

// end closes the list being appended to items; the next list starts.
func (l *lists[T]) end() {
	l.start = append(l.start, uint32(len(l.items)))
}

// groupBy returns n lists: list k holds, in the order given, the vals whose
// key (keys[i] for vals[i], each below n) is k.
func groupBy[T any](n int, keys []int32, vals []T) lists[T] {
	start := make([]uint32, n+1)
	for _, k := range keys {
		start[k+1]++
	}
	for k := range n {
		start[k+1] += start[k]
	}
	next := append([]uint32(nil), start[:n]...)
	items := make([]T, len(vals))
	for i, k := range keys {
		items[next[k]] = vals[i]
		next[k]++
	}
	return lists[T]{start: start, items: items}
}
