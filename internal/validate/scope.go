package validate

import (
	"strconv"

	"github.com/sluicehq/sluice/protocol/a2e"
)

// pathKeys are the canonical texts of a path and of each of its prefixes, so
// "covers" questions are map lookups: /workflow/a/b and /workflow/a.b are one key.
type pathKeys struct {
	full     string
	prefixes []string // shortest first; the last is full
}

// The canonical text of a prefix is a prefix of the canonical text of the path
// (Path.String writes segment after segment), so the prefixes are substrings of
// one string: a path of n segments costs one string and n slice headers, not n
// strings.
func keysOf(p a2e.Path) pathKeys {
	full := p.String()
	k := pathKeys{full: full, prefixes: make([]string, 0, len(p.Segments))}
	cut := len(p.Root) + 1 // "/workflow" or "/input"
	for i, s := range p.Segments {
		switch {
		case s.IsIndex:
			cut += len(strconv.Itoa(s.Index)) + 2
		default:
			cut += len(s.Key) + 1
		}
		if i == len(p.Segments)-1 || cut > len(full) {
			cut = len(full) // the last prefix is the path itself
		}
		k.prefixes = append(k.prefixes, full[:cut])
	}
	return k
}

// write is one path written, by n (nil for loop variables), with its static type.
type write struct {
	path a2e.Path
	keys pathKeys
	n    *node
	t    typ
}

// scope is the set of paths written so far on one way through the workflow. It is
// one mutable structure with an undo journal: a branch is walked, its writes are
// read back with since, and rollback returns to the state before it. This keeps
// every step proportional to the paths it touches, however deep the nesting.
type scope struct {
	last    map[string]write // by full key: the last write of exactly that path
	under   map[string]int   // by key: how many live writes lie at or under it
	journal []undo
}

type undo struct {
	w    write
	prev write
	had  bool
}

func newScope() *scope {
	return &scope{last: map[string]write{}, under: map[string]int{}}
}

func (s *scope) add(w write) {
	prev, had := s.last[w.keys.full]
	s.journal = append(s.journal, undo{w: w, prev: prev, had: had})
	s.last[w.keys.full] = w
	for _, k := range w.keys.prefixes {
		s.under[k]++
	}
}

func (s *scope) mark() int { return len(s.journal) }

// since lists the writes made after mark m, in order.
func (s *scope) since(m int) []write {
	out := make([]write, 0, len(s.journal)-m)
	for _, u := range s.journal[m:] {
		out = append(out, u.w)
	}
	return out
}

// rollback undoes every write made after mark m.
func (s *scope) rollback(m int) {
	for i := len(s.journal) - 1; i >= m; i-- {
		u := s.journal[i]
		if u.had {
			s.last[u.w.keys.full] = u.prev
		} else {
			delete(s.last, u.w.keys.full)
		}
		for _, k := range u.w.keys.prefixes {
			if s.under[k]--; s.under[k] == 0 {
				delete(s.under, k)
			}
		}
	}
	s.journal = s.journal[:m]
}

// covers reports whether a live write lies at, inside or around the path.
func (s *scope) covers(k pathKeys) bool {
	if s.under[k.full] > 0 {
		return true // a write at the path or inside it
	}
	for _, p := range k.prefixes {
		if _, ok := s.last[p]; ok {
			return true // a write that holds the path
		}
	}
	return false
}

// exact is the last write of exactly the path.
func (s *scope) exact(k pathKeys) (write, bool) {
	w, ok := s.last[k.full]
	return w, ok
}
