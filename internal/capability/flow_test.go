package capability_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/capability"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/protocol/a2s"
)

func parse(t testing.TB, src string) *a2s.Document {
	t.Helper()
	doc, ds := a2s.LintBytes([]byte(src), a2s.Options{File: "test.yaml"})
	if a2s.HasErrors(ds) {
		t.Fatalf("lint: %v", ds)
	}
	return doc
}

func TestWeatherExamplesPass(t *testing.T) {
	doc := weatherDoc(t, nil)
	res := capability.RunExamples(context.Background(), engine.New(engine.Options{}), doc, capability.Options{Env: environment(), NoNetwork: true})
	if len(res) != 2 {
		t.Fatalf("%d examples", len(res))
	}
	for _, r := range res {
		if !r.Pass {
			t.Errorf("example %d (%s): %v", r.Index, r.Description, r.Problems)
		}
	}
	// A wrong expectation fails and says what differs; a missing stub for a
	// request is a problem, not a network call.
	src, _ := readFixture()
	bad := strings.Replace(src, `      post_id: "123456789"
      weather:
        temperature: 28`, `      post_id: "123456789"
      weather:
        temperature: 29`, 1)
	bad = strings.Replace(bad, "      getWeather:\n        outputs:\n          temperature: 18\n          conditions: \"Cloudy\"\n", "", 1)
	doc = parse(t, stripChecksum(bad))
	res = capability.RunExamples(context.Background(), engine.New(engine.Options{}), doc, capability.Options{Env: environment(), NoNetwork: true})
	if res[0].Pass || !strings.Contains(strings.Join(res[0].Problems, " "), `output weather: got {"conditions":"Sunny","temperature":28}, want {"conditions":"Sunny","temperature":29}`) {
		t.Fatalf("example 1: %+v", res[0])
	}
	if res[1].Pass || !strings.Contains(strings.Join(res[1].Problems, " "), "getWeather") {
		t.Fatalf("example 2: %+v", res[1])
	}
}

// Two requests of a parallel flow are in flight at the same time: the API
// answers each only once both have arrived (a sequential run would wait
// for ever, and fail at the API's own limit).
func TestParallelFlowOverlaps(t *testing.T) {
	var mu sync.Mutex
	arrived := 0
	both := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrived++
		if arrived == 2 {
			close(both)
		}
		mu.Unlock()
		select {
		case <-both:
		case <-time.After(10 * time.Second):
			http.Error(w, "alone", http.StatusConflict)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"value": r.URL.Path})
	}))
	defer srv.Close()
	doc := parse(t, `a2s: 1.0.0
id: Both
version: 1.0.0
type: atomic
description: two reads at once
outputs:
  summary:
    type: string
    mapping: "{a.outputs.value} and {b.outputs.value}"
tasks:
  - id: a
    type: request
    outputs:
      value: {type: string}
    definition: {request: "#/requests/getA"}
  - id: b
    type: request
    outputs:
      value: {type: string}
    definition: {request: "#/requests/getB"}
flow:
  type: parallel
  steps:
    - task: a
    - task: b
requests:
  getA:
    format: OpenAPI
    specification:
      openapi: 3.0.1
      info: {title: A, version: 1.0.0}
      servers: [{url: "`+srv.URL+`"}]
      paths:
        /a:
          get:
            responses: {"200": {description: ok}}
  getB:
    format: OpenAPI
    specification:
      openapi: 3.0.1
      info: {title: B, version: 1.0.0}
      servers: [{url: "`+srv.URL+`"}]
      paths:
        /b:
          get:
            responses: {"200": {description: ok}}
`)
	c, err := capability.Compile(doc, capability.Options{Env: environment()})
	if err != nil {
		t.Fatal(err)
	}
	r := capability.Run(context.Background(), engine.New(engine.Options{}), c, capability.RunOptions{})
	if r.Status != engine.StatusSuccess || r.Outputs["summary"] != "/a and /b" {
		t.Fatalf("status %s outputs %v errors %v", r.Status, r.Outputs, r.Errors)
	}
}

const decisionDoc = `a2s: 1.0.0
id: Approve
version: 1.0.0
type: atomic
description: asks the agent
inputs:
  amount: {type: number}
outputs:
  verdict: {type: string}
tasks:
  - id: judge
    type: prompt
    inputs:
      amount: {mapping: inputs.amount}
    outputs:
      verdict: {type: string, lifecycle: task}
      reason: {type: string, lifecycle: task}
    prompt:
      template: "Approve a refund of {amount} EUR?"
      format:
        verdict:
          type: string
          enum: [yes, no]
        reason: string
  - id: record
    type: agent_decision
    inputs:
      verdict: {mapping: judge.outputs.verdict}
    outputs:
      verdict: {type: string}
    definition:
      logic: |
        verdict = verdict == "yes" ? "approved" : "refused"
`

