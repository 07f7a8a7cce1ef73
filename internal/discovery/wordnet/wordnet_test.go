package wordnet

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
)

// The generator's output, as embedded: its size and what it must hold.
func TestEmbeddedData(t *testing.T) {
	if len(embedded) > 2<<20 {
		t.Fatalf("wordnet.txt.gz is %d bytes, over 2 MiB", len(embedded))
	}
	th, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	st := th.Stats()
	// WordNet 3.0 has 82,115 noun and 13,767 verb synsets; those with a
	// single-word lower case lemma are most of them.
	if st.Synsets < 60000 || st.Synsets > 95882 || st.Words < 50000 || st.Exceptions < 1000 || st.Derivations < 5000 {
		t.Fatalf("stats %+v", st)
	}
	for w := range th.words() {
		if !isWord(w) {
			t.Fatalf("word %q kept", w)
		}
	}
	if th.sensesOf("new_york") != nil {
		t.Fatal("multi-word lemma kept")
	}
	if th2, _ := Default(); th2 != th {
		t.Fatal("Default decoded twice")
	}
}

func TestLemmas(t *testing.T) {
	th, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		word string
		pos  byte
		want string
	}{
		{"invoices", 'n', "invoice"}, {"mice", 'n', "mouse"}, {"boxes", 'n', "box"}, {"policies", 'n', "policy"},
		{"deleted", 'v', "delete"}, {"running", 'v', "run"}, {"ran", 'v', "run"}, {"deleting", 'v', "delete"},
	} {
		if got := th.Lemmas(c.word, c.pos); !slices.Contains(got, c.want) {
			t.Errorf("Lemmas(%q, %c) = %q, want %q among them", c.word, c.pos, got, c.want)
		}
	}
	if got := th.Lemmas("zzqx", 'n'); got != nil {
		t.Errorf("unknown word: %q", got)
	}
}

func words(rs []Related, rel Relation) []string {
	var out []string
	for _, r := range rs {
		if r.Rel == rel {
			out = append(out, r.Word)
		}
	}
	return out
}

func TestRelated(t *testing.T) {
	th, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	all := Relations{Derived: true, Hypernyms: true, Hyponyms: true}
	rs := th.Related("invoices", 1, all)
	if !slices.Contains(words(rs, Synonym), "bill") {
		t.Errorf("invoice: synonyms %q", words(rs, Synonym))
	}
	if rs := th.Related("deletion", 1, all); !slices.Contains(words(rs, Derived), "delete") {
		t.Errorf("deletion: derived %q", words(rs, Derived))
	}
	if rs := th.Related("paycheck", 1, all); !slices.Contains(words(rs, Hypernym), "check") {
		t.Errorf("paycheck: hypernyms %q", words(rs, Hypernym))
	}
	// Each word once; never the word or its lemma; closest sense first.
	seen := map[string]bool{}
	last := 0
	for _, r := range th.Related("invoices", 0, all) {
		if seen[r.Word] || r.Word == "invoice" || r.Word == "invoices" {
			t.Fatalf("%q repeated or the word itself", r.Word)
		}
		if r.Rank < last {
			t.Fatalf("rank %d after %d", r.Rank, last)
		}
		seen[r.Word], last = true, r.Rank
	}
	// Relations off: synonyms only.
	for _, r := range th.Related("deletion", 0, Relations{}) {
		if r.Rel != Synonym {
			t.Fatalf("%+v with relations off", r)
		}
	}
	// Fewer senses, fewer words.
	if len(th.Related("run", 1, all)) >= len(th.Related("run", 0, all)) {
		t.Error("senses limit has no effect")
	}
	var nilT *Thesaurus
	if nilT.Related("x", 1, all) != nil || th.Related("zzqx", 1, all) != nil {
		t.Error("unknown word has related words")
	}
}

func TestParse(t *testing.T) {
	th, err := Parse(strings.NewReader("# c\ns n invoice bill/2 @1\ns n statement\ns v bill\nx n invoicen invoice\nd bill billing\n"))
	if err != nil {
		t.Fatal(err)
	}
	if st := th.Stats(); st != (Stats{Synsets: 3, Words: 3, Exceptions: 1, Derivations: 1}) {
		t.Fatalf("stats %+v", st)
	}
	rs := th.Related("bill", 0, Relations{Derived: true, Hypernyms: true, Hyponyms: true})
	want := []Related{{"billing", Derived, 1}, {"invoice", Synonym, 2}, {"statement", Hypernym, 2}}
	if !slices.Equal(rs, want) {
		t.Fatalf("related %+v, want %+v", rs, want)
	}
	if rs := th.Related("statement", 0, Relations{Hyponyms: true}); !slices.Equal(words(rs, Hyponym), []string{"invoice", "bill"}) {
		t.Fatalf("hyponyms %+v", rs)
	}
	if got := th.Lemmas("invoicen", 'n'); !slices.Equal(got, []string{"invoice"}) {
		t.Fatalf("exception: %q", got)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"s n ok\ns q bad", "line 2"},
		{"s n Bad", `bad word "Bad"`},
		{"s n a1", "bad word"},
		{"s n word/1", "bad sense rank"},
		{"s n word/x", "bad sense rank"},
		{"s n word @0 other", "after the hypernyms"},
		{"s n @1", "without words"},
		{"s n word @-1", "bad hypernym"},
		{"s n word @5", "hypernym 5"},
		{"s n word @0", "hypernym 0"},
		{"s n word\ns v other @0", "hypernym 0"},
		{"x n form", "want x"},
		{"d same same", "want d"},
		{"z", `unknown record "z"`},
		{strings.Repeat("s", maxLineBytes+1), "longer than"},
	} {
		_, err := Parse(strings.NewReader(c.in))
		var fe *fault.Error
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.40q: error %v, want %q", c.in, err, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("s n invoice bill/2 @1\ns n statement\nx n invoices invoice\nd bill billing\n"))
	f.Add([]byte("s v a @0\n"))
	f.Add([]byte("s n word @1\ns n other @0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		th, err := Parse(strings.NewReader(string(data)))
		if err != nil {
			return
		}
		for w := range th.words() {
			for _, r := range th.Related(w, 0, Relations{Derived: true, Hypernyms: true, Hyponyms: true}) {
				if !isWord(r.Word) || r.Word == w {
					t.Fatalf("related %+v of %q", r, w)
				}
			}
			th.Lemmas(w+"s", 'n')
		}
	})
}
