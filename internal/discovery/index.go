package discovery

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sluicehq/sluice/internal/discovery/wordnet"
)

// Index is a concurrency-safe search index. Searches read an immutable
// snapshot (one atomic load, never blocked); writers are serialized and
// publish a new snapshot.
//
// The snapshot is a short list of immutable segments, as in Lucene: a write
// marks the old versions of the entries it touches deleted (a copy-on-write
// bitset of their segment) and adds the new versions as a small new segment;
// segments of similar sizes are merged and segments with many deletions
// rebuilt, from already analyzed docs, so that a search visits a few
// segments (about log2 of the entries) whatever the history of writes.
type Index struct {
	opts    Options
	weights [numFields]float64
	b       [numFields]float64
	stem    func(string) string
	syn     synonymTable
	qstop   map[string]bool // query-only stop words
	exp     map[string][]string
	abbr    *abbreviations     // nil for none
	wn      *wordnet.Thesaurus // nil when the WordNet expansion is off
	wv      *wordVectors       // nil when the word vector expansion is off
	vocab   vocabulary         // the terms with vectors, when wv is set
	usage   map[Key]learnt     // what use taught about entries (usage.go); writers only

	mu  sync.Mutex // serializes writers
	cur atomic.Pointer[snapshot]
}

// maxSegments bounds the segments a search visits (the merge rule alone
// keeps about log2(entries) of them).
const maxSegments = 24

type segKey struct {
	kind   Kind
	source string
}

// segment is an immutable inverted index of some docs.
type segment struct {
	docs     []*doc
	lens     []tfield // lens[i] == docs[i].lens, dense for the scoring loop
	postings map[string][]posting
	byKey    map[Key]int32
	bySource map[segKey][]int32
	totLen   [numFields]int64
	learnt   int // docs with a usage field
}

type posting struct {
	doc int32
	tf  tcount
	// fields has bit f set when tf[f] > 0: a term is in one to three of
	// the seven fields, and scoring visits only those. With tf it fills
	// 8 bytes: a posting is 12.
	fields uint8
}

// fieldMask returns the bits of the fields where tf is not 0.
func fieldMask(tf *tcount) uint8 {
	var m uint8
	for f := range numFields {
		if tf[f] != 0 {
			m |= 1 << f
		}
	}
	return m
}

// segState is a segment as one snapshot sees it: which of its docs are
// deleted. Bitsets are copied before a change, never changed in place.
type segState struct {
	seg       *segment
	deleted   []uint64 // nil when none is
	ndel      int
	delLen    [numFields]int64
	delLearnt int // deleted docs with a usage field
}

func (st *segState) isDeleted(i int32) bool {
	return st.deleted != nil && st.deleted[i>>6]&(1<<(uint(i)&63)) != 0
}

func (st *segState) live() int { return len(st.seg.docs) - st.ndel }

// snapshot is one immutable state of the index.
type snapshot struct {
	segs   []segState
	n      int              // live docs
	total  int              // docs including deleted ones (idf counts them, as df does)
	totLen [numFields]int64 // of live docs
	learnt int              // live docs with a usage field
	// sources is the index of the aggregate docs of sources (sources.go),
	// nil unless Options.SourceWeight is set.
	sources *snapshot
	// vocab is the index's terms that have word vectors, nil when the
	// expansion is off and in the empty index.
	vocab *vectorVocab
}

// New returns an empty index with DefaultOptions.
func New() *Index {
	ix, err := NewIndex(DefaultOptions())
	if err != nil {
		panic(err) // the defaults are valid; a test checks it
	}
	return ix
}

// NewIndex returns an empty index ranking with o.
func NewIndex(o Options) (*Index, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	stem, _ := stemmerByName(o.Stemmer)
	ix := &Index{opts: o, weights: o.Weights.array(), stem: stem}
	for f := range numFields {
		ix.b[f] = o.B
	}
	if o.FieldB != nil {
		ix.b = o.FieldB.array()
	}
	if o.SynonymWeight > 0 {
		ix.syn = buildSynonyms(o.Synonyms, stem)
	}
	if o.ExpansionWeight > 0 && len(o.Expansions) > 0 {
		ix.exp = map[string][]string{}
		for w, to := range o.Expansions {
			w = strings.ToLower(w)
			for _, x := range to {
				for _, t := range appendTokens(nil, x, stem) {
					ix.exp[w] = appendUnique(ix.exp[w], t)
				}
			}
		}
	}
	if o.WordNet.Weight > 0 {
		wn, err := wordnet.Default()
		if err != nil {
			return nil, fmt.Errorf("discovery options: loading wordnet: %w", err)
		}
		ix.wn = wn
	}
	if o.WordVectors.Weight > 0 {
		wv, err := loadWordVectors(o.Stemmer, stem)
		if err != nil {
			return nil, fmt.Errorf("discovery options: loading word vectors: %w", err)
		}
		ix.wv = wv
	}
	ix.abbr = compileAbbreviations(o.Abbreviations)
	if len(o.QueryStopWords) > 0 {
		ix.qstop = map[string]bool{}
		for _, w := range o.QueryStopWords {
			ix.qstop[strings.ToLower(w)] = true
		}
	}
	ix.cur.Store(&snapshot{})
	return ix, nil
}

