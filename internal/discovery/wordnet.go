package discovery

import (
	"fmt"
	"math"

	"github.com/sluicehq/sluice/internal/discovery/wordnet"
)

// WordNetOptions set the query expansion by the WordNet thesaurus
// (package wordnet): a query word that the index holds in few entries or in
// none is widened with WordNet words related to it that the index does
// hold, at a reduced weight. It is general English, not fitted to a
// catalog, and stays lexical (no embeddings). Query time only.
type WordNetOptions struct {
	// Weight scales a synonym's or derived word's score against the query
	// word's own (0..1); hypernyms and hyponyms get half of it. 0 turns the
	// expansion off (and the thesaurus is never loaded).
	Weight float64 `json:"weight"`
	// MaxDF: a query word is expanded when it occurs in at most this
	// fraction of the entries (0..1; 0 expands only words absent from
	// the index).
	MaxDF float64 `json:"max_df"`
	// Senses is how many of a word's senses, most frequent first, are
	// followed (0 for all). WordNet lists many rare senses; the first
	// ones are what a request usually means.
	Senses int `json:"senses"`
	// Derived, Hypernyms and Hyponyms follow those relations besides
	// synonyms (delete -> deletion; invoice -> bill; bill -> invoice).
	Derived   bool `json:"derived"`
	Hypernyms bool `json:"hypernyms"`
	Hyponyms  bool `json:"hyponyms"`
	// MaxTerms bounds the words one query word adds (> 0).
	MaxTerms int `json:"max_terms"`
}

// DefaultWordNet is the expansion as measured, turned off (Weight 0):
// on the training split it did not help (docs/discovery.md), so it is not
// part of the default ranking. Setting Weight (0.5 was measured) turns it
// on with these settings, the best of the training split's: only words
// absent from the index are expanded, through their most frequent sense,
// by synonyms and derived words (hypernyms added noise: invoice -> charge,
// taxi -> travel, go, move).
var DefaultWordNet = WordNetOptions{Weight: 0.25, MaxDF: 0, Senses: 0, Derived: true, MaxTerms: 4}

// maxWordNetCandidates bounds the related words examined for one query word
// (a general noun has hundreds of hyponyms), so a search stays cheap.
const maxWordNetCandidates = 64

func (w *WordNetOptions) check() error {
	if !(w.Weight >= 0 && w.Weight <= 1) {
		return fmt.Errorf("discovery options: wordnet weight must be between 0 and 1, got %v", w.Weight)
	}
	if w.Weight == 0 {
		return nil
	}
	if !(w.MaxDF >= 0 && w.MaxDF <= 1) || math.IsNaN(w.MaxDF) {
		return fmt.Errorf("discovery options: wordnet max_df must be between 0 and 1, got %v", w.MaxDF)
	}
	if w.Senses < 0 {
		return fmt.Errorf("discovery options: wordnet senses must be >= 0, got %d", w.Senses)
	}
	if w.MaxTerms <= 0 {
		return fmt.Errorf("discovery options: wordnet max_terms must be > 0, got %d", w.MaxTerms)
	}
	return nil
}

// expandWordNet adds to terms, for each query word that is rare or absent
// in s, the related words WordNet gives that s holds.
func (ix *Index) expandWordNet(s *snapshot, q Query, terms []termStat) []termStat {
	o := &ix.opts.WordNet
	rels := wordnet.Relations{Derived: o.Derived, Hypernyms: o.Hypernyms, Hyponyms: o.Hyponyms}
	var toks []string
	for _, sw := range ix.sparseWords(s, q, terms, o.MaxDF) {
		w, t := sw.word, sw.term
		added := 0
		for i, r := range ix.wn.Related(w, o.Senses, rels) {
			if i == maxWordNetCandidates || added == o.MaxTerms {
				break
			}
			toks = appendTokens(toks[:0], r.Word, ix.stem)
			if len(toks) != 1 || toks[0] == t || containsTerm(terms, toks[0]) || s.df(toks[0]) == 0 {
				continue
			}
			weight := o.Weight
			if r.Rel == wordnet.Hypernym || r.Rel == wordnet.Hyponym {
				weight /= 2
			}
			terms = append(terms, termStat{term: toks[0], weight: weight, via: ViaWordNet, from: w})
			added++
		}
	}
	return terms
}

// sparseWord is a query word and its term.
type sparseWord struct{ word, term string }

// sparseWords returns the words of q that the expansions may widen: each
// one search term of q (not a stop word, a number or an identifier that
// splits into several) that s holds in at most maxDF of its entries, or in
// none.
func (ix *Index) sparseWords(s *snapshot, q Query, terms []termStat, maxDF float64) []sparseWord {
	limit := maxDF * float64(s.total)
	var out []sparseWord
	var toks []string
	for _, w := range q.words {
		toks = appendTokensStop(toks[:0], w, ix.stem, ix.qstop)
		if len(toks) != 1 || !containsTerm(terms, toks[0]) {
			continue
		}
		if df := s.df(toks[0]); df > 0 && float64(df) > limit {
			continue
		}
		out = append(out, sparseWord{w, toks[0]})
	}
	return out
}

func containsTerm(ts []termStat, term string) bool {
	for _, t := range ts {
		if t.term == term {
			return true
		}
	}
	return false
}

// df is the number of docs of s (deleted ones included, as in idf) that
// hold term.
func (s *snapshot) df(term string) int {
	n := 0
	for i := range s.segs {
		n += len(s.segs[i].seg.postings[term])
	}
	return n
}
