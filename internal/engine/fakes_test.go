package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// fakeCfg is the config of every fake operation; each uses the fields it needs.
type fakeCfg struct {
	Value        json.RawMessage `json:"value"`
	Read         string          `json:"read"`     // Const: output the value at this path
	Probe        string          `json:"probe"`    // Const: output {present, value} of this path
	Failures     int             `json:"failures"` // Flaky: failed attempts before success; -1 always
	Retryable    bool            `json:"retryable"`
	RetryAfterMs int64           `json:"retryAfterMs"`
	IgnoreCtx    bool            `json:"ignoreCtx"` // Block: never look at the context
	Parties      int             `json:"parties"`   // Gate: callers to wait for
	Path         string          `json:"path"`      // If
	Equals       json.RawMessage `json:"equals"`
	IfTrue       []string        `json:"ifTrue"`
	IfFalse      []string        `json:"ifFalse"`
	InputPath    string          `json:"inputPath"` // Each
	Operations   []string        `json:"operations"`
	Concurrency  int             `json:"concurrency"`
	Gate         string          `json:"gate"`     // Gate: a gate shared by several steps (default: the step's own)
	Branches     [][]string      `json:"branches"` // Fork
}

// fakes is a set of fake operations that count what they do.
type fakes struct {
	mu        sync.Mutex
	calls     map[string]int // Run calls by operation id
	completed map[string]int // successful runs by "opId#item"
	cancel    func()         // what Cancel ops call
	cancelled map[string]bool
	release   chan struct{} // unblocks Block ops that ignore their context
	gates     map[string]*gate
}

type gate struct {
	n    int
	done chan struct{}
}

func newFakes(t testing.TB) *fakes {
	f := &fakes{calls: map[string]int{}, completed: map[string]int{}, cancelled: map[string]bool{},
		release: make(chan struct{}), gates: map[string]*gate{}}
	t.Cleanup(func() { close(f.release) })
	return f
}

func (f *fakes) called(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[id]++
}

func (f *fakes) count(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[id]
}

func (f *fakes) complete(id string, rc *op.RunContext) {
	item, _ := rc.Data.Get(mustPath("/workflow/index"))
	f.mu.Lock()
	defer f.mu.Unlock()
	f.completed[fmt.Sprintf("%s#%v", id, item)]++
}

func mustPath(s string) a2e.Path {
	p, err := a2e.ParsePath(s)
	if err != nil {
		panic(err)
	}
	return p
}

// env is an environment with every fake operation.
func (f *fakes) env() *op.Environment { return f.envWith() }

// envWith is env with extra registrations (real operations such as Wait).
func (f *fakes) envWith(extra ...op.Registration) *op.Environment {
	reg := func(spec op.Spec, mk func(c fakeCfg) op.Operation) op.Registration {
		return op.Registration{Spec: spec, New: func(raw json.RawMessage, _ *op.Deps) (op.Operation, error) {
			var c fakeCfg
			if err := json.Unmarshal(raw, &c); err != nil {
				return nil, fault.Typed(fault.Invalid, fault.ValidationError, "bad fake config").At(0, "operation."+spec.Name)
			}
			return mk(c), nil
		}}
	}
	return op.NewEnvironment(&op.Deps{}, append(extra,
		reg(op.Spec{Name: "Const", Pure: true, CacheTTL: time.Minute}, func(c fakeCfg) op.Operation { return &constOp{f: f, c: c} }),
		reg(op.Spec{Name: "Flaky"}, func(c fakeCfg) op.Operation { return &flakyOp{f: f, c: c} }),
		reg(op.Spec{Name: "Block"}, func(c fakeCfg) op.Operation { return &blockOp{f: f, c: c} }),
		reg(op.Spec{Name: "Panic"}, func(c fakeCfg) op.Operation { return &panicOp{f: f} }),
		reg(op.Spec{Name: "Ask"}, func(c fakeCfg) op.Operation { return &askOp{f: f} }),
		reg(op.Spec{Name: "Cancel"}, func(c fakeCfg) op.Operation { return &cancelOp{f: f, c: c} }),
		reg(op.Spec{Name: "Gate"}, func(c fakeCfg) op.Operation { return &gateOp{f: f, c: c} }),
		reg(op.Spec{Name: "Save"}, func(c fakeCfg) op.Operation { return &saveOp{f: f} }),
		reg(op.Spec{Name: "If", Control: true}, func(c fakeCfg) op.Operation { return &ifOp{f: f, c: c} }),
		reg(op.Spec{Name: "Each", Control: true}, func(c fakeCfg) op.Operation { return &eachOp{f: f, c: c} }),
		reg(op.Spec{Name: "Fork", Control: true}, func(c fakeCfg) op.Operation { return &forkOp{f: f, c: c} }),
	)...)
}

// constOp outputs value, or the value at read, or a probe of a path.
type constOp struct {
	f *fakes
	c fakeCfg
}

func (o *constOp) Reads() []a2e.Path {
	if o.c.Read == "" {
		return nil
	}
	return []a2e.Path{mustPath(o.c.Read)}
}

