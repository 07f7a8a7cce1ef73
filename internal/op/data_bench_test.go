package op_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// benchItems makes n user-like objects, deterministic.
func benchItems(n, offset int) []any {
	teams := []string{"red", "blue", "green", "amber", "violet", "teal", "grey"}
	out := make([]any, n)
	for i := range out {
		k := i + offset
		out[i] = map[string]any{
			"id":      float64(k),
			"name":    fmt.Sprintf("user-%d", k),
			"status":  []string{"active", "inactive", "active"}[k%3],
			"team":    teams[k%len(teams)],
			"points":  float64((k * 7919) % 1000),
			"profile": map[string]any{"age": float64(18 + k%60)},
		}
	}
	return out
}

func benchModel(b *testing.B, kv map[string]any) *datamodel.Model {
	b.Helper()
	m := datamodel.New(nil)
	for k, v := range kv {
		p, err := a2e.ParsePath("/workflow/" + k)
		if err != nil {
			b.Fatal(err)
		}
		if err := m.Set(p, v); err != nil {
			b.Fatal(err)
		}
	}
	return m
}

func benchOp(b *testing.B, reg op.Registration, cfg string, m *datamodel.Model, items int) {
	b.Helper()
	o, err := reg.New(json.RawMessage(cfg), dtDeps())
	if err != nil {
		b.Fatal(err)
	}
	rc := dtRC(m)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := o.Run(ctx, rc); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(items)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
}

const benchN = 10000

func BenchmarkFilterData10k(b *testing.B) {
	m := benchModel(b, map[string]any{"users": benchItems(benchN, 0)})
	benchOp(b, op.FilterDataOp, `{"inputPath":"/workflow/users","conditions":[
		{"field":"points","operator":">","value":500},
		{"field":"status","operator":"==","value":"active"}],"outputPath":"/workflow/out"}`, m, benchN)
}

func BenchmarkTransformSort10k(b *testing.B) {
	m := benchModel(b, map[string]any{"users": benchItems(benchN, 0)})
	benchOp(b, op.TransformDataOp, `{"inputPath":"/workflow/users","transform":"sort","config":{"field":"points","order":"desc"},"outputPath":"/workflow/out"}`, m, benchN)
}

func BenchmarkTransformGroup10k(b *testing.B) {
	m := benchModel(b, map[string]any{"users": benchItems(benchN, 0)})
	benchOp(b, op.TransformDataOp, `{"inputPath":"/workflow/users","transform":"group","config":{"field":"team"},"outputPath":"/workflow/out"}`, m, benchN)
}

func BenchmarkTransformAggregate10k(b *testing.B) {
	m := benchModel(b, map[string]any{"users": benchItems(benchN, 0)})
	benchOp(b, op.TransformDataOp, `{"inputPath":"/workflow/users","transform":"aggregate","config":{"groupBy":"team","operations":[
		{"op":"count"},{"op":"sum","field":"points"},{"op":"avg","field":"profile.age"},{"op":"max","field":"points"}]},"outputPath":"/workflow/out"}`, m, benchN)
}

func BenchmarkTransformMapExpression10k(b *testing.B) {
	m := benchModel(b, map[string]any{"users": benchItems(benchN, 0)})
	benchOp(b, op.TransformDataOp, `{"inputPath":"/workflow/users","transform":"map","config":{"expression":"{name: item.name, score: item.points * 2 + index}"},"outputPath":"/workflow/out"}`, m, benchN)
}

func BenchmarkMergeUnion2x5k(b *testing.B) {
	// Half of the second array repeats the first, so union does real work.
	m := benchModel(b, map[string]any{"a": benchItems(5000, 0), "b": benchItems(5000, 2500)})
	benchOp(b, op.MergeDataOp, `{"sources":["/workflow/a","/workflow/b"],"strategy":"union","outputPath":"/workflow/out"}`, m, benchN)
}
