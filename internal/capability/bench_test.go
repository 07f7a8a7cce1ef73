package capability_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/cache"
	"github.com/sluicehq/sluice/internal/capability"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/vault"
	"github.com/sluicehq/sluice/internal/workflow"
)

// BenchmarkCapabilityVsWorkflow runs, interleaved in one loop, a capability
// with one GET request task (an OpenAPI path parameter from an input, two
// outputs from the response) and the equivalent A2E workflow (one ApiCall GET
// with the input in its URL), both against the same loopback API with the
// cache off, and reports the overhead ratio capability/workflow. Issue goal:
// <= 1.2. (A2E has no expression over an object to match agent_decision
// logic, so the comparison stops at the request.)
//
//	go test -run '^$' -bench BenchmarkCapabilityVsWorkflow -benchtime 3000x ./internal/capability/
func BenchmarkCapabilityVsWorkflow(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte(`{"temperature":28,"conditions":"Sunny"}`))
	}))
	defer srv.Close()
	clk := clock.Real{}
	deps := op.Deps{
		Client:      egress.NewClient(egress.Policy{AllowPrivate: []string{"127.0.0.1"}}),
		Permissions: policy.Permissions{Operations: []string{"*"}, Hosts: []string{"127.0.0.1"}},
		Vault:       vault.NewMemory(nil),
		Cache:       cache.New(cache.Config{Clock: clk}),
		Clock:       clk,
		Limits:      op.DefaultLimits(),
	}
	eng := engine.New(engine.Options{Cache: deps.Cache})

	doc := parse(b, fmt.Sprintf(`a2s: 1.0.0
id: Hot
version: 1.0.0
type: atomic
description: is it hot?
audit: {status: audited}
permissions: {level: basic}
inputs:
  city: {type: string}
outputs:
  temperature: {type: number, lifecycle: task}
tasks:
  - id: get
    type: request
    inputs:
      city: {mapping: inputs.city}
    outputs:
      temperature: {type: number, lifecycle: task}
      conditions: {type: string, lifecycle: task}
    definition: {request: "#/requests/weather"}
requests:
  weather:
    format: OpenAPI
    specification:
      openapi: 3.0.1
      info: {title: W, version: 1.0.0}
      servers: [{url: "%s"}]
      paths:
        /weather/{city}:
          get:
            parameters: [{name: city, in: path, required: true, schema: {type: string}}]
            responses: {"200": {description: ok}}
`, srv.URL))
	c, err := capability.Compile(doc, capability.Options{Env: op.NewEnvironment(&deps, op.Builtins()...)})
	if err != nil {
		b.Fatal(err)
	}
	runner := workflow.New(workflow.Config{Deps: deps, Engine: eng, PrivateAllowed: egress.Policy{AllowPrivate: []string{"127.0.0.1"}}.Allows})
	acct := workflow.Account{ID: "bench", Permissions: deps.Permissions}
	wf := []byte(fmt.Sprintf(`{"type":"operationUpdate","operationId":"get","operation":{"ApiCall":{"method":"GET","url":"%s/weather/{/input/city}","cache":false,"outputPath":"/workflow/weather"}}}
{"type":"beginExecution","executionId":"bench","operationOrder":["get"]}`, srv.URL))
	in := map[string]any{"city": "Oslo"}
	ctx := context.Background()
	var capT, wfT time.Duration
	for b.Loop() {
		t0 := time.Now()
		r := capability.Run(ctx, eng, c, capability.RunOptions{Inputs: in})
		if r.Status != engine.StatusSuccess || r.Outputs["temperature"] != 28.0 {
			b.Fatalf("capability: %s %v %v", r.Status, r.Outputs, r.Errors)
		}
		t1 := time.Now()
		res, report := runner.Execute(ctx, wf, acct, workflow.Options{Input: in})
		if report != nil || res.Status != engine.StatusSuccess {
			b.Fatalf("workflow: %v %v", report, res)
		}
		t2 := time.Now()
		capT += t1.Sub(t0)
		wfT += t2.Sub(t1)
	}
	n := float64(b.N)
	b.ReportMetric(float64(capT.Nanoseconds())/n, "capability-ns/run")
	b.ReportMetric(float64(wfT.Nanoseconds())/n, "workflow-ns/run")
	b.ReportMetric(float64(capT)/float64(wfT), "ratio")
}