// A prompt hands the run back to the agent; the answer is checked against
// the format; the run resumes from its checkpoint in a new engine (a
// restarted server) and finishes.
func TestPendingDecisionSurvivesRestart(t *testing.T) {
	doc := parse(t, decisionDoc)
	c, err := capability.Compile(doc, capability.Options{Env: environment()})
	if err != nil {
		t.Fatal(err)
	}
	cps := engine.NewMemoryCheckpointer()
	r := capability.Run(context.Background(), engine.New(engine.Options{Checkpointer: cps}), c,
		capability.RunOptions{RunID: "run-1", Inputs: map[string]any{"amount": 40.0}})
	if r.Status != engine.StatusWaiting || r.Pending == nil || r.Pending.Prompt != "Approve a refund of 40 EUR?" ||
		r.Pending.Task != "judge" || r.Pending.Expected["required"] == nil {
		t.Fatalf("status %s pending %+v", r.Status, r.Pending)
	}
	for _, bad := range []string{`{"verdict":"maybe","reason":"x"}`, `{"verdict":"yes"}`, `not json`} {
		if err := capability.CheckAnswer(r.Pending, json.RawMessage(bad)); err == nil {
			t.Fatalf("answer %s accepted", bad)
		}
	}
	answer := json.RawMessage(`{"verdict":"yes","reason":"small amount"}`)
	if err := capability.CheckAnswer(r.Pending, answer); err != nil {
		t.Fatal(err)
	}
	cp, err := cps.Load(context.Background(), "run-1")
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := capability.Compile(parse(t, decisionDoc), capability.Options{Env: environment()})
	r = capability.Resume(context.Background(), engine.New(engine.Options{Checkpointer: cps}), c2, cp, answer, capability.RunOptions{})
	if r.Status != engine.StatusSuccess || r.Outputs["verdict"] != "approved" {
		t.Fatalf("after the answer: status %s outputs %v errors %v", r.Status, r.Outputs, r.Errors)
	}
}

const atomicDoc = `a2s: 1.0.0
id: Double
version: 1.2.0
type: atomic
description: doubles
inputs:
  n: {type: number}
outputs:
  twice: {type: number}
tasks:
  - id: calc
    type: agent_decision
    inputs:
      n: {mapping: inputs.n}
    outputs:
      twice: {type: number}
    definition:
      logic: |
        twice = n * 2
`

type importer map[string]string

func (im importer) Import(_ context.Context, dep *a2s.Dependency) (*a2s.Document, error) {
	doc, _ := a2s.LintBytes([]byte(im[dep.ID.Value]), a2s.Options{})
	return doc, nil
}

func aggregate(importType string) string {
	return `a2s: 1.0.0
id: Quad
version: 1.0.0
type: ` + importType + `
description: quadruples
dependencies:
  dbl:
    namespace: math
    id: Double
    version: "^1.0.0"
inputs:
  n: {type: number}
outputs:
  result:
    type: number
    mapping: second.outputs.twice
tasks:
  - id: first
    type: capability
    inputs:
      n: {mapping: inputs.n}
    outputs:
      twice: {type: number}
    definition: {capability: dbl}
  - id: second
    type: capability
    inputs:
      n: {mapping: first.outputs.twice}
    outputs:
      twice: {type: number}
    definition: {capability: dbl}
`
}

func TestImports(t *testing.T) {
	eng := engine.New(engine.Options{})
	opts := capability.Options{Env: environment(), Imports: importer{"Double": atomicDoc, "Quad": aggregate("aggregate")}, Nested: eng}
	c, err := capability.Compile(parse(t, aggregate("aggregate")), opts)
	if err != nil {
		t.Fatal(err)
	}
	r := capability.Run(context.Background(), eng, c, capability.RunOptions{Inputs: map[string]any{"n": 3.0}})
	if r.Status != engine.StatusSuccess || r.Outputs["result"] != 12.0 {
		t.Fatalf("status %s outputs %v errors %v", r.Status, r.Outputs, r.Errors)
	}
	// An aggregate may import only atomic capabilities.
	opts.Imports = importer{"Double": aggregate("aggregate")}
	c, _ = capability.Compile(parse(t, aggregate("aggregate")), opts)
	r = capability.Run(context.Background(), eng, c, capability.RunOptions{Inputs: map[string]any{"n": 3.0}})
	if r.Status != engine.StatusFailed || !strings.Contains(r.Errors[0].Message, "only atomic") {
		t.Fatalf("importing an aggregate: %s %v", r.Status, r.Errors)
	}
}
