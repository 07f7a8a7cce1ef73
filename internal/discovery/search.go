package discovery

import (
	"math"
	"math/bits"
	"slices"
	"sync"
	"unicode"
)

// Search returns the k best entries for query among those filter lets
// through, best first. The filter runs on every candidate before it may
// take a place in the top k, so a refused entry is never returned and never
// pushes a permitted one out. A query of qualifiers only (or empty) lists
// matching entries by kind, source and id, score 0; free text with nothing
// to search by (stop words and numbers only) finds nothing.
func (ix *Index) Search(query string, filter Filter, k int) []Hit {
	return ix.search(ix.parse(query), filter, k)
}

// parse parses a query with the index's analysis.
func (ix *Index) parse(query string) Query {
	// Cut first: the rewrites below run on at most MaxQueryBytes.
	query = ix.abbr.expand(cutQuery(query))
	// With values on, they are searched by their type words, and the
	// opaque ones not by their characters.
	text := query
	if ix.opts.ValueWeight > 0 {
		text = maskOpaque(query)
	}
	q := parseQueryStop(text, ix.stem, ix.qstop)
	if !ix.opts.KeepNumbers {
		q.Terms = slices.DeleteFunc(q.Terms, allDigits)
	}
	if ix.opts.ValueWeight > 0 {
		q.values = valueTerms(query, ix.stem)
	}
	return q
}

func allDigits(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return s != ""
}

// SearchQuery is Search with a parsed query.
func (ix *Index) SearchQuery(q Query, filter Filter, k int) []Hit {
	return ix.search(q, filter, k)
}

func (ix *Index) search(q Query, filter Filter, k int) []Hit {
	if k <= 0 {
		return nil
	}
	s := ix.cur.Load()
	if !q.searches() {
		if q.hasText() {
			return nil // words, but none to search by ("the", "is it?"): nothing is relevant
		}
		return s.list(q, filter, k)
	}
	return toHits(ix.rank(s, q, filter, k))
}

// rank returns the k best docs of s for the search terms of q, best first.
func (ix *Index) rank(s *snapshot, q Query, filter Filter, k int) []scored {
	terms := s.termStats(ix.expandAll(s, q))
	if len(terms) == 0 {
		return nil
	}
	return ix.score(s, terms, q, filter, k)
}

// expandAll returns what q searches for in s: its terms and every
// expansion the options turn on, each term once.
func (ix *Index) expandAll(s *snapshot, q Query) []termStat {
	terms := ix.expand(q)
	if ix.opts.CompoundWeight > 0 {
		terms = ix.expandCompounds(s, q, terms)
	}
	if ix.wn != nil {
		terms = ix.expandWordNet(s, q, terms)
	}
	if ix.wv != nil {
		terms = ix.expandWordVectors(s, q, terms)
	}
	return terms
}

// score ranks the docs of s for weighted terms with BM25F and returns the
// k best that q and filter let through, best first.
func (ix *Index) score(s *snapshot, terms []termStat, q Query, filter Filter, k int) []scored {
	avg := s.avgLens()
	pairs := ix.phrasePairs(q, terms)
	var srcScore map[string]float64
	if ix.opts.SourceWeight > 0 {
		srcScore = ix.sourceScores(s.sources, terms)
	}
	top := topK{k: k}
	acc := accPool.Get().(*accumulator)
	defer accPool.Put(acc)
	for si := range s.segs {
		st := &s.segs[si]
		seg := st.seg
		acc.reset(len(seg.docs))
		for _, t := range terms {
			for _, p := range seg.postings[t.term] {
				acc.add(p.doc, t.weight*t.idf*ix.termScore(&p, &seg.lens[p.doc], &avg))
			}
		}
		for _, i := range acc.touched {
			if st.isDeleted(i) {
				continue
			}
			d := seg.docs[i]
			if len(pairs) > 0 {
				acc.score[i] += pairs.bonus(d.name)
			}
			if srcScore != nil && contextKind(d.e.Kind) {
				acc.score[i] += ix.opts.SourceWeight * srcScore[d.e.Source]
			}
			if top.full() && !top.better(acc.score[i], d) {
				continue // cheap test first: most candidates cannot enter
			}
			if !q.docAllowed(d) || filter != nil && !filter(d.e) {
				continue
			}
			top.push(scored{d, acc.score[i]})
		}
	}
	return top.sorted()
}

// termScore is the BM25F saturation of one term in one doc: field
// frequencies are length-normalized per field, weighted and summed into one
// pseudo-frequency before the k1 saturation (Robertson and Zaragoza, "The
// Probabilistic Relevance Framework: BM25 and Beyond", 2009, section 3.4).
func (ix *Index) termScore(p *posting, lens *tfield, avg *[numFields]float64) float64 {
	var w float64
	for m := p.fields; m != 0; m &= m - 1 {
		f := bits.TrailingZeros8(m)
		if ix.weights[f] == 0 {
			continue
		}
		b := ix.b[f]
		norm := 1.0
		if avg[f] > 0 {
			norm = 1 - b + b*float64(lens[f])/avg[f]
		}
		w += ix.weights[f] * float64(p.tf[f]) / norm
	}
	k1 := ix.opts.K1
	return w * (k1 + 1) / (k1 + w)
}

type termStat struct {
	term   string
	weight float64 // 1 for a query word, SynonymWeight for a synonym
	idf    float64
	via    Via    // why the query searches for it (Explain)
	from   string // the query word or term it came from, for an expansion
}

