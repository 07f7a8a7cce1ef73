package discovery

import "regexp"

// Agents put values in their requests ("email jane@acme.com", "what is at
// 48.85, 2.29", "refund $40", "move it to Friday 3pm"). The words of a
// value name nothing an operation documents, but its type does: the
// operation takes an email, coordinates, an amount, a date. valueKinds
// recognizes values in a query's raw text and names the type words it
// implies, which the query then searches at Options.ValueWeight.
type valueKind struct {
	re    *regexp.Regexp
	words []string
}

var valueKinds = []valueKind{
	{regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`), []string{"email", "address"}},
	{regexp.MustCompile(`(?i)\bhttps?://\S+|\bwww\.\S+`), []string{"url", "link"}},
	{regexp.MustCompile(`-?\b\d{1,3}\.\d+\s*,\s*-?\d{1,3}\.\d+\b`), []string{"latitude", "longitude", "coordinates"}},
	{regexp.MustCompile(`\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b`), []string{"ip", "address"}},
	{regexp.MustCompile(`(?i)[$€£¥]\s?\d|\b\d+(?:[.,]\d+)?\s?(?:usd|eur|gbp|dollars?|euros?|pounds?|cents?|bucks)\b`), []string{"amount", "price"}},
	{regexp.MustCompile(`(?i)\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b|\b(?:today|tomorrow|yesterday|tonight|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|june|july|august|september|october|november|december)\b`), []string{"date"}},
	{regexp.MustCompile(`(?i)\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b`), []string{"time"}},
	{regexp.MustCompile(`\+\d[\d\s().-]{6,}\d`), []string{"phone", "number"}},
}

// valueWords returns the type words of the values in s, each once.
func valueWords(s string) []string {
	var out []string
	for _, k := range valueKinds {
		if k.re.MatchString(s) {
			for _, w := range k.words {
				out = appendUnique(out, w)
			}
		}
	}
	return out
}

// valueTerms analyzes the type words of the values in s.
func valueTerms(s string, stem func(string) string) []string {
	var out []string
	for _, w := range valueWords(s) {
		for _, t := range appendTokens(nil, w, stem) {
			out = appendUnique(out, t)
		}
	}
	return out
}
