package discovery

import (
	"fmt"
	"math"
)

// Weights are the BM25F weights of the indexed fields: a word in a field of
// weight 3 counts as three occurrences of a word in a field of weight 1.
type Weights struct {
	Name        float64 `json:"name"`        // the entry's name (operationId, tool name)
	Summary     float64 `json:"summary"`     // one-line summary
	Description float64 `json:"description"` // longer description
	Parameters  float64 `json:"parameters"`  // parameter names and descriptions
	Tags        float64 `json:"tags"`        // tags and the source name
	Path        float64 `json:"path"`        // the path of the URL template
	// Usage holds the words accounts found the entry with (usage.go):
	// learnt, not written by whoever published the entry.
	Usage float64 `json:"usage"`
}

// Options tune ranking. Start from DefaultOptions.
type Options struct {
	K1      float64 // term frequency saturation (BM25 k1), > 0
	B       float64 // length normalization (BM25 b), 0..1, of every field FieldB leaves unset
	Weights Weights
	// FieldB, when set, is b per field (BM25F's b_f) and B is not used:
	// descriptions vary in length for reasons other than their topic, so
	// they are normalized less than the short fields.
	FieldB *Weights `json:"field_b,omitempty"`
	// Stemmer is "porter2" (the Snowball English stemmer, default),
	// "porter" (the 1980 algorithm), "light" (plurals, -ed, -ing only) or
	// "none".
	Stemmer string
	// Synonyms are groups of words searched for each other (query time);
	// nil for none. DefaultOptions sets DefaultSynonyms.
	Synonyms [][]string `json:"-"`
	// SynonymWeight scales a synonym's score against the word's own (0..1).
	SynonymWeight float64
	// QueryStopWords are dropped from queries only (lower case, before
	// stemming): the phrasing of a request ("please", "I need", "can you
	// help") rather than its subject. Documents keep them. nil for none.
	QueryStopWords []string `json:"-"`
	// Abbreviations map shorthands (lower case: "1:1", "tmrw", "pto") to
	// the words they stand for; a query's shorthands are replaced before
	// analysis. nil for none. DefaultOptions sets DefaultAbbreviations.
	Abbreviations map[string]string `json:"-"`
	// Expansions add words to a query that holds a word (lower case,
	// before stop words and stemming, so "what" counts; one way, unlike
	// Synonyms) at ExpansionWeight (0..1) of a query word's weight.
	Expansions      map[string][]string `json:"-"`
	ExpansionWeight float64
	// PhraseWeight rewards an entry whose name holds two adjacent query
	// words next to each other, in either order ("create a channel" and
	// createChannel), with this fraction of the two words' mean idf.
	PhraseWeight float64
	// ValueWeight is the weight (0..1) of the type words of values a
	// query holds (values.go: an email address searches for "email", a
	// pair of coordinates for "latitude longitude"); 0 turns it off.
	ValueWeight float64
	// CompoundWeight: a query word the index lacks that splits into two
	// words it holds (signup, username) searches for them, and two adjacent
	// query words that join into a word it holds (log in) search for it,
	// at this weight (0..1); 0 turns it off.
	CompoundWeight float64
	// SourceWeight adds to an entry's score this fraction of its source's
	// score for the query, the source taken as one document of all its
	// entries (sources.go: an API, a knowledge base); 0 turns it off.
	SourceWeight float64
	// KeepNumbers keeps query words made only of digits (ticket numbers,
	// amounts, coordinates), which name no operation; by default they go.
	KeepNumbers bool
	// WordNet widens query words the index lacks with related words from
	// the WordNet thesaurus (wordnet.go); off when its Weight is 0.
	WordNet WordNetOptions `json:"wordnet"`
	// WordVectors widens query words the index lacks with the index's
	// words whose GloVe vectors are closest (wordvectors.go); off when its
	// Weight is 0.
	WordVectors WordVectorOptions `json:"word_vectors"`
}

