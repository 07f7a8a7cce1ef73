// Package urlpath escapes values placed into URL paths. It is the one place
// every renderer (ApiCall and A2S request URL templates, the client's and
// the CLI's API paths) goes through, so a value can never name another
// path than the one declared.
package urlpath

import (
	"net/url"
	"strings"
)

// Segment escapes s to stand as a whole path segment: url.PathEscape (so a
// '/' is %2F and cannot start a new segment), and dots encoded when the
// segment is made only of dots. "." and ".." are dot segments that clients,
// proxies and servers remove with the segment before them (RFC 3986 §5.2.4):
// {id} = ".." in /items/{id} would reach /. "%2E%2E" is sent as it is.
func Segment(s string) string {
	return GuardDots(url.PathEscape(s))
}

// GuardDots returns seg, an escaped path segment, with its dots encoded when
// it is made only of dots, escaped or not ("..", ".%2e"): a renderer that
// builds one segment from literal text and values calls it on the whole
// segment.
func GuardDots(seg string) string {
	if seg == "" || !dotsOnly(seg) {
		return seg
	}
	n := strings.Count(seg, ".") + strings.Count(strings.ToUpper(seg), "%2E")
	return strings.Repeat("%2E", n)
}

// dotsOnly says seg is made of '.' and %2E (either case) only.
func dotsOnly(seg string) bool {
	for i := 0; i < len(seg); {
		switch {
		case seg[i] == '.':
			i++
		case i+2 < len(seg) && seg[i] == '%' && seg[i+1] == '2' && (seg[i+2] == 'E' || seg[i+2] == 'e'):
			i += 3
		default:
			return false
		}
	}
	return true
}
