package discovery_test

import (
	"flag"
	"testing"

	"github.com/sluicehq/sluice/internal/discovery"
)

// TestTuneWordVectors is how the word vector expansion's defaults were
// chosen, on both training sets (docs/discovery.md, fourth round): with
// -grid, the grid of the first step (each line one setting, WordNet on and
// off, every added word allowed); without, the second step (how common an
// added word may be) from the shipped defaults.
var tuneGrid = flag.Bool("grid", false, "TestTuneWordVectors: run the first step's grid (2 minutes)")

func TestTuneWordVectors(t *testing.T) {
	if !*tune {
		t.Skip("run with -tune")
	}
	es, sets := trainSets(t)
	base := discovery.DefaultOptions()
	off := base
	off.WordVectors.Weight = 0
	if !*tuneGrid {
		// The second step alone: the grid's best, and how common an added
		// word may be.
		for _, x := range []float64{1, 0.2, 0.1, 0.05, 0.02, 0.01} {
			o := base
			o.WordVectors.AddedMaxDF = x
			t.Logf("added_max_df %.2f %s", x, bothSets(t, es, sets, o))
		}
		return
	}
	t.Logf("%-50s%s", "without word vectors", bothSets(t, es, sets, off))
	for _, wn := range []float64{0.25, 0} {
		for _, w := range []float64{0.2, 0.25, 0.3, 0.35} {
			for _, ms := range []float64{0.4, 0.45, 0.5, 0.55} {
				for _, mt := range []int{6, 8, 12, 16} {
					for _, df := range []float64{0, 0.005, 0.01} {
						o := base
						o.WordNet.Weight = wn
						o.WordVectors = discovery.WordVectorOptions{Weight: w, MinSimilarity: ms, MaxTerms: mt, MaxDF: df, AddedMaxDF: 1}
						t.Logf("wn %.2f w %.2f min %.2f max %d df %.3f %s", wn, w, ms, mt, df, bothSets(t, es, sets, o))
					}
				}
			}
		}
	}
}
