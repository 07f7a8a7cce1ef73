package a2e_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/a2e"
)

func op(name, cfg string) a2e.Operation {
	return a2e.Operation{Name: name, Config: json.RawMessage(cfg)}
}

func TestDecodeConfigValid(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	in := func(v int) *int { return &v }
	yes := true
	cases := []struct {
		op   a2e.Operation
		want any
	}{
		{op("ApiCall", `{"method":"GET","url":"https://x.test","outputPath":"/workflow/x","timeout":500,"retry":{"maxRetries":1,"unsafe":true},"cache":true,
			"headers":{"A":"b","Authorization":{"credentialRef":{"id":"k"}}},"body":{"a":[1]},"idempotencyKey":"i"}`),
			&a2e.ApiCall{Common: a2e.Common{Timeout: i64(500), Retry: &a2e.RetryPolicy{MaxRetries: in(1), Unsafe: true}, Cache: &yes},
				Method: "GET", URL: "https://x.test", OutputPath: "/workflow/x", IdempotencyKey: "i",
				Headers: map[string]json.RawMessage{"A": json.RawMessage(`"b"`), "Authorization": json.RawMessage(`{"credentialRef":{"id":"k"}}`)},
				Body:    json.RawMessage(`{"a":[1]}`)}},
		{op("FilterData", `{"inputPath":"/workflow/u","conditions":[{"field":"a.b","operator":"==","value":{"path":"/input/x"}},{"field":"c","operator":"in"}],"outputPath":"/workflow/o"}`),
			&a2e.FilterData{InputPath: "/workflow/u", OutputPath: "/workflow/o", Conditions: []a2e.Condition{
				{Field: "a.b", Operator: "==", Value: json.RawMessage(`{"path":"/input/x"}`)}, {Field: "c", Operator: "in"}}}},
		{op("TransformData", `{"inputPath":"/workflow/u","transform":"sort","config":{"field":"p"},"outputPath":"/workflow/o"}`),
			&a2e.TransformData{InputPath: "/workflow/u", Transform: "sort", Config: json.RawMessage(`{"field":"p"}`), OutputPath: "/workflow/o"}},
		{op("Conditional", `{"condition":{"path":"/workflow/c","operator":"exists"},"ifTrue":["a"],"ifFalse":[]}`),
			&a2e.Conditional{Condition: a2e.Test{Path: "/workflow/c", Operator: "exists"}, IfTrue: []string{"a"}, IfFalse: []string{}}},
		{op("Loop", `{"inputPath":"/workflow/u","operations":["a"],"concurrency":4,"maxIterations":10,"outputPath":"/workflow/o"}`),
			&a2e.Loop{InputPath: "/workflow/u", Operations: []string{"a"}, Concurrency: 4, MaxIterations: 10, OutputPath: "/workflow/o"}},
		{op("StoreData", `{"inputPath":"/workflow/u","storage":"file","key":"k"}`), &a2e.StoreData{InputPath: "/workflow/u", Storage: "file", Key: "k"}},
		{op("LoadData", `{"storage":"localStorage","key":"k","outputPath":"/workflow/o","default":null}`),
			&a2e.LoadData{Storage: "localStorage", Key: "k", OutputPath: "/workflow/o", Default: json.RawMessage(`null`)}},
		{op("InvokeAgent", `{"agent":"sum","input":{"t":"{/input/t}"},"taskId":"k","timeout":100,"outputPath":"/workflow/o"}`),
			&a2e.InvokeAgent{Timeout: i64(100), Agent: "sum", Input: json.RawMessage(`{"t":"{/input/t}"}`), TaskID: "k", OutputPath: "/workflow/o"}},
		{op("InvokeAgent", `{"agent":"sum","outputPath":"/workflow/o"}`), &a2e.InvokeAgent{Agent: "sum", OutputPath: "/workflow/o"}},
		{op("Wait", ` {"duration":1000} `), &a2e.Wait{Duration: 1000}},
		{op("Wait", `{"duration":0,"timeout":null}`), &a2e.Wait{}},
		{op("MergeData", `{"sources":["/workflow/a","/workflow/b"],"strategy":"union","outputPath":"/workflow/o"}`),
			&a2e.MergeData{Sources: []string{"/workflow/a", "/workflow/b"}, Strategy: "union", OutputPath: "/workflow/o"}},
	}
	for _, c := range cases {
		t.Run(c.op.Name, func(t *testing.T) {
			got, err := a2e.DecodeConfig(c.op)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestDecodeConfigProblems(t *testing.T) {
	type want struct{ path, msg string }
	cases := []struct {
		name string
		op   a2e.Operation
		want []want
	}{
		{"unknown field with a near name", op("FilterData", `{"inputPath":"/workflow/u","conditions":[],"outputpath":"/workflow/o"}`), []want{
			{"operation.FilterData.outputpath", "operation.FilterData.outputpath: unknown field; did you mean outputPath?"},
			{"operation.FilterData.outputPath", "operation.FilterData.outputPath: missing required field"}}},
		{"unknown field far from any", op("Wait", `{"duration":1,"zzzzzzzz":1}`), []want{
			{"operation.Wait.zzzzzzzz", "unknown field; the fields are duration, timeout, retry, cache"}}},
		{"type mismatch", op("Wait", `{"duration":"1000"}`), []want{{"operation.Wait.duration", "operation.Wait.duration: expected number, got string"}}},
		{"fraction for an integer", op("Wait", `{"duration":1.5}`), []want{{"operation.Wait.duration", "expected an integer, got 1.5"}}},
		{"exponent for an integer", op("Wait", `{"duration":1e3}`), []want{{"operation.Wait.duration", "expected an integer, got 1e3"}}},
		{"integer out of range", op("Wait", `{"duration":99999999999999999999}`), []want{{"operation.Wait.duration", "out of range"}}},
		{"nested path with index", op("FilterData", `{"inputPath":"/workflow/u","conditions":[{"field":"a","operator":"=="},{"field":"b","opertor":"=="}],"outputPath":"/workflow/o"}`), []want{
			{"operation.FilterData.conditions[1].opertor", "did you mean operator?"},
			{"operation.FilterData.conditions[1].operator", "missing required field"}}},
		{"element type", op("Loop", `{"inputPath":"/workflow/u","operations":["a",2]}`), []want{{"operation.Loop.operations[1]", "expected string, got number"}}},
		{"not an array", op("MergeData", `{"sources":"/workflow/a","strategy":"concat","outputPath":"/workflow/o"}`), []want{{"operation.MergeData.sources", "expected array, got string"}}},
		{"config not an object", op("Wait", `[]`), []want{{"operation.Wait", "operation.Wait: expected object, got array"}}},
		{"invalid JSON", op("Wait", `{"duration":`), []want{{"operation.Wait", "invalid JSON"}}},
		{"empty config is an empty object", op("Wait", ``), []want{{"operation.Wait.duration", "missing required field"}}},
		{"case matters", op("Wait", `{"Duration":1}`), []want{
			{"operation.Wait.Duration", "did you mean duration?"}, {"operation.Wait.duration", "missing required field"}}},
		{"duplicate key", op("Wait", `{"duration":1,"duration":2}`), []want{{"operation.Wait.duration", "duplicate key"}}},
		{"common fields checked", op("Wait", `{"duration":1,"timeout":"5s","retry":{"maxRetries":"3","tries":1},"cache":"yes"}`), []want{
			{"operation.Wait.timeout", "expected number, got string"},
			{"operation.Wait.retry.maxRetries", "expected number, got string"},
			{"operation.Wait.retry.tries", "unknown field"},
			{"operation.Wait.cache", "expected boolean, got string"}}},
		{"header value a number", op("ApiCall", `{"method":"GET","url":"u","outputPath":"/workflow/o","headers":{"X-N":5}}`), []want{
			{`operation.ApiCall.headers["X-N"]`, `expected a string or {"credentialRef":{"id":"..."}}, got number`}}},
		{"bad credentialRef", op("ApiCall", `{"method":"GET","url":"u","outputPath":"/workflow/o","headers":{"Authorization":{"credentialRef":{"ID":"k"}}}}`), []want{
			{"operation.ApiCall.headers.Authorization.credentialRef.ID", "did you mean id?"},
			{"operation.ApiCall.headers.Authorization.credentialRef.id", "missing required field"}}},
		{"null for a string", op("StoreData", `{"inputPath":null,"storage":"file","key":"k"}`), []want{{"operation.StoreData.inputPath", "expected string, got null"}}},
		{"no retry on InvokeAgent", op("InvokeAgent", `{"agent":"a","outputPath":"/workflow/o","retry":{"maxRetries":1}}`), []want{
			{"operation.InvokeAgent.retry", "unknown field; the fields are timeout, agent, input, taskId, outputPath"}}},
		{"InvokeAgent needs an agent", op("InvokeAgent", `{"input":{},"outputPath":"/workflow/o"}`), []want{
			{"operation.InvokeAgent.agent", "missing required field"}}},
		{"unknown operation", op("ApiCal", `{}`), []want{{"operation", `unknown operation "ApiCal"; the catalog is ApiCall, FilterData`}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := a2e.DecodeConfig(c.op)
			if v != nil || err == nil {
				t.Fatalf("got %+v, %v; want an error", v, err)
			}
			var list a2e.ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("error %T is not an ErrorList", err)
			}
			if len(list) != len(c.want) {
				t.Fatalf("got %d problems %v, want %d", len(list), list, len(c.want))
			}
			for i, w := range c.want {
				if list[i].Path != w.path || !strings.Contains(list[i].Message, w.msg) {
					t.Errorf("problem %d = {%q %q}, want {%q ~%q}", i, list[i].Path, list[i].Message, w.path, w.msg)
				}
				if !strings.HasPrefix(list[i].Message, list[i].Path) && list[i].Path != "operation" {
					t.Errorf("message %q does not start with its path", list[i].Message)
				}
			}
			var one *a2e.Error
			if !errors.As(err, &one) || one != list[0] {
				t.Error("errors.As does not find the first problem")
			}
		})
	}
}

func TestDecodeConfigUnknownOperationSuggests(t *testing.T) {
	_, err := a2e.DecodeConfig(op("filterdata", `{}`))
	var e *a2e.Error
	if !errors.As(err, &e) || !slices.Contains(e.Suggestions, `Did you mean "FilterData"?`) {
		t.Errorf("err = %v, suggestions %v", err, e.Suggestions)
	}
}

func TestDecodeTransformConfig(t *testing.T) {
	td := func(transform, cfg string) *a2e.TransformData {
		return &a2e.TransformData{Transform: transform, Config: json.RawMessage(cfg)}
	}
	valid := []struct {
		t    *a2e.TransformData
		want any
	}{
		{td("sort", `{"field":"p","order":"desc"}`), &a2e.SortConfig{Field: "p", Order: "desc"}},
		{td("select", `{"fields":["a","b.c"]}`), &a2e.SelectConfig{Fields: []string{"a", "b.c"}}},
		{td("select", `{"field":"a.b"}`), &a2e.SelectConfig{Field: "a.b"}},
		{td("group", `{"field":"team"}`), &a2e.GroupConfig{Field: "team"}},
		{td("aggregate", `{"operations":[{"op":"count"},{"op":"sum","field":"p","as":"total"}],"groupBy":"team"}`),
			&a2e.AggregateConfig{Operations: []a2e.Aggregation{{Op: "count"}, {Op: "sum", Field: "p", As: "total"}}, GroupBy: "team"}},
		{td("map", `{"expression":"item.p * 2"}`), &a2e.MapConfig{Expression: "item.p * 2"}},
		{td("map", `{"fields":{"n":"name"}}`), &a2e.MapConfig{Fields: map[string]string{"n": "name"}}},
	}
	for _, c := range valid {
		got, err := a2e.DecodeTransformConfig(c.t)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %s: got %+v, %v", c.t.Transform, c.t.Config, got, err)
		}
	}
	invalid := []struct {
		t          *a2e.TransformData
		path, msgs string
	}{
		{nil, "operation.TransformData", "no config"},
		{td("srot", `{}`), "operation.TransformData.transform", `unknown transform "srot"; use one of map, sort, group, aggregate, select`},
		{td("sort", ``), "operation.TransformData.config", "missing required field"},
		{td("sort", `null`), "operation.TransformData.config", "missing required field"},
		{td("sort", `{"feild":"p"}`), "operation.TransformData.config.feild", "did you mean field?"},
		{td("sort", `{"field":1}`), "operation.TransformData.config.field", "expected string, got number"},
		{td("aggregate", `{"operations":[{"op":"sum","fields":"p"}]}`), "operation.TransformData.config.operations[0].fields", "did you mean field?"},
		{td("select", `{}`), "operation.TransformData.config", `exactly one of "fields" and "field"`},
		{td("select", `{"fields":["a"],"field":"b"}`), "operation.TransformData.config", `exactly one of "fields" and "field"`},
		{td("map", `{"expression":"x","fields":{"a":"b"}}`), "operation.TransformData.config", `exactly one of "expression" and "fields"`},
		{td("map", `{"fields":{"a":1}}`), "operation.TransformData.config.fields.a", "expected string, got number"},
	}
	for _, c := range invalid {
		_, err := a2e.DecodeTransformConfig(c.t)
		var e *a2e.Error
		if !errors.As(err, &e) || e.Path != c.path || !strings.Contains(e.Message, c.msgs) {
			t.Errorf("%+v: err = %v (path %q), want path %q and %q", c.t, err, pathOf(e), c.path, c.msgs)
		}
	}
	_, err := a2e.DecodeTransformConfig(td("sot", `{}`))
	var e *a2e.Error
	if errors.As(err, &e) && !slices.Contains(e.Suggestions, `Did you mean "sort"?`) {
		t.Errorf("suggestions = %v", e.Suggestions)
	}
}

func pathOf(e *a2e.Error) string {
	if e == nil {
		return ""
	}
	return e.Path
}

func TestDecodeConfigBoundsProblems(t *testing.T) {
	cfg := `{"inputPath":"/workflow/u","operations":[` + strings.Repeat(`1,`, 100) + `1]}`
	_, err := a2e.DecodeConfig(op("Loop", cfg))
	var list a2e.ErrorList
	if !errors.As(err, &list) || len(list) != 21 || !strings.Contains(list[20].Message, "too many problems") {
		t.Fatalf("got %d problems", len(list))
	}
}

func TestConfigFields(t *testing.T) {
	fields, required, ok := a2e.ConfigFields("ApiCall")
	if !ok {
		t.Fatal("ApiCall unknown")
	}
	if !slices.Equal(required, []string{"method", "url", "outputPath"}) {
		t.Errorf("required = %v", required)
	}
	for _, f := range []string{"timeout", "retry", "cache", "headers", "body", "idempotencyKey"} {
		if !slices.Contains(fields, f) {
			t.Errorf("fields %v lack %s", fields, f)
		}
	}
	if _, _, ok := a2e.ConfigFields("Nope"); ok {
		t.Error("unknown operation has fields")
	}
}

// Every operation of the catalog decodes into its own config type.
func TestDecodeConfigCoversTheCatalog(t *testing.T) {
	for _, name := range a2e.OperationNames {
		_, err := a2e.DecodeConfig(op(name, `{}`))
		var e *a2e.Error
		if !errors.As(err, &e) || !strings.HasPrefix(e.Path, "operation."+name+".") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
