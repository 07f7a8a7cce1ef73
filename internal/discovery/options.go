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
}

// Options tune ranking. Start from DefaultOptions.
type Options struct {
	K1      float64 // term frequency saturation (BM25 k1), > 0
	B       float64 // length normalization (BM25 b), 0..1
	Weights Weights
	// Stemmer is "porter" (default), "light" (plurals, -ed, -ing only) or
	// "none".
	Stemmer string
	// Synonyms are groups of words searched for each other (query time);
	// nil for none. DefaultOptions sets DefaultSynonyms.
	Synonyms [][]string `json:"-"`
	// SynonymWeight scales a synonym's score against the word's own (0..1).
	SynonymWeight float64
}

// DefaultOptions are the ranking parameters chosen on the training split
// of the shipped dataset (docs/discovery.md).
func DefaultOptions() Options {
	return Options{
		K1:            1.2,
		B:             0.75,
		Weights:       Weights{Name: 3, Summary: 2, Description: 1, Parameters: 0.5, Tags: 1.5, Path: 1},
		Stemmer:       "porter",
		Synonyms:      DefaultSynonyms,
		SynonymWeight: 0.5,
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
	if _, ok := stemmerByName(o.Stemmer); !ok {
		return fmt.Errorf("discovery options: unknown stemmer %q (porter, light or none)", o.Stemmer)
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
	numFields
)

var fieldNames = [numFields]string{"name", "summary", "description", "parameters", "tags", "path"}

func (w Weights) array() [numFields]float64 {
	return [numFields]float64{w.Name, w.Summary, w.Description, w.Parameters, w.Tags, w.Path}
}