func (o *constOp) Run(_ context.Context, rc *op.RunContext) (any, error) {
	o.f.called(rc.OperationID)
	var out any
	switch {
	case o.c.Probe != "":
		v, err := rc.Data.Get(mustPath(o.c.Probe))
		out = map[string]any{"present": err == nil, "value": v}
	case o.c.Read != "":
		p, err := a2e.ParsePath(o.c.Read)
		if err != nil {
			return nil, err
		}
		if out, err = rc.Data.Get(p); err != nil {
			return nil, err
		}
	case o.c.Value != nil:
		if err := json.Unmarshal(o.c.Value, &out); err != nil {
			return nil, err
		}
	}
	o.f.complete(rc.OperationID, rc)
	return out, nil
}

// flakyOp fails its first Failures attempts (every attempt when -1).
type flakyOp struct {
	f *fakes
	c fakeCfg
}

func (o *flakyOp) Run(_ context.Context, rc *op.RunContext) (any, error) {
	o.f.called(rc.OperationID)
	if o.c.Failures < 0 || rc.Attempt <= o.c.Failures {
		fe := fault.Typed(fault.Upstream, fault.ExecutionError, "upstream failed (attempt %d)", rc.Attempt)
		if o.c.Retryable {
			fe.Retry(time.Duration(o.c.RetryAfterMs) * time.Millisecond)
		}
		return nil, fe
	}
	return "ok", nil
}

// blockOp blocks until its context ends (or, ignoring it, until the test ends).
type blockOp struct {
	f *fakes
	c fakeCfg
}

