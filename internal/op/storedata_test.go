package op_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/storage"
)

type storeEnv struct {
	deps  *op.Deps
	clock *clock.Fake
}

func newStoreEnv(t *testing.T) *storeEnv {
	clk := clock.NewFake(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	mem := storage.NewMemory(clk)
	return &storeEnv{
		deps:  &op.Deps{Storage: storage.NewMux(mem, &storage.Files{Dir: t.TempDir()}), Limits: op.DefaultLimits(), Clock: clk},
		clock: clk,
	}
}

func (s *storeEnv) run(t *testing.T, reg op.Registration, cfg string, rc *op.RunContext) (any, error) {
	t.Helper()
	o, err := reg.New(json.RawMessage(cfg), s.deps)
	if err != nil {
		t.Fatalf("build %s: %v", cfg, err)
	}
	return o.Run(context.Background(), rc)
}

func storeRC(account, session, exec string, data *datamodel.Model) *op.RunContext {
	return &op.RunContext{Data: data, Account: account, SessionID: session, ExecutionID: exec, OperationID: "op"}
}

func TestStoreAndLoadRoundTrip(t *testing.T) {
	s := newStoreEnv(t)
	data := model(t, map[string]any{"report": map[string]any{"total": 3.0, "rows": []any{"a", "b"}}, "day": "2026-03-01"})
	for _, storageName := range []string{"localStorage", "sessionStorage", "file"} {
		t.Run(storageName, func(t *testing.T) {
			rc := storeRC("acct", "sess", "exec-1", data)
			out, err := s.run(t, op.StoreDataOp, `{"inputPath":"/workflow/report","storage":"`+storageName+`","key":"reports/{/workflow/day}"}`, rc)
			if err != nil || out != nil {
				t.Fatalf("store: %v %v", out, err)
			}
			got, err := s.run(t, op.LoadDataOp, `{"storage":"`+storageName+`","key":"reports/2026-03-01","outputPath":"/workflow/back"}`, rc)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(got)
			if string(b) != `{"rows":["a","b"],"total":3}` {
				t.Fatalf("loaded %s", b)
			}
			// another account sees nothing
			_, err = s.run(t, op.LoadDataOp, `{"storage":"`+storageName+`","key":"reports/2026-03-01","outputPath":"/workflow/back"}`,
				storeRC("other", "sess", "exec-1", data))
			if fe, ok := fault.As(err); !ok || fe.SpecType() != fault.DataError {
				t.Fatalf("other account: %v", err)
			}
		})
	}
}

func TestSessionStorageScope(t *testing.T) {
	s := newStoreEnv(t)
	data := model(t, map[string]any{"v": "x"})
	store := `{"inputPath":"/workflow/v","storage":"sessionStorage","key":"k"}`
	load := `{"storage":"sessionStorage","key":"k","outputPath":"/workflow/o","default":"none"}`

	// No session named: the execution is the session.
	if _, err := s.run(t, op.StoreDataOp, store, storeRC("a", "", "exec-1", data)); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		rc   *op.RunContext
		want any
	}{
		{storeRC("a", "", "exec-1", data), "x"},
		{storeRC("a", "", "exec-2", data), "none"},
		{storeRC("a", "exec-1", "exec-9", data), "x"}, // same scope id either way
		{storeRC("b", "", "exec-1", data), "none"},
	}
	for i, c := range cases {
		if got, err := s.run(t, op.LoadDataOp, load, c.rc); err != nil || got != c.want {
			t.Errorf("case %d: got %v %v, want %v", i, got, err, c.want)
		}
	}
	s.clock.Advance(time.Hour)
	if got, _ := s.run(t, op.LoadDataOp, load, storeRC("a", "", "exec-1", data)); got != "none" {
		t.Fatalf("session value outlived its hour: %v", got)
	}
}

func TestLoadDataMissingAndDefault(t *testing.T) {
	s := newStoreEnv(t)
	rc := storeRC("a", "", "e", datamodel.New(nil))
	_, err := s.run(t, op.LoadDataOp, `{"storage":"localStorage","key":"nothing","outputPath":"/workflow/o"}`, rc)
	fe, ok := fault.As(err)
	if !ok || fe.SpecType() != fault.DataError || fe.Details["storage"] != "localStorage" || fe.Details["key"] != "nothing" ||
		!strings.Contains(fe.Message, "nothing") || fe.OperationID != "op" {
		t.Fatalf("missing key: %+v", fe)
	}
	for cfg, want := range map[string]string{
		`{"storage":"localStorage","key":"nothing","outputPath":"/workflow/o","default":{"a":[1]}}`: `{"a":[1]}`,
		`{"storage":"localStorage","key":"nothing","outputPath":"/workflow/o","default":null}`:      `null`,
		`{"storage":"file","key":"nothing","outputPath":"/workflow/o","default":0}`:                 `0`,
	} {
		got, err := s.run(t, op.LoadDataOp, cfg, rc)
		b, _ := json.Marshal(got)
		if err != nil || string(b) != want {
			t.Errorf("%s: got %s %v, want %s", cfg, b, err, want)
		}
	}
}

