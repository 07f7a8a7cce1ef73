package queue

import (
	"slices"
	"testing"
)

func TestInterleave(t *testing.T) {
	groups := [][]string{{"a1", "a2", "a3"}, {"b1"}, {"c1", "c2"}}
	items, served := Interleave(groups, 10)
	if want := []string{"a1", "b1", "c1", "a2", "c2", "a3"}; !slices.Equal(items, want) {
		t.Fatalf("items %v, want %v", items, want)
	}
	if want := []int{1, 2, 0}; !slices.Equal(served, want) {
		t.Fatalf("served %v, want %v (b last served first, a last)", served, want)
	}
	items, served = Interleave(groups, 2)
	if !slices.Equal(items, []string{"a1", "b1"}) || !slices.Equal(served, []int{0, 1}) {
		t.Fatalf("n=2: items %v, served %v", items, served)
	}
	if items, served = Interleave[string](nil, 3); len(items) != 0 || len(served) != 0 {
		t.Fatalf("no groups: %v %v", items, served)
	}
}
