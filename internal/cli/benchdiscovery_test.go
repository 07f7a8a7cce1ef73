package cli_test

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
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
	// Each miss says what was searched: the query's terms, and each
	// expansion with the word it came from.
	if !strings.Contains(out, "\n  terms    ") || !strings.Contains(out, ":word_vectors") {
		t.Fatalf("misses without their terms: %s", out)
	}
	code, jsonOut, _ := sluice(t, "", "bench", "discovery", "--catalog", discoveryCatalog, "--queries", discoveryQueries, "--split", "train", "--misses", "--json")
	var missed struct {
		Misses []struct {
			Query string
			Terms []struct {
				Term, Via, From string
				Weight          float64
			}
		}
	}
	if err := json.Unmarshal([]byte(jsonOut), &missed); code != 0 || err != nil || len(missed.Misses) == 0 || len(missed.Misses[0].Terms) == 0 || missed.Misses[0].Terms[0].Via != "query" {
		t.Fatalf("exit %d, %v: %s", code, err, jsonOut)
	}
	if !strings.Contains(out, "wordnet  weight=0.25 max-df=0 senses=0") || !strings.Contains(out, "vectors  weight=0.25 min-similarity=0.45 max-terms=16 max-df=0.005 added-max-df=0.1") || !strings.Contains(out, "value-weight=0.5 source-weight=0.75 compound-weight=0.5") {
		t.Fatalf("not the default ranking: %s", out)
	}
	code, out, _ = sluice(t, "", "bench", "discovery", "--catalog", discoveryCatalog, "--queries", discoveryQueries, "--split", "train",
		"--wordnet-weight", "0", "--value-weight", "0", "--source-weight", "0", "--compound-weight", "0", "--word-vector-weight", "0")
	if code != 0 || !strings.Contains(out, "wordnet  off") || !strings.Contains(out, "vectors  off") || !strings.Contains(out, "value-weight=0 source-weight=0 compound-weight=0") {
		t.Fatalf("exit %d: %s", code, out)
	}
	code, out, _ = sluice(t, "", "bench", "discovery", "--catalog", discoveryCatalog, "--queries", discoveryQueries, "--split", "train", "--wordnet-weight", "0.5", "--wordnet-senses", "1")
	if code != 0 || !strings.Contains(out, "wordnet  weight=0.5 max-df=0 senses=1") {
		t.Fatalf("exit %d: %s", code, out)
	}
}

