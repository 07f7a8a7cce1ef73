package workflow_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/workflow"
)

const cachedDoc = `{"type":"operationUpdate","operationId":"pick","operation":{"FilterData":{"inputPath":"/input/items","conditions":[{"field":"v","operator":">","value":1}],"outputPath":"/workflow/big"}}}
{"type":"beginExecution","executionId":"c1","operationOrder":["pick"]}`

func items(vs ...float64) map[string]any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = map[string]any{"v": v}
	}
	return map[string]any{"items": out}
}

func TestPlanCacheReusesAValidDocument(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	h := newHarness(t, srv, nil)
	a := account()

	first, report := h.runner.Compile([]byte(cachedDoc), a)
	if report != nil {
		t.Fatal(toJSON(t, report))
	}
	second, _ := h.runner.Compile([]byte(cachedDoc), a)
	if first != second {
		t.Fatal("the same document for the same account and grants was compiled twice")
	}
	if first.Workflow().Begin.ExecutionID != "c1" {
		t.Fatalf("cached workflow lost its beginExecution: %+v", first.Workflow().Begin)
	}

	// The cached plan runs with each execution's own input.
	for _, tc := range []struct {
		in   map[string]any
		want int
	}{{items(1, 2, 3), 2}, {items(5), 1}, {items(0), 0}} {
		res, rep := h.runner.Execute(context.Background(), []byte(cachedDoc), a, optionsIn(tc.in))
		if rep != nil || res.Status != engine.StatusSuccess {
			t.Fatalf("%v %v", rep, res)
		}
		if got := len(res.Results["pick"].([]any)); got != tc.want {
			t.Fatalf("input %v: %d items kept, want %d", tc.in, got, tc.want)
		}
	}
}

func TestPlanCacheKeyCoversAccountAndGrants(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	h := newHarness(t, srv, nil)
	a := account()
	base, _ := h.runner.Compile([]byte(cachedDoc), a)

	other := a
	other.ID = "acct-2"
	if c, _ := h.runner.Compile([]byte(cachedDoc), other); c == base {
		t.Fatal("another account got this account's cached plan")
	}
	more := a
	more.Permissions.Hosts = append([]string{"api.example.com"}, a.Permissions.Hosts...)
	if c, _ := h.runner.Compile([]byte(cachedDoc), more); c == base {
		t.Fatal("a change of grants reused the plan compiled for the old grants")
	}
	// Grants that look alike when joined must not share a key.
	x, y := a, a
	x.Permissions.Credentials = []string{"ab", "c"}
	y.Permissions.Credentials = []string{"a", "bc"}
	cx, _ := h.runner.Compile([]byte(cachedDoc), x)
	cy, _ := h.runner.Compile([]byte(cachedDoc), y)
	if cx == cy {
		t.Fatal("different credential grants shared a cache key")
	}
}

// A revoked operation is refused even though the document was cached while
// it was granted.
func TestPlanCacheHonoursRevokedOperation(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	h := newHarness(t, srv, nil)
	a := account()
	if res, rep := h.runner.Execute(context.Background(), []byte(cachedDoc), a, optionsIn(items(2))); rep != nil || res.Status != engine.StatusSuccess {
		t.Fatalf("%v %v", rep, res)
	}
	revoked := a
	revoked.Permissions = policy.Permissions{Operations: []string{"TransformData"}, Hosts: []string{"*"}}
	res, rep := h.runner.Execute(context.Background(), []byte(cachedDoc), revoked, optionsIn(items(2)))
	if res != nil || rep == nil || !rep.Forbidden() {
		t.Fatalf("revoked FilterData still ran: result %v report %v", res, rep)
	}
}

