package discovery

import (
	"slices"
	"strings"
)

// tfield holds one length per field. Lengths saturate at 65535, far above
// any real description.
type tfield [numFields]uint16

// tcount holds one term frequency per field. Counts saturate at 255: with
// k1 = 1.2 a term's score hardly moves past a few occurrences, and one
// byte a field keeps a posting at 12 bytes, so the scoring loop reads
// less memory.
type tcount [numFields]uint8

// docTerm is one distinct term of a document and its frequency per field.
type docTerm struct {
	term string
	tf   tcount
}

// doc is an analyzed entry. Docs are immutable once built and shared by
// every snapshot and segment that holds them, so a segment rebuilds from
// them without analyzing text again.
type doc struct {
	e     Entry
	terms []docTerm // sorted by term
	lens  tfield
	name  []string  // the name's terms in order, for phrase matches
	vec   []float32 // embedding, when the hybrid index made one
}

// analyze builds the doc of an entry.
func analyze(e Entry, stem func(string) string) *doc {
	var fields [numFields][]string
	fields[fName] = appendTokens(nil, e.Name, stem)
	fields[fSummary] = appendTokens(nil, e.Summary, stem)
	fields[fDescription] = appendTokens(nil, e.Description, stem)
	for _, p := range e.Parameters {
		fields[fParams] = appendTokens(fields[fParams], p.Name, stem)
		fields[fParams] = appendTokens(fields[fParams], p.Description, stem)
	}
	for _, t := range e.Tags {
		fields[fTags] = appendTokens(fields[fTags], t, stem)
	}
	fields[fTags] = appendTokens(fields[fTags], e.Source, stem)
	fields[fPath] = appendTokens(nil, urlPath(e.URL), stem)

	d := &doc{e: e, name: fields[fName]}
	idx := map[string]int{}
	for f, toks := range fields {
		d.lens[f] = sat(len(toks))
		for _, t := range toks {
			i, ok := idx[t]
			if !ok {
				i = len(d.terms)
				idx[t] = i
				d.terms = append(d.terms, docTerm{term: t})
			}
			if d.terms[i].tf[f] < 0xff {
				d.terms[i].tf[f]++
			}
		}
	}
	slices.SortFunc(d.terms, func(a, b docTerm) int { return strings.Compare(a.term, b.term) })
	return d
}

// has reports whether the doc contains term in any field.
func (d *doc) has(term string) bool {
	_, ok := slices.BinarySearchFunc(d.terms, term, func(t docTerm, s string) int { return strings.Compare(t.term, s) })
	return ok
}

// hasTag reports whether the entry carries tag (lower case), ignoring case.
func (d *doc) hasTag(tag string) bool {
	for _, t := range d.e.Tags {
		if strings.EqualFold(t, tag) {
			return true
		}
	}
	return false
}

// urlPath is the path of a URL template: its host names no capability.
func urlPath(u string) string {
	if u == "" {
		return ""
	}
	if i := strings.Index(u, "://"); i >= 0 {
		rest := u[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			return rest[j:]
		}
		return ""
	}
	return u
}

func sat(n int) uint16 {
	if n > 0xffff {
		return 0xffff
	}
	return uint16(n)
}

// sat8 is n saturated at 255.
func sat8(n int) uint8 {
	if n > 0xff {
		return 0xff
	}
	return uint8(n)
}
