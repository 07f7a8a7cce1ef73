package discovery_test

import (
	"testing"

	"github.com/sluicehq/sluice/internal/discovery"
)

// TestTuneWordVectors is the grid the word vector expansion's defaults were
// chosen from, on both training sets (docs/discovery.md, fourth round): each
// line is one setting, with WordNet on and off.
func TestTuneWordVectors(t *testing.T) {
	if !*tune {
		t.Skip("run with -tune")
	}
	es, sets := trainSets(t)
	base := discovery.DefaultOptions()
	off := base
	off.WordVectors.Weight = 0
	t.Logf("%-50s%s", "without word vectors", bothSets(t, es, sets, off))
	for _, wn := range []float64{0.25, 0} {
		for _, w := range []float64{0.2, 0.25, 0.3, 0.35} {
			for _, ms := range []float64{0.4, 0.45, 0.5, 0.55} {
				for _, mt := range []int{6, 8, 12, 16} {
					for _, df := range []float64{0, 0.005, 0.01} {
						o := base
						o.WordNet.Weight = wn
						o.WordVectors = discovery.WordVectorOptions{Weight: w, MinSimilarity: ms, MaxTerms: mt, MaxDF: df}
						t.Logf("wn %.2f w %.2f min %.2f max %d df %.3f %s", wn, w, ms, mt, df, bothSets(t, es, sets, o))
					}
				}
			}
		}
	}
}