// --learn teaches the index a labeled file's split before the run: a query
// the index learnt is found first, and the output says what was learnt.
func TestBenchDiscoveryLearn(t *testing.T) {
	// "giraffe" is an English word no entry holds or comes near: only
	// learning can find the entry with it.
	teach := writeFile(t, "teach.jsonl", `{"query":"giraffe the customer","relevant":["crm.deleteContact"],"split":"train"}`+"\n"+
		`{"query":"giraffe again","relevant":["crm.deleteContact"],"split":"heldout"}`+"\n")
	ask := writeFile(t, "ask.jsonl", `{"query":"giraffe","relevant":["crm.deleteContact"],"split":"heldout"}`+"\n")
	run := func(args ...string) (recall float64, out string) {
		t.Helper()
		code, out, errOut := sluice(t, "", append([]string{"bench", "discovery", "--catalog", discoveryCatalog, "--queries", ask, "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var rep struct {
			Learnt        string
			LearntQueries int `json:"learnt_queries"`
			Report        struct {
				Figures []struct {
					RecallAtK float64 `json:"recall_at_k"`
				}
			}
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Report.Figures) == 0 {
			t.Fatalf("%v: %s", err, out)
		}
		if len(args) > 0 && (rep.Learnt != teach || rep.LearntQueries != 1) {
			t.Fatalf("learnt %q from %d queries: %s", rep.Learnt, rep.LearntQueries, out)
		}
		return rep.Report.Figures[0].RecallAtK, out
	}
	if r, out := run(); r != 0 {
		t.Fatalf("found without learning: %s", out)
	}
	if r, out := run("--learn", teach); r != 1 {
		t.Fatalf("not found after learning the train split: %s", out)
	}
	code, out, _ := sluice(t, "", "bench", "discovery", "--catalog", discoveryCatalog, "--queries", ask, "--learn", teach, "--learn-split", "all")
	if code != 0 || !strings.Contains(out, "learnt   from 2 queries of "+teach) || !strings.Contains(out, "path=1 usage=0.5") {
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
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--learn", bad, "--learn-split", "all"}, `--learn: ` + bad + `: line 1: relevant id "nope.op" is not in the index`},
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--learn", discoveryQueries, "--learn-split", "test"}, "--learn-split"},
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--learn", filepath.Join(t.TempDir(), "none.jsonl")}, "--learn: queries: open"},
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--b", "3"}, "b must be between"},
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--k", "0"}, "--k"},
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--wordnet-weight", "2"}, "wordnet weight"},
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--value-weight", "1.5"}, "value weight must be between 0 and 1"},
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--source-weight", "-1"}, "source weight must be a number >= 0"},
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--compound-weight", "2"}, "compound weight must be between 0 and 1"},
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--embeddings-url", "http://127.0.0.1:1", "--embeddings-model", "m", "--embeddings-batch", "0"}, "--embeddings-batch at least 1"},
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--wordnet-weight", "0.5", "--wordnet-senses", "-1"}, "wordnet senses"},
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--word-vector-weight", "2"}, "word vector weight must be between 0 and 1"},
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--word-vector-min-similarity", "1.5"}, "word vector min_similarity"},
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--word-vector-max-terms", "0"}, "word vector max_terms"},
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--word-vector-max-df", "-0.1"}, "word vector max_df"},
		{[]string{"--catalog", discoveryCatalog, "--queries", discoveryQueries, "--word-vector-added-max-df", "0"}, "word vector added_max_df"},
	} {
		code, _, errOut := sluice(t, "", append([]string{"bench", "discovery"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %s (want %q)", tc.args, code, errOut, tc.want)
		}
	}
}

// fakeEmbeddings is an OpenAI-compatible /v1/embeddings endpoint whose
// vectors are bags of hashed words: enough for the hybrid path to rank.
func fakeEmbeddings(t *testing.T, key string, calls *atomic.Int32) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		out := struct {
			Data []item `json:"data"`
		}{}
		for i, text := range req.Input {
			v := make([]float32, 64)
			for _, word := range strings.Fields(strings.ToLower(text)) {
				h := fnv.New32a()
				_, _ = h.Write([]byte(word))
				v[h.Sum32()%64]++
			}
			v[0] += 0.01 // never the zero vector
			out.Data = append(out.Data, item{Index: i, Embedding: v})
		}
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestBenchDiscoveryHybrid(t *testing.T) {
	const key = "emb-key-s3cr3t"
	t.Setenv("SLUICE_TEST_EMB_KEY", key)
	var calls atomic.Int32
	srv := fakeEmbeddings(t, key, &calls)
	code, out, errOut := sluice(t, "", "bench", "discovery", "--catalog", discoveryCatalog, "--queries", discoveryQueries,
		"--split", "train", "--embeddings-url", srv.URL, "--embeddings-model", "fake-bow", "--embeddings-key-env", "SLUICE_TEST_EMB_KEY")
	if code != 0 || !strings.Contains(out, "hybrid   BM25 fused (RRF) with the vectors of fake-bow, vector weight 1") || !strings.Contains(out, "recall@5") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	if calls.Load() < 2 {
		t.Fatalf("the endpoint was called %d times", calls.Load())
	}
	if strings.Contains(out+errOut, key) {
		t.Fatal("the endpoint's key is in the output")
	}
	code, _, errOut = sluice(t, "", "bench", "discovery", "--catalog", discoveryCatalog, "--queries", discoveryQueries,
		"--embeddings-url", srv.URL)
	if code != 2 || !strings.Contains(errOut, "--embeddings-model") {
		t.Fatalf("without a model: exit %d: %s", code, errOut)
	}
	code, _, errOut = sluice(t, "", "bench", "discovery", "--catalog", discoveryCatalog, "--queries", discoveryQueries,
		"--embeddings-url", srv.URL, "--embeddings-model", "m")
	if code != 1 || !strings.Contains(errOut, "embedding the catalog") || strings.Contains(errOut, key) {
		t.Fatalf("a refused key: exit %d: %s", code, errOut)
	}
	// An endpoint that embeds the catalog (batches) but fails on queries
	// (one text): the bench fails instead of printing BM25's figures under
	// the hybrid heading.
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Input []string `json:"input"`
		}
		if json.Unmarshal(body, &req) != nil || len(req.Input) == 1 {
			http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusInternalServerError)
			return
		}
		fw, err := http.NewRequest(http.MethodPost, srv.URL+r.URL.Path, bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		fw.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(fw)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	defer refusing.Close()
	code, out, errOut = sluice(t, "", "bench", "discovery", "--catalog", discoveryCatalog, "--queries", discoveryQueries,
		"--split", "train", "--embeddings-url", refusing.URL, "--embeddings-model", "fake-bow", "--embeddings-key-env", "SLUICE_TEST_EMB_KEY")
	if code != 1 || !strings.Contains(errOut, "embedding a query") || strings.Contains(out, "recall@5") || strings.Contains(out+errOut, key) {
		t.Fatalf("queries refused: exit %d: %s %s", code, out, errOut)
	}
}
