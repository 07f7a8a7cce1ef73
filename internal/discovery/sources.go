package discovery

import (
	"maps"
	"math"
	"slices"
	"strings"
)

// Source context. An operation's own text is short ("Get a route"), but it
// belongs to an API whose other operations, title and description say
// what the API is about (directions, travel times, places). A query about
// that subject ("how long to drive to the airport") should lift the API's
// operations over a stray word match in another API ("office"). So each
// source of the kinds below also has an aggregate doc, the sum of its
// entries' term frequencies, kept in a small index of its own, and a
// matching entry gains Options.SourceWeight times its source's BM25F score
// for the query: cluster-based smoothing, as in Liu and Croft, "Cluster-
// based retrieval using language models" (SIGIR 2004), with BM25F in place
// of a language model.
//
// Only sources that are one document take part: an API (its operations
// and its entry) and a text knowledge base. The agents, capabilities and
// operations registries group unrelated entries under one source name, so
// their aggregate says nothing about any one of them.
var contextKinds = []Kind{KindOperation, KindAPI, KindKnowledge}

func contextKind(k Kind) bool { return slices.Contains(contextKinds, k) }

// sourceKey is the key of a source's aggregate doc in the source index.
func sourceKey(source string) Key { return Key{Kind: "", ID: source} }

// updateSources returns the source index of s after the sources in touched
// changed: their aggregate docs are rebuilt from s's live docs (removed
// when none is left). Cost: the terms of the touched sources' entries.
func updateSources(old *snapshot, s *snapshot, touched map[string]bool) *snapshot {
	var segs []segState
	if old != nil {
		segs = slices.Clone(old.segs)
	}
	var add []*doc
	var remove []Key
	for _, src := range slices.Sorted(maps.Keys(touched)) {
		if d := aggregate(s, src); d != nil {
			add = append(add, d)
		} else {
			remove = append(remove, sourceKey(src))
		}
	}
	segs, _, _ = edit(segs, add, nil, remove)
	return newSnapshot(compact(segs))
}

// aggregate builds the aggregate doc of source from the live docs of s;
// nil when it has none.
func aggregate(s *snapshot, source string) *doc {
	sum := map[string]*tcount{}
	var lens tfield
	n := 0
	for si := range s.segs {
		st := &s.segs[si]
		for _, k := range contextKinds {
			for _, i := range st.seg.bySource[segKey{k, source}] {
				if st.isDeleted(i) {
					continue
				}
				n++
				d := st.seg.docs[i]
				for f := range numFields {
					lens[f] = sat(int(lens[f]) + int(d.lens[f]))
				}
				for _, t := range d.terms {
					acc := sum[t.term]
					if acc == nil {
						acc = new(tcount)
						sum[t.term] = acc
					}
					for f := range numFields {
						acc[f] = sat8(int(acc[f]) + int(t.tf[f]))
					}
				}
			}
		}
	}
	if n == 0 {
		return nil
	}
	d := &doc{e: Entry{ID: source, Source: source}, lens: lens, terms: make([]docTerm, 0, len(sum))}
	for term, tf := range sum {
		d.terms = append(d.terms, docTerm{term: term, tf: *tf})
	}
	slices.SortFunc(d.terms, func(a, b docTerm) int { return strings.Compare(a.term, b.term) })
	return d
}

// sourceScores returns the BM25F score of each source of src for terms
// (weighted as in the query). Unlike the entries' idf, the sources' counts
// only live aggregates: every write to a source replaces its aggregate, so
// the deleted ones would soon outnumber the live and skew idf by history.
func (ix *Index) sourceScores(src *snapshot, terms []termStat) map[string]float64 {
	if src == nil || src.n == 0 {
		return nil
	}
	avg := src.avgLens()
	out := make(map[string]float64, src.n)
	for _, t := range terms {
		df := 0
		for si := range src.segs {
			st := &src.segs[si]
			for _, p := range st.seg.postings[t.term] {
				if !st.isDeleted(p.doc) {
					df++
				}
			}
		}
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (float64(src.n)-float64(df)+0.5)/(float64(df)+0.5))
		for si := range src.segs {
			st := &src.segs[si]
			for _, p := range st.seg.postings[t.term] {
				if !st.isDeleted(p.doc) {
					out[st.seg.docs[p.doc].e.Source] += t.weight * idf * ix.termScore(&p, &st.seg.lens[p.doc], &avg)
				}
			}
		}
	}
	return out
}
