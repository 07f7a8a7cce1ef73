package console_test

import (
	"html"
	"net/http"
	"strings"
	"testing"
)

// A run's page carries the whole plan before the run reaches it (ids and
// operation names, a Conditional's arms, a Loop's body; no config) and the
// input the run was started with.
func TestRunPageShowsThePlanAndTheInput(t *testing.T) {
	s := newSite(t)
	_, key := s.account()
	doc := branchyDoc(600000)
	id := s.executeWithInput(key, doc, map[string]any{"users": []any{map[string]any{"name": "input-ann"}}})
	b := s.browser()
	b.signIn(key)
	p := b.get("/console/runs/"+id).want(t, http.StatusOK)

	attr := between(p.body, `data-plan="`, `"`)
	plan := html.UnescapeString(attr)
	want := `[{"id":"pause","type":"Wait"},{"id":"check","type":"Conditional","if_true":[{"id":"each","type":"Loop","body":[{"id":"pick","type":"FilterData"}]}],"if_false":[{"id":"idle","type":"Wait"}]}]`
	if plan != want {
		t.Fatalf("data-plan:\n got %s\nwant %s", plan, want)
	}
	if strings.Contains(p.body, "plan-hush") {
		t.Error("a config value reached the run page")
	}
	list := between(p.body, `id="plan-list"`, `</details>`)
	for _, s := range []string{"<code>pick</code> FilterData", "if true:", "if false:", "each item:"} {
		if !strings.Contains(list, s) {
			t.Errorf("the plan's list lacks %q: %s", s, list)
		}
	}
	input := between(p.body, `id="run-input"`, `id="view-h"`)
	if !strings.Contains(input, "input-ann") {
		t.Errorf("the input is not shown: %s", input)
	}

	// A run without an input says so; a run's plan is only its owner's.
	done := s.execute(key, false, waitOp("w", 0), begin("w"))
	if p := b.get("/console/runs/"+done).want(t, http.StatusOK); !strings.Contains(p.body, "started without an input") {
		t.Errorf("no-input run page: %s", between(p.body, `id="input-h"`, `id="view-h"`))
	}
	_, other := s.account()
	ob := s.browser()
	ob.signIn(other)
	if p := ob.get("/console/runs/"+id).want(t, http.StatusNotFound); strings.Contains(p.body, "FilterData") {
		t.Error("another account's page shows the plan")
	}
}

// branchyDoc is a workflow with a Wait of ms, then a Conditional on the
// input's users: a Loop over them (its body a FilterData) if there are,
// else another Wait. The filter's value must never reach a page.
func branchyDoc(ms int) string {
	return strings.Join([]string{
		waitOp("pause", ms),
		`{"type":"operationUpdate","operationId":"check","operation":{"Conditional":{"condition":{"path":"/input/users","operator":"exists"},"ifTrue":["each"],"ifFalse":["idle"]}}}`,
		`{"type":"operationUpdate","operationId":"each","operation":{"Loop":{"inputPath":"/input/users","operations":["pick"]}}}`,
		`{"type":"operationUpdate","operationId":"pick","operation":{"FilterData":{"inputPath":"/input/users","conditions":[{"field":"name","operator":"==","value":"plan-hush"}],"outputPath":"/workflow/x"}}}`,
		waitOp("idle", 1),
		begin("pause", "check"),
	}, "\n") + "\n"
}

// executeWithInput starts a workflow document with an input, in the
// background.
func (s *site) executeWithInput(key, doc string, input map[string]any) string {
	s.t.Helper()
	r := s.api("POST", "/api/v1/workflows/execute?async=true", key, map[string]any{"workflow": doc, "input": input}, http.StatusAccepted)
	return r["execution_id"].(string)
}
