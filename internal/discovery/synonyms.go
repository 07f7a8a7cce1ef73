package discovery

// Synonyms widen a query: a query word of a group also searches for the
// other words of its group, at Options.SynonymWeight of a word's own weight.
// They run at query time only, so changing them needs no re-index.
//
// The default groups were chosen on the TRAINING split of the shipped
// dataset (docs/discovery.md): each bridges a word an agent used and the word
// the API documents use for the same thing, and each was kept only because,
// alone, it raised recall@5 or MRR on that split. Groups that were tried and
// dropped because they changed nothing or lowered a figure: find/search/
// look up, edit/update/change/modify, customer/client, package/parcel,
// folder/directory, delete/remove.
var DefaultSynonyms = [][]string{
	{"meeting", "event", "appointment"},
	{"bug", "issue", "defect"},
	{"money", "funds"},
	{"withdraw", "payout"},
	{"warm", "hot", "cold", "temperature"},
	{"usually", "typically", "average", "normal"},
}

// synonymTable maps each analyzed word to the analyzed other words of its
// groups.
type synonymTable map[string][]string

func buildSynonyms(groups [][]string, stem func(string) string) synonymTable {
	t := synonymTable{}
	for _, g := range groups {
		var terms []string
		for _, w := range g {
			for _, tok := range appendTokens(nil, w, stem) {
				terms = appendUnique(terms, tok)
			}
		}
		for _, a := range terms {
			for _, b := range terms {
				if a != b {
					t[a] = appendUnique(t[a], b)
				}
			}
		}
	}
	return t
}
