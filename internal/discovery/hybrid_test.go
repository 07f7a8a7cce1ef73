package discovery_test

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/discovery"
)

// concepts are what the fake embedding model "understands": words of one
// group get the same dimension, so it finds synonyms BM25 cannot.
var concepts = [][]string{
	{"car", "automobile", "vehicle", "cars"},
	{"invoice", "bill", "invoices", "bills"},
	{"forecast", "weather", "rain"},
}

const fakeDims = 64

func fakeVector(text string) []float64 {
	v := make([]float64, fakeDims)
	for _, w := range strings.Fields(strings.ToLower(text)) {
		w = strings.Trim(w, ".,:;!?'\"")
		dim := -1
		for i, g := range concepts {
			for _, c := range g {
				if c == w {
					dim = i
				}
			}
		}
		if dim < 0 {
			h := fnv.New32a()
			h.Write([]byte(w))
			dim = len(concepts) + int(h.Sum32()%uint32(fakeDims-len(concepts)))
		}
		v[dim]++
	}
	return v
}

// fakeServer is an OpenAI-compatible /v1/embeddings endpoint with
// deterministic vectors; it counts requests and checks the key and model.
func fakeServer(t *testing.T, key string, requests *atomic.Int32) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+key {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":{"message":"bad key ` + r.Header.Get("Authorization") + `"}}`))
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "fake-embed" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		}
		var data []item
		for i := len(req.Input) - 1; i >= 0; i-- { // out of order on purpose: index decides
			data = append(data, item{i, fakeVector(req.Input[i])})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func hybridEntries() []discovery.Entry {
	return []discovery.Entry{
		{Kind: discovery.KindOperation, ID: "fleet.listCars", Source: "fleet", Name: "listCars", Summary: "List cars", Description: "Returns the cars of the fleet.", Permission: "fleet"},
		{Kind: discovery.KindOperation, ID: "fleet.bookCar", Source: "fleet", Name: "bookCar", Summary: "Reserve a car", Description: "Books a car for a driver.", Permission: "fleet-admin"},
		{Kind: discovery.KindOperation, ID: "billing.listInvoices", Source: "billing", Name: "listInvoices", Summary: "List invoices", Permission: "billing"},
		{Kind: discovery.KindOperation, ID: "weather.getForecast", Source: "weather", Name: "getForecast", Summary: "Weather forecast", Permission: "weather"},
	}
}

// lexicalHybrid is a hybrid index of hybridEntries embedded by emb, without
// WordNet and word vectors (which would widen automobile to car), so only
// the vectors bridge words the entries lack.
func lexicalHybrid(t *testing.T, emb discovery.Embedder) *discovery.Hybrid {
	t.Helper()
	o := discovery.DefaultOptions()
	o.WordNet.Weight, o.WordVectors.Weight = 0, 0
	ix, err := discovery.NewIndex(o)
	if err != nil {
		t.Fatal(err)
	}
	h := discovery.NewHybrid(ix, emb, nil)
	if err := h.Upsert(context.Background(), hybridEntries()...); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestHybridFindsWhatBM25Misses(t *testing.T) {
	var n atomic.Int32
	srv := fakeServer(t, "sk-test-123", &n)
	emb := &discovery.OpenAIEmbedder{BaseURL: srv.URL + "/", Model: "fake-embed", APIKey: "sk-test-123", MaxBatch: 3}
	h := lexicalHybrid(t, emb)
	if got := n.Load(); got != 2 {
		t.Fatalf("4 entries in batches of 3: %d requests", got)
	}
	// "automobile" is in no entry: BM25 finds nothing, the vectors do.
	if got := h.Index().Search("automobile", nil, 5); len(got) != 0 {
		t.Fatalf("BM25 matched %v", ids(got))
	}
	got := ids(h.Search(context.Background(), "automobile", nil, 2))
	if len(got) != 2 || !strings.HasPrefix(got[0], "fleet.") || !strings.HasPrefix(got[1], "fleet.") {
		t.Fatalf("hybrid: %v", got)
	}
	// The filter applies to the vector ranking too.
	onlyFleet := func(e discovery.Entry) bool { return e.Permission == "fleet" }
	if got := ids(h.Search(context.Background(), "automobile vehicle", onlyFleet, 5)); len(got) != 1 || got[0] != "fleet.listCars" {
		t.Fatalf("filtered hybrid: %v", got)
	}
	// Both rankings agree on "bill": it comes first.
	if got := ids(h.Search(context.Background(), "invoices bill", nil, 1)); len(got) != 1 || got[0] != "billing.listInvoices" {
		t.Fatalf("fused: %v", got)
	}
	// Replace re-embeds; Remove forgets.
	if err := h.Replace(context.Background(), discovery.KindOperation, "fleet", nil); err != nil {
		t.Fatal(err)
	}
	for _, hit := range h.Search(context.Background(), "automobile", nil, 5) {
		if strings.HasPrefix(hit.Entry.ID, "fleet.") {
			t.Fatalf("removed entry %s still found", hit.Entry.ID)
		}
	}
}

func TestHybridFallsBackToBM25(t *testing.T) {
	var n atomic.Int32
	srv := fakeServer(t, "right", &n)
	good := &discovery.OpenAIEmbedder{BaseURL: srv.URL, Model: "fake-embed", APIKey: "right"}
	h := discovery.NewHybrid(discovery.New(), good, nil)
	if err := h.Upsert(context.Background(), hybridEntries()...); err != nil {
		t.Fatal(err)
	}
	*good = discovery.OpenAIEmbedder{BaseURL: srv.URL, Model: "fake-embed", APIKey: "wrong"}
	if got := ids(h.Search(context.Background(), "cars", nil, 5)); len(got) == 0 || !strings.HasPrefix(got[0], "fleet.") {
		t.Fatalf("fallback: %v", got)
	}
}

func TestOpenAIEmbedderErrors(t *testing.T) {
	var n atomic.Int32
	srv := fakeServer(t, "sk-secret-value", &n)
	ctx := context.Background()
	// A wrong key: the error says 401 and never shows either key.
	_, err := (&discovery.OpenAIEmbedder{BaseURL: srv.URL, Model: "fake-embed", APIKey: "sk-other-secret"}).Embed(ctx, []string{"x"})
	if err == nil || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "sk-other-secret") {
		t.Fatalf("wrong key: %v", err)
	}
	if _, err := (&discovery.OpenAIEmbedder{Model: "m"}).Embed(ctx, []string{"x"}); err == nil {
		t.Fatal("no base URL accepted")
	}
	bad := func(body string, status int) *httptest.Server {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			w.Write([]byte(body))
		}))
		t.Cleanup(s.Close)
		return s
	}
	for _, tc := range []struct {
		body, want string
		limit      int64
	}{
		{`{"data":[]}`, "0 embeddings for 1 inputs", 0},
		{`{"data":[{"index":3,"embedding":[1]}]}`, "out of range", 0},
		{`{"data":[{"index":0,"embedding":[]}]}`, "0 dimensions", 0},
		{`not json`, "not an embeddings answer", 0},
		{`{"data":[{"index":0,"embedding":[1,2,3,4,5,6,7,8,9,10]}]}`, "over 20 bytes", 20},
	} {
		s := bad(tc.body, http.StatusOK)
		_, err := (&discovery.OpenAIEmbedder{BaseURL: s.URL, Model: "m", MaxResponseBytes: tc.limit}).Embed(ctx, []string{"x"})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.body, err, tc.want)
		}
	}
	// A server that never answers is cut by the timeout.
	block := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-block }))
	t.Cleanup(func() { close(block); slow.Close() })
	_, err = (&discovery.OpenAIEmbedder{BaseURL: slow.URL, Model: "m", Timeout: 50 * time.Millisecond}).Embed(ctx, []string{"x"})
	if err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("timeout: %v", err)
	}
}