func TestStoreDataLimitsAndKeys(t *testing.T) {
	s := newStoreEnv(t)
	s.deps.Limits.MaxStoredBytes = 20
	data := model(t, map[string]any{"small": "ok", "big": strings.Repeat("x", 30), "badkey": "../../etc/passwd", "slash": "a/b"})
	rc := storeRC("a", "", "e", data)
	_, err := s.run(t, op.StoreDataOp, `{"inputPath":"/workflow/big","storage":"localStorage","key":"k"}`, rc)
	if fe, ok := fault.As(err); !ok || fe.SpecType() != fault.DataError || fe.Details["limitBytes"] != int64(20) {
		t.Fatalf("oversize: %v", err)
	}
	if _, err := s.run(t, op.StoreDataOp, `{"inputPath":"/workflow/small","storage":"localStorage","key":"k"}`, rc); err != nil {
		t.Fatal(err)
	}
	// A key made from data is checked once rendered.
	for _, k := range []string{"{/workflow/badkey}", "x/{/workflow/badkey}"} {
		_, err := s.run(t, op.StoreDataOp, `{"inputPath":"/workflow/small","storage":"file","key":"`+k+`"}`, rc)
		if fe, ok := fault.As(err); !ok || fe.SpecType() != fault.DataError {
			t.Errorf("%s: %v", k, err)
		}
	}
	if _, err := s.run(t, op.StoreDataOp, `{"inputPath":"/workflow/small","storage":"file","key":"d/{/workflow/slash}"}`, rc); err != nil {
		t.Fatalf("sub-folders from data: %v", err)
	}
	if _, err := s.run(t, op.StoreDataOp, `{"inputPath":"/workflow/missing","storage":"localStorage","key":"k"}`, rc); err == nil {
		t.Fatal("a missing input must fail")
	}
	noStorage := &op.Deps{}
	o, _ := op.StoreDataOp.New(json.RawMessage(`{"inputPath":"/workflow/small","storage":"localStorage","key":"k"}`), noStorage)
	if _, err := o.Run(context.Background(), rc); err == nil {
		t.Fatal("no storage configured must fail")
	}
}

func TestStoreLoadBuildValidation(t *testing.T) {
	cases := []struct {
		reg       op.Registration
		cfg, path string
	}{
		{op.StoreDataOp, `{"inputPath":"/workflow/a","storage":"localStorage","key":"k","extra":1}`, "operation.StoreData.extra"},
		{op.StoreDataOp, `{"inputPath":"/workflow/a","storage":"cloud","key":"k"}`, "operation.StoreData.storage"},
		{op.StoreDataOp, `{"inputPath":"/workflow/a","storage":"file"}`, "operation.StoreData.key"},
		{op.StoreDataOp, `{"storage":"file","key":"k"}`, "operation.StoreData.inputPath"},
		{op.StoreDataOp, `{"inputPath":"/workflow/a","storage":"file","key":"../x"}`, "operation.StoreData.key"},
		{op.StoreDataOp, `{"inputPath":"/workflow/a","storage":"file","key":"/etc/passwd"}`, "operation.StoreData.key"},
		{op.StoreDataOp, `{"inputPath":"/workflow/a","storage":"file","key":"a/../../x"}`, "operation.StoreData.key"},
		{op.StoreDataOp, `{"inputPath":"/workflow/a","storage":"file","key":"a\u0000b"}`, "operation.StoreData.key"},
		{op.StoreDataOp, `{"inputPath":"/workflow/a","storage":"file","key":"{/workflow/x"}`, "operation.StoreData.key"},
		{op.LoadDataOp, `{"storage":"file","key":"k"}`, "operation.LoadData.outputPath"},
		{op.LoadDataOp, `{"storage":"file","key":"k","outputPath":"/workflow/o","nope":true}`, "operation.LoadData.nope"},
		{op.LoadDataOp, `{"storage":"file","key":"a//b","outputPath":"/workflow/o"}`, "operation.LoadData.key"},
		{op.LoadDataOp, `{"storage":"sessionstorage","key":"k","outputPath":"/workflow/o"}`, "operation.LoadData.storage"},
	}
	for _, c := range cases {
		_, err := c.reg.New(json.RawMessage(c.cfg), &op.Deps{})
		fe, ok := fault.As(err)
		if !ok || fe.SpecType() != fault.ValidationError || fe.Path != c.path {
			t.Errorf("%s: got %v at %q, want ValidationError at %s", c.cfg, err, pathOf(fe), c.path)
		}
	}
	o, err := op.StoreDataOp.New(json.RawMessage(`{"inputPath":"/workflow/a","storage":"file","key":"k/{/workflow/b}"}`), &op.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	if r := o.(op.Reader).Reads(); len(r) != 2 || r[0].String() != "/workflow/a" || r[1].String() != "/workflow/b" {
		t.Fatalf("Reads %v", r)
	}
	if _, ok := o.(op.Writer).Writes(); ok {
		t.Fatal("StoreData writes no outputPath")
	}
	l, _ := op.LoadDataOp.New(json.RawMessage(`{"storage":"file","key":"k","outputPath":"/workflow/o"}`), &op.Deps{})
	if p, ok := l.(op.Writer).Writes(); !ok || p.String() != "/workflow/o" {
		t.Fatal("LoadData writes its outputPath")
	}
}

func pathOf(fe *fault.Error) string {
	if fe == nil {
		return ""
	}
	return fe.Path
}
