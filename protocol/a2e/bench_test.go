package a2e_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/a2e"
)

// twentyOps is a realistic 20-operation document: API calls, filters,
// transforms and merges.
func twentyOps() []byte {
	var b strings.Builder
	var order []string
	for i := range 20 {
		id := fmt.Sprintf("op-%02d", i)
		order = append(order, `"`+id+`"`)
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, `{"type":"operationUpdate","operationId":%q,"operation":{"ApiCall":{"method":"GET","url":"https://api.example.com/users/{/workflow/u%d}?page=2","headers":{"Authorization":{"credentialRef":{"id":"api-key"}},"Accept":"application/json"},"outputPath":"/workflow/u%d"}}}`+"\n", id, i, i)
		case 1:
			fmt.Fprintf(&b, `{"type":"operationUpdate","operationId":%q,"operation":{"FilterData":{"inputPath":"/workflow/u%d","conditions":[{"field":"status","operator":"==","value":"active"},{"field":"points","operator":">","value":100}],"outputPath":"/workflow/f%d"}}}`+"\n", id, i-1, i)
		case 2:
			fmt.Fprintf(&b, `{"type":"operationUpdate","operationId":%q,"operation":{"TransformData":{"inputPath":"/workflow/f%d","transform":"sort","config":{"field":"points","order":"desc"},"outputPath":"/workflow/s%d"}}}`+"\n", id, i-1, i)
		default:
			fmt.Fprintf(&b, `{"type":"operationUpdate","operationId":%q,"operation":{"MergeData":{"sources":["/workflow/s%d","/workflow/u%d"],"strategy":"deepMerge","outputPath":"/workflow/m%d"}}}`+"\n", id, i-1, i-3, i)
		}
	}
	fmt.Fprintf(&b, `{"type":"beginExecution","executionId":"bench","operationOrder":[%s]}`+"\n", strings.Join(order, ","))
	return []byte(b.String())
}

func BenchmarkParse(b *testing.B) {
	doc := twentyOps()
	if _, errs := a2e.Parse(doc, a2e.Limits{}); len(errs) != 0 {
		b.Fatal(errs)
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		wf, errs := a2e.Parse(doc, a2e.Limits{})
		if len(errs) != 0 || len(wf.Defined) != 20 {
			b.Fatal("bad parse")
		}
	}
}

func BenchmarkDecodeConfig(b *testing.B) {
	o := op("FilterData", `{"inputPath":"/workflow/u","conditions":[{"field":"status","operator":"==","value":"active"},{"field":"points","operator":">","value":100}],"outputPath":"/workflow/f"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a2e.DecodeConfig(o); err != nil {
			b.Fatal(err)
		}
	}
}
