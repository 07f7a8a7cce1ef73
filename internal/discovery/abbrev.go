package discovery

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultAbbreviations are shorthands agents and their users write in
// requests, each with the words it stands for: general workplace and chat
// usage, not fitted to a catalog. A query's shorthand is replaced by its
// words before analysis ("move my 1:1" asks to move a meeting).
var DefaultAbbreviations = map[string]string{
	"1:1": "one-on-one meeting", "1-on-1": "one-on-one meeting", "1on1": "one-on-one meeting",
	"tmrw": "tomorrow", "tmr": "tomorrow", "tmw": "tomorrow", "2day": "today", "tonite": "tonight",
	"pto": "paid time off", "ooo": "out of office", "wfh": "work from home",
	"eod": "end of day", "cob": "close of business", "eta": "estimated arrival time",
	"mtg": "meeting", "appt": "appointment", "msg": "message", "msgs": "messages",
	"acct": "account", "dept": "department", "mgr": "manager", "qty": "quantity",
	"pwd": "password", "addr": "address", "pic": "picture", "pics": "pictures",
	"w/": "with", "w/o": "without", "b/c": "because", "re:": "about",
}

// abbreviations is a set of shorthands (nil: none), looked up by a scan of
// the query's words: no regular expression to compile per index (a
// session's tool listing makes one per call) or to run twice per query.
type abbreviations struct {
	full   map[string]string // lower case shorthand -> words
	maxLen int               // bytes of the longest shorthand
}

func compileAbbreviations(m map[string]string) *abbreviations {
	if len(m) == 0 {
		return nil
	}
	a := &abbreviations{full: make(map[string]string, len(m))}
	for k, v := range m {
		k = strings.ToLower(k)
		a.full[k] = v
		a.maxLen = max(a.maxLen, len(k))
	}
	return a
}

// Characters that may stand before a shorthand besides white space, and
// after it.
const (
	abbrevOpen  = `"(`
	abbrevClose = `.,;:!?")'`
)

// expand replaces each shorthand in s by its words: a shorthand is the
// start of a word (after white space or an opening quote or bracket), in
// any case, ending the word or followed by punctuation ("tmrw's", "pto.").
// The longest one wins: w/o over w/.
func (a *abbreviations) expand(s string) string {
	if a == nil {
		return s
	}
	var b strings.Builder
	done := 0 // s[:done] is in b
	var lower [64]byte
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) || strings.ContainsRune(abbrevOpen, r) {
			i += size
			continue
		}
		// i starts a word: the longest shorthand it begins with.
		n := 0
		for n < len(s)-i && n < a.maxLen && n < len(lower) && s[i+n] < utf8.RuneSelf {
			lower[n] = toLowerASCII(s[i+n])
			n++
		}
		for l := n; l > 0; l-- {
			words, ok := a.full[string(lower[:l])]
			if !ok || i+l < len(s) && !unicode.IsSpace(rune(s[i+l])) && !strings.ContainsRune(abbrevClose, rune(s[i+l])) {
				continue
			}
			b.WriteString(s[done:i])
			b.WriteString(words)
			done = i + l
			break
		}
		// On to the next word.
		for i < len(s) {
			r, size := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				break
			}
			i += size
		}
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

func toLowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
