package op_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// Helpers of the data-operation tests; the dt prefix keeps them apart from
// other test helpers of the package.

// dtJSON decodes JSON text into a plain value.
func dtJSON(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad test JSON %q: %v", s, err)
	}
	return v
}

// dtModel builds a data model whose /workflow keys hold the decoded JSON
// values of kv, and whose /input is input (JSON text, "" for none).
func dtModel(t testing.TB, input string, kv map[string]string) *datamodel.Model {
	t.Helper()
	var in any
	if input != "" {
		in = dtJSON(t, input)
	}
	m := datamodel.New(in)
	for k, v := range kv {
		p, err := a2e.ParsePath("/workflow/" + k)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Set(p, dtJSON(t, v)); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// dtDeps are default deps with a fake clock.
func dtDeps() *op.Deps {
	return &op.Deps{Clock: clock.NewFake(time.Date(2025, 12, 17, 10, 0, 0, 0, time.UTC)), Limits: op.DefaultLimits()}
}

// dtBuild builds an operation that must be valid.
func dtBuild(t testing.TB, reg op.Registration, cfg string) op.Operation {
	t.Helper()
	o, err := reg.New(json.RawMessage(cfg), dtDeps())
	if err != nil {
		t.Fatalf("%s config %s: %v", reg.Spec.Name, cfg, err)
	}
	return o
}

// dtConfigError builds an invalid operation and checks the error is a
// ValidationError at jsonPath.
func dtConfigError(t *testing.T, reg op.Registration, deps *op.Deps, cfg, jsonPath string) *fault.Error {
	t.Helper()
	if deps == nil {
		deps = dtDeps()
	}
	o, err := reg.New(json.RawMessage(cfg), deps)
	if err == nil {
		t.Fatalf("config %s: want an error, got operation %T", cfg, o)
	}
	fe, ok := fault.As(err)
	if !ok {
		t.Fatalf("config %s: want *fault.Error, got %T %v", cfg, err, err)
	}
	if fe.Kind != fault.Invalid || fe.SpecType() != fault.ValidationError {
		t.Errorf("config %s: got %v %s, want Invalid ValidationError", cfg, fe.Kind, fe.SpecType())
	}
	if fe.Path != jsonPath {
		t.Errorf("config %s: error at %q (%s), want %q", cfg, fe.Path, fe.Message, jsonPath)
	}
	return fe
}

// dtRC is a run context over data with a fake clock.
func dtRC(data op.Data) *op.RunContext {
	return &op.RunContext{
		Data:        data,
		ExecutionID: "exec-test",
		OperationID: "op-test",
		Attempt:     1,
		Clock:       clock.NewFake(time.Date(2025, 12, 17, 10, 0, 0, 0, time.UTC)),
		Save:        func(json.RawMessage) error { return nil },
	}
}

// dtRun runs o over m and checks that nothing in m changed.
func dtRun(t testing.TB, o op.Operation, m *datamodel.Model) (any, error) {
	t.Helper()
	before := dtSnapshot(t, m)
	out, err := o.Run(context.Background(), dtRC(m))
	if after := dtSnapshot(t, m); !reflect.DeepEqual(before, after) {
		t.Errorf("running %T changed its input:\nbefore %v\nafter  %v", o, before, after)
	}
	return out, err
}

// dtSnapshot deep-copies the model's content through JSON.
func dtSnapshot(t testing.TB, m *datamodel.Model) any {
	t.Helper()
	w, in := m.Snapshot()
	b, err := json.Marshal(map[string]any{"workflow": w, "input": in})
	if err != nil {
		t.Fatal(err)
	}
	return dtJSON(t, string(b))
}

// dtWantJSON compares a result with JSON text.
func dtWantJSON(t testing.TB, got any, want string) {
	t.Helper()
	w := dtJSON(t, want)
	if !reflect.DeepEqual(got, w) {
		gb, _ := json.Marshal(got)
		t.Errorf("got  %s\nwant %s", gb, want)
	}
}

// dtDataError checks err is a DataError whose message contains each of parts.
func dtDataError(t testing.TB, err error, parts ...string) {
	t.Helper()
	fe, ok := fault.As(err)
	if !ok || fe.SpecType() != fault.DataError {
		t.Fatalf("want DataError, got %T %v", err, err)
	}
	if fe.OperationID != "op-test" {
		t.Errorf("the error names operation %q, want the running one", fe.OperationID)
	}
	for _, p := range parts {
		if !strings.Contains(fe.Message, p) {
			t.Errorf("message %q does not mention %q", fe.Message, p)
		}
	}
}
