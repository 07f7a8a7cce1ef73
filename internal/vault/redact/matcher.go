package redact

import "slices"

// matcher finds every occurrence of a set of patterns in one pass
// (Aho-Corasick): time linear in the text whatever it holds. A hostile
// upstream knows the secrets it was sent and can answer with text that
// nearly matches them at every position; a matcher that tries each pattern
// at each position (strings.Replacer does) would then take time
// proportional to the text times the pattern length.
type matcher struct {
	root  [256]int32 // the root's children by byte; 0: none
	nodes []acNode
	edges []acEdge // each node's children, sorted by byte
}

type acNode struct {
	fail   int32 // longest proper suffix of this node's text that is a trie node
	match  int32 // longest pattern ending here, this node's or via fail; 0: none
	lo, hi int32 // this node's children: edges[lo:hi]
}

type acEdge struct {
	b  byte
	to int32
}

// span is [start, end) of the text to scrub.
type span struct{ start, end int }

// newMatcher builds the automaton of pats (empty patterns are ignored).
func newMatcher(pats []string) *matcher {
	pats = slices.Clone(pats)
	slices.Sort(pats)
	pats = slices.Compact(pats)
	// The trie, built from the sorted patterns: each shares with the one
	// before it the path of their common prefix, and a node's children are
	// made in increasing byte order.
	type edgeOf struct {
		parent int32
		acEdge
	}
	var made []edgeOf
	depth := []int32{0}
	var terms []int32
	path := []int32{0} // path[d]: the node of the previous pattern at depth d
	prev := ""
	for _, p := range pats {
		if p == "" {
			continue
		}
		lcp := 0
		for lcp < len(p) && lcp < len(prev) && p[lcp] == prev[lcp] {
			lcp++
		}
		path = path[:lcp+1]
		for d := lcp; d < len(p); d++ {
			id := int32(len(depth))
			depth = append(depth, int32(d+1))
			made = append(made, edgeOf{path[d], acEdge{p[d], id}})
			path = append(path, id)
		}
		terms = append(terms, path[len(p)])
		prev = p
	}
	m := &matcher{nodes: make([]acNode, len(depth)), edges: make([]acEdge, len(made))}
	for _, e := range made { // children counted, then placed: edges[lo:hi] per node
		m.nodes[e.parent].hi++
	}
	at := int32(0)
	for i := range m.nodes {
		n := m.nodes[i].hi
		m.nodes[i].lo, m.nodes[i].hi = at, at
		at += n
	}
	for _, e := range made {
		n := &m.nodes[e.parent]
		m.edges[n.hi] = e.acEdge
		n.hi++
		if e.parent == 0 {
			m.root[e.b] = e.to
		}
	}
	for _, t := range terms {
		m.nodes[t].match = depth[t]
	}
	// Failure links breadth first: a node's fail is shallower, so it is done.
	queue := make([]int32, 0, len(depth))
	for _, e := range m.edges[m.nodes[0].lo:m.nodes[0].hi] {
		queue = append(queue, e.to)
	}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, e := range m.edges[m.nodes[u].lo:m.nodes[u].hi] {
			f := m.nodes[u].fail
			for {
				if next, ok := m.child(f, e.b); ok {
					f = next
					break
				}
				if f == 0 {
					break
				}
				f = m.nodes[f].fail
			}
			v := &m.nodes[e.to]
			v.fail = f
			v.match = max(v.match, m.nodes[f].match)
			queue = append(queue, e.to)
		}
	}
	return m
}

// child is n's child by b.
func (m *matcher) child(n int32, b byte) (int32, bool) {
	if n == 0 {
		c := m.root[b]
		return c, c != 0
	}
	kids := m.edges[m.nodes[n].lo:m.nodes[n].hi]
	for len(kids) > 8 { // binary search down to a short run
		mid := len(kids) / 2
		if kids[mid].b <= b {
			kids = kids[mid:]
		} else {
			kids = kids[:mid]
		}
	}
	for _, e := range kids {
		if e.b == b {
			return e.to, true
		}
	}
	return 0, false
}

// find returns the spans of s covered by some pattern: overlapping matches
// are merged, so every byte of every occurrence is covered. Nil when none.
func find[T string | []byte](m *matcher, s T) []span {
	var out []span
	state := int32(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if state == 0 { // most bytes of most texts: one table look-up
			if state = m.root[c]; state == 0 {
				continue
			}
		} else {
			state = m.next(state, c)
		}
		if l := int(m.nodes[state].match); l > 0 {
			sp := span{i + 1 - l, i + 1}
			for len(out) > 0 && out[len(out)-1].end > sp.start {
				sp.start = min(sp.start, out[len(out)-1].start)
				out = out[:len(out)-1]
			}
			out = append(out, sp)
		}
	}
	return out
}

// next is the state after state reads c: its child by c, else its fail's.
func (m *matcher) next(state int32, c byte) int32 {
	for {
		if next, ok := m.child(state, c); ok {
			return next
		}
		if state == 0 {
			return 0
		}
		state = m.nodes[state].fail
	}
}
