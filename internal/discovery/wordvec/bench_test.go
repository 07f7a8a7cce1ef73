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
