package workflow_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sluicehq/sluice/internal/workflow"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// BenchmarkOperationCallCompile is the part of a session op.X call that
// issue 19 changed, both ways in one run: "text" is the code before it (the
// arguments formatted into a JSONL document with json.Marshal and
// fmt.Sprintf, then parsed, validated and compiled), "typed" the code after
// it (the config encoded once, the workflow built as values and validated as
// such, its document encoded once for the record). "cached" sends the same
// config every time, "new" a new one each time (no plan cache hit).
//
//	go test -run '^$' -bench BenchmarkOperationCallCompile ./internal/workflow/
func BenchmarkOperationCallCompile(b *testing.B) {
	args := func(i int) map[string]any {
		return map[string]any{"inputPath": "/input/xs", "outputPath": "/workflow/result",
			"conditions": []any{map[string]any{"field": "v", "operator": "<", "value": float64(i)}}}
	}
	text := func(r *workflow.Runner, cfg map[string]any, id string) []byte {
		bs, _ := json.Marshal(map[string]any{"FilterData": cfg})
		doc := fmt.Sprintf(`{"type":"operationUpdate","operationId":"call","operation":%s}`+"\n"+
			`{"type":"beginExecution","executionId":"%s","operationOrder":["call"]}`, bs, id)
		if _, report := r.Compile([]byte(doc), filterAccount); report != nil {
			b.Fatal(report.Errors)
		}
		return []byte(doc)
	}
	typed := func(r *workflow.Runner, cfg map[string]any, id string) []byte {
		bs, _ := json.Marshal(cfg)
		wf := a2e.OneOperation("call", id, a2e.Operation{Name: "FilterData", Config: bs})
		_, doc, report := r.CompileSource(workflow.Source{Workflow: wf}, filterAccount)
		if report != nil {
			b.Fatal(report.Errors)
		}
		return doc
	}
	for _, cache := range []string{"cached", "new"} {
		for _, way := range []string{"text", "typed"} {
			b.Run(cache+"/"+way, func(b *testing.B) {
				r := sourceRunner(workflow.Config{})
				call := map[string]func(*workflow.Runner, map[string]any, string) []byte{"text": text, "typed": typed}[way]
				b.ReportAllocs()
				for i := range b.N {
					n := 1
					if cache == "new" {
						n = i
					}
					call(r, args(n), fmt.Sprintf("call-%d", i))
				}
			})
		}
	}
}
