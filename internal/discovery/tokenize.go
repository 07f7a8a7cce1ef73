package discovery

import (
	"unicode"
	"unicode/utf8"
)

// maxTokenBytes bounds one token: longer runs of letters (base64 blobs,
// hashes) are cut, so a hostile document cannot make huge terms.
const maxTokenBytes = 64

// Tokenize splits text into index terms: words of letters and digits, split
// again at identifier boundaries (getUserById -> get user by id, HTTPServer
// -> http server, user_id, user-id and /users/{id} -> user id), lower cased,
// without English stop words and one-letter words, stemmed. Queries and
// documents go through the same analysis.
func Tokenize(text string) []string {
	return appendTokens(nil, text, stemPorter2)
}

// appendTokens appends the terms of text to dst, stemming each with stem.
func appendTokens(dst []string, text string, stem func(string) string) []string {
	return appendTokensStop(dst, text, stem, nil)
}

// appendTokensStop is appendTokens that also drops the words of extra
// (lower case, before stemming): the query side's stop words.
func appendTokensStop(dst []string, text string, stem func(string) string, extra map[string]bool) []string {
	var word []rune
	flush := func() {
		if len(word) == 0 {
			return
		}
		dst = appendWord(dst, word, stem, extra)
		word = word[:0]
	}
	var prev rune
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		if !isWordRune(r) {
			flush()
			prev = 0
			continue
		}
		if len(word) > 0 && boundary(prev, r, text[i:]) {
			flush()
		}
		word = append(word, r)
		prev = r
	}
	flush()
	return dst
}

func isWordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// boundary reports whether a new word starts at r, given the rune before
// it and the text after it: a lower case letter or digit followed by an
// upper case one (getUser), or the last upper case letter of a run that a
// lower case letter follows (HTTPServer -> HTTP Server).
func boundary(prev, r rune, rest string) bool {
	if !unicode.IsUpper(r) {
		return false
	}
	if unicode.IsLower(prev) || unicode.IsDigit(prev) {
		return true
	}
	if unicode.IsUpper(prev) {
		next, _ := utf8.DecodeRuneInString(rest)
		return unicode.IsLower(next)
	}
	return false
}

// appendWord lower cases, filters and stems one word.
func appendWord(dst []string, word []rune, stem func(string) string, extra map[string]bool) []string {
	if len(word) < 2 && !unicode.IsDigit(word[0]) {
		return dst
	}
	buf := make([]byte, 0, len(word))
	for _, r := range word {
		r = unicode.ToLower(r)
		if len(buf)+utf8.RuneLen(r) > maxTokenBytes {
			break
		}
		buf = utf8.AppendRune(buf, r)
	}
	w := string(buf)
	if stopWords[w] || extra[w] {
		return dst
	}
	if stem != nil {
		w = stem(w)
	}
	if w == "" {
		return dst
	}
	return append(dst, w)
}

// stopWords are English function words (the Snowball English list, less
// negations, which change what a request means: "not", "no", "nor").
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{
		"i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "your", "yours",
		"yourself", "yourselves", "he", "him", "his", "himself", "she", "her", "hers", "herself",
		"it", "its", "itself", "they", "them", "their", "theirs", "themselves", "what", "which",
		"who", "whom", "this", "that", "these", "those", "am", "is", "are", "was", "were", "be",
		"been", "being", "have", "has", "had", "having", "do", "does", "did", "doing", "would",
		"should", "could", "ought", "a", "an", "the", "and", "but", "if", "or", "because", "as",
		"until", "while", "of", "at", "by", "for", "with", "about", "against", "between", "into",
		"through", "during", "before", "after", "above", "below", "to", "from", "up", "down",
		"in", "out", "on", "off", "over", "under", "again", "further", "then", "once", "here",
		"there", "when", "where", "why", "how", "all", "any", "both", "each", "few", "more",
		"most", "other", "some", "such", "only", "own", "same", "so", "than", "too", "very",
		"can", "will", "just", "don", "now", "s", "t", "ll", "re", "ve", "d", "m",
	} {
		m[w] = true
	}
	return m
}()