// funcEmbedder embeds each text with f.
type funcEmbedder func(text string) []float32

func (f funcEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = f(t)
	}
	return out, nil
}

func bagOfWords(text string) []float32 {
	v := make([]float32, fakeDims)
	for i, x := range fakeVector(text) {
		v[i] = float32(x)
	}
	return v
}

// The first Depth results do not depend on k: an evaluation that asks for
// every entry scores what an agent asking for 5 gets.
func TestHybridTopKIndependentOfK(t *testing.T) {
	es, _ := loadDataset(t)
	h := discovery.NewHybrid(discovery.New(), funcEmbedder(bagOfWords), nil)
	h.Depth = 10
	if err := h.Upsert(context.Background(), es...); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"refund a customer's payment", "list the open bugs", "weather forecast for tomorrow in Paris"} {
		all, err := h.SearchErr(context.Background(), q, nil, len(es))
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{1, 5, 10} {
			top, err := h.SearchErr(context.Background(), q, nil, k)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(top), ids(all)[:k]) {
				t.Fatalf("%q: top %d %v, first %d of all %v", q, k, ids(top), k, ids(all)[:k])
			}
		}
		// Past the fused results, BM25's order, each entry once.
		seen := map[string]bool{}
		for _, id := range ids(all) {
			if seen[id] {
				t.Fatalf("%q: %s twice", q, id)
			}
			seen[id] = true
		}
		if bm := h.Index().Search(q, nil, len(es)); len(all) < len(bm) {
			t.Fatalf("%q: %d hybrid results, BM25 alone has %d", q, len(all), len(bm))
		}
	}
}

