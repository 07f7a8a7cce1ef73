package runs

import (
	"encoding/json"
	"strings"
	"testing"
)

// branchyDoc has a Conditional whose branches hold a Loop and a Wait, and a
// secret-looking URL and value that no plan may carry.
const branchyDoc = `{"type":"operationUpdate","operationId":"fetch","operation":{"ApiCall":{"method":"GET","url":"https://api.example.com/users?token=hush-url","outputPath":"/workflow/users"}}}
{"type":"operationUpdate","operationId":"check","operation":{"Conditional":{"condition":{"path":"/workflow/users","operator":"exists"},"ifTrue":["each"],"ifFalse":["pause"]}}}
{"type":"operationUpdate","operationId":"each","operation":{"Loop":{"inputPath":"/workflow/users","operations":["pick"]}}}
{"type":"operationUpdate","operationId":"pick","operation":{"FilterData":{"inputPath":"/workflow/item","conditions":[{"field":"name","operator":"==","value":"hush-value"}],"outputPath":"/workflow/x"}}}
{"type":"operationUpdate","operationId":"pause","operation":{"Wait":{"duration":10}}}
{"type":"beginExecution","executionId":"p-1","operationOrder":["fetch","check"]}
`

// The plan is the document's shape: top-level steps in order, a
// Conditional's two arms, a Loop's body, ids and operation names only.
func TestPlanOfShape(t *testing.T) {
	plan := planOf([]byte(branchyDoc))
	want := []Step{
		{ID: "fetch", Type: "ApiCall"},
		{ID: "check", Type: "Conditional",
			IfTrue:  []Step{{ID: "each", Type: "Loop", Body: []Step{{ID: "pick", Type: "FilterData"}}}},
			IfFalse: []Step{{ID: "pause", Type: "Wait"}}},
	}
	got, _ := json.Marshal(plan)
	exp, _ := json.Marshal(want)
	if string(got) != string(exp) {
		t.Fatalf("plan:\n got %s\nwant %s", got, exp)
	}
	for _, secret := range []string{"hush-url", "hush-value", "api.example.com"} {
		if strings.Contains(string(got), secret) {
			t.Errorf("the plan carries %q: %s", secret, got)
		}
	}
}

// A document that does not read is no plan; a step under itself is not
// followed for ever.
func TestPlanOfBadAndCyclic(t *testing.T) {
	for _, doc := range []string{"", "not json", `{"type":"beginExecution"`} {
		if p := planOf([]byte(doc)); p != nil {
			t.Errorf("planOf(%q) = %v, want none", doc, p)
		}
	}
	cyclic := `{"type":"operationUpdate","operationId":"a","operation":{"Loop":{"inputPath":"/workflow/x","operations":["a","gone"]}}}
{"type":"beginExecution","executionId":"c-1","operationOrder":["a"]}
`
	plan := planOf([]byte(cyclic))
	if len(plan) != 1 || len(plan[0].Body) != 2 || plan[0].Body[0].ID != "a" || plan[0].Body[0].Body != nil ||
		!plan[0].Body[1].Missing {
		t.Fatalf("cyclic plan: %+v", plan)
	}
}

// Any stored document makes a plan or none, within the bounds, and never
// panics.
func FuzzPlanOf(f *testing.F) {
	f.Add([]byte(branchyDoc))
	f.Add([]byte(`{"type":"beginExecution","executionId":"x","operationOrder":["a","a"]}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		var count func([]Step, int) int
		count = func(s []Step, depth int) int {
			if depth > maxPlanDepth+1 {
				t.Fatalf("a plan deeper than %d", maxPlanDepth)
			}
			n := len(s)
			for _, x := range s {
				n += count(x.IfTrue, depth+1) + count(x.IfFalse, depth+1) + count(x.Body, depth+1)
			}
			return n
		}
		if n := count(planOf(doc), 0); n > maxPlanSteps {
			t.Fatalf("%d steps, over %d", n, maxPlanSteps)
		}
	})
}