// Options returns the index's ranking options.
func (ix *Index) Options() Options { return ix.opts }

// Len returns the number of entries.
func (ix *Index) Len() int { return ix.cur.Load().n }

// Get returns the entry with key k.
func (ix *Index) Get(k Key) (Entry, bool) {
	s := ix.cur.Load()
	for i := range s.segs {
		st := &s.segs[i]
		if d, ok := st.seg.byKey[k]; ok && !st.isDeleted(d) {
			return st.seg.docs[d].e, true
		}
	}
	return Entry{}, false
}

// Entries returns every entry the filter lets through, ordered by kind,
// source and id: the answer to "what can I use" without a query.
func (ix *Index) Entries(filter Filter) []Entry {
	var out []Entry
	for _, d := range ix.cur.Load().sortedDocs() {
		if filter == nil || filter(d.e) {
			out = append(out, d.e)
		}
	}
	return out
}

// sortedDocs returns the live docs by kind, source and id.
func (s *snapshot) sortedDocs() []*doc {
	out := make([]*doc, 0, s.n)
	for i := range s.segs {
		st := &s.segs[i]
		for j, d := range st.seg.docs {
			if !st.isDeleted(int32(j)) {
				out = append(out, d)
			}
		}
	}
	slices.SortFunc(out, func(a, b *doc) int { return compareEntries(&a.e, &b.e) })
	return out
}

func compareEntries(a, b *Entry) int {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Source, b.Source), cmp.Compare(a.ID, b.ID))
}

// Upsert adds entries or replaces the entries with the same (kind, id),
// wherever their source was. Either every entry is valid and all are
// applied, or none is.
func (ix *Index) Upsert(entries ...Entry) error {
	docs, err := ix.analyzeAll(entries)
	if err != nil {
		return err
	}
	ix.apply(docs, nil, nil)
	return nil
}

// Remove deletes the entries with the given keys and returns how many
// there were.
func (ix *Index) Remove(keys ...Key) int {
	return ix.apply(nil, nil, keys)
}

// Replace makes entries the whole content of (kind, source): entries of it
// that are not in the list go away. Each entry's Kind and Source are set to
// kind and source when empty and must match them otherwise. An entry whose
// (kind, id) lived under another source moves here.
func (ix *Index) Replace(kind Kind, source string, entries []Entry) error {
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
	docs, err := ix.analyzeAll(es)
	if err != nil {
		return err
	}
	ix.apply(docs, &segKey{kind, source}, nil)
	return nil
}

// analyzeAll validates and analyzes entries outside the writer lock.
func (ix *Index) analyzeAll(entries []Entry) ([]*doc, error) {
	docs := make([]*doc, len(entries))
	stem := ix.stem
	if stem != nil && len(entries) > 1 {
		stem = memoStem(stem) // a batch repeats its words: stem each once
	}
	for i := range entries {
		if err := entries[i].validate(); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		docs[i] = analyze(entries[i], stem)
	}
	return docs, nil
}

// apply publishes a snapshot where the live docs of (kind, source) whole
// (when set), of the keys in remove and of the keys of docs are deleted, and
// docs are added (a later doc with the same key wins). It returns how many
// live docs were deleted.
func (ix *Index) apply(docs []*doc, whole *segKey, remove []Key) int {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.applyLocked(docs, whole, remove)
}

// applyLocked is apply with ix.mu held. Docs get their entries' usage
// here, under the lock, so a SetUsage between a write's analysis and its
// publication is never lost.
func (ix *Index) applyLocked(docs []*doc, whole *segKey, remove []Key) int {
	if len(ix.usage) > 0 {
		for i, d := range docs {
			docs[i] = d.withUsage(ix.usage[d.e.Key()].terms)
		}
	}
	old := ix.cur.Load()
	segs, deleted, touched := edit(slices.Clone(old.segs), docs, whole, remove)
	s := newSnapshot(compact(segs))
	if ix.wv != nil {
		s.vocab = ix.vocab.add(ix.wv, docs)
	}
	s.sources = old.sources
	if ix.opts.SourceWeight > 0 && len(touched) > 0 {
		s.sources = updateSources(old.sources, s, touched)
	}
	ix.cur.Store(s)
	return deleted
}

