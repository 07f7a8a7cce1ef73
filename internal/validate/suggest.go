package validate

import (
	"strconv"
	"strings"

	"github.com/sluicehq/sluice/protocol/a2e"
)

// maxSuggestLen bounds the words compared by edit distance: the cost is the
// product of the lengths, and a name longer than this is no typo worth guessing.
const maxSuggestLen = 128

// nearest returns the candidate closest to word by edit distance (ignoring case)
// when it is close enough to be a plausible typo: at most a third of the word's
// length, at least one edit, and less than a full rewrite. Ties go to the
// earlier candidate.
func nearest(word string, candidates []string) (string, bool) {
	if word == "" || len(word) > maxSuggestLen {
		return "", false
	}
	limit := max(1, len(word)/3)
	lw := strings.ToLower(word)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if c == word || c == "" || len(c) > maxSuggestLen || abs(len(c)-len(word)) > limit {
			continue
		}
		// A candidate that shares nothing with the word ("a" and "w") is no typo.
		if d := a2e.EditDistance(lw, strings.ToLower(c)); d < bestD && d < max(len(word), len(c)) {
			best, bestD = c, d
		}
	}
	return best, best != ""
}

func abs(x int) int { return max(x, -x) }

// suggestBudget bounds the edit-distance work of one report, in table cells: a
// document full of misspelt references must not make validation slow.
const suggestBudget = 1 << 24

// didYouMean is didYouMean within the report's budget for suggestions.
func (c *collector) didYouMean(word string, candidates []string) string {
	cost := 0
	for _, s := range candidates {
		cost += (min(len(word), maxSuggestLen) + 1) * (min(len(s), maxSuggestLen) + 1)
	}
	if c.suggestCost += cost; c.suggestCost > suggestBudget {
		return ""
	}
	return didYouMean(word, candidates)
}

// didYouMean is the suggestion text for nearest, or "" when nothing is near.
func didYouMean(word string, candidates []string) string {
	if s, ok := nearest(word, candidates); ok {
		return "did you mean " + s + "?"
	}
	return ""
}

// suggestions drops empty entries, so callers can pass optional ones inline.
func suggestions(s ...string) []string {
	out := make([]string, 0, len(s))
	for _, x := range s {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

// key renders an object key as a JSON path step: ".name" when it is a plain
// identifier, `["X-Api-Key"]` otherwise, as protocol/a2e writes paths, so one
// report uses one convention.
func key(k string) string {
	plain := k != ""
	for i := 0; i < len(k) && plain; i++ {
		c := k[i]
		plain = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || i > 0 && c >= '0' && c <= '9'
	}
	if plain {
		return "." + k
	}
	return "[" + strconv.Quote(k) + "]"
}

// index renders an array index as a JSON path step.
func index(i int) string { return "[" + strconv.Itoa(i) + "]" }
