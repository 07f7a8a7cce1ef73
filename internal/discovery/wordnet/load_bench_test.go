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