func (o *blockOp) Run(ctx context.Context, rc *op.RunContext) (any, error) {
	o.f.called(rc.OperationID)
	if o.c.IgnoreCtx {
		<-o.f.release
		return "late", nil
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

type panicOp struct{ f *fakes }

func (o *panicOp) Run(_ context.Context, rc *op.RunContext) (any, error) {
	o.f.called(rc.OperationID)
	panic("secret-token-123 leaked in a panic")
}

// askOp suspends until it is answered, then outputs the answer.
type askOp struct{ f *fakes }

func (o *askOp) Run(_ context.Context, rc *op.RunContext) (any, error) {
	o.f.called(rc.OperationID)
	if len(rc.Answer) == 0 {
		return nil, &op.Suspend{Reason: "needs approval", Request: map[string]any{"question": "proceed?"}}
	}
	var v any
	if err := json.Unmarshal(rc.Answer, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// cancelOp cancels the execution the first time it runs for an item (a
// stand-in for a crash) and then waits for the context like an in-flight call.
type cancelOp struct {
	f *fakes
	c fakeCfg
}

func (o *cancelOp) Run(ctx context.Context, rc *op.RunContext) (any, error) {
	o.f.called(rc.OperationID)
	item, _ := rc.Data.Get(mustPath("/workflow/index"))
	key := fmt.Sprintf("%s#%v", rc.OperationID, item)
	o.f.mu.Lock()
	first := !o.f.cancelled[key]
	o.f.cancelled[key] = true
	o.f.mu.Unlock()
	if first && (o.c.Equals == nil || jsonEqual(o.c.Equals, item)) {
		o.f.cancel()
		<-ctx.Done()
		return nil, ctx.Err()
	}
	o.f.complete(rc.OperationID, rc)
	return "after-crash", nil
}

// gateOp waits until Parties callers have arrived (or its context ends).
type gateOp struct {
	f *fakes
	c fakeCfg
}

func (o *gateOp) Run(ctx context.Context, rc *op.RunContext) (any, error) {
	o.f.called(rc.OperationID)
	name := rc.OperationID
	if o.c.Gate != "" {
		name = o.c.Gate
	}
	o.f.mu.Lock()
	g := o.f.gates[name]
	if g == nil {
		g = &gate{done: make(chan struct{})}
		o.f.gates[name] = g
	}
	g.n++
	if g.n == o.c.Parties {
		close(g.done)
	}
	o.f.mu.Unlock()
	select {
	case <-g.done:
		return nil, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// saveOp saves state on its first run and outputs the state it finds.
type saveOp struct{ f *fakes }

func (o *saveOp) Run(_ context.Context, rc *op.RunContext) (any, error) {
	o.f.called(rc.OperationID)
	if rc.State != nil {
		var v any
		_ = json.Unmarshal(rc.State, &v)
		return v, nil
	}
	if err := rc.Save(json.RawMessage(`{"wakeAt":"later"}`)); err != nil {
		return nil, err
	}
	o.f.cancel()
	return nil, context.Canceled
}

// ifOp branches on the value at Path: equal to Equals, or truthy.
type ifOp struct {
	f *fakes
	c fakeCfg
}

func (o *ifOp) Run(_ context.Context, rc *op.RunContext) (any, error) {
	o.f.called(rc.OperationID)
	v, err := rc.Data.Get(mustPath(o.c.Path))
	if err != nil {
		return nil, err
	}
	ok := v != nil && v != false
	if o.c.Equals != nil {
		ok = jsonEqual(o.c.Equals, v)
	}
	if ok {
		return op.Branch{Name: "ifTrue", Ops: o.c.IfTrue}, nil
	}
	if len(o.c.IfFalse) > 0 {
		return op.Branch{Name: "ifFalse", Ops: o.c.IfFalse}, nil
	}
	return op.Branch{Name: "none"}, nil
}

// eachOp loops over the array at InputPath.
type eachOp struct {
	f *fakes
	c fakeCfg
}

func (o *eachOp) Run(_ context.Context, rc *op.RunContext) (any, error) {
	o.f.called(rc.OperationID)
	v, err := rc.Data.Get(mustPath(o.c.InputPath))
	if err != nil {
		return nil, err
	}
	items, ok := v.([]any)
	if !ok {
		return nil, fault.Typed(fault.Invalid, fault.DataError, "%s is not an array", o.c.InputPath)
	}
	return op.Iteration{Items: items, Body: o.c.Operations, Concurrency: max(o.c.Concurrency, 1)}, nil
}

// forkOp runs its branches at the same time.
type forkOp struct {
	f *fakes
	c fakeCfg
}

func (o *forkOp) Run(_ context.Context, rc *op.RunContext) (any, error) {
	o.f.called(rc.OperationID)
	return op.Fork{Branches: o.c.Branches}, nil
}

func jsonEqual(raw json.RawMessage, v any) bool {
	var want any
	if err := json.Unmarshal(raw, &want); err != nil {
		return false
	}
	return reflect.DeepEqual(want, v)
}

// workflow decodes JSONL lines into a Workflow, as the a2e decoder would.
func workflow(t testing.TB, lines ...string) *a2e.Workflow {
	t.Helper()
	wf := &a2e.Workflow{Operations: map[string]*a2e.Definition{}}
	for i, l := range lines {
		var m struct {
			Type           string        `json:"type"`
			OperationID    string        `json:"operationId"`
			Operation      a2e.Operation `json:"operation"`
			ExecutionID    string        `json:"executionId"`
			OperationOrder []string      `json:"operationOrder"`
			OnError        string        `json:"onError"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		switch m.Type {
		case a2e.TypeOperationUpdate:
			if _, ok := wf.Operations[m.OperationID]; !ok {
				wf.Defined = append(wf.Defined, m.OperationID)
			}
			wf.Operations[m.OperationID] = &a2e.Definition{ID: m.OperationID, Operation: m.Operation, Line: i + 1}
		case a2e.TypeBeginExecution:
			wf.Begin = a2e.BeginExecution{ExecutionID: m.ExecutionID, OperationOrder: m.OperationOrder, OnError: m.OnError}
			wf.BeginLine = i + 1
		default:
			t.Fatalf("line %d: unknown type %q", i+1, m.Type)
		}
	}
	return wf
}

// def is an operationUpdate line.
func def(id, name, cfg string) string {
	return fmt.Sprintf(`{"type":"operationUpdate","operationId":%q,"operation":{%q:%s}}`, id, name, cfg)
}

// begin is a beginExecution line.
func begin(onError string, order ...string) string {
	b, _ := json.Marshal(order)
	if onError == "" {
		return fmt.Sprintf(`{"type":"beginExecution","executionId":"exec-1","operationOrder":%s}`, b)
	}
	return fmt.Sprintf(`{"type":"beginExecution","executionId":"exec-1","operationOrder":%s,"onError":%q}`, b, onError)
}

// compile builds a plan or fails the test.
func compile(t testing.TB, env *op.Environment, lines ...string) *engine.Plan {
	t.Helper()
	plan, err := engine.Compile(workflow(t, lines...), env)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return plan
}

// fakeClock is a fake clock at a fixed start.
func fakeClock() *clock.Fake { return clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) }

// maxSource makes every jitter draw (almost) 1, so delays sit at their ceiling.
type maxSource struct{}

func (maxSource) Uint64() uint64 { return ^uint64(0) }

var _ rand.Source = maxSource{}

// memCache is a per-account op.Cache.
type memCache struct {
	mu sync.Mutex
	m  map[string]any
}

func newMemCache() *memCache { return &memCache{m: map[string]any{}} }

func (c *memCache) Get(account, key string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[account+"\x00"+key]
	return v, ok
}

func (c *memCache) Put(account, key, _ string, v any, _ time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[account+"\x00"+key] = v
}

func (c *memCache) InvalidateScope(string, string) {}

func (c *memCache) keys() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for k := range c.m {
		out = append(out, k)
	}
	return out
}

// errorsText joins the errors' messages for failure output.
func errorsText(r *engine.Result) string {
	var b strings.Builder
	for _, e := range r.Errors {
		fmt.Fprintf(&b, "[%s %s: %s] ", e.Type, e.OperationID, e.Message)
	}
	return b.String()
}

// recorder collects events.
type recorder struct {
	mu     sync.Mutex
	events []engine.Event
}

func (r *recorder) on(ev engine.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

func (r *recorder) list() []engine.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]engine.Event(nil), r.events...)
}
