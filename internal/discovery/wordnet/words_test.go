package wordnet

import "iter"

// words yields the words that have senses (what the tests once read as the
// keys of a map from word to senses).
func (t *Thesaurus) words() iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := range int32(t.names.Len()) {
			if len(t.senses.at(i)) > 0 && !yield(t.names.Word(i)) {
				return
			}
		}
	}
}