func TestPlanCacheSkipsInvalidLargeAndDisabled(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	h := newHarness(t, srv, nil)
	a := account()

	bad := strings.Replace(cachedDoc, `"operator":">"`, `"operator":"~"`, 1)
	for range 2 {
		c, rep := h.runner.Compile([]byte(bad), a)
		if c != nil || rep == nil || rep.Valid {
			t.Fatalf("invalid document: compiled %v report %v", c, rep)
		}
	}

	// Over the size bound: compiled afresh each time.
	pad := `{"type":"operationUpdate","operationId":"pad","operation":{"Wait":{"duration":0}}}` + "\n"
	big := strings.Repeat("\n", 70<<10) + pad + cachedDoc
	c1, rep := h.runner.Compile([]byte(big), a)
	if rep != nil {
		t.Fatal(toJSON(t, rep))
	}
	c2, _ := h.runner.Compile([]byte(big), a)
	if c1 == c2 {
		t.Fatal("a document over the plan cache's size bound was cached")
	}

	off := newHarnessAt(t, srv, nil, slog.LevelDebug, func(c *workflow.Config) { c.NoPlanCache = true })
	d1, _ := off.runner.Compile([]byte(cachedDoc), a)
	d2, _ := off.runner.Compile([]byte(cachedDoc), a)
	if d1 == nil || d1 == d2 {
		t.Fatal("NoPlanCache still reused a compiled plan")
	}
}

// A document reused with a new executionId (as clients must, to start a new
// execution) runs from the cached plan, and carries its own id.
func TestPlanCacheIgnoresTheExecutionID(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	h := newHarness(t, srv, nil)
	a := account()
	first, _ := h.runner.Compile([]byte(cachedDoc), a)
	other := strings.Replace(cachedDoc, `"executionId":"c1"`, `"executionId":"c2-new_run"`, 1)
	second, rep := h.runner.Compile([]byte(other), a)
	if rep != nil {
		t.Fatal(toJSON(t, rep))
	}
	if second.Plan() != first.Plan() {
		t.Fatal("a new executionId compiled the document again")
	}
	if second.Workflow().Begin.ExecutionID != "c2-new_run" || first.Workflow().Begin.ExecutionID != "c1" {
		t.Fatalf("ids: %q and %q", first.Workflow().Begin.ExecutionID, second.Workflow().Begin.ExecutionID)
	}
	// Anything else that differs is another document.
	spaced := strings.Replace(cachedDoc, `"executionId":"c1"`, `"executionId": "c1"`, 1)
	if third, _ := h.runner.Compile([]byte(spaced), a); third.Plan() == first.Plan() {
		t.Fatal("different bytes around the id shared a plan")
	}
	// An invalid id is never cut out: it must meet validation.
	for _, bad := range []string{`"executionId":""`, `"executionId":"a b"`, `"executionId":"` + strings.Repeat("x", 129) + `"`} {
		doc := strings.Replace(cachedDoc, `"executionId":"c1"`, bad, 1)
		if c, rep := h.runner.Compile([]byte(doc), a); c != nil || rep == nil {
			t.Errorf("%s: compiled from the cache instead of failing validation", bad)
		}
	}
	// Two executionId keys in the line: no cut.
	dup := strings.Replace(cachedDoc, `"executionId":"c1"`, `"executionId":"c1","executionId":"c9"`, 1)
	if c, rep := h.runner.Compile([]byte(dup), a); c != nil && c.Plan() == first.Plan() {
		t.Errorf("a line with two executionId keys hit the cache (report %v)", rep)
	}
}

// Validating a valid document fills the plan cache, and validating it again
// answers the same report from it; an invalid one is reported every time.
func TestValidateUsesThePlanCache(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	h := newHarness(t, srv, nil)
	a := account()
	first := h.runner.Validate([]byte(cachedDoc), a)
	second := h.runner.Validate([]byte(cachedDoc), a)
	if !first.Valid || !second.Valid || toJSON(t, first) != toJSON(t, second) || second.Workflow == nil ||
		second.Errors == nil || second.Warnings == nil {
		t.Fatalf("reports differ: %s vs %s", toJSON(t, first), toJSON(t, second))
	}
	c1, _ := h.runner.Compile([]byte(cachedDoc), a)
	c2, _ := h.runner.Compile([]byte(cachedDoc), a)
	if c1 != c2 {
		t.Fatal("validate did not leave the plan in the cache")
	}
	bad := strings.Replace(cachedDoc, `"FilterData"`, `"NoSuchOp"`, 1)
	for range 2 {
		if r := h.runner.Validate([]byte(bad), a); r.Valid || len(r.Errors) == 0 {
			t.Fatalf("invalid document: %s", toJSON(t, r))
		}
	}
}
