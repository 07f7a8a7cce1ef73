package discovery

import "fmt"

// Via says why a query searches for a term.
type Via uint8

// The reasons, in the order the query's analysis adds terms.
const (
	ViaQuery       Via = iota // a word of the query
	ViaSynonym                // a synonym group (Options.Synonyms) of a query word
	ViaQuestion               // a question word's expansion (Options.Expansions)
	ViaValue                  // the type of a value in the query (values.go)
	ViaCompound               // a part of a query word, or two query words joined (compound.go)
	ViaWordNet                // WordNet, for a query word the index lacks
	ViaWordVectors            // word vectors, for a query word the index lacks
)

func (v Via) String() string {
	switch v {
	case ViaQuery:
		return "query"
	case ViaSynonym:
		return "synonym"
	case ViaQuestion:
		return "question"
	case ViaValue:
		return "value"
	case ViaCompound:
		return "compound"
	case ViaWordNet:
		return "wordnet"
	case ViaWordVectors:
		return "word_vectors"
	}
	return "unknown"
}

// MarshalText writes the reason's name.
func (v Via) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText reads a reason's name.
func (v *Via) UnmarshalText(b []byte) error {
	for x := ViaQuery; x <= ViaWordVectors; x++ {
		if x.String() == string(b) {
			*v = x
			return nil
		}
	}
	return fmt.Errorf("unknown reason %.40q (query, synonym, question, value, compound, wordnet or word_vectors)", b)
}

// QueryTerm is one term a query searches for, as Explain reports it.
type QueryTerm struct {
	Term   string  `json:"term"`           // analyzed (stemmed)
	Weight float64 `json:"weight"`         // against a query word's 1
	Via    Via     `json:"via"`            // why it is searched
	From   string  `json:"from,omitempty"` // the query word it came from, for an expansion
	DF     int     `json:"df"`             // entries holding it (0: it finds nothing)
}

// Explain returns the terms query searches for in the current index, in
// the order its analysis adds them: its own words (those the index lacks
// too, with DF 0), then each expansion with the word it came from. It is
// meant for whoever tunes a catalog or the ranking: the expansions name
// words of the whole index, whatever a caller may see, so it is not for
// callers whose results are filtered.
func (ix *Index) Explain(query string) []QueryTerm {
	s := ix.cur.Load()
	q := ix.parse(query)
	if !q.searches() {
		return nil
	}
	terms := ix.expandAll(s, q)
	out := make([]QueryTerm, len(terms))
	for i, t := range terms {
		out[i] = QueryTerm{Term: t.term, Weight: t.weight, Via: t.via, From: t.from, DF: s.df(t.term)}
	}
	return out
}
