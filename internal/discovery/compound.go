package discovery

import "unicode/utf8"

// expandCompounds adds the halves of query words the index lacks that split
// into two words it holds, and the joins of adjacent query words that the
// index holds as one word.
func (ix *Index) expandCompounds(s *snapshot, q Query, terms []termStat) []termStat {
	w := ix.opts.CompoundWeight
	var toks []string
	// The query stop words are for whole words of a request: "help" in
	// helpdesk is a part of a word, not how the request is phrased.
	single := func(x string) string {
		toks = appendTokens(toks[:0], x, ix.stem)
		if len(toks) != 1 {
			return ""
		}
		return toks[0]
	}
	add := func(t, from string) {
		if t != "" && !containsTerm(terms, t) && s.df(t) > 0 {
			terms = append(terms, termStat{term: t, weight: w, via: ViaCompound, from: from})
		}
	}
	for i, word := range q.words {
		if t := single(word); t != "" && containsTerm(terms, t) && s.df(t) == 0 && len(word) >= 6 {
			for cut := 3; cut <= len(word)-3; cut++ {
				if !utf8.RuneStart(word[cut]) {
					continue
				}
				a, b := single(word[:cut]), single(word[cut:])
				if a != "" && b != "" && s.df(a) > 0 && s.df(b) > 0 {
					add(a, word)
					add(b, word)
					break
				}
			}
		}
		// "1.2" is two words of digits whose join is a number, not a word.
		if i > 0 && (ix.opts.KeepNumbers || !allDigits(q.words[i-1]+word)) {
			add(single(q.words[i-1]+word), q.words[i-1]+" "+word)
		}
	}
	return terms
}
