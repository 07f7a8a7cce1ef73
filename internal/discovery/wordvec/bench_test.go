package wordvec

import (
	"bytes"
	"compress/gzip"
	"testing"
)

// BenchmarkDefault: decompress and decode the embedded table (what the
// first index with the word vector expansion on pays once per process).
func BenchmarkDefault(b *testing.B) {
	for b.Loop() {
		zr, err := gzip.NewReader(bytes.NewReader(embedded))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Decode(zr); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDot is one dot product of two of the table's 100-dimension
// vectors.
func BenchmarkDot(b *testing.B) {
	tb, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	i, _ := tb.Lookup("invoice")
	j, _ := tb.Lookup("receipt")
	x, y := tb.Vector(i), tb.Vector(j)
	var s int32
	for b.Loop() {
		s += Dot(x, y)
	}
	sink = s
}

var sink int32

// BenchmarkLookup is one Lookup of a word: 1,024 of the table's words
// spread over it, and as many absent.
func BenchmarkLookup(b *testing.B) {
	tb, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	var words []string
	for i := range 1024 {
		w := tb.Word(int32(i * tb.Len() / 1024))
		words = append(words, w, w+"zq")
	}
	n := 0
	for i := 0; b.Loop(); i++ {
		if _, ok := tb.Lookup(words[i%len(words)]); ok {
			n++
		}
	}
	sink = int32(n)
}
