package workflow_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
)

func mustTime() time.Time { return time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC) }

const users = `[{"id":1,"name":"ann","status":"active","points":150},{"id":2,"name":"bob","status":"idle","points":300},{"id":3,"name":"cy","status":"active","points":80}]`

// The spec's complete example, verbatim but for the host.
const completeExample = `{"type":"operationUpdate","operationId":"fetch-users","operation":{"ApiCall":{"method":"GET","url":"https://api.example.com/users","outputPath":"/workflow/users"}}}
{"type":"operationUpdate","operationId":"filter-active","operation":{"FilterData":{"inputPath":"/workflow/users","conditions":[{"field":"status","operator":"==","value":"active"}],"outputPath":"/workflow/active-users"}}}
{"type":"beginExecution","executionId":"exec-123","operationOrder":["fetch-users","filter-active"]}
`

const example1 = `{"type":"operationUpdate","operationId":"fetch-data","operation":{"ApiCall":{"method":"GET","url":"https://api.example.com/data","outputPath":"/workflow/data"}}}
{"type":"beginExecution","executionId":"exec-1","operationOrder":["fetch-data"]}
`

const example2 = `{"type":"operationUpdate","operationId":"fetch-users","operation":{"ApiCall":{"method":"GET","url":"https://api.example.com/users","outputPath":"/workflow/users"}}}
{"type":"operationUpdate","operationId":"filter-active","operation":{"FilterData":{"inputPath":"/workflow/users","conditions":[{"field":"status","operator":"==","value":"active"}],"outputPath":"/workflow/active-users"}}}
{"type":"beginExecution","executionId":"exec-2","operationOrder":["fetch-users","filter-active"]}
`

// Example 3 as the spec prints it: process-data and skip are never defined.
const example3 = `{"type":"operationUpdate","operationId":"check-count","operation":{"ApiCall":{"method":"GET","url":"https://api.example.com/count","outputPath":"/workflow/count"}}}
{"type":"operationUpdate","operationId":"process-if-needed","operation":{"Conditional":{"condition":{"path":"/workflow/count","operator":">","value":0},"ifTrue":["process-data"],"ifFalse":["skip"]}}}
{"type":"beginExecution","executionId":"exec-3","operationOrder":["check-count","process-if-needed"]}
`

// example3Fixed defines the two missing operations before beginExecution.
const example3Fixed = `{"type":"operationUpdate","operationId":"check-count","operation":{"ApiCall":{"method":"GET","url":"https://api.example.com/count","outputPath":"/workflow/count"}}}
{"type":"operationUpdate","operationId":"process-data","operation":{"ApiCall":{"method":"POST","url":"https://api.example.com/process","body":{"count":"{/workflow/count}"},"outputPath":"/workflow/processed"}}}
{"type":"operationUpdate","operationId":"skip","operation":{"Wait":{"duration":10}}}
{"type":"operationUpdate","operationId":"process-if-needed","operation":{"Conditional":{"condition":{"path":"/workflow/count","operator":">","value":0},"ifTrue":["process-data"],"ifFalse":["skip"],"outputPath":"/workflow/decision"}}}
{"type":"beginExecution","executionId":"exec-3","operationOrder":["check-count","process-if-needed"]}
`

func execute(t *testing.T, h *harness, doc []byte, creds ...string) *engine.Result {
	t.Helper()
	res, report := h.runner.Execute(context.Background(), doc, account(creds...), optionsNone())
	if report != nil {
		t.Fatalf("document refused: %s", toJSON(t, report))
	}
	return res
}

func TestSpecCompleteExampleAndExample2(t *testing.T) {
	srv := httptest.NewServer(jsonHandler(map[string]string{"/users": users}))
	defer srv.Close()
	for name, doc := range map[string]string{"complete": completeExample, "example2": example2} {
		h := newHarness(t, srv, nil)
		res := execute(t, h, spec(doc, srv))
		if res.Status != engine.StatusSuccess {
			t.Fatalf("%s: status %s: %s", name, res.Status, toJSON(t, res.Errors))
		}
		var wantActive any
		_ = json.Unmarshal([]byte(`[{"id":1,"name":"ann","status":"active","points":150},{"id":3,"name":"cy","status":"active","points":80}]`), &wantActive)
		if !reflect.DeepEqual(res.Results["filter-active"], wantActive) {
			t.Fatalf("%s: filter-active = %s", name, toJSON(t, res.Results["filter-active"]))
		}
		var all any
		_ = json.Unmarshal([]byte(users), &all)
		if !reflect.DeepEqual(res.Results["fetch-users"], all) {
			t.Fatalf("%s: fetch-users = %s", name, toJSON(t, res.Results["fetch-users"]))
		}
		body := toJSON(t, res)
		for _, key := range []string{`"execution_id":"exec-`, `"status":"success"`, `"errors":[]`, `"duration_ms":`} {
			if !strings.Contains(body, key) {
				t.Errorf("%s: execute response lacks %s: %s", name, key, body)
			}
		}
	}
}

func TestExample1(t *testing.T) {
	srv := httptest.NewServer(jsonHandler(map[string]string{"/data": `{"value":42}`}))
	defer srv.Close()
	res := execute(t, newHarness(t, srv, nil), spec(example1, srv))
	if res.Status != engine.StatusSuccess || toJSON(t, res.Results["fetch-data"]) != `{"value":42}` {
		t.Fatalf("got %s", toJSON(t, res))
	}
}

func TestExample3SaysWhatIsUndefinedAndTheFixRuns(t *testing.T) {
	var posted atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/count":
			_, _ = w.Write([]byte(`3`))
		case "/process":
			var body map[string]any
			_ = json.NewDecoder(r.Body).Decode(&body)
			posted.Store(body)
			_, _ = w.Write([]byte(`{"processed":true}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	h := newHarness(t, srv, nil)

	res, report := h.runner.Execute(context.Background(), spec(example3, srv), account(), optionsNone())
	if res != nil || report == nil || report.Valid {
		t.Fatalf("Example 3 must be refused before anything runs")
	}
	want := map[string]string{
		"operation.Conditional.ifTrue[0]":  "process-data",
		"operation.Conditional.ifFalse[0]": "skip",
	}
	if len(report.Errors) != len(want) {
		t.Fatalf("want exactly %d errors, got %s", len(want), toJSON(t, report.Errors))
	}
	for _, e := range report.Errors {
		id, ok := want[e.Path]
		if !ok || e.Line != 2 || e.OperationID != "process-if-needed" || e.Type != fault.ValidationError ||
			!strings.Contains(e.Message, "operation "+id+",") || !strings.Contains(e.Message, "not defined") {
			t.Errorf("unexpected error %s", toJSON(t, e))
		}
	}

	res = execute(t, h, spec(example3Fixed, srv))
	if res.Status != engine.StatusSuccess {
		t.Fatalf("corrected Example 3: %s", toJSON(t, res))
	}
	if got := toJSON(t, res.Results["process-if-needed"]); got != `{"branch":"ifTrue"}` {
		t.Errorf("branch result %s", got)
	}
	if got := toJSON(t, res.Results["process-data"]); got != `{"processed":true}` {
		t.Errorf("process-data result %s", got)
	}
	if _, ran := res.Results["skip"]; ran {
		t.Errorf("the ifFalse branch must not run: %s", toJSON(t, res.Results))
	}
	if body, _ := posted.Load().(map[string]any); body["count"] != 3.0 {
		t.Errorf("a whole-string reference in the body must pass the raw number, got %v", body)
	}
}
