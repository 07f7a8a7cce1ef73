package discovery

import (
	"fmt"
	"math"
	"sync"

	"github.com/sluicehq/sluice/internal/discovery/wordtab"
	"github.com/sluicehq/sluice/internal/discovery/wordvec"
)

// WordVectorOptions set the query expansion by word vectors (package
// wordvec, GloVe): a query word the index holds in few entries or in none
// is widened with the index's words whose vectors are closest to its own,
// at a reduced weight. Like the WordNet expansion it is general English,
// not fitted to a catalog, and stays lexical: the words it adds are
// searched with BM25 like any other. Query time only.
type WordVectorOptions struct {
	// Weight scales an added word's score against the query word's own
	// (0..1); 0 turns the expansion off (and the table is never loaded).
	Weight float64 `json:"weight"`
	// MinSimilarity is the cosine similarity an index word's vector must
	// reach to be added (0..1).
	MinSimilarity float64 `json:"min_similarity"`
	// MaxTerms bounds the words one query word adds, the closest first.
	MaxTerms int `json:"max_terms"`
	// MaxDF: a query word is expanded when it occurs in at most this
	// fraction of the entries (0..1; 0 expands only words absent from the
	// index).
	MaxDF float64 `json:"max_df"`
	// AddedMaxDF: an index word is added only when it occurs in at most
	// this fraction of the entries (0..1], or in one. A word most entries
	// hold (get, list) says little and costs the most to score.
	AddedMaxDF float64 `json:"added_max_df"`
}

// DefaultWordVectors are the settings chosen on the training sets
// (docs/discovery.md).
var DefaultWordVectors = WordVectorOptions{Weight: 0.25, MinSimilarity: 0.45, MaxTerms: 16, MaxDF: 0.005, AddedMaxDF: 0.1}

func (w *WordVectorOptions) check() error {
	if !(w.Weight >= 0 && w.Weight <= 1) {
		return fmt.Errorf("discovery options: word vector weight must be between 0 and 1, got %v", w.Weight)
	}
	if w.Weight == 0 {
		return nil
	}
	if !(w.MinSimilarity >= 0 && w.MinSimilarity <= 1) {
		return fmt.Errorf("discovery options: word vector min_similarity must be between 0 and 1, got %v", w.MinSimilarity)
	}
	if w.MaxTerms <= 0 || w.MaxTerms > MaxQueryTerms {
		return fmt.Errorf("discovery options: word vector max_terms must be 1..%d, got %d", MaxQueryTerms, w.MaxTerms)
	}
	if !(w.MaxDF >= 0 && w.MaxDF <= 1) {
		return fmt.Errorf("discovery options: word vector max_df must be between 0 and 1, got %v", w.MaxDF)
	}
	if !(w.AddedMaxDF > 0 && w.AddedMaxDF <= 1) {
		return fmt.Errorf("discovery options: word vector added_max_df must be above 0 and at most 1, got %v", w.AddedMaxDF)
	}
	return nil
}

// wordVectors is the table as one index's analysis sees it.
type wordVectors struct {
	tab *wordvec.Table
	// stems and rowOfStem map an index term to the table's most frequent
	// word that analyzes to it: the vector of "invoic" is the vector of
	// "invoice". A wordtab rather than a map, so the collector has no
	// string per stem to mark.
	stems     wordtab.Table
	rowOfStem []int32 // stem number -> the table's row
}

// row returns the table's row for an index term: its most frequent word
// that analyzes to term.
func (wv *wordVectors) row(term string) (int32, bool) {
	if i, ok := wv.stems.Lookup(term); ok {
		return wv.rowOfStem[i], true
	}
	return 0, false
}

// loadedWordVectors caches the stem maps per stemmer: a process builds
// many indexes (one per catalog, and the tests), rarely with more than one
// stemmer.
var loadedWordVectors sync.Map // stemmer name -> func() (*wordVectors, error)

func loadWordVectors(stemmer string, stem func(string) string) (*wordVectors, error) {
	if f, ok := loadedWordVectors.Load(stemmer); ok {
		return f.(func() (*wordVectors, error))()
	}
	f, _ := loadedWordVectors.LoadOrStore(stemmer, sync.OnceValues(func() (*wordVectors, error) {
		tab, err := wordvec.Default()
		if err != nil {
			return nil, err
		}
		wv := &wordVectors{tab: tab}
		stems := wordtab.NewBuilder(tab.Len())
		var toks []string
		for i := range int32(tab.Len()) {
			toks = appendTokens(toks[:0], tab.Word(i), stem)
			if len(toks) != 1 {
				continue // a stop word
			}
			if _, added := stems.Add(toks[0]); added {
				wv.rowOfStem = append(wv.rowOfStem, i) // words come most frequent first
			}
		}
		wv.stems = stems.Table()
		return wv, nil
	}))
	return f.(func() (*wordVectors, error))()
}

