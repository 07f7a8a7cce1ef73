package discovery_test

import (
	"testing"

	"github.com/sluicehq/sluice/internal/discovery"
)

// BenchmarkSearch10kWordNet is BenchmarkSearch10k with the WordNet
// expansion on: as measured (weight 0.5, only words absent from the index),
// and at its bound (every query word expanded through every sense and
// relation, up to 8 words each, 64 candidates examined each).
func BenchmarkSearch10kWordNet(b *testing.B) {
	for _, c := range []struct {
		name   string
		change func(*discovery.WordNetOptions)
	}{
		{"measured", func(w *discovery.WordNetOptions) {}},
		{"bound", func(w *discovery.WordNetOptions) {
			w.MaxDF, w.Senses, w.Hypernyms, w.Hyponyms, w.MaxTerms = 1, 0, true, true, 8
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			o := discovery.DefaultOptions()
			o.WordNet.Weight = 0.5
			c.change(&o.WordNet)
			benchSearch10k(b, o)
		})
	}
}
