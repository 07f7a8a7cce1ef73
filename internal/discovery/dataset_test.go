package discovery_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sluicehq/sluice/internal/discovery"
)

// The shipped dataset (testdata/discovery at the root of the module).
var (
	datasetCatalog = filepath.Join("..", "..", "testdata", "discovery", "catalog")
	datasetQueries = filepath.Join("..", "..", "testdata", "discovery", "queries.jsonl")
)

func loadDataset(t testing.TB) ([]discovery.Entry, []discovery.Labeled) {
	t.Helper()
	es, err := discovery.LoadCatalog(datasetCatalog)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(datasetQueries)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	qs, err := discovery.ReadLabeled(f)
	if err != nil {
		t.Fatal(err)
	}
	return es, qs
}

// The dataset is as large as the issue asks, every label names a real
// operation, and the held-out split is 30 %.
func TestDatasetShape(t *testing.T) {
	es, qs := loadDataset(t)
	per := map[string]int{}
	for _, e := range es {
		per[e.Source]++
	}
	t.Logf("%d operations in %d documents: %v", len(es), len(per), per)
	if len(es) < 300 || len(per) < 15 {
		t.Errorf("%d operations in %d documents; want >= 300 in >= 15", len(es), len(per))
	}
	held := 0
	for _, q := range qs {
		if q.Split == discovery.SplitHeldout {
			held++
		}
	}
	t.Logf("%d queries, %d held out", len(qs), held)
	if len(qs) < 100 {
		t.Errorf("%d queries; want >= 100", len(qs))
	}
	if want := (len(qs)*3 + 9) / 10; held != want {
		t.Errorf("%d of %d queries held out; want %d (30 %%)", held, len(qs), want)
	}
	ix := discovery.New()
	if err := ix.Upsert(es...); err != nil {
		t.Fatal(err)
	}
	if _, err := discovery.Evaluate(ix, qs, 5); err != nil {
		t.Fatal(err) // names a label that is not in the catalog
	}
}
