package discovery

import "regexp"

// Agents put values in their requests ("email jane@acme.com", "what is at
// 48.85, 2.29", "refund $40", "move it to Friday 3pm"). The words of a
// value name nothing an operation documents, but its type does: the
// operation takes an email, coordinates, an amount, a date. valueKinds
// recognizes values in a query's raw text and names the type words it
// implies, which the query then searches at Options.ValueWeight; the
// characters of opaque values are not searched at all (maskOpaque).
type valueKind struct {
	re    *regexp.Regexp
	words []string
	// opaque: the value's characters are data, searched by type only
	// (maskOpaque); dates and amounts keep their words (Friday, dollars).
	opaque bool
}

// maskOpaque blanks out the values in s whose characters are data, not
// words (email addresses, URLs, IP addresses, phone numbers): "jane" and
// "acme" in jane@acme.com name nothing an operation documents, and would
// match entries that happen to hold them. Their type words still count.
func maskOpaque(s string) string {
	for _, k := range valueKinds {
		if k.opaque {
			s = k.re.ReplaceAllString(s, " ")
		}
	}
	return s
}

var valueKinds = []valueKind{
	{regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`), []string{"email", "address"}, true},
	{regexp.MustCompile(`(?i)\bhttps?://\S+|\bwww\.\S+`), []string{"url", "link"}, true},
	{regexp.MustCompile(`-?\b\d{1,3}\.\d+\s*,\s*-?\d{1,3}\.\d+\b`), []string{"latitude", "longitude", "coordinates"}, false},
	{regexp.MustCompile(`\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b`), []string{"ip", "address"}, true},
	{regexp.MustCompile(`(?i)[$€£¥]\s?\d|\b\d+(?:[.,]\d+)?\s?(?:usd|eur|gbp|dollars?|euros?|pounds?|cents?|bucks)\b`), []string{"amount", "price"}, false},
	{regexp.MustCompile(`(?i)\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b|\b(?:today|tomorrow|yesterday|tonight|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|june|july|august|september|october|november|december)\b`), []string{"date"}, false},
	{regexp.MustCompile(`(?i)\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b`), []string{"time"}, false},
	{regexp.MustCompile(`\+\d[\d\s().-]{6,}\d|\(?\b\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}\b`), []string{"phone", "number"}, true},
	// #name is how chat tools (Slack, Teams, Discord, IRC) write a channel.
	{regexp.MustCompile(`(?:^|\s)#[A-Za-z][\w-]*`), []string{"channel"}, true},
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
