package discovery

// stemPorter2 is the Snowball English stemmer ("Porter2", M. F. Porter,
// 2001/2006), written here from its published description
// (snowballstem.org/algorithms/english/stemmer.html). Over the 1980
// algorithm it adds the regions R1/R2 instead of the measure, a list of
// exceptional words (news, skies, dying...), keeps short words such as
// "ties" -> "tie" apart from "ti", and handles -ly adverbs (-ably, -fully,
// -lessly, -ingly, -edly) and the -ogy/-logi words. Like stemPorter it
// leaves words with anything but a-z, and words of one or two letters, as
// they are; apostrophes never reach it (the tokenizer splits at them).
func stemPorter2(w string) string {
	if !stemmable(w) {
		return w
	}
	if s, ok := porter2Exceptions[w]; ok {
		return s
	}
	b := []byte(w)
	// A y at the start or after a vowel is a consonant: mark it Y.
	for i := range b {
		if b[i] == 'y' && (i == 0 || isVowel2(b[i-1])) {
			b[i] = 'Y'
		}
	}
	r1, r2 := regions2(b)
	b = p2step1a(b)
	if porter2Invariant[string(b)] {
		return unY(b)
	}
	b = p2step1b(b, r1)
	b = p2step1c(b)
	b = p2step2(b, r1)
	b = p2step3(b, r1, r2)
	b = p2step4(b, r2)
	b = p2step5(b, r1, r2)
	return unY(b)
}

// porter2Exceptions are whole words the algorithm stems by a table.
var porter2Exceptions = map[string]string{
	"skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie",
	"idly": "idl", "gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli",
	"singly": "singl", "sky": "sky", "news": "news", "howe": "howe", "atlas": "atlas",
	"cosmos": "cosmos", "bias": "bias", "andes": "andes",
}

// porter2Invariant are left alone after step 1a.
var porter2Invariant = map[string]bool{
	"inning": true, "outing": true, "canning": true, "herring": true, "earring": true,
	"proceed": true, "exceed": true, "succeed": true,
}

