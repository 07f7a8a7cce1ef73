package a2e_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/a2e"
)

func legacyOp(id, op string) string {
	return `{"id":"` + id + `","operation":` + op + `}`
}

func legacyDoc(root string, ops ...string) string {
	b := `{"beginExecution":{"workflowId":"w"}}`
	if root != "" {
		b = `{"beginExecution":{"workflowId":"w","root":"` + root + `"}}`
	}
	return `{"operationUpdate":{"workflowId":"w","operations":[` + strings.Join(ops, ",") + `]}}` + "\n" + b
}

func TestLegacyOrder(t *testing.T) {
	wait := `{"Wait":{"duration":1}}`
	cases := []struct {
		name  string
		doc   string
		order []string
	}{
		{"definition order", legacyDoc("", legacyOp("a", wait), legacyOp("b", wait), legacyOp("c", wait)), []string{"a", "b", "c"}},
		{"root first", legacyDoc("b", legacyOp("a", wait), legacyOp("b", wait), legacyOp("c", wait)), []string{"b", "a", "c"}},
		{"conditional branches are nested", legacyDoc("a",
			legacyOp("a", wait),
			legacyOp("if", `{"Conditional":{"condition":{"path":"/workflow/x","operator":"exists"},"ifTrue":["t1","t2"],"ifFalse":["f"]}}`),
			legacyOp("t1", wait), legacyOp("t2", wait), legacyOp("f", wait), legacyOp("z", wait)),
			[]string{"a", "if", "z"}},
		{"loop body is nested", legacyDoc("",
			legacyOp("loop", `{"Loop":{"inputPath":"/workflow/x","operations":["body"]}}`), legacyOp("body", wait)),
			[]string{"loop"}},
		{"a nested root is not put first", legacyDoc("body",
			legacyOp("loop", `{"Loop":{"inputPath":"/workflow/x","operations":["body"]}}`), legacyOp("body", wait)),
			[]string{"loop"}},
		{"a malformed loop nests nothing", legacyDoc("",
			legacyOp("loop", `{"Loop":{"inputPath":"/workflow/x","operations":"body"}}`), legacyOp("body", wait)),
			[]string{"loop", "body"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wf, errs := a2e.Parse([]byte(c.doc), a2e.Limits{})
			if len(errs) != 0 {
				t.Fatalf("problems: %v", errs)
			}
			if !wf.Legacy || wf.Begin.ExecutionID != "w" || wf.BeginLine != 2 {
				t.Errorf("legacy %v begin %+v line %d", wf.Legacy, wf.Begin, wf.BeginLine)
			}
			if !slices.Equal(wf.Begin.OperationOrder, c.order) {
				t.Errorf("order = %v, want %v", wf.Begin.OperationOrder, c.order)
			}
		})
	}
}

// A later definition replaces an earlier one, also for what it nests.
func TestLegacyReplacementChangesNesting(t *testing.T) {
	doc := `{"operationUpdate":{"operations":[{"id":"if","operation":{"Conditional":{"condition":{"path":"/workflow/x","operator":"exists"},"ifTrue":["a"]}}},{"id":"a","operation":{"Wait":{"duration":1}}}]}}
{"operationUpdate":{"operations":[{"id":"if","operation":{"Wait":{"duration":2}}}]}}
{"beginExecution":{"workflowId":"w"}}`
	wf, errs := a2e.Parse([]byte(doc), a2e.Limits{})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if !slices.Equal(wf.Begin.OperationOrder, []string{"if", "a"}) {
		t.Errorf("order = %v", wf.Begin.OperationOrder)
	}
	if d := wf.Operations["if"]; d.Line != 2 || d.Operation.Name != "Wait" {
		t.Errorf("if = %+v", d)
	}
}

