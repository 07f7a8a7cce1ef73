package wordnet

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"
)

// BenchmarkLoad: decompress and parse the embedded thesaurus (what the
// first index with the WordNet expansion on pays once per process).
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		zr, err := gzip.NewReader(bytes.NewReader(embedded))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Parse(zr); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGunzip is the decompression alone.
func BenchmarkGunzip(b *testing.B) {
	for b.Loop() {
		zr, _ := gzip.NewReader(bytes.NewReader(embedded))
		io.Copy(io.Discard, zr)
	}
}

// BenchmarkRelated is one Related of a query word through all senses and
// relations (the bound of the discovery expansion), cycling through a few
// nouns and verbs, inflected and not, and a word WordNet lacks.
func BenchmarkRelated(b *testing.B) {
	th, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	words := []string{"invoices", "deleted", "running", "bill", "paycheck", "customer", "orders", "payment", "shipping", "zzqx"}
	all := Relations{Derived: true, Hypernyms: true, Hyponyms: true}
	n := 0
	for i := 0; b.Loop(); i++ {
		n += len(th.Related(words[i%len(words)], 0, all))
	}
	if n == 0 {
		b.Fatal("no related words")
	}
}
