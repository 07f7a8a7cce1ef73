package workflow_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/validate"
)

// BenchmarkValidateCompile is the fixed cost per workflow before anything runs:
// validation alone, and validation plus compilation, of a one-ApiCall document.
func BenchmarkValidateCompile(b *testing.B) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	doc := []byte(`{"type":"operationUpdate","operationId":"get","operation":{"ApiCall":{"method":"GET","url":"http://203.0.113.9/user","cache":false,"outputPath":"/workflow/user"}}}
{"type":"beginExecution","executionId":"b","operationOrder":["get"]}`)
	h := newHarnessAt(b, srv, nil, slog.LevelError)
	acct := account()
	b.Run("validate", func(b *testing.B) {
		for b.Loop() {
			r := h.runner.Validate(doc, acct)
			if !r.Valid {
				b.Fatal(r)
			}
		}
	})
	b.Run("validate+compile", func(b *testing.B) {
		for b.Loop() {
			env := h.runner.Environment(acct)
			r := validate.Document(doc, validate.Options{Env: env, Permissions: &acct.Permissions})
			if _, err := engine.CompileBuilt(r.Workflow, env, r.Built); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkApiCallPlan runs an already compiled one-ApiCall plan (no validation
// or compilation) against a loopback server: the engine's share of the
// end-to-end ApiCall workflow figure.
func BenchmarkApiCallPlan(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":1,"name":"ann","status":"active"}`))
	}))
	defer srv.Close()
	doc := []byte(`{"type":"operationUpdate","operationId":"get","operation":{"ApiCall":{"method":"GET","url":"` + srv.URL + `/user","cache":false,"outputPath":"/workflow/user"}}}
{"type":"beginExecution","executionId":"b","operationOrder":["get"]}`)
	h := newHarnessAt(b, srv, nil, slog.LevelError)
	acct := account()
	env := h.runner.Environment(acct)
	r := validate.Document(doc, validate.Options{Env: env, Permissions: &acct.Permissions})
	plan, err := engine.CompileBuilt(r.Workflow, env, r.Built)
	if err != nil {
		b.Fatal(err)
	}
	eng := engine.New(engine.Options{})
	for b.Loop() {
		res := eng.Run(b.Context(), plan, engine.RunOptions{ExecutionID: "x", Account: "a"})
		if res.Status != engine.StatusSuccess {
			b.Fatal(res)
		}
	}
}
