// Package wordnet is a general English thesaurus built from Princeton
// WordNet 3.0: the nouns and verbs, their synonym sets (synsets), direct
// hypernyms and hyponyms, derivationally related words (delete, deletion)
// and irregular forms (mice -> mouse). Discovery uses it to map the words
// of a query onto the words of the index (internal/discovery, docs/discovery.md).
//
// The data is wordnet.txt.gz, written by ./gen from WordNet's dictionary
// files and embedded; nothing is read from the machine at run time. WordNet
// is distributed under Princeton's license, in LICENSE next to the data.
package wordnet

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"sync"
)

//go:embed wordnet.txt.gz
var embedded []byte

// Relation is how a related word is related to the word asked about.
type Relation uint8

// The relations, closest first.
const (
	Synonym  Relation = iota // in the same synset
	Derived                  // derivationally related (delete, deletion)
	Hypernym                 // a word of a direct hypernym (invoice -> bill)
	Hyponym                  // a word of a direct hyponym (bill -> invoice)
)

func (r Relation) String() string {
	switch r {
	case Synonym:
		return "synonym"
	case Derived:
		return "derived"
	case Hypernym:
		return "hypernym"
	case Hyponym:
		return "hyponym"
	}
	return "unknown"
}

// Thesaurus is a loaded WordNet. It is immutable and safe for concurrent use.
type Thesaurus struct {
	synsets []synset
	senses  map[string][]sense  // word -> its synsets, nouns and verbs
	exc     map[string][]string // POS byte + inflected form -> base forms
	deriv   map[string][]string
}

type synset struct {
	pos   byte // 'n' or 'v'
	words []string
	hyper []int32
	hypo  []int32
}

type sense struct {
	synset int32
	rank   uint16 // 1 is the word's most frequent sense in this pos
}

// Default returns the embedded thesaurus, decoded on first use (a few tens
// of milliseconds) and shared afterwards.
var Default = sync.OnceValues(func() (*Thesaurus, error) {
	zr, err := gzip.NewReader(bytes.NewReader(embedded))
	if err != nil {
		return nil, err
	}
	return Parse(zr)
})

// Stats counts what a thesaurus holds.
type Stats struct {
	Synsets, Words, Exceptions, Derivations int
}

// Stats counts the synsets, distinct words, irregular forms and
// derivation pairs.
func (t *Thesaurus) Stats() Stats {
	n := 0
	for _, ws := range t.deriv {
		n += len(ws)
	}
	e := 0
	for _, bs := range t.exc {
		e += len(bs)
	}
	return Stats{Synsets: len(t.synsets), Words: len(t.senses), Exceptions: e, Derivations: n / 2}
}
