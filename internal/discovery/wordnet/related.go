package wordnet

import "slices"

// Relations selects the relations Related follows besides synonyms.
type Relations struct {
	Derived, Hypernyms, Hyponyms bool
}

// Related is a word related to the one asked about.
type Related struct {
	Word string
	Rel  Relation
	Rank int // the sense rank of the asked word through which it was found
}

// Morphy rules (WordNet's morphy(7WN)): an inflected ending and what
// replaces it, by part of speech.
var detach = map[byte][][2]string{
	'n': {{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}},
	'v': {{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}},
}

// Lemmas returns the base forms of word (lower case) as a noun or verb
// (pos 'n' or 'v') that the thesaurus knows, as WordNet's morphy finds them:
// the word itself, its irregular base forms, then the bases its regular
// endings give.
func (t *Thesaurus) Lemmas(word string, pos byte) []string {
	var out []string
	add := func(w string) {
		if !slices.Contains(out, w) && t.hasPOS(w, pos) {
			out = append(out, w)
		}
	}
	add(word)
	if f, ok := t.forms.Lookup(string(pos) + word); ok {
		for _, b := range t.exc.at(f) {
			add(t.names.Word(b))
		}
	}
	for _, r := range detach[pos] {
		if len(word) > len(r[0]) && word[len(word)-len(r[0]):] == r[0] {
			add(word[:len(word)-len(r[0])] + r[1])
		}
	}
	return out
}

func (t *Thesaurus) hasPOS(w string, pos byte) bool {
	for _, s := range t.sensesOf(w) {
		if t.pos[s.synset] == pos {
			return true
		}
	}
	return false
}

// Related returns the words related to word (any inflected form of a noun
// or verb) through its senses of rank at most maxRank (0 for all): the
// other words of those synsets, and as rels asks the words derived from its
// lemmas and the words of the direct hypernyms and hyponyms of those
// synsets. Each word comes once, closest first: by sense rank, then
// relation (synonym, derived, hypernym, hyponym), then WordNet's order. The
// word itself and its lemmas are not returned.
func (t *Thesaurus) Related(word string, maxRank int, rels Relations) []Related {
	if t == nil {
		return nil
	}
	var lemmas []string
	for _, pos := range []byte{'n', 'v'} {
		for _, l := range t.Lemmas(word, pos) {
			lemmas = appendNew(lemmas, l)
		}
	}
	if len(lemmas) == 0 {
		return nil
	}
	var out []Related
	seen := map[string]bool{word: true}
	for _, l := range lemmas {
		seen[l] = true
	}
	add := func(w string, rel Relation, rank int) {
		if !seen[w] {
			seen[w] = true
			out = append(out, Related{Word: w, Rel: rel, Rank: rank})
		}
	}
	type hit struct {
		synset int32
		rank   int
	}
	var hits []hit
	for _, l := range lemmas {
		for _, s := range t.sensesOf(l) {
			if maxRank <= 0 || int(s.rank) <= maxRank {
				hits = append(hits, hit{s.synset, int(s.rank)})
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return a.rank - b.rank })
	// Rank by rank: a word's first senses come before any second sense.
	for i := 0; i < len(hits); {
		j := i
		for j < len(hits) && hits[j].rank == hits[i].rank {
			j++
		}
		group := hits[i:j]
		rank := hits[i].rank
		for _, h := range group {
			for _, w := range t.synWords.at(h.synset) {
				add(t.names.Word(w), Synonym, rank)
			}
		}
		if rels.Derived && rank == 1 {
			for _, l := range lemmas {
				if id, ok := t.names.Lookup(l); ok {
					for _, w := range t.deriv.at(id) {
						add(t.names.Word(w), Derived, 1)
					}
				}
			}
		}
		if rels.Hypernyms {
			for _, h := range group {
				for _, p := range t.hyper.at(h.synset) {
					for _, w := range t.synWords.at(p) {
						add(t.names.Word(w), Hypernym, rank)
					}
				}
			}
		}
		if rels.Hyponyms {
			for _, h := range group {
				for _, c := range t.hypo.at(h.synset) {
					for _, w := range t.synWords.at(c) {
						add(t.names.Word(w), Hyponym, rank)
					}
				}
			}
		}
		i = j
	}
	return out
}

func appendNew(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}
