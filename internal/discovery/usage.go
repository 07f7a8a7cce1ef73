package discovery

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
)

// Usage is what use taught the index about one entry: the words (analyzed
// terms) callers found it with, each with how many callers did. The index
// searches them as one more field of the entry (Weights.Usage), so an
// entry written "Send a payment reminder" is found by "nudge" once callers
// have asked for it that way and said that this entry was the answer.
// Counts are of callers, not of times: whoever feeds Usage decides what a
// caller is (the catalog counts accounts, so one account cannot make a
// word weigh more than another's).
type Usage map[string]int

// MaxUsageTerms bounds the learnt words kept per entry: the most used
// first (ties by word). An entry is about a few things; a long tail of
// words used once says more about the callers than about it.
const MaxUsageTerms = 64

// SetUsage replaces what use taught the index about the entry with key k
// (nil or empty forgets it). It applies now if the entry is in the index,
// and whenever it is added or replaced later: usage belongs to the key,
// not to one version of the entry. Words that are not analyzed terms
// (upper case, spaces, over 64 bytes) and counts below 1 are ignored.
func (ix *Index) SetUsage(k Key, u Usage) {
	l := boundUsage(u)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if len(l.terms) == 0 {
		if _, ok := ix.usage[k]; !ok {
			return
		}
		delete(ix.usage, k)
	} else {
		if old, ok := ix.usage[k]; ok && slices.Equal(old.counts, l.counts) &&
			slices.EqualFunc(old.terms, l.terms, func(a, b docTerm) bool { return a.term == b.term }) {
			return // the same usage: the entry is not written again
		}
		if ix.usage == nil {
			ix.usage = map[Key]learnt{}
		}
		ix.usage[k] = l
	}
	old := ix.cur.Load()
	for i := range old.segs {
		st := &old.segs[i]
		if d, ok := st.seg.byKey[k]; ok && !st.isDeleted(d) {
			// A new doc: docs are never changed in place. It keeps the
			// old one's analysis and embedding.
			ix.applyLocked([]*doc{st.seg.docs[d].withoutUsage()}, nil, nil)
			return
		}
	}
}

// UsageKeys returns the keys of the entries use taught something, by kind
// and id (entries not in the index included: usage belongs to the key).
func (ix *Index) UsageKeys() []Key {
	ix.mu.Lock()
	keys := slices.Collect(maps.Keys(ix.usage))
	ix.mu.Unlock()
	slices.SortFunc(keys, func(a, b Key) int { return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID)) })
	return keys
}

// UsageOf returns what use taught the index about the entry with key k.
func (ix *Index) UsageOf(k Key) Usage {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	l := ix.usage[k]
	if len(l.terms) == 0 {
		return nil
	}
	u := make(Usage, len(l.terms))
	for i, t := range l.terms {
		u[t.term] = l.counts[i]
	}
	return u
}

// LearnableTerms returns the words of query that use may teach the index:
// the query's own search terms (after shorthands, stop words, numbers and
// opaque values such as email addresses are gone), not its expansions,
// and of those only the words the index holds or general English knows
// (the word vectors' 50,000 words, when they are on). So a key, a token
// or a hash in a query teaches nothing: neither knows it. A plain word is
// a word, though: a common first name, or a password that is a dictionary
// word, may be learnt (an email address or a phone number is a value and
// never is). A whitespace-separated piece of the query that
// holds a token (tokenLike: "sk_live_Zx8Qw3Lk9Vb2Nm4R") teaches none of
// its words, not even "sk" and "live". Qualifiers and exclusions teach
// nothing.
func (ix *Index) LearnableTerms(query string) []string {
	q := ix.parse(dropTokens(cutQuery(query)))
	s := ix.cur.Load()
	var out []string
	for _, t := range q.Terms {
		if s.df(t) > 0 || ix.knownWord(t) {
			out = append(out, t)
		}
	}
	return out
}

// dropTokens removes from s each whitespace-separated piece that holds a
// token.
func dropTokens(s string) string {
	fields := strings.Fields(s)
	kept := fields[:0]
	for _, f := range fields {
		if !tokenLike(f) {
			kept = append(kept, f)
		}
	}
	return strings.Join(kept, " ")
}

