package discovery

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
)

// Hybrid adds embeddings to an Index: entries are embedded when they are
// written, and a search fuses the BM25 ranking with the ranking by cosine
// similarity to the query's embedding (reciprocal rank fusion: each list
// gives a doc 1/(RRFK + rank)). Both rankings see only what the filter lets
// through. When the embedder fails at search time, the BM25 ranking is the
// answer and the failure is logged.
type Hybrid struct {
	ix  *Index
	emb Embedder
	log *slog.Logger
	// RRFK is the fusion constant (default 60, as in Cormack et al. 2009);
	// Depth is how many results of each ranking are fused (default 50).
	RRFK  int
	Depth int
	// VectorWeight scales the vector ranking's share of the fusion against
	// BM25's (default 1: equal; weighted RRF); 0 leaves BM25's ranking, and
	// queries are not embedded.
	VectorWeight float64
}

// NewHybrid returns a hybrid search over ix. Write through it (Upsert,
// Replace) so entries get their vectors; entries written straight to ix
// rank by BM25 only.
func NewHybrid(ix *Index, emb Embedder, log *slog.Logger) *Hybrid {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Hybrid{ix: ix, emb: emb, log: log, RRFK: 60, Depth: 50, VectorWeight: 1}
}

// Index returns the underlying index.
func (h *Hybrid) Index() *Index { return h.ix }

// Upsert embeds and indexes entries (see Index.Upsert).
func (h *Hybrid) Upsert(ctx context.Context, entries ...Entry) error {
	docs, err := h.embedAll(ctx, entries)
	if err != nil {
		return err
	}
	h.ix.apply(docs, nil, nil)
	return nil
}

// Replace embeds entries and makes them the content of (kind, source) (see
// Index.Replace).
func (h *Hybrid) Replace(ctx context.Context, kind Kind, source string, entries []Entry) error {
	if !kind.Valid() {
		return fmt.Errorf("replace: unknown kind %q", kind)
	}
	es := make([]Entry, len(entries))
	for i, e := range entries {
		if e.Kind == "" {
			e.Kind = kind
		}
		if e.Source == "" {
			e.Source = source
		}
		if e.Kind != kind || e.Source != source {
			return fmt.Errorf("replace %s/%s: entry %d (%q) is %s/%s", kind, source, i, e.ID, e.Kind, e.Source)
		}
		es[i] = e
	}
	docs, err := h.embedAll(ctx, es)
	if err != nil {
		return err
	}
	h.ix.apply(docs, &segKey{kind, source}, nil)
	return nil
}

// Remove deletes entries (see Index.Remove).
func (h *Hybrid) Remove(keys ...Key) int { return h.ix.Remove(keys...) }

func (h *Hybrid) embedAll(ctx context.Context, entries []Entry) ([]*doc, error) {
	docs, err := h.ix.analyzeAll(entries)
	if err != nil || len(docs) == 0 {
		return docs, err
	}
	texts := make([]string, len(entries))
	for i := range entries {
		texts[i] = embedText(&entries[i])
	}
	vecs, err := h.emb.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(docs) {
		return nil, fmt.Errorf("embeddings: %d vectors for %d entries", len(vecs), len(docs))
	}
	for i, d := range docs {
		d.vec = normalize(vecs[i]) // nil for a zero vector: BM25 only
	}
	return docs, nil
}

// embedText is what an entry's vector stands for.
func embedText(e *Entry) string {
	var b strings.Builder
	b.WriteString(e.Name)
	for _, s := range []string{e.Summary, e.Description} {
		if s != "" {
			b.WriteString(". ")
			b.WriteString(s)
		}
	}
	if len(e.Parameters) > 0 {
		b.WriteString(". Parameters:")
		for _, p := range e.Parameters {
			b.WriteString(" ")
			b.WriteString(p.Name)
		}
	}
	return b.String()
}

// Search returns the k best entries for query by reciprocal rank fusion of
// BM25 and vector similarity. A query with qualifiers only lists entries
// as Index.Search does. When the query cannot be embedded, the answer is
// the BM25 ranking and the failure is logged.
func (h *Hybrid) Search(ctx context.Context, query string, filter Filter, k int) []Hit {
	hits, err := h.SearchErr(ctx, query, filter, k)
	if err != nil {
		h.log.Warn("discovery: query embedding failed; BM25 ranking only", "err", err)
	}
	return hits
}

// SearchErr is Search that also returns why the vectors were not used (the
// hits are then BM25's), for callers that must not take a BM25 answer for
// a hybrid one, such as an evaluation.
//
// The first Depth results are the fusion of the top Depth of each ranking,
// whatever k is, so a search for the top 5 and one for the top 300 agree
// on their first 5; results past the fused ones follow in BM25 order.
func (h *Hybrid) SearchErr(ctx context.Context, query string, filter Filter, k int) ([]Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	// Parsed as the index parses (query stop words, numbers dropped), so the
	// BM25 half ranks as a plain search does.
	q := h.ix.parse(query)
	s := h.ix.cur.Load()
	if !q.searches() && !q.hasText() {
		return s.list(q, filter, k), nil
	}
	// Free text with nothing for BM25 ("what can I do?") still has a
	// meaning for the vectors: BM25's list is empty, and fusion is theirs.
	depth := max(h.Depth, 1)
	bm := h.ix.rank(s, q, filter, max(depth, k))
	if h.VectorWeight <= 0 {
		return toHits(bm[:min(k, len(bm))]), nil // the vectors weigh nothing
	}
	qv, err := h.emb.Embed(ctx, []string{query})
	if err == nil && len(qv) != 1 {
		err = fmt.Errorf("embeddings: %d vectors for 1 query", len(qv))
	}
	var v []float32
	if err == nil {
		if v = normalize(qv[0]); v == nil {
			err = fmt.Errorf("embeddings: the query's vector is zero")
		}
	}
	if err != nil {
		return toHits(bm[:min(k, len(bm))]), err
	}
	vec := s.nearest(v, q, filter, depth)
	rrf := map[*doc]float64{}
	var fused []scored
	for li, list := range [][]scored{bm[:min(depth, len(bm))], vec} {
		w := 1.0
		if li == 1 {
			w = h.VectorWeight
		}
		for rank, x := range list {
			if _, ok := rrf[x.d]; !ok {
				fused = append(fused, scored{d: x.d})
			}
			rrf[x.d] += w / float64(h.RRFK+rank+1)
		}
	}
	for i := range fused {
		fused[i].score = rrf[fused[i].d]
	}
	sortScored(fused)
	for _, x := range bm[min(depth, len(bm)):] {
		if len(fused) >= k {
			break
		}
		if _, ok := rrf[x.d]; !ok {
			fused = append(fused, scored{d: x.d}) // score 0: below every fused one
		}
	}
	return toHits(fused[:min(k, len(fused))]), nil
}

// nearest ranks the live docs with a vector by cosine similarity to v,
// among those the query qualifiers and the filter let through.
func (s *snapshot) nearest(v []float32, q Query, filter Filter, k int) []scored {
	top := topK{k: k}
	for i := range s.segs {
		st := &s.segs[i]
		for j, d := range st.seg.docs {
			if len(d.vec) != len(v) || st.isDeleted(int32(j)) {
				continue
			}
			sim := dot(v, d.vec)
			if top.full() && !top.better(sim, d) {
				continue
			}
			if !q.docAllowed(d) || filter != nil && !filter(d.e) {
				continue
			}
			top.push(scored{d, sim})
		}
	}
	return top.sorted()
}
