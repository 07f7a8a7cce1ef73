package wordtab

import (
	"strconv"
	"testing"
)

func TestBuildAndLookup(t *testing.T) {
	b := NewBuilder(2)
	var words []string
	for i := range 1000 {
		words = append(words, "w"+strconv.Itoa(i))
	}
	words = append(words, "") // the empty word is a word too
	for i, w := range words {
		if id, added := b.Add(w); !added || id != int32(i) {
			t.Fatalf("Add(%q) = %d, %v, want %d, true", w, id, added, i)
		}
	}
	for i, w := range words {
		if id, added := b.Add(w); added || id != int32(i) {
			t.Fatalf("Add(%q) again = %d, %v, want %d, false", w, id, added, i)
		}
		if id, ok := b.Lookup(w); !ok || id != int32(i) {
			t.Fatalf("builder Lookup(%q) = %d, %v", w, id, ok)
		}
	}
	tab := b.Table()
	if tab.Len() != len(words) {
		t.Fatalf("Len %d, want %d", tab.Len(), len(words))
	}
	for i, w := range words {
		if got := tab.Word(int32(i)); got != w {
			t.Fatalf("Word(%d) = %q, want %q", i, got, w)
		}
		if id, ok := tab.Lookup(w); !ok || id != int32(i) {
			t.Fatalf("Lookup(%q) = %d, %v, want %d", w, id, ok, i)
		}
	}
	for _, w := range []string{"w1000", "w", "x1", "w01"} {
		if id, ok := tab.Lookup(w); ok {
			t.Fatalf("Lookup(%q) = %d, found", w, id)
		}
	}
}

func TestZero(t *testing.T) {
	var tab Table
	if _, ok := tab.Lookup("a"); ok || tab.Len() != 0 {
		t.Fatal("zero table holds a word")
	}
	var b Builder
	if id, added := b.Add("a"); !added || id != 0 {
		t.Fatalf("zero builder Add = %d, %v", id, added)
	}
	if tab := b.Table(); tab.Word(0) != "a" {
		t.Fatalf("Word(0) = %q", tab.Word(0))
	}
	if tab := new(Builder).Table(); tab.Len() != 0 {
		t.Fatal("empty builder's table not empty")
	}
}

// A table built from a generous size hint is as small as one grown word by
// word, and still finds its words.
func TestTableShrinksToItsWords(t *testing.T) {
	big, small := NewBuilder(10000), NewBuilder(0)
	for i := range 100 {
		big.Add(strconv.Itoa(i))
		small.Add(strconv.Itoa(i))
	}
	bt, st := big.Table(), small.Table()
	if len(bt.slots) != len(st.slots) || len(bt.slots) != slotsFor(100) {
		t.Fatalf("%d and %d slots, want %d", len(bt.slots), len(st.slots), slotsFor(100))
	}
	for i := range 100 {
		if id, ok := bt.Lookup(strconv.Itoa(i)); !ok || id != int32(i) {
			t.Fatalf("Lookup(%d) = %d, %v", i, id, ok)
		}
	}
}
