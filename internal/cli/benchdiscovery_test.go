package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

var (
	discoveryCatalog = filepath.Join("..", "..", "testdata", "discovery", "catalog")
	discoveryQueries = filepath.Join("..", "..", "testdata", "discovery", "queries.jsonl")
)

// The bench runs on the shipped dataset and reports per split (figures are
// printed, not asserted, except that the answer to a query is smaller than
// the full listing).
func TestBenchDiscovery(t *testing.T) {
	code, out, errOut := sluice(t, "", "bench", "discovery", "--catalog", discoveryCatalog, "--queries", discoveryQueries, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Report struct {
			K       int
			Entries int
			Figures []struct {
				Split     string
				Queries   int
				RecallAtK float64 `json:"recall_at_k"`
			}
			Full  int     `json:"full_answer_bytes"`
			Query float64 `json:"query_answer_bytes"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	r := rep.Report
	if r.K != 5 || r.Entries < 300 || len(r.Figures) != 3 || r.Figures[0].Split != "train" || r.Figures[1].Split != "heldout" ||
		r.Figures[2].Queries != r.Figures[0].Queries+r.Figures[1].Queries || r.Query <= 0 || float64(r.Full) < 10*r.Query {
		t.Fatalf("report: %s", out)
	}

	code, out, _ = sluice(t, "", "bench", "discovery", "--catalog", discoveryCatalog, "--queries", discoveryQueries, "--split", "train", "--k", "3", "--misses")
	if code != 0 || !strings.Contains(out, "recall@3") || strings.Contains(out, "heldout") {
		t.Fatalf("exit %d: %s", code, out)
	}
	if !strings.Contains(out, "wordnet  off") {
		t.Fatalf("wordnet is on by default: %s", out)
	}
	code, out, _ = sluice(t, "", "bench", "discovery", "--catalog", discoveryCatalog, "--queries", discoveryQueries, "--split", "train", "--wordnet-weight", "0.5")
	if code != 0 || !strings.Contains(out, "wordnet  weight=0.5 max-df=0 senses=1") {
		t.Fatalf("exit %d: %s", code, out)
	}
}

func TestBenchDiscoveryBadInput(t *testing.T) {
	bad := writeFile(t, "q.jsonl", `{"query":"x","relevant":["nope.op"]}`+"\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--catalog", discoveryCatalog}, "--queries"},
		{[]string{"--catalog", t.TempDir(), "--queries", discoveryQueries}, "no OpenAPI document"},
		{[]string{"--catalog", discoveryCatalog, "--queries", bad}, `"nope.op" is not in the catalog`},
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--split", "test"}, "--split"},
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--weights", "title=2"}, "--weights"},
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--b", "3"}, "b must be between"},
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--k", "0"}, "--k"},
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--wordnet-weight", "2"}, "wordnet weight"},
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--wordnet-weight", "0.5", "--wordnet-senses", "-1"}, "wordnet senses"},
	} {
		code, _, errOut := sluice(t, "", append([]string{"bench", "discovery"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %s (want %q)", tc.args, code, errOut, tc.want)
		}
	}
}