func TestLegacyProblems(t *testing.T) {
	cases := []struct {
		name string
		doc  string
		want []problem
	}{
		{"no operations at all", `{"beginExecution":{"workflowId":"w"}}`, []problem{{1, "beginExecution", "no top-level operation"}}},
		{"everything nested", legacyDoc("", legacyOp("l", `{"Loop":{"inputPath":"/workflow/x","operations":["l"]}}`)),
			[]problem{{2, "beginExecution", "no top-level operation"}}},
		{"missing workflowId", legacyDoc("", legacyOp("a", `{"Wait":{}}`)) + "x",
			[]problem{{2, "", "invalid JSON"}}},
		{"begin without workflowId", `{"operationUpdate":{"operations":[` + legacyOp("a", `{"Wait":{}}`) + `]}}` + "\n" + `{"beginExecution":{"root":"a"}}`,
			[]problem{{2, "beginExecution.workflowId", `missing required key "workflowId"`}}},
		{"unknown root", legacyDoc("b", legacyOp("a", `{"Wait":{}}`), legacyOp("bb", `{"Wait":{}}`)),
			[]problem{{2, "beginExecution.root", `root "b" is not a defined operation`}}},
		{"begin not an object", `{"beginExecution":"go"}`, []problem{{1, "beginExecution", "must be an object, got string"}}},
		{"update not an object", `{"operationUpdate":[]}` + "\n" + `{"beginExecution":{"workflowId":"w"}}`,
			[]problem{{1, "operationUpdate", "must be an object, got array"}, {2, "beginExecution", "no top-level operation"}}},
		{"operations not an array", `{"operationUpdate":{"operations":{}}}`, []problem{{1, "operationUpdate.operations", "must be an array, got object"}, {1, "", "no beginExecution"}}},
		{"bad workflowId", `{"operationUpdate":{"workflowId":"a b","operations":[]}}`, []problem{{1, "operationUpdate.workflowId", "must match"}, {1, "", "no beginExecution"}}},
		{"config not an object", legacyDoc("", legacyOp("a", `{"Wait":[]}`)),
			[]problem{{1, "operationUpdate.operations[0].operation.Wait", "must be an object, got array"}, {2, "beginExecution", "no top-level operation"}}},
		{"unknown begin key", `{"operationUpdate":{"operations":[` + legacyOp("a", `{"Wait":{}}`) + `]}}` + "\n" + `{"beginExecution":{"workflowId":"w","start":"a"}}`,
			[]problem{{2, "beginExecution.start", `unknown key "start"`}}},
		{"canonical after legacy", legacyDoc("") + "\n" + begin, []problem{{2, "beginExecution", "no top-level operation"}, {3, "", "the document began with the legacy shape at line 1"}}},
		{"legacy after canonical", updA + "\n" + `{"beginExecution":{"workflowId":"w"}}`, []problem{{2, "", "this message has the legacy shape, but the document began with the canonical shape at line 1"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errs := a2e.Parse([]byte(c.doc), a2e.Limits{})
			checkProblems(t, errs, c.want)
		})
	}
}

func TestLegacyCountsEachOperationAsAMessage(t *testing.T) {
	ops := []string{}
	for _, id := range []string{"a", "b", "c", "d"} {
		ops = append(ops, legacyOp(id, `{"Wait":{}}`))
	}
	_, errs := a2e.Parse([]byte(legacyDoc("", ops...)), a2e.Limits{MaxMessages: 3})
	checkProblems(t, errs, []problem{{1, "", "more than 3 messages"}})
}

func TestLegacyDecoderAndArrayForm(t *testing.T) {
	doc := legacyDoc("", legacyOp("a", `{"Wait":{}}`), legacyOp("b", `{"Wait":{}}`))
	d := a2e.NewDecoder(strings.NewReader(doc), a2e.Limits{})
	msgs, errs := decodeAll(t, d)
	if len(errs) != 0 || len(msgs) != 3 || !d.Legacy() || d.Line() != 2 {
		t.Fatalf("msgs %d errs %v legacy %v", len(msgs), errs, d.Legacy())
	}
	if msgs[0].Line != 1 || msgs[1].Line != 1 || msgs[1].OperationUpdate.OperationID != "b" || msgs[2].BeginExecution == nil {
		t.Errorf("messages = %+v", msgs)
	}

	lines := strings.Split(doc, "\n")
	wf, errs2 := a2e.ParseMessages([]json.RawMessage{json.RawMessage(lines[0]), json.RawMessage(lines[1])}, a2e.Limits{})
	if len(errs2) != 0 || !wf.Legacy || !slices.Equal(wf.Begin.OperationOrder, []string{"a", "b"}) {
		t.Errorf("array form: %+v %v", wf, errs2)
	}
}