// A zero vector has no direction: a query's makes the search BM25's (with
// the reason), an entry's leaves the entry to BM25.
func TestHybridZeroVectors(t *testing.T) {
	zeroFor := func(word string) funcEmbedder {
		return func(text string) []float32 {
			if strings.Contains(strings.ToLower(text), word) {
				return make([]float32, fakeDims)
			}
			return bagOfWords(text)
		}
	}
	// Without word vectors, which would widen rain to weather.
	o := discovery.DefaultOptions()
	o.WordVectors.Weight = 0
	ix, err := discovery.NewIndex(o)
	if err != nil {
		t.Fatal(err)
	}
	h := discovery.NewHybrid(ix, zeroFor("forecast"), nil)
	if err := h.Upsert(context.Background(), hybridEntries()...); err != nil {
		t.Fatal(err)
	}
	hits, err := h.SearchErr(context.Background(), "forecast cars", nil, 5)
	if err == nil || !strings.Contains(err.Error(), "zero") {
		t.Fatalf("a zero query vector: %v", err)
	}
	if bm := h.Index().Search("forecast cars", nil, 5); !slices.Equal(ids(hits), ids(bm)) {
		t.Fatalf("not BM25's answer: %v, BM25 %v", ids(hits), ids(bm))
	}
	// weather.getForecast has a zero vector: the vectors never rank it, so
	// a query no word of which it holds does not find it.
	for _, hit := range h.Search(context.Background(), "rain umbrella", nil, 5) {
		if hit.Entry.ID == "weather.getForecast" {
			t.Fatalf("an entry without a vector was ranked by vectors: %v", hit)
		}
	}
}

// Free text with no word for BM25 finds nothing by BM25 and is ranked by
// the vectors in a hybrid search; qualifiers alone still list.
func TestHybridStopWordsOnly(t *testing.T) {
	h := discovery.NewHybrid(discovery.New(), funcEmbedder(bagOfWords), nil)
	if err := h.Upsert(context.Background(), hybridEntries()...); err != nil {
		t.Fatal(err)
	}
	if got := h.Index().Search("what is it", nil, 5); len(got) != 0 {
		t.Fatalf("BM25: %v", ids(got))
	}
	if got := h.Search(context.Background(), "what is it", nil, 2); len(got) != 2 {
		t.Fatalf("hybrid: %v", ids(got))
	}
	if got := h.Search(context.Background(), "kind:operation", nil, 10); len(got) != 4 || got[0].Score != 0 {
		t.Fatalf("qualifiers only: %v", got)
	}
}
