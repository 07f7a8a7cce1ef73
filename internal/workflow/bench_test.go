package workflow_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/workflow"
)

// dataWorkflow20 is a 20-operation data workflow over the /input items.
func dataWorkflow20() string {
	var b strings.Builder
	var order []string
	add := func(id, op string) {
		fmt.Fprintf(&b, `{"type":"operationUpdate","operationId":%q,"operation":%s}`+"\n", id, op)
		order = append(order, fmt.Sprintf("%q", id))
	}
	for i := 0; i < 4; i++ {
		in := "/input/items"
		add(fmt.Sprintf("f%d", i), fmt.Sprintf(`{"FilterData":{"inputPath":%q,"conditions":[{"field":"v","operator":">=","value":%d}],"outputPath":"/workflow/f%d"}}`, in, i*10, i))
		add(fmt.Sprintf("s%d", i), fmt.Sprintf(`{"TransformData":{"inputPath":"/workflow/f%d","transform":"sort","config":{"field":"v","order":"desc"},"outputPath":"/workflow/s%d"}}`, i, i))
		add(fmt.Sprintf("g%d", i), fmt.Sprintf(`{"TransformData":{"inputPath":"/workflow/s%d","transform":"aggregate","config":{"operations":[{"op":"sum","field":"v","as":"total"},{"op":"count"}],"groupBy":"k"},"outputPath":"/workflow/g%d"}}`, i, i))
		add(fmt.Sprintf("p%d", i), fmt.Sprintf(`{"TransformData":{"inputPath":"/workflow/s%d","transform":"select","config":{"fields":["id","v"]},"outputPath":"/workflow/p%d"}}`, i, i))
	}
	add("m1", `{"MergeData":{"sources":["/workflow/p0","/workflow/p1"],"strategy":"union","outputPath":"/workflow/m1"}}`)
	add("m2", `{"MergeData":{"sources":["/workflow/g0","/workflow/g1","/workflow/g2"],"strategy":"concat","outputPath":"/workflow/m2"}}`)
	add("c1", `{"Conditional":{"condition":{"path":"/workflow/m1","operator":"empty"},"ifTrue":["w1"],"outputPath":"/workflow/c1"}}`)
	fmt.Fprintf(&b, `{"type":"operationUpdate","operationId":"w1","operation":{"Wait":{"duration":0}}}`+"\n")
	fmt.Fprintf(&b, `{"type":"beginExecution","executionId":"bench","operationOrder":[%s]}`+"\n", strings.Join(order, ","))
	return b.String()
}

func benchInput() map[string]any {
	items := make([]any, 100)
	for i := range items {
		items[i] = map[string]any{"id": float64(i), "v": float64(i % 50), "k": fmt.Sprintf("k%d", i%5)}
	}
	return map[string]any{"items": items}
}

// BenchmarkDataWorkflow20 is validate + compile + run of a 20-operation data
// workflow (19 top-level, one nested) over 100 items, as `sluice run` and the server do it.
func BenchmarkDataWorkflow20(b *testing.B) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	h := newHarnessAt(b, srv, nil, slog.LevelError)
	doc := []byte(dataWorkflow20())
	in := benchInput()
	b.ReportAllocs()
	for b.Loop() {
		res, report := h.runner.Execute(context.Background(), doc, account(), optionsIn(in))
		if report != nil || res.Status != engine.StatusSuccess {
			b.Fatalf("%v %v", toJSON(b, report), res)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/20, "ns/operation")
}

// oneGetWorkflow starts a loopback API that answers a small JSON object, and
// returns it with a one-ApiCall workflow that GETs it (result cache off).
func oneGetWorkflow(b *testing.B) (*httptest.Server, []byte) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":1,"name":"ann","status":"active"}`)
	}))
	b.Cleanup(srv.Close)
	doc := []byte(`{"type":"operationUpdate","operationId":"get","operation":{"ApiCall":{"method":"GET","url":"` + srv.URL + `/user","cache":false,"outputPath":"/workflow/user"}}}
{"type":"beginExecution","executionId":"b","operationOrder":["get"]}`)
	return srv, doc
}