// vectorVocab is what one snapshot sees of the index's terms that have
// vectors: a prefix of the append-only list the writers keep (vocabulary),
// and the closest terms found per query word.
type vectorVocab struct {
	terms []string
	vecs  []int8 // len(terms) × dims, copied from the table so the scan reads memory in order

	// near caches the closest terms found per query word: the scan costs
	// about 70 ns per term of the vocabulary (a millisecond at 15,000
	// terms), and agents ask with the same words again and again.
	mu   sync.Mutex
	near map[string][]string
}

// maxNearCache bounds the query words whose closest terms one snapshot
// remembers; when full, it starts over.
const maxNearCache = 1024

// vocabulary is every term that had a vector in any snapshot of an index,
// in the order they came. Only writers (under Index.mu) touch it. It only
// grows, so a snapshot's prefix of it never changes; a term whose entries
// have all gone stays, and a search skips it (its df is 0). It is bounded
// by the table's stems (about 34,000).
type vocabulary struct {
	has   map[string]bool
	terms []string
	vecs  []int8
}

// add appends the terms of docs that have vectors and are new, and returns
// the snapshot's view of the list.
func (v *vocabulary) add(wv *wordVectors, docs []*doc) *vectorVocab {
	if v.has == nil {
		v.has = map[string]bool{}
	}
	for _, d := range docs {
		for _, t := range d.terms {
			if v.has[t.term] {
				continue
			}
			if row, ok := wv.row(t.term); ok {
				v.has[t.term] = true
				v.terms = append(v.terms, t.term)
				v.vecs = append(v.vecs, wv.tab.Vector(row)...)
			}
		}
	}
	return &vectorVocab{terms: v.terms[:len(v.terms):len(v.terms)], vecs: v.vecs[:len(v.vecs):len(v.vecs)]}
}

// expandWordVectors adds to terms, for each query word that is rare or
// absent in s, the terms of s whose vectors are closest to the word's.
func (ix *Index) expandWordVectors(s *snapshot, q Query, terms []termStat) []termStat {
	o := &ix.opts.WordVectors
	minDot := int32(math.Ceil(o.MinSimilarity * wordvec.Scale * wordvec.Scale))
	if s.vocab == nil {
		return terms // the empty index
	}
	for _, sw := range ix.sparseWords(s, q, terms, o.MaxDF) {
		w, t := sw.word, sw.term
		row, ok := ix.wv.tab.Lookup(w)
		if !ok {
			if row, ok = ix.wv.row(t); !ok {
				continue
			}
		}
		for _, n := range s.vocab.closest(s, w, t, ix.wv.tab.Vector(row), minDot, o.MaxTerms, max(o.AddedMaxDF*float64(s.total), 1)) {
			if !containsTerm(terms, n) {
				terms = append(terms, termStat{term: n, weight: o.Weight, via: ViaWordVectors, from: w})
			}
		}
	}
	return terms
}

// closest returns the at most max terms of v that s holds in at most maxDF
// entries, other than t, whose vectors are closest to qv (the vector of
// query word w, which analyzes to t) with a dot product of at least minDot,
// the closest first.
func (v *vectorVocab) closest(s *snapshot, w, t string, qv []int8, minDot int32, max int, maxDF float64) []string {
	v.mu.Lock()
	out, ok := v.near[w]
	v.mu.Unlock()
	if ok {
		return out
	}
	dims := len(qv)
	var near []nearTerm
	for i := range v.terms {
		d := wordvec.Dot(qv, v.vecs[i*dims:(i+1)*dims])
		if d < minDot || v.terms[i] == t {
			continue
		}
		if df := s.df(v.terms[i]); df == 0 || float64(df) > maxDF {
			continue
		}
		near = insertNear(near, nearTerm{v.terms[i], d}, max)
	}
	out = make([]string, len(near))
	for i, n := range near {
		out[i] = n.term
	}
	v.mu.Lock()
	if v.near == nil || len(v.near) >= maxNearCache {
		v.near = map[string][]string{}
	}
	v.near[w] = out
	v.mu.Unlock()
	return out
}

type nearTerm struct {
	term string
	dot  int32
}

// insertNear keeps near sorted by closeness, ties by term, and at most max
// long.
func insertNear(near []nearTerm, n nearTerm, max int) []nearTerm {
	i := len(near)
	for i > 0 && (near[i-1].dot < n.dot || near[i-1].dot == n.dot && near[i-1].term > n.term) {
		i--
	}
	if i == max {
		return near
	}
	if len(near) < max {
		near = append(near, nearTerm{})
	}
	copy(near[i+1:], near[i:len(near)-1])
	near[i] = n
	return near
}
