package discovery

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Query limits: a longer query is cut (a search has no error to return, and
// an agent's question is never this long).
const (
	MaxQueryBytes = 4096
	MaxQueryTerms = 64
)

// Query is a parsed search request. The syntax is free text with a few
// qualifiers, each a whitespace-separated word:
//
//	kind:operation   only entries of this kind (repeat for several kinds)
//	tag:billing      only entries with this tag (case-insensitive; repeatable)
//	source:crm       only entries from this source (api: is a synonym)
//	-word            leave out entries with this word in any field
//	"two words"      quoted text is plain text (quotes only group qualifier values)
//
// Anything else, including an unknown qualifier, is searched as text.
type Query struct {
	Terms   []string // analyzed search terms, each once, in order
	Exclude []string // analyzed terms an entry must not contain
	Kinds   []Kind
	Tags    []string // lower case
	Sources []string
	// words are the lower case words of the free text before stop words
	// and stemming, for Options.Expansions.
	words []string
	// values are the analyzed type words of values in the text (an email
	// address gives "email"), for Options.ValueWeight.
	values []string
}

// ParseQuery parses s with the default analyzer (Snowball English stemming).
func ParseQuery(s string) Query { return parseQuery(s, stemPorter2) }

func parseQuery(s string, stem func(string) string) Query { return parseQueryStop(s, stem, nil) }

// parseQueryStop parses s, also dropping the query stop words of extra
// from its search terms (never from -word exclusions: what a caller
// excludes, it means).
func parseQueryStop(s string, stem func(string) string, extra map[string]bool) Query {
	s = cutQuery(s)
	var q Query
	for _, w := range splitQuery(s) {
		name, value, ok := strings.Cut(w, ":")
		if ok && value != "" && !strings.HasPrefix(w, `"`) {
			switch strings.ToLower(name) {
			case "kind":
				q.Kinds = appendUnique(q.Kinds, Kind(strings.ToLower(unquote(value))))
				continue
			case "tag":
				q.Tags = appendUnique(q.Tags, strings.ToLower(unquote(value)))
				continue
			case "source", "api":
				q.Sources = appendUnique(q.Sources, unquote(value))
				continue
			}
		}
		if len(w) > 1 && w[0] == '-' {
			for _, t := range appendTokens(nil, w[1:], stem) {
				q.Exclude = appendUnique(q.Exclude, t)
			}
			continue
		}
		for _, rw := range strings.FieldsFunc(strings.ToLower(w), func(r rune) bool { return !isWordRune(r) }) {
			if len(q.words) < MaxQueryTerms {
				q.words = appendUnique(q.words, rw)
			}
		}
		for _, t := range appendTokensStop(nil, w, stem, extra) {
			if len(q.Terms) < MaxQueryTerms {
				q.Terms = appendUnique(q.Terms, t)
			}
		}
	}
	return q
}

// cutQuery cuts s to MaxQueryBytes, never inside a rune.
func cutQuery(s string) string {
	if len(s) <= MaxQueryBytes {
		return s
	}
	i := MaxQueryBytes
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// splitQuery splits s at white space outside double quotes; a quote opens
// or closes a group anywhere in a word (tag:"sales ops").
func splitQuery(s string) []string {
	var out []string
	var b strings.Builder
	quoted := false
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
			b.WriteRune(r)
		case unicode.IsSpace(r) && !quoted:
			if b.Len() > 0 {
				out = append(out, b.String())
				b.Reset()
			}
		default:
			b.WriteRune(r)
		}
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

// searches reports whether q has anything to rank by: words, or values
// whose type words stand in for them ("what is at 48.85, 2.29" has no
// word left but asks for coordinates). Without, a search lists entries.
func (q *Query) searches() bool { return len(q.Terms) > 0 || len(q.values) > 0 }

// hasText reports whether q has free text (any word besides qualifiers and
// exclusions), searchable or not.
func (q *Query) hasText() bool { return len(q.words) > 0 }

func unquote(s string) string { return strings.ReplaceAll(s, `"`, "") }

func appendUnique[T comparable](s []T, v T) []T {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}