// tokenLike reports whether s holds a run of at least 12 letters and
// digits with at least two of each: keys, tokens, hashes and ids, which
// no word of a catalog is.
func tokenLike(s string) bool {
	run, letters, digits := 0, 0, 0
	for _, r := range s + " " {
		switch {
		case unicode.IsDigit(r):
			run, digits = run+1, digits+1
		case unicode.IsLetter(r):
			run, letters = run+1, letters+1
		default:
			if run >= 12 && letters >= 2 && digits >= 2 {
				return true
			}
			run, letters, digits = 0, 0, 0
		}
	}
	return false
}

// knownWord reports whether general English, as the loaded resources know
// it, has a word that analyzes to term.
func (ix *Index) knownWord(term string) bool {
	if ix.wv == nil {
		return false
	}
	_, ok := ix.wv.row(term)
	return ok
}

// learnt is an entry's usage as the index keeps it: the terms of its
// usage field (tf saturated at 255) and, in the same order, the counts as
// given.
type learnt struct {
	terms  []docTerm
	counts []int
}

// boundUsage keeps the MaxUsageTerms most used words of u that can be
// terms, sorted by term.
func boundUsage(u Usage) learnt {
	type word struct {
		w string
		n int
	}
	words := make([]word, 0, len(u))
	for w, n := range u {
		if n >= 1 && isTerm(w) {
			words = append(words, word{w, n})
		}
	}
	if len(words) > MaxUsageTerms {
		slices.SortFunc(words, func(a, b word) int { return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(a.w, b.w)) })
		words = words[:MaxUsageTerms]
	}
	slices.SortFunc(words, func(a, b word) int { return strings.Compare(a.w, b.w) })
	l := learnt{terms: make([]docTerm, len(words)), counts: make([]int, len(words))}
	for i, w := range words {
		l.terms[i].term = w.w
		l.terms[i].tf[fUsage] = sat8(w.n)
		l.counts[i] = w.n
	}
	return l
}

// isTerm reports whether w can be an analyzed term: 1..64 bytes of lower
// case letters and digits.
func isTerm(w string) bool {
	if w == "" || len(w) > maxTokenBytes {
		return false
	}
	for _, r := range w {
		if !isWordRune(r) || r != unicode.ToLower(r) {
			return false
		}
	}
	return true
}

// withoutUsage returns a copy of d without usage terms.
func (d *doc) withoutUsage() *doc {
	out := *d
	out.terms = make([]docTerm, 0, len(d.terms))
	for _, t := range d.terms {
		t.tf[fUsage] = 0
		if t.tf != (tcount{}) {
			out.terms = append(out.terms, t)
		}
	}
	out.lens[fUsage] = 0
	return &out
}

// withUsage returns d with the usage terms merged into its terms (d when
// there are none). d is not changed.
func (d *doc) withUsage(usage []docTerm) *doc {
	if len(usage) == 0 {
		return d
	}
	out := *d
	out.terms = make([]docTerm, 0, len(d.terms)+len(usage))
	i, j := 0, 0
	for i < len(d.terms) || j < len(usage) {
		switch {
		case j == len(usage) || i < len(d.terms) && d.terms[i].term < usage[j].term:
			out.terms = append(out.terms, d.terms[i])
			i++
		case i == len(d.terms) || usage[j].term < d.terms[i].term:
			out.terms = append(out.terms, usage[j])
			j++
		default:
			t := d.terms[i]
			t.tf[fUsage] = usage[j].tf[fUsage]
			out.terms = append(out.terms, t)
			i, j = i+1, j+1
		}
	}
	var n int
	for _, t := range usage {
		n += int(t.tf[fUsage])
	}
	out.lens[fUsage] = sat(n)
	return &out
}

// LabeledUsage is what labeled queries teach about the entries they name,
// as if each query were one caller who said its entries answered it: for
// each entry, each learnable word (LearnableTerms, analyzed by ix, which
// must hold the entries) with the number of queries that used it. It is
// how an operator's example questions, or a labeled set's training split,
// become usage (SetUsage). An id ix does not hold fails, naming the line.
func LabeledUsage(ix *Index, qs []Labeled) (map[Key]Usage, error) {
	byID := map[string]Key{}
	for _, e := range ix.Entries(nil) {
		byID[e.ID] = e.Key()
	}
	out := map[Key]Usage{}
	for _, q := range qs {
		terms := ix.LearnableTerms(q.Query)
		for _, id := range q.Relevant {
			k, ok := byID[id]
			if !ok {
				return nil, fmt.Errorf("line %d: relevant id %q is not in the index", q.Line, id)
			}
			if out[k] == nil {
				out[k] = Usage{}
			}
			for _, w := range terms {
				out[k][w]++
			}
		}
	}
	return out, nil
}
