package discovery

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
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

// abbreviations is a compiled set of shorthands (nil: none).
type abbreviations struct {
	re   *regexp.Regexp
	full map[string]string // lower case shorthand -> words
}

func compileAbbreviations(m map[string]string) *abbreviations {
	if len(m) == 0 {
		return nil
	}
	a := &abbreviations{full: make(map[string]string, len(m))}
	var alts []string
	for k, v := range m {
		k = strings.ToLower(k)
		a.full[k] = v
		alts = append(alts, regexp.QuoteMeta(k))
	}
	// Longest first, so w/o wins over w/.
	sortByLenDesc(alts)
	a.re = regexp.MustCompile(`(?i)(^|[\s"(])(` + strings.Join(alts, "|") + `)($|[\s.,;:!?")'])`)
	return a
}

// expand replaces each shorthand in s, a whole word (between spaces,
// quotes, brackets or punctuation), by its words.
func (a *abbreviations) expand(s string) string {
	if a == nil {
		return s
	}
	// Twice: adjacent shorthands share the space between them.
	for range 2 {
		s = a.re.ReplaceAllStringFunc(s, func(m string) string {
			sub := a.re.FindStringSubmatch(m)
			return sub[1] + a.full[strings.ToLower(sub[2])] + sub[3]
		})
	}
	return s
}

func sortByLenDesc(xs []string) {
	slices.SortFunc(xs, func(a, b string) int { return cmp.Or(cmp.Compare(len(b), len(a)), cmp.Compare(a, b)) })
}
