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

	"github.com/sluicehq/sluice/internal/discovery/wordtab"
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
//
// It holds no maps and no strings besides the word tables' text: every
// word is a number in names, and the lists hang off numbers (lists), so a
// garbage collection cycle has a few dozen objects to mark, not a
// thesaurus's worth.
type Thesaurus struct {
	names    wordtab.Table // every word: of synsets, derivations, irregular forms' bases
	pos      []byte        // synset -> 'n' or 'v'
	synWords lists[int32]  // synset -> its words (names)
	hyper    lists[int32]  // synset -> its direct hypernyms
	hypo     lists[int32]  // synset -> its direct hyponyms
	senses   lists[sense]  // name -> its synsets, nouns and verbs
	deriv    lists[int32]  // name -> names derivationally related
	forms    wordtab.Table // POS byte + inflected form
	exc      lists[int32]  // form -> its base forms (names)
	nwords   int           // names with senses
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
	return Stats{Synsets: len(t.pos), Words: t.nwords, Exceptions: len(t.exc.items), Derivations: len(t.deriv.items) / 2}
}

// sensesOf returns the senses of word w, none if the thesaurus lacks it.
func (t *Thesaurus) sensesOf(w string) []sense {
	if id, ok := t.names.Lookup(w); ok {
		return t.senses.at(id)
	}
	return nil
}
