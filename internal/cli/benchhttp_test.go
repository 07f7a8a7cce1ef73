package cli_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
)

type httpBenchReport struct {
	Clients   int
	Rounds    int
	Scenarios []struct {
		Name     string
		Requests int64
		Errors   int64
		PerSec   float64 `json:"requests_per_second"`
		P50      int64   `json:"p50_ns"`
		P99      int64   `json:"p99_ns"`
		P999     int64   `json:"p999_ns"`
		Max      int64   `json:"max_ns"`
		VsDirect float64 `json:"vs_direct"`
		P99Added int64   `json:"p99_added_ns"`
	}
}

// benchTarget starts a server whose egress allows upstream, and an account
// that may run every scenario of `bench http`; it returns the server's URL
// and the account's key.
func benchTarget(t *testing.T, upstream string) (string, string) {
	t.Helper()
	cfg := config.Defaults()
	cfg.DataDir = t.TempDir()
	cfg.Log.Level = "error"
	cfg.Egress.AllowPrivate = []string{strings.TrimPrefix(upstream, "http://")}
	cfg.Session.CallsPerSecond = 100_000 // the session scenario goes as fast as it can
	app, err := gateway.Open(context.Background(), &cfg, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(app.Server.Handler())
	t.Cleanup(func() { srv.Close(); _ = app.Close() })
	name := "bench"
	_, key, err := client.New(srv.URL, app.AdminKey, nil).CreateAccount(context.Background(), client.AccountSpec{Name: &name,
		Permissions: &client.Permissions{Operations: []string{"FilterData", "TransformData", "MergeData", "ApiCall"}, Hosts: []string{"*"}},
		Limits: map[string]int{"requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1,
			"api_calls_per_minute": -1, "api_calls_per_hour": -1, "max_concurrent_executions": -1}})
	if err != nil {
		t.Fatal(err)
	}
	return srv.URL, key.APIKey
}

// Every request the generator reports reached the upstream exactly once:
// the direct GETs and the ApiCall workflows' GETs together are the
// upstream's count (no warm-up, so nothing is sent unreported), every
// scenario has its figures in order, and each ratio is its requests/s over
// direct's. Timings are never asserted.
func TestBenchHTTPCountsAndReports(t *testing.T) {
	var hits atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = io.WriteString(w, `{"id":7}`)
	}))
	defer upstream.Close()
	url, key := benchTarget(t, upstream.URL)

	code, out, errOut := sluice(t, "", "bench", "http", "--url", url, "--key", key, "--upstream", upstream.URL,
		"--clients", "2", "--duration", "400ms", "--rounds", "2", "--warmup", "0", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	rep := decodeJSON[httpBenchReport](t, "the report", out)
	if rep.Clients != 2 || rep.Rounds != 2 || len(rep.Scenarios) != 4 {
		t.Fatalf("report: %s", out)
	}
	var upstreamCalls int64
	direct := rep.Scenarios[0]
	for i, s := range rep.Scenarios {
		if s.Name != []string{"direct", "data5", "apicall", "session"}[i] {
			t.Fatalf("scenario %d is %q", i, s.Name)
		}
		if s.Requests == 0 || s.Errors != 0 || s.PerSec <= 0 {
			t.Fatalf("%s: %+v", s.Name, s)
		}
		if !(s.P50 <= s.P99 && s.P99 <= s.P999 && s.P999 <= s.Max && s.P50 > 0) {
			t.Fatalf("%s: percentiles out of order: %+v", s.Name, s)
		}
		if s.Name == "direct" || s.Name == "apicall" {
			upstreamCalls += s.Requests
		}
		if s.Name != "direct" && (s.VsDirect != s.PerSec/direct.PerSec || s.P99Added != s.P99-direct.P99) {
			t.Fatalf("%s against direct: %+v, direct %+v", s.Name, s, direct)
		}
	}
	if direct.VsDirect != 0 {
		t.Fatalf("direct is compared with itself: %+v", direct)
	}
	if hits.Load() != upstreamCalls {
		t.Fatalf("the upstream answered %d GETs, the report counts %d", hits.Load(), upstreamCalls)
	}

	// The table names each scenario and its ratio.
	code, out, _ = sluice(t, "", "bench", "http", "--url", url, "--key", key, "--upstream", upstream.URL,
		"--clients", "1", "--duration", "100ms", "--rounds", "1", "--scenarios", "direct,apicall")
	if code != 0 || !strings.Contains(out, "vs direct") || !strings.Contains(out, "apicall") || !strings.Contains(out, "x ") {
		t.Fatalf("table: %d %s", code, out)
	}
}

// Refusals: an unknown scenario, and a key the server does not know, whose
// failures are counted and make the exit 1.
func TestBenchHTTPRefusals(t *testing.T) {
	code, _, errOut := sluice(t, "", "bench", "http", "--key", "k", "--scenarios", "data5,nope", "--duration", "10ms")
	if code != 1 || !strings.Contains(errOut, `"nope"`) {
		t.Fatalf("unknown scenario: %d %s", code, errOut)
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer upstream.Close()
	url, _ := benchTarget(t, upstream.URL)
	code, out, _ := sluice(t, "", "bench", "http", "--url", url, "--key", "slk_wrong", "--upstream", upstream.URL,
		"--clients", "1", "--duration", "50ms", "--rounds", "1", "--warmup", "0", "--scenarios", "data5", "--json")
	rep := decodeJSON[httpBenchReport](t, "the report", out)
	if code != 1 || len(rep.Scenarios) != 1 || rep.Scenarios[0].Errors == 0 || rep.Scenarios[0].Requests != 0 {
		t.Fatalf("a wrong key: exit %d, %s", code, out)
	}
	var raw map[string]any
	if json.Unmarshal([]byte(out), &raw) != nil || strings.Contains(out, "slk_wrong") {
		t.Fatalf("the report shows the key: %s", out)
	}
}
