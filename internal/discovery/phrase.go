package discovery

// phrasePair is two adjacent query words and what a doc whose name holds
// them next to each other (in either order) gains.
type phrasePair struct {
	a, b  string
	bonus float64
}

type phrasePairs []phrasePair

// phrasePairs returns the adjacent pairs of the query's own words that
// occur in the index (terms carries their idf), each worth
// PhraseWeight times the mean idf of its two words.
func (ix *Index) phrasePairs(q Query, terms []termStat) phrasePairs {
	if ix.opts.PhraseWeight <= 0 || len(q.Terms) < 2 {
		return nil
	}
	idf := make(map[string]float64, len(terms))
	for _, t := range terms {
		if t.weight == 1 {
			idf[t.term] = t.idf
		}
	}
	var out phrasePairs
	for i := 1; i < len(q.Terms); i++ {
		a, b := q.Terms[i-1], q.Terms[i]
		ia, oka := idf[a]
		ib, okb := idf[b]
		if oka && okb {
			out = append(out, phrasePair{a, b, ix.opts.PhraseWeight * (ia + ib) / 2})
		}
	}
	return out
}

// bonus is what a name (its terms in order) gains: each pair it holds
// adjacent counts once.
func (ps phrasePairs) bonus(name []string) float64 {
	sum := 0.0
	for _, p := range ps {
		for j := 1; j < len(name); j++ {
			x, y := name[j-1], name[j]
			if x == p.a && y == p.b || x == p.b && y == p.a {
				sum += p.bonus
				break
			}
		}
	}
	return sum
}
