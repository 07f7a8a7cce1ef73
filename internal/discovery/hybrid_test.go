package discovery_test

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
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

func TestHybridFindsWhatBM25Misses(t *testing.T) {
	var n atomic.Int32
	srv := fakeServer(t, "sk-test-123", &n)
	emb := &discovery.OpenAIEmbedder{BaseURL: srv.URL + "/", Model: "fake-embed", APIKey: "sk-test-123", MaxBatch: 3}
	h := discovery.NewHybrid(discovery.New(), emb, nil)
	if err := h.Upsert(context.Background(), hybridEntries()...); err != nil {
		t.Fatal(err)
	}
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
