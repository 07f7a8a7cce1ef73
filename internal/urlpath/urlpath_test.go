package urlpath

import "testing"

func TestSegment(t *testing.T) {
	for in, want := range map[string]string{
		".":     "%2E",
		"..":    "%2E%2E",
		"...":   "%2E%2E%2E",
		"a..":   "a..",
		"..a":   "..a",
		"a/..":  "a%2F..",
		"../x":  "..%2Fx",
		"%2E":   "%252E",
		"":      "",
		"id 42": "id%2042",
	} {
		if got := Segment(in); got != want {
			t.Errorf("Segment(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		".%2e":   "%2E%2E",
		"%2E%2E": "%2E%2E",
		"%2e":    "%2E",
		"x.":     "x.",
		"%2F":    "%2F",
	} {
		if got := GuardDots(in); got != want {
			t.Errorf("GuardDots(%q) = %q, want %q", in, got, want)
		}
	}
}