// expand returns the query terms with weight 1 and their synonyms that are
// not query terms themselves with the synonym weight.
func (ix *Index) expand(q Query) []termStat {
	out := make([]termStat, 0, len(q.Terms))
	for _, t := range q.Terms {
		out = append(out, termStat{term: t, weight: 1, via: ViaQuery})
	}
	add := func(s string, w float64, via Via, from string) {
		if !slices.ContainsFunc(out, func(x termStat) bool { return x.term == s }) {
			out = append(out, termStat{term: s, weight: w, via: via, from: from})
		}
	}
	for _, t := range q.Terms {
		for _, s := range ix.syn[t] {
			add(s, ix.opts.SynonymWeight, ViaSynonym, t)
		}
	}
	for _, w := range q.words {
		for _, s := range ix.exp[w] {
			add(s, ix.opts.ExpansionWeight, ViaQuestion, w)
		}
	}
	for _, s := range q.values {
		add(s, ix.opts.ValueWeight, ViaValue, "")
	}
	return out
}

// termStats keeps the terms that occur somewhere, with their inverse
// document frequency over the whole index (Lucene's BM25 idf, always
// positive).
func (s *snapshot) termStats(terms []termStat) []termStat {
	out := terms[:0]
	for _, t := range terms {
		df := 0
		for i := range s.segs {
			df += len(s.segs[i].seg.postings[t.term])
		}
		if df == 0 {
			continue
		}
		t.idf = math.Log(1 + (float64(s.total)-float64(df)+0.5)/(float64(df)+0.5))
		out = append(out, t)
	}
	return out
}

// list answers a query without search terms.
func (s *snapshot) list(q Query, filter Filter, k int) []Hit {
	var out []Hit
	for _, d := range s.sortedDocs() {
		if len(out) == k {
			break
		}
		if q.docAllowed(d) && (filter == nil || filter(d.e)) {
			out = append(out, Hit{Entry: d.e})
		}
	}
	return out
}

func (q *Query) docAllowed(d *doc) bool {
	if len(q.Kinds) > 0 && !slices.Contains(q.Kinds, d.e.Kind) ||
		len(q.Sources) > 0 && !slices.Contains(q.Sources, d.e.Source) {
		return false
	}
	for _, t := range q.Exclude {
		if d.has(t) {
			return false
		}
	}
	if len(q.Tags) == 0 {
		return true
	}
	for _, t := range q.Tags {
		if d.hasTag(t) {
			return true
		}
	}
	return false
}

// accumulator sums scores per doc of one segment; pooled so that a search
// allocates nothing per doc.
type accumulator struct {
	score   []float64
	seen    []bool
	touched []int32
}

var accPool = sync.Pool{New: func() any { return new(accumulator) }}

func (a *accumulator) reset(n int) {
	for _, i := range a.touched {
		a.score[i], a.seen[i] = 0, false
	}
	a.touched = a.touched[:0]
	if cap(a.score) < n {
		a.score = make([]float64, n)
		a.seen = make([]bool, n)
	}
	a.score, a.seen = a.score[:n], a.seen[:n]
}

func (a *accumulator) add(i int32, v float64) {
	if !a.seen[i] {
		a.seen[i] = true
		a.touched = append(a.touched, i)
	}
	a.score[i] += v
}

type scored struct {
	d     *doc
	score float64
}

// less orders results: higher score first, then kind, source and id, so
// equal scores rank the same way every time.
func less(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return compareEntries(&a.d.e, &b.d.e) < 0
}

// topK keeps the k best results in a min-heap (the worst at the root).
type topK struct {
	k    int
	heap []scored
}

func (t *topK) full() bool { return len(t.heap) >= t.k }

// better reports whether a doc with score would beat the worst kept one.
func (t *topK) better(score float64, d *doc) bool { return less(scored{d, score}, t.heap[0]) }

func (t *topK) push(x scored) {
	if len(t.heap) < t.k {
		t.heap = append(t.heap, x)
		for i := len(t.heap) - 1; i > 0; {
			p := (i - 1) / 2
			if !less(t.heap[p], t.heap[i]) {
				break
			}
			t.heap[p], t.heap[i] = t.heap[i], t.heap[p]
			i = p
		}
		return
	}
	if !less(x, t.heap[0]) {
		return
	}
	t.heap[0] = x
	for i := 0; ; {
		w, l, r := i, 2*i+1, 2*i+2
		if l < len(t.heap) && less(t.heap[w], t.heap[l]) {
			w = l
		}
		if r < len(t.heap) && less(t.heap[w], t.heap[r]) {
			w = r
		}
		if w == i {
			break
		}
		t.heap[i], t.heap[w] = t.heap[w], t.heap[i]
		i = w
	}
}

// sorted returns the kept results, best first.
func (t *topK) sorted() []scored {
	sortScored(t.heap)
	return t.heap
}

func sortScored(xs []scored) {
	slices.SortFunc(xs, func(a, b scored) int {
		if less(a, b) {
			return -1
		}
		if less(b, a) {
			return 1
		}
		return 0
	})
}

func toHits(xs []scored) []Hit {
	out := make([]Hit, len(xs))
	for i, x := range xs {
		out[i] = Hit{Entry: x.d.e, Score: x.score}
	}
	return out
}
