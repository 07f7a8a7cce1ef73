package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
)

// bigUpstream answers every GET with a JSON array of n small objects (about
// 90 bytes each) on 127.0.0.1, and counts its calls.
func bigUpstream(t *testing.T, n int) (*httptest.Server, *atomic.Int32, int) {
	t.Helper()
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"user-%d","email":"user-%d@example.com","active":true}`, i, i, i)
	}
	b.WriteByte(']')
	body := b.String()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits, len(body)
}

// builtinEnv is the real catalog with loopback egress allowed, as ApiCall
// tests allow it.
func builtinEnv() *op.Environment {
	return op.NewEnvironment(&op.Deps{
		Client:      egress.NewClient(egress.Policy{AllowPrivate: []string{"127.0.0.1/32"}}),
		Permissions: policy.Permissions{Hosts: []string{"127.0.0.1"}},
		Limits:      op.DefaultLimits(),
	}, op.Builtins()...)
}

// reproducerPlan is the workflow of issue 18: an ApiCall of a few MB, then a
// Loop of 60 items whose body MergeData-concatenates that response.
func reproducerPlan(t *testing.T, url, onError string) *engine.Plan {
	return compile(t, builtinEnv(),
		def("fetch", "ApiCall", fmt.Sprintf(`{"method":"GET","url":%q,"outputPath":"/workflow/resp"}`, url)),
		def("each", "Loop", `{"inputPath":"/input/items","operations":["twice"],"outputPath":"/workflow/all"}`),
		def("twice", "MergeData", `{"sources":["/workflow/resp","/workflow/resp"],"strategy":"concat","outputPath":"/workflow/pair"}`),
		begin(onError, "fetch", "each"))
}

func sixtyItems() map[string]any {
	items := make([]any, 60)
	for i := range items {
		items[i] = float64(i)
	}
	return map[string]any{"items": items}
}

// overBudget returns the execution's budget error, failing the test when there is none.
func overBudget(t *testing.T, r *engine.Result) fault.Object {
	t.Helper()
	for _, e := range r.Errors {
		if _, ok := e.Details["dataBudgetBytes"]; ok {
			return e
		}
	}
	t.Fatalf("status %s, no data budget error in %s", r.Status, errorsText(r))
	return fault.Object{}
}

func detailInt(t *testing.T, o fault.Object, key string) int64 {
	t.Helper()
	switch v := o.Details[key].(type) {
	case int64:
		return v
	case int:
		return int64(v)
	case float64:
		return int64(v)
	}
	t.Fatalf("details.%s is %T", key, o.Details[key])
	return 0
}

// TestDataBudgetStopsReproducer: the workflow held 1.6 GB; with the
// default budget (64 MiB) it fails in the loop with a DataError naming the
// MergeData, the budget and the bytes charged, and its data is dropped.
func TestDataBudgetStopsReproducer(t *testing.T) {
	srv, hits, size := bigUpstream(t, 30000)
	if size < 2<<20 {
		t.Fatalf("the response is %d bytes, want a few MB", size)
	}
	for _, onError := range []string{"", "continue"} {
		r := engine.New(engine.Options{}).Run(context.Background(), reproducerPlan(t, srv.URL, onError),
			engine.RunOptions{Input: sixtyItems()})
		if r.Status != engine.StatusFailed {
			t.Fatalf("onError %q: status %s, want failed (%s)", onError, r.Status, errorsText(r))
		}
		e := overBudget(t, r)
		if e.Type != fault.DataError || e.OperationID != "twice" {
			t.Errorf("onError %q: error %+v, want a DataError of twice", onError, e)
		}
		budget, reached := detailInt(t, e, "dataBudgetBytes"), detailInt(t, e, "reachedBytes")
		if budget != datamodel.DefaultDataBytes || reached <= budget {
			t.Errorf("onError %q: budget %d reached %d, want %d and more", onError, budget, reached, datamodel.DefaultDataBytes)
		}
		// Every iteration charges two copies of the response: the loop stops
		// at the first that goes over (60 iterations would charge 120 copies).
		if reached > 2*budget {
			t.Errorf("onError %q: %d bytes charged, the loop went on past the budget", onError, reached)
		}
		if len(r.Results) != 0 {
			t.Errorf("onError %q: results %v kept after the budget was exceeded", onError, keys(r.Results))
		}
		if !strings.Contains(e.Message, `"twice"`) || !strings.Contains(e.Message, fmt.Sprint(budget)) {
			t.Errorf("onError %q: message %q names neither the operation nor the budget", onError, e.Message)
		}
	}
	if hits.Load() != 2 {
		t.Errorf("upstream called %d times, want once per run", hits.Load())
	}
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestDataBudgetPerRun: a run's own budget (the account's limits.max_data_bytes)
// replaces the engine's, and -1 lifts it.
func TestDataBudgetPerRun(t *testing.T) {
	srv, _, size := bigUpstream(t, 2000) // about 180 KB
	plan := compile(t, builtinEnv(),
		def("fetch", "ApiCall", fmt.Sprintf(`{"method":"GET","url":%q,"outputPath":"/workflow/resp"}`, srv.URL)),
		begin("", "fetch"))
	eng := engine.New(engine.Options{})

	if r := eng.Run(context.Background(), plan, engine.RunOptions{}); r.Status != engine.StatusSuccess {
		t.Fatalf("default budget: %s %s", r.Status, errorsText(r))
	}
	r := eng.Run(context.Background(), plan, engine.RunOptions{MaxDataBytes: int64(size)})
	e := overBudget(t, r)
	if got := detailInt(t, e, "dataBudgetBytes"); got != int64(size) || e.OperationID != "fetch" {
		t.Errorf("budget %d of %q, want %d of fetch", got, e.OperationID, size)
	}
	// Over by the decoded size, not by the JSON length: the JSON fitted.
	if reached := detailInt(t, e, "reachedBytes"); reached < 2*int64(size) {
		t.Errorf("reached %d bytes for a %d-byte response: the decoded size is not counted", reached, size)
	}

	lifted := engine.New(engine.Options{Limits: engine.Limits{MaxDataBytes: 1}})
	if r := lifted.Run(context.Background(), plan, engine.RunOptions{MaxDataBytes: -1}); r.Status != engine.StatusSuccess {
		t.Fatalf("no budget: %s %s", r.Status, errorsText(r))
	}
	if r := lifted.Run(context.Background(), plan, engine.RunOptions{}); r.Status != engine.StatusFailed {
		t.Fatalf("engine budget of 1 byte: %s", r.Status)
	}
}

// TestDataBudgetChargesOutputs: the engine charges the outputs of operations
// that do not charge themselves, before writing them, and loop output arrays.
func TestDataBudgetChargesOutputs(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	env := op.NewEnvironment(&op.Deps{}, op.Registration{
		Spec: op.Spec{Name: "Big"},
		New: func(json.RawMessage, *op.Deps) (op.Operation, error) {
			return opFunc(func(context.Context, *op.RunContext) (any, error) { return big, nil }), nil
		},
	}, op.LoopOp)
	plan := compile(t, env,
		def("each", "Loop", `{"inputPath":"/input/items","operations":["make"],"outputPath":"/workflow/all"}`),
		def("make", "Big", `{"outputPath":"/workflow/s"}`),
		begin("", "each"))
	r := engine.New(engine.Options{}).Run(context.Background(), plan, engine.RunOptions{Input: sixtyItems(), MaxDataBytes: 10 << 20})
	e := overBudget(t, r)
	if e.OperationID != "make" {
		t.Errorf("over in %q, want make", e.OperationID)
	}
	// The eleventh 1 MiB string is the one that goes over 10 MiB.
	if reached := detailInt(t, e, "reachedBytes"); reached < 10<<20 || reached > 12<<20 {
		t.Errorf("reached %d bytes, want about 11 MiB", reached)
	}
}

type opFunc func(context.Context, *op.RunContext) (any, error)

func (f opFunc) Run(ctx context.Context, rc *op.RunContext) (any, error) { return f(ctx, rc) }
