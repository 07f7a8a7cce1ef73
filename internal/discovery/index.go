package discovery

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// Index is a concurrency-safe search index. Searches read an immutable
// snapshot (one atomic load, never blocked); writers are serialized and
// publish a new snapshot in which only the segments they touched were
// rebuilt. A segment holds the entries of one (kind, source).
type Index struct {
	opts    Options
	weights [numFields]float64
	stem    func(string) string
	syn     synonymTable

	mu  sync.Mutex // serializes writers
	cur atomic.Pointer[snapshot]
}

type segKey struct {
	kind   Kind
	source string
}

// segment is an immutable inverted index of some docs.
type segment struct {
	key      segKey
	docs     []*doc
	lens     []tfield // lens[i] == docs[i].lens, dense for the scoring loop
	postings map[string][]posting
	byID     map[string]int32
	totLen   [numFields]int64
}

type posting struct {
	doc int32
	tf  tfield
}

// snapshot is one immutable state of the index.
type snapshot struct {
	segs   map[segKey]*segment
	sorted []*segment // by kind, then source
	n      int
	totLen [numFields]int64
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
	if o.SynonymWeight > 0 {
		ix.syn = buildSynonyms(o.Synonyms, stem)
	}
	ix.cur.Store(&snapshot{segs: map[segKey]*segment{}})
	return ix, nil
}

// Options returns the index's ranking options.
func (ix *Index) Options() Options { return ix.opts }

// Len returns the number of entries.
func (ix *Index) Len() int { return ix.cur.Load().n }

// Get returns the entry with key k.
func (ix *Index) Get(k Key) (Entry, bool) {
	s := ix.cur.Load()
	for _, seg := range s.sorted {
		if seg.key.kind != k.Kind {
			continue
		}
		if i, ok := seg.byID[k.ID]; ok {
			return seg.docs[i].e, true
		}
	}
	return Entry{}, false
}

// Entries returns every entry the filter lets through, ordered by kind,
// source and id: the answer to "what can I use" without a query.
func (ix *Index) Entries(filter Filter) []Entry {
	s := ix.cur.Load()
	var out []Entry
	for _, seg := range s.sorted {
		for _, d := range seg.docs {
			if filter == nil || filter(d.e) {
				out = append(out, d.e)
			}
		}
	}
	return out
}

// Upsert adds entries or replaces the entries with the same (kind, id),
// wherever their source was. Either every entry is valid and all are
// applied, or none is.
func (ix *Index) Upsert(entries ...Entry) error {
	docs, err := ix.analyzeAll(entries)
	if err != nil {
		return err
	}
	ix.apply(docs, nil)
	return nil
}

// Remove deletes the entries with the given keys and returns how many
// there were.
func (ix *Index) Remove(keys ...Key) int {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	s := ix.cur.Load()
	drop := map[segKey]map[string]bool{}
	n := 0
	for _, k := range keys {
		for _, seg := range s.sorted {
			if seg.key.kind != k.Kind {
				continue
			}
			if _, ok := seg.byID[k.ID]; ok {
				if drop[seg.key] == nil {
					drop[seg.key] = map[string]bool{}
				}
				if !drop[seg.key][k.ID] {
					drop[seg.key][k.ID] = true
					n++
				}
			}
		}
	}
	if n > 0 {
		ix.publish(s, ix.rebuild(s, nil, drop, nil))
	}
	return n
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
	ix.apply(docs, &segKey{kind, source})
	return nil
}

// analyzeAll validates and analyzes entries outside the writer lock.
func (ix *Index) analyzeAll(entries []Entry) ([]*doc, error) {
	docs := make([]*doc, len(entries))
	for i := range entries {
		if err := entries[i].validate(); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		docs[i] = analyze(entries[i], ix.stem)
	}
	return docs, nil
}

// apply upserts docs; when whole is set, that segment's old content is
// dropped first (Replace).
func (ix *Index) apply(docs []*doc, whole *segKey) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	s := ix.cur.Load()
	// Later duplicates win, as if applied one by one.
	last := map[Key]int{}
	for i, d := range docs {
		last[d.e.Key()] = i
	}
	add := map[segKey][]*doc{}
	drop := map[segKey]map[string]bool{}
	for i, d := range docs {
		k := d.e.Key()
		if last[k] != i {
			continue
		}
		sk := segKey{d.e.Kind, d.e.Source}
		add[sk] = append(add[sk], d)
		for _, seg := range s.sorted { // the old version, wherever it lives
			if seg.key.kind == k.Kind {
				if _, ok := seg.byID[k.ID]; ok {
					if drop[seg.key] == nil {
						drop[seg.key] = map[string]bool{}
					}
					drop[seg.key][k.ID] = true
				}
			}
		}
	}
	ix.publish(s, ix.rebuild(s, add, drop, whole))
}

// rebuild returns the segments that change: each touched segment rebuilt
// from its kept docs plus the added ones (nil when it ends up empty).
func (ix *Index) rebuild(s *snapshot, add map[segKey][]*doc, drop map[segKey]map[string]bool, whole *segKey) map[segKey]*segment {
	touched := map[segKey]bool{}
	for k := range add {
		touched[k] = true
	}
	for k := range drop {
		touched[k] = true
	}
	if whole != nil {
		touched[*whole] = true
	}
	out := map[segKey]*segment{}
	for k := range touched {
		var docs []*doc
		if old := s.segs[k]; old != nil && (whole == nil || *whole != k) {
			for _, d := range old.docs {
				if !drop[k][d.e.ID] {
					docs = append(docs, d)
				}
			}
		}
		docs = append(docs, add[k]...)
		if len(docs) == 0 {
			out[k] = nil
			continue
		}
		out[k] = buildSegment(k, docs)
	}
	return out
}

// publish stores a snapshot with the changed segments.
func (ix *Index) publish(s *snapshot, changed map[segKey]*segment) {
	ns := &snapshot{segs: make(map[segKey]*segment, len(s.segs)+len(changed))}
	for k, seg := range s.segs {
		ns.segs[k] = seg
	}
	for k, seg := range changed {
		if seg == nil {
			delete(ns.segs, k)
		} else {
			ns.segs[k] = seg
		}
	}
	for _, seg := range ns.segs {
		ns.sorted = append(ns.sorted, seg)
		ns.n += len(seg.docs)
		for f := range numFields {
			ns.totLen[f] += seg.totLen[f]
		}
	}
	slices.SortFunc(ns.sorted, func(a, b *segment) int {
		return cmp.Or(cmp.Compare(a.key.kind, b.key.kind), cmp.Compare(a.key.source, b.key.source))
	})
	ix.cur.Store(ns)
}

// buildSegment indexes docs, ordered by id.
func buildSegment(k segKey, docs []*doc) *segment {
	slices.SortFunc(docs, func(a, b *doc) int { return cmp.Compare(a.e.ID, b.e.ID) })
	seg := &segment{
		key:      k,
		docs:     docs,
		lens:     make([]tfield, len(docs)),
		postings: map[string][]posting{},
		byID:     make(map[string]int32, len(docs)),
	}
	for i, d := range docs {
		seg.byID[d.e.ID] = int32(i)
		seg.lens[i] = d.lens
		for f := range numFields {
			seg.totLen[f] += int64(d.lens[f])
		}
		for _, t := range d.terms {
			seg.postings[t.term] = append(seg.postings[t.term], posting{doc: int32(i), tf: t.tf})
		}
	}
	return seg
}
