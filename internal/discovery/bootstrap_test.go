package discovery

import "testing"

func TestBootstrapCI95(t *testing.T) {
	if got := bootstrapCI95(nil); got != [2]float64{} {
		t.Fatalf("no queries: %v", got)
	}
	ones := []float64{1, 1, 1, 1}
	if got := bootstrapCI95(ones); got != [2]float64{1, 1} {
		t.Fatalf("all found: %v", got)
	}
	// 44 of 49 found: the interval holds the mean, is about ±0.08 wide,
	// and is the same every time (fixed seed).
	xs := make([]float64, 49)
	for i := range 44 {
		xs[i] = 1
	}
	got := bootstrapCI95(xs)
	mean := 44.0 / 49
	if !(got[0] < mean && mean < got[1]) || got[1]-got[0] < 0.1 || got[1]-got[0] > 0.25 {
		t.Fatalf("44 of 49: %v around %.3f", got, mean)
	}
	if again := bootstrapCI95(xs); again != got {
		t.Fatalf("not reproducible: %v then %v", got, again)
	}
}
