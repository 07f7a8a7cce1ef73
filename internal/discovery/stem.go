package discovery

import "strings"

// The stemmer is M. F. Porter's 1980 algorithm ("An algorithm for suffix
// stripping"), written here from the paper, with the two changes of its
// author's own later versions (abli -> able becomes bli -> ble, and logi ->
// log). Words with anything but the letters a-z, and words of one or two
// letters, are left as they are. stemLight runs only steps 1 and 5 (plurals,
// -ed, -ing, a final -e): a light stemmer that conflates fewer words.

// stemPorter returns the Porter stem of a lower case word.
func stemPorter(w string) string {
	if !stemmable(w) {
		return w
	}
	b := []byte(w)
	b = step1a(b)
	b = step1b(b)
	b = step1c(b)
	b = step2(b)
	b = step3(b)
	b = step4(b)
	b = step5(b)
	return string(b)
}

// stemLight returns the light stem of a lower case word (steps 1 and 5).
func stemLight(w string) string {
	if !stemmable(w) {
		return w
	}
	b := []byte(w)
	b = step1a(b)
	b = step1b(b)
	b = step1c(b)
	b = step5(b)
	return string(b)
}

func stemmable(w string) bool {
	if len(w) <= 2 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// cons reports whether b[i] is a consonant: not a, e, i, o, u, and not a y
// that follows a consonant.
func cons(b []byte, i int) bool {
	switch b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !cons(b, i-1)
	}
	return true
}

// measure is m in [C](VC)^m[V] of b.
func measure(b []byte) int {
	m, i, n := 0, 0, len(b)
	for i < n && cons(b, i) {
		i++
	}
	for i < n {
		for i < n && !cons(b, i) {
			i++
		}
		if i == n {
			break
		}
		for i < n && cons(b, i) {
			i++
		}
		m++
	}
	return m
}

func hasVowel(b []byte) bool {
	for i := range b {
		if !cons(b, i) {
			return true
		}
	}
	return false
}

// doubleCons reports *d: b ends with a double consonant.
func doubleCons(b []byte) bool {
	n := len(b)
	return n >= 2 && b[n-1] == b[n-2] && cons(b, n-1)
}

// cvc reports *o: b ends consonant-vowel-consonant, the last not w, x or y.
func cvc(b []byte) bool {
	n := len(b)
	if n < 3 || !cons(b, n-1) || cons(b, n-2) || !cons(b, n-3) {
		return false
	}
	c := b[n-1]
	return c != 'w' && c != 'x' && c != 'y'
}

func hasSuffix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[len(b)-len(s):]) == s
}

// replace swaps suffix s of b for r.
func replace(b []byte, s, r string) []byte {
	return append(b[:len(b)-len(s)], r...)
}

func step1a(b []byte) []byte {
	switch {
	case hasSuffix(b, "sses"):
		return replace(b, "sses", "ss")
	case hasSuffix(b, "ies"):
		return replace(b, "ies", "i")
	case hasSuffix(b, "ss"):
		return b
	case hasSuffix(b, "s"):
		return b[:len(b)-1]
	}
	return b
}

func step1b(b []byte) []byte {
	if hasSuffix(b, "eed") {
		if measure(b[:len(b)-3]) > 0 {
			return b[:len(b)-1]
		}
		return b
	}
	var stem []byte
	switch {
	case hasSuffix(b, "ed") && hasVowel(b[:len(b)-2]):
		stem = b[:len(b)-2]
	case hasSuffix(b, "ing") && hasVowel(b[:len(b)-3]):
		stem = b[:len(b)-3]
	default:
		return b
	}
	switch {
	case hasSuffix(stem, "at"), hasSuffix(stem, "bl"), hasSuffix(stem, "iz"):
		return append(stem, 'e')
	case doubleCons(stem):
		if c := stem[len(stem)-1]; c != 'l' && c != 's' && c != 'z' {
			return stem[:len(stem)-1]
		}
	case measure(stem) == 1 && cvc(stem):
		return append(stem, 'e')
	}
	return stem
}

func step1c(b []byte) []byte {
	if hasSuffix(b, "y") && hasVowel(b[:len(b)-1]) {
		b[len(b)-1] = 'i'
	}
	return b
}

// rule is one suffix replacement of steps 2 to 4.
type rule struct{ suffix, repl string }

var step2Rules = []rule{
	{"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"}, {"anci", "ance"},
	{"izer", "ize"}, {"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"},
	{"ousli", "ous"}, {"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"},
	{"alism", "al"}, {"iveness", "ive"}, {"fulness", "ful"}, {"ousness", "ous"},
	{"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"}, {"logi", "log"},
}

var step3Rules = []rule{
	{"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"},
	{"ical", "ic"}, {"ful", ""}, {"ness", ""},
}

var step4Suffixes = []string{
	"al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
	"ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize",
}

// applyRules applies the rule of the longest matching suffix when the stem
// before it has a measure above minM (the paper's lists are ordered so that
// the longest match is found; we check all and keep the longest to be safe).
func applyRules(b []byte, rules []rule, minM int) []byte {
	best := -1
	for i, r := range rules {
		if hasSuffix(b, r.suffix) && (best < 0 || len(r.suffix) > len(rules[best].suffix)) {
			best = i
		}
	}
	if best < 0 {
		return b
	}
	r := rules[best]
	if measure(b[:len(b)-len(r.suffix)]) > minM {
		return replace(b, r.suffix, r.repl)
	}
	return b
}

func step2(b []byte) []byte { return applyRules(b, step2Rules, 0) }
func step3(b []byte) []byte { return applyRules(b, step3Rules, 0) }

func step4(b []byte) []byte {
	best := ""
	for _, s := range step4Suffixes {
		if hasSuffix(b, s) && len(s) > len(best) {
			best = s
		}
	}
	if best == "" {
		return b
	}
	stem := b[:len(b)-len(best)]
	if measure(stem) <= 1 {
		return b
	}
	if best == "ion" && !(hasSuffix(stem, "s") || hasSuffix(stem, "t")) {
		return b
	}
	return stem
}

func step5(b []byte) []byte {
	if hasSuffix(b, "e") {
		stem := b[:len(b)-1]
		if m := measure(stem); m > 1 || m == 1 && !cvc(stem) {
			b = stem
		}
	}
	if measure(b) > 1 && doubleCons(b) && hasSuffix(b, "l") {
		b = b[:len(b)-1]
	}
	return b
}

// stemmerByName maps the names of the stemmers to their functions.
func stemmerByName(name string) (func(string) string, bool) {
	switch strings.ToLower(name) {
	case "", "porter2":
		return stemPorter2, true
	case "porter":
		return stemPorter, true
	case "light":
		return stemLight, true
	case "none":
		return nil, true
	}
	return nil, false
}