func isVowel2(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

// regions2 returns the starts of R1 and R2: R1 is what follows the first
// consonant that follows a vowel (after gener, commun or arsen for words
// starting so), R2 the same rule applied inside R1.
func regions2(b []byte) (r1, r2 int) {
	after := func(from int) int {
		for i := from + 1; i < len(b); i++ {
			if !isVowel2(b[i]) && isVowel2(b[i-1]) {
				return i + 1
			}
		}
		return len(b)
	}
	r1 = -1
	for _, p := range []string{"gener", "commun", "arsen"} {
		if len(b) >= len(p) && string(b[:len(p)]) == p {
			r1 = len(p)
		}
	}
	if r1 < 0 {
		r1 = after(0)
	}
	r2 = len(b)
	if r1 < len(b) {
		r2 = after(r1)
	}
	return min(r1, len(b)), r2
}

// shortSyllableEnd reports whether b ends in a short syllable: a vowel
// between consonants, the last not w, x or Y; or a word of a vowel and a
// consonant.
func shortSyllableEnd(b []byte) bool {
	n := len(b)
	if n == 2 {
		return isVowel2(b[0]) && !isVowel2(b[1])
	}
	if n < 3 {
		return false
	}
	c := b[n-1]
	return !isVowel2(c) && c != 'w' && c != 'x' && c != 'Y' && isVowel2(b[n-2]) && !isVowel2(b[n-3])
}

// hasVowel2 reports whether b holds a vowel.
func hasVowel2(b []byte) bool {
	for _, c := range b {
		if isVowel2(c) {
			return true
		}
	}
	return false
}

// longest returns the longest of suffixes that b ends with, or "".
func longest(b []byte, suffixes []string) string {
	best := ""
	for _, s := range suffixes {
		if len(s) > len(best) && hasSuffix(b, s) {
			best = s
		}
	}
	return best
}

func p2step1a(b []byte) []byte {
	switch longest(b, []string{"sses", "ied", "ies", "us", "ss", "s"}) {
	case "sses":
		return b[:len(b)-2]
	case "ied", "ies":
		if len(b) > 4 {
			return replace(b, "ies", "i") // same length as ied
		}
		return replace(b, "ies", "ie")
	case "s":
		// Delete if a vowel comes before the letter just before the s
		// (gaps -> gap, kiwis -> kiwi; gas and this stay).
		if len(b) >= 3 && hasVowel2(b[:len(b)-2]) {
			return b[:len(b)-1]
		}
	}
	return b
}

func p2step1b(b []byte, r1 int) []byte {
	s := longest(b, []string{"eed", "eedly", "ed", "edly", "ing", "ingly"})
	switch s {
	case "":
		return b
	case "eed", "eedly":
		if len(b)-len(s) >= r1 {
			return replace(b, s, "ee")
		}
		return b
	}
	stem := b[:len(b)-len(s)]
	if !hasVowel2(stem) {
		return b
	}
	switch {
	case hasSuffix(stem, "at"), hasSuffix(stem, "bl"), hasSuffix(stem, "iz"):
		return append(stem, 'e')
	case endsDouble(stem):
		return stem[:len(stem)-1]
	case r1 >= len(stem) && shortSyllableEnd(stem):
		return append(stem, 'e') // a short word: hop(e)d -> hope
	}
	return stem
}

func endsDouble(b []byte) bool {
	n := len(b)
	if n < 2 || b[n-1] != b[n-2] {
		return false
	}
	switch b[n-1] {
	case 'b', 'd', 'f', 'g', 'm', 'n', 'p', 'r', 't':
		return true
	}
	return false
}

// p2step1c turns a final y or Y into i after a consonant that is not the
// first letter (cry -> cri, by and say stay).
func p2step1c(b []byte) []byte {
	n := len(b)
	if n > 2 && (b[n-1] == 'y' || b[n-1] == 'Y') && !isVowel2(b[n-2]) {
		b[n-1] = 'i'
	}
	return b
}

var p2step2Rules = []rule{
	{"tional", "tion"}, {"enci", "ence"}, {"anci", "ance"}, {"abli", "able"}, {"entli", "ent"},
	{"izer", "ize"}, {"ization", "ize"}, {"ational", "ate"}, {"ation", "ate"}, {"ator", "ate"},
	{"alism", "al"}, {"aliti", "al"}, {"alli", "al"}, {"fulness", "ful"}, {"ousli", "ous"},
	{"ousness", "ous"}, {"iveness", "ive"}, {"iviti", "ive"}, {"biliti", "ble"}, {"bli", "ble"},
	{"ogi", "og"}, {"fulli", "ful"}, {"lessli", "less"}, {"li", ""},
}

// longestRule returns the rule of the longest suffix of b, if any.
func longestRule(b []byte, rules []rule) (rule, bool) {
	best, ok := rule{}, false
	for _, r := range rules {
		if (!ok || len(r.suffix) > len(best.suffix)) && hasSuffix(b, r.suffix) {
			best, ok = r, true
		}
	}
	return best, ok
}

func p2step2(b []byte, r1 int) []byte {
	r, ok := longestRule(b, p2step2Rules)
	if !ok || len(b)-len(r.suffix) < r1 {
		return b
	}
	stem := b[:len(b)-len(r.suffix)]
	switch r.suffix {
	case "ogi":
		if !hasSuffix(stem, "l") {
			return b
		}
	case "li":
		if len(stem) == 0 {
			return b
		}
		switch stem[len(stem)-1] {
		case 'c', 'd', 'e', 'g', 'h', 'k', 'm', 'n', 'r', 't':
		default:
			return b
		}
	}
	return append(stem, r.repl...)
}

var p2step3Rules = []rule{
	{"tional", "tion"}, {"ational", "ate"}, {"alize", "al"}, {"icate", "ic"}, {"iciti", "ic"},
	{"ical", "ic"}, {"ful", ""}, {"ness", ""}, {"ative", ""},
}

func p2step3(b []byte, r1, r2 int) []byte {
	r, ok := longestRule(b, p2step3Rules)
	if !ok || len(b)-len(r.suffix) < r1 {
		return b
	}
	if r.suffix == "ative" && len(b)-len(r.suffix) < r2 {
		return b
	}
	return replace(b, r.suffix, r.repl)
}

var p2step4Suffixes = []string{
	"al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
	"ism", "ate", "iti", "ous", "ive", "ize", "ion",
}

func p2step4(b []byte, r2 int) []byte {
	s := longest(b, p2step4Suffixes)
	if s == "" || len(b)-len(s) < r2 {
		return b
	}
	stem := b[:len(b)-len(s)]
	if s == "ion" && !hasSuffix(stem, "s") && !hasSuffix(stem, "t") {
		return b
	}
	return stem
}

func p2step5(b []byte, r1, r2 int) []byte {
	n := len(b)
	switch {
	case n > 0 && b[n-1] == 'e':
		stem := b[:n-1]
		if n-1 >= r2 || n-1 >= r1 && !shortSyllableEnd(stem) {
			return stem
		}
	case n > 1 && b[n-1] == 'l' && b[n-2] == 'l' && n-1 >= r2:
		return b[:n-1]
	}
	return b
}

func unY(b []byte) string {
	for i := range b {
		if b[i] == 'Y' {
			b[i] = 'y'
		}
	}
	return string(b)
}