// edit deletes from segs (a copy the caller owns) the live docs of (kind,
// source) whole (when set), of the keys in remove and of the keys of docs,
// and adds docs as a new segment (a later doc with the same key wins). It
// returns the segments, how many live docs were deleted, and the sources
// of context kinds (sources.go) whose docs were deleted or added.
func edit(segs []segState, docs []*doc, whole *segKey, remove []Key) (_ []segState, deleted int, touched map[string]bool) {
	copied := make([]bool, len(segs))
	touch := func(e *Entry) {
		if contextKind(e.Kind) {
			if touched == nil {
				touched = map[string]bool{}
			}
			touched[e.Source] = true
		}
	}
	del := func(si int, d int32) {
		st := &segs[si]
		if st.isDeleted(d) {
			return
		}
		if !copied[si] {
			bits := make([]uint64, (len(st.seg.docs)+63)/64)
			copy(bits, st.deleted)
			st.deleted, copied[si] = bits, true
		}
		st.deleted[d>>6] |= 1 << (uint(d) & 63)
		st.ndel++
		for f := range numFields {
			st.delLen[f] += int64(st.seg.lens[d][f])
		}
		if st.seg.lens[d][fUsage] > 0 {
			st.delLearnt++
		}
		touch(&st.seg.docs[d].e)
		deleted++
	}
	delKey := func(k Key) {
		for si := range segs {
			if d, ok := segs[si].seg.byKey[k]; ok {
				del(si, d)
			}
		}
	}
	if whole != nil {
		for si := range segs {
			for _, d := range segs[si].seg.bySource[*whole] {
				del(si, d)
			}
		}
	}
	for _, k := range remove {
		delKey(k)
	}
	last := make(map[Key]int, len(docs))
	for i, d := range docs {
		last[d.e.Key()] = i
	}
	var add []*doc
	for i, d := range docs {
		if last[d.e.Key()] == i {
			delKey(d.e.Key())
			add = append(add, d)
			touch(&d.e)
		}
	}
	if len(add) > 0 {
		segs = append(segs, segState{seg: buildSegment(add)})
	}
	return segs, deleted, touched
}

// compact drops empty segments, rebuilds segments of which more than a third
// is deleted, and merges segments of similar sizes: ordered by size, the
// smallest is merged into the next while it is at least half its size. So
// sizes fall geometrically (about log2(n) segments), and each doc takes part
// in O(log n) merges over its life, as in a log-structured merge tree.
// Rebuilding and merging cost only postings: docs are not analyzed again.
func compact(segs []segState) []segState {
	out := segs[:0]
	for _, st := range segs {
		switch {
		case st.live() == 0:
		case st.ndel*3 > len(st.seg.docs):
			out = append(out, segState{seg: buildSegment(liveDocs(&st))})
		default:
			out = append(out, st)
		}
	}
	slices.SortStableFunc(out, func(a, b segState) int { return cmp.Compare(b.live(), a.live()) })
	for n := len(out); n >= 2 && (out[n-1].live()*2 >= out[n-2].live() || n > maxSegments); n = len(out) {
		merged := append(liveDocs(&out[n-2]), liveDocs(&out[n-1])...)
		out = append(out[:n-2], segState{seg: buildSegment(merged)})
		slices.SortStableFunc(out, func(a, b segState) int { return cmp.Compare(b.live(), a.live()) })
	}
	return out
}

func liveDocs(st *segState) []*doc {
	out := make([]*doc, 0, st.live())
	for i, d := range st.seg.docs {
		if !st.isDeleted(int32(i)) {
			out = append(out, d)
		}
	}
	return out
}

func newSnapshot(segs []segState) *snapshot {
	s := &snapshot{segs: segs}
	for i := range segs {
		st := &segs[i]
		s.n += st.live()
		s.total += len(st.seg.docs)
		for f := range numFields {
			s.totLen[f] += st.seg.totLen[f] - st.delLen[f]
		}
		s.learnt += st.seg.learnt - st.delLearnt
	}
	return s
}

// buildSegment indexes docs (keys are unique among them).
func buildSegment(docs []*doc) *segment {
	seg := &segment{
		docs:     docs,
		lens:     make([]tfield, len(docs)),
		postings: map[string][]posting{},
		byKey:    make(map[Key]int32, len(docs)),
		bySource: map[segKey][]int32{},
	}
	for i, d := range docs {
		seg.byKey[d.e.Key()] = int32(i)
		sk := segKey{d.e.Kind, d.e.Source}
		seg.bySource[sk] = append(seg.bySource[sk], int32(i))
		seg.lens[i] = d.lens
		for f := range numFields {
			seg.totLen[f] += int64(d.lens[f])
		}
		if d.lens[fUsage] > 0 {
			seg.learnt++
		}
		for _, t := range d.terms {
			seg.postings[t.term] = append(seg.postings[t.term], posting{doc: int32(i), tf: t.tf, fields: fieldMask(&t.tf)})
		}
	}
	return seg
}

// memoStem caches stem for one batch, up to a bound.
func memoStem(stem func(string) string) func(string) string {
	const maxWords = 1 << 16
	cache := map[string]string{}
	return func(w string) string {
		if s, ok := cache[w]; ok {
			return s
		}
		s := stem(w)
		if len(cache) < maxWords {
			cache[w] = s
		}
		return s
	}
}

// avgLens is the mean length of each field, the BM25F length
// normalization's reference. The usage field's mean is over the docs that
// have one: most entries have none until use teaches them, and a mean over
// all would make the first learnt entry's few words look a hundred times
// too long, and count for nothing.
func (s *snapshot) avgLens() (avg [numFields]float64) {
	if s.n == 0 {
		return avg
	}
	for f := range numFields {
		avg[f] = float64(s.totLen[f]) / float64(s.n)
	}
	if s.learnt > 0 {
		avg[fUsage] = float64(s.totLen[fUsage]) / float64(s.learnt)
	}
	return avg
}