// DefaultOptions are the ranking parameters chosen on the training sets of
// the shipped dataset: its training split and the paraphrased queries
// (docs/discovery.md); the held-out and fresh sets were never used to
// choose.
func DefaultOptions() Options {
	return Options{
		K1:              1.2,
		B:               0.75,
		Weights:         Weights{Name: 4, Summary: 2, Description: 2, Parameters: 1, Tags: 1, Path: 1, Usage: 0.5},
		FieldB:          &Weights{Name: 0.75, Summary: 0.75, Description: 0.5, Parameters: 0.75, Tags: 0.75, Path: 0.75, Usage: 1},
		Stemmer:         "porter2",
		Synonyms:        DefaultSynonyms,
		SynonymWeight:   0.5,
		QueryStopWords:  DefaultQueryStopWords,
		Abbreviations:   DefaultAbbreviations,
		Expansions:      DefaultExpansions,
		ExpansionWeight: 0.5,
		PhraseWeight:    0.5,
		ValueWeight:     0.5,
		SourceWeight:    0.75,
		CompoundWeight:  0.5,
		WordNet:         DefaultWordNet,
		WordVectors:     DefaultWordVectors,
	}
}

func (o *Options) check() error {
	if !(o.K1 > 0) || math.IsInf(o.K1, 0) {
		return fmt.Errorf("discovery options: k1 must be a positive number, got %v", o.K1)
	}
	if !(o.B >= 0 && o.B <= 1) {
		return fmt.Errorf("discovery options: b must be between 0 and 1, got %v", o.B)
	}
	sum := 0.0
	for i, w := range o.Weights.array() {
		if !(w >= 0) || math.IsInf(w, 0) {
			return fmt.Errorf("discovery options: weight of field %s must be a number >= 0, got %v", fieldNames[i], w)
		}
		sum += w
	}
	if sum == 0 {
		return fmt.Errorf("discovery options: every field weight is 0")
	}
	if !(o.SynonymWeight >= 0 && o.SynonymWeight <= 1) {
		return fmt.Errorf("discovery options: synonym weight must be between 0 and 1, got %v", o.SynonymWeight)
	}
	if o.FieldB != nil {
		for i, b := range o.FieldB.array() {
			if !(b >= 0 && b <= 1) {
				return fmt.Errorf("discovery options: b of field %s must be between 0 and 1, got %v", fieldNames[i], b)
			}
		}
	}
	if !(o.PhraseWeight >= 0) || math.IsInf(o.PhraseWeight, 0) {
		return fmt.Errorf("discovery options: phrase weight must be a number >= 0, got %v", o.PhraseWeight)
	}
	if !(o.ExpansionWeight >= 0 && o.ExpansionWeight <= 1) {
		return fmt.Errorf("discovery options: expansion weight must be between 0 and 1, got %v", o.ExpansionWeight)
	}
	if !(o.ValueWeight >= 0 && o.ValueWeight <= 1) {
		return fmt.Errorf("discovery options: value weight must be between 0 and 1, got %v", o.ValueWeight)
	}
	if !(o.CompoundWeight >= 0 && o.CompoundWeight <= 1) {
		return fmt.Errorf("discovery options: compound weight must be between 0 and 1, got %v", o.CompoundWeight)
	}
	if !(o.SourceWeight >= 0) || math.IsInf(o.SourceWeight, 0) {
		return fmt.Errorf("discovery options: source weight must be a number >= 0, got %v", o.SourceWeight)
	}
	if err := o.WordNet.check(); err != nil {
		return err
	}
	if err := o.WordVectors.check(); err != nil {
		return err
	}
	if _, ok := stemmerByName(o.Stemmer); !ok {
		return fmt.Errorf("discovery options: unknown stemmer %q (porter2, porter, light or none)", o.Stemmer)
	}
	return nil
}

// The indexed fields.
const (
	fName = iota
	fSummary
	fDescription
	fParams
	fTags
	fPath
	fUsage
	numFields
)

var fieldNames = [numFields]string{"name", "summary", "description", "parameters", "tags", "path", "usage"}

func (w Weights) array() [numFields]float64 {
	return [numFields]float64{w.Name, w.Summary, w.Description, w.Parameters, w.Tags, w.Path, w.Usage}
}