// BenchmarkApiCallWorkflow compares, in one run, a one-ApiCall workflow through
// sluice (egress-checked client, result cache off) with raw net/http GETs to the
// same loopback server. "sluice" is the steady state of a server that sees the
// same document again (its compiled plan comes from the plan cache);
// "sluice-cold" validates and compiles the document on every execution. The
// ratio of their ns/op to raw's is the figure of docs/performance.md (goal:
// sluice ≥ 0.8 of raw requests per second).
func BenchmarkApiCallWorkflow(b *testing.B) {
	srv, doc := oneGetWorkflow(b)

	b.Run("raw", func(b *testing.B) {
		client := egress.NewClient(egress.Policy{AllowPrivate: []string{strings.TrimPrefix(srv.URL, "http://")}})
		b.ReportAllocs()
		for b.Loop() {
			resp, err := client.Get(srv.URL + "/user")
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	for _, bc := range []struct {
		name    string
		options []func(*workflow.Config)
	}{{"sluice", nil}, {"sluice-cold", []func(*workflow.Config){noPlanCache}}} {
		b.Run(bc.name, func(b *testing.B) {
			h := newHarnessAt(b, srv, nil, slog.LevelError, bc.options...)
			acct := account() // a server holds its accounts; it does not build one per call
			b.ReportAllocs()
			for b.Loop() {
				res, report := h.runner.Execute(context.Background(), doc, acct, optionsNone())
				if report != nil || res.Status != engine.StatusSuccess {
					b.Fatalf("%v %v", report, res)
				}
			}
		})
	}
}

func noPlanCache(c *workflow.Config) { c.NoPlanCache = true }

// BenchmarkApiCallLoop measures ApiCall throughput inside one workflow: a Loop
// of 50 GETs (one per item), next to 50 raw net/http GETs, so the per-workflow
// cost of validation and compilation is spread over the requests as it is in
// real workflows that call an API per item.
func BenchmarkApiCallLoop(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":1,"name":"ann","status":"active"}`)
	}))
	defer srv.Close()
	const n = 50
	doc := []byte(`{"type":"operationUpdate","operationId":"each","operation":{"Loop":{"inputPath":"/input/ids","operations":["get"],"outputPath":"/workflow/users"}}}
{"type":"operationUpdate","operationId":"get","operation":{"ApiCall":{"method":"GET","url":"` + srv.URL + `/user/{/workflow/item}","cache":false,"outputPath":"/workflow/user"}}}
{"type":"beginExecution","executionId":"b","operationOrder":["each"]}`)
	ids := make([]any, n)
	for i := range ids {
		ids[i] = float64(i)
	}
	in := map[string]any{"ids": ids}
	b.Run("raw", func(b *testing.B) {
		client := egress.NewClient(egress.Policy{AllowPrivate: []string{strings.TrimPrefix(srv.URL, "http://")}})
		for b.Loop() {
			for i := 0; i < n; i++ {
				resp, err := client.Get(fmt.Sprintf("%s/user/%d", srv.URL, i))
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "requests/s")
	})
	b.Run("sluice", func(b *testing.B) {
		h := newHarnessAt(b, srv, nil, slog.LevelError)
		for b.Loop() {
			res, report := h.runner.Execute(context.Background(), doc, account(), optionsIn(in))
			if report != nil || res.Status != engine.StatusSuccess {
				b.Fatalf("%v %v", toJSON(b, report), toJSON(b, res))
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "requests/s")
	})
}

// BenchmarkApiCallRatio interleaves a raw GET and a one-ApiCall workflow (plan
// cache warm) in every iteration, timing each, so both meet the same machine
// load: on a shared, noisy machine the ratio of one run is steadier than the
// ratio of two benchmarks run one after the other. It reports each side's
// mean and sluice's requests per second as a fraction of raw's (goal ≥ 0.8).
func BenchmarkApiCallRatio(b *testing.B) {
	srv, doc := oneGetWorkflow(b)
	client := egress.NewClient(egress.Policy{AllowPrivate: []string{strings.TrimPrefix(srv.URL, "http://")}})
	h := newHarnessAt(b, srv, nil, slog.LevelError)
	acct := account()
	var raw, sluice time.Duration
	for b.Loop() {
		t0 := time.Now()
		resp, err := client.Get(srv.URL + "/user")
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		t1 := time.Now()
		res, report := h.runner.Execute(context.Background(), doc, acct, optionsNone())
		if report != nil || res.Status != engine.StatusSuccess {
			b.Fatalf("%v %v", report, res)
		}
		t2 := time.Now()
		raw += t1.Sub(t0)
		sluice += t2.Sub(t1)
	}
	n := float64(b.N)
	b.ReportMetric(float64(raw.Nanoseconds())/n, "raw-ns/req")
	b.ReportMetric(float64(sluice.Nanoseconds())/n, "sluice-ns/req")
	b.ReportMetric(float64(raw)/float64(sluice), "ratio")
}
