package validate

import (
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/a2e"
)

func TestNearest(t *testing.T) {
	cases := []struct {
		word       string
		candidates []string
		want       string // "" for no suggestion
	}{
		{"FilterDatas", a2e.OperationNames, "FilterData"},
		{"filterdata", a2e.OperationNames, "FilterData"},
		{"Loops", a2e.OperationNames, "Loop"},
		{"Frobnicate", a2e.OperationNames, ""},
		{"=", a2e.FilterOperators, "=="},
		{"a", []string{"w"}, ""},
		{"ab", []string{"xy"}, ""},
		{"fetch-user", []string{"filter-active", "fetch-users"}, "fetch-users"},
		{"process-data", []string{"check-count", "process-if-needed"}, ""},
		{"same", []string{"same"}, ""},
		{"", []string{"x"}, ""},
		{strings.Repeat("a", maxSuggestLen+1), []string{strings.Repeat("a", maxSuggestLen)}, ""},
	}
	for _, tc := range cases {
		got, ok := nearest(tc.word, tc.candidates)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("nearest(%.20q) = %q, %v; want %q", tc.word, got, ok, tc.want)
		}
	}
}

func TestDistance(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"kitten", "sitting", 3},
		{"flaw", "lawn", 2},
		{"same", "same", 0},
	}
	for _, tc := range cases {
		if got := a2e.EditDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := a2e.EditDistance(tc.b, tc.a); got != tc.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestKeyAndIndex(t *testing.T) {
	cases := map[string]string{
		"Authorization": ".Authorization",
		"X-Api-Key":     `["X-Api-Key"]`,
		"a1":            ".a1",
		"1a":            `["1a"]`,
		"":              `[""]`,
		`we"ird`:        `["we\"ird"]`,
	}
	for k, want := range cases {
		if got := key(k); got != want {
			t.Errorf("key(%q) = %s, want %s", k, got, want)
		}
	}
	if got := index(3); got != "[3]" {
		t.Errorf("index(3) = %s", got)
	}
}
