package caprun_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/capability"
	"github.com/sluicehq/sluice/internal/caprun"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/queue/local"
	"github.com/sluicehq/sluice/internal/storage"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlite"
	"github.com/sluicehq/sluice/internal/tools"
	"github.com/sluicehq/sluice/internal/workflow"
	"github.com/sluicehq/sluice/protocol/a2s"
)

var ctx = context.Background()

// registry serves documents by NS/ID, ignoring versions.
type registry map[string]string

func (r registry) Resolve(_ context.Context, ns, id, _ string) (*caprun.Published, error) {
	src, ok := r[ns+"/"+id]
	if !ok {
		return nil, fault.New(fault.NotFound, "capability %s/%s not found", ns, id)
	}
	doc, ds := a2s.LintBytes([]byte(src), a2s.Options{})
	if a2s.HasErrors(ds) {
		return nil, fault.New(fault.Invalid, "%v", ds)
	}
	sum, _ := doc.ComputeChecksum()
	return &caprun.Published{Namespace: ns, ID: id, Version: doc.Version.Value, Checksum: sum, Doc: doc}, nil
}

func (registry) Importer(*a2s.Document) capability.Importer { return nil }

func (r registry) Catalog(ctx context.Context) ([]*caprun.Published, error) {
	var out []*caprun.Published
	for _, ref := range []string{"finance/Admin", "finance/Approve"} {
		ns, id := caprun.SplitRef(ref)
		p, err := r.Resolve(ctx, ns, id, "")
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

const approve = `a2s: 1.0.0
id: Approve
version: 1.0.0
type: atomic
description: asks the agent, then keeps the verdict
audit: {status: unaudited}
permissions: {level: basic}
inputs:
  amount: {type: number}
outputs:
  verdict: {type: string, lifecycle: persistent}
tasks:
  - id: judge
    type: prompt
    inputs:
      amount: {mapping: inputs.amount}
    outputs:
      verdict: {type: string, lifecycle: task}
    prompt:
      template: "Approve a refund of {amount} EUR?"
      format:
        verdict: {type: string, enum: [yes, no]}
  - id: record
    type: agent_decision
    inputs:
      verdict: {mapping: judge.outputs.verdict}
    outputs:
      verdict: {type: string, lifecycle: persistent}
    definition:
      logic: |
        verdict = verdict == "yes" ? "approved" : "refused"
`

var elevatedDoc = strings.Replace(strings.Replace(approve, "level: basic", "level: elevated", 1), "id: Approve", "id: Admin", 1)

// world is one process: a store on a data directory, its local queue, the
// run service (execution.Manager, started) and a capability Service
// registered as its kind.
type world struct {
	st    *sqlite.DB
	q     *local.Queue
	m     *execution.Manager
	svc   *caprun.Service
	mem   *storage.Memory
	close func()
}

// open starts a process on dir; its Manager sees the store through wrap
// (nil: as it is), with set applied to its config. It stops at the test's
// end, or at close.
func open(t *testing.T, dir string, wrap func(store.Store) store.Store, set ...func(*execution.Config)) *world {
	t.Helper()
	st, err := sqlite.Open(ctx, sqlite.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"alice", "bob"} {
		// Created once per store; a restarted process finds them.
		_, _ = st.CreateAccount(ctx, store.Account{ID: id, Name: id})
	}
	var seen store.Store = st
	if wrap != nil {
		seen = wrap(st)
	}
	q := local.New(st, nil)
	cfg := execution.Config{Store: seen, Queue: q, Accounts: accounts{}, Owner: "test",
		Runner: workflow.New(workflow.Config{Deps: op.Deps{Limits: op.DefaultLimits()}})}
	for _, f := range set {
		f(&cfg)
	}
	m := execution.New(cfg)
	mem := storage.NewMemory(nil)
	env := op.NewEnvironment(&op.Deps{Storage: &storage.Mux{Local: mem, Session: mem}, Limits: op.DefaultLimits()}, op.Builtins()...)
	svc := caprun.New(caprun.Config{Store: seen, Registry: registry{"finance/Approve": approve, "finance/Admin": elevatedDoc},
		Env: func(*account.Principal) *op.Environment { return env }, Runs: m, Nested: engine.New(engine.Options{})})
	m.Register(svc.Kind())
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	w := &world{st: st, q: q, m: m, svc: svc, mem: mem}
	w.close = func() {
		once.Do(func() {
			m.Close(0)
			q.Close()
			st.Close()
		})
	}
	t.Cleanup(w.close)
	return w
}

// accounts are the principals runs resume as: alice as alice(), anyone else
// with no grant.
type accounts struct{}

func (accounts) Principal(_ context.Context, id string) (*account.Principal, error) {
	if id == "alice" {
		return alice(), nil
	}
	return &account.Principal{ID: id}, nil
}

func alice() *account.Principal {
	return &account.Principal{ID: "alice", Permissions: policy.Permissions{CapabilityLevel: policy.LevelBasic},
		Limits: account.Limits{MaxExecutionTimeMs: 30000}}
}

func TestDecisionSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	w := open(t, dir, nil)
	r, err := w.svc.Run(ctx, alice(), caprun.Request{Ref: "finance/Approve", Inputs: map[string]any{"amount": 40.0}})
	if err != nil || r.Status != engine.StatusWaiting || r.Pending == nil || r.Pending.Prompt != "Approve a refund of 40 EUR?" {
		t.Fatalf("run: %+v %v", r, err)
	}
	runID := r.RunID
	// A wrong answer is refused and the run still waits.
	if _, err := w.svc.Decide(ctx, alice(), runID, json.RawMessage(`{"verdict":"maybe"}`)); err == nil || fault.From(err).Kind != fault.Invalid {
		t.Fatalf("wrong answer: %v", err)
	}
	w.close()

	// A new process on the same data directory: a new run service, started.
	w = open(t, dir, nil)
	v, err := w.svc.Get(ctx, alice(), runID)
	if err != nil || v.Status != store.StatusWaiting || v.Namespace != "finance" || v.ID != "Approve" {
		t.Fatalf("after restart: %+v %v", v, err)
	}
	r, err = w.svc.Decide(ctx, alice(), runID, json.RawMessage(`{"verdict":"yes"}`))
	if err != nil || r.Status != engine.StatusSuccess || r.Outputs["verdict"] != "approved" {
		t.Fatalf("decide: %+v %v", r, err)
	}
	// Persistent outputs are kept for the account.
	got, ok, _ := w.mem.Get(ctx, op.Area{Storage: "localStorage", Account: "alice"}, "a2s/finance/Approve/verdict")
	if !ok || got != "approved" {
		t.Fatalf("kept output: %v %v", got, ok)
	}
	// Answering twice: the run is no longer waiting.
	if _, err := w.svc.Decide(ctx, alice(), runID, json.RawMessage(`{"verdict":"no"}`)); err == nil || fault.From(err).Kind != fault.Conflict {
		t.Fatalf("second answer: %v", err)
	}
	// Another account sees nothing of it.
	if _, err := w.svc.Get(ctx, &account.Principal{ID: "bob"}, runID); err == nil || fault.From(err).Kind != fault.NotFound {
		t.Fatalf("bob: %v", err)
	}
}

func TestRunPolicy(t *testing.T) {
	w := open(t, t.TempDir(), nil)
	// The account's level is too low.
	_, err := w.svc.Run(ctx, alice(), caprun.Request{Ref: "finance/Admin", Inputs: map[string]any{"amount": 1.0}})
	if fe := fault.From(err); err == nil || fe.Kind != fault.PermissionDenied || !strings.Contains(fe.Message, "elevated") {
		t.Fatalf("level: %v", err)
	}
	// Elevated, but the document is unaudited: refused by the default policy.
	p := alice()
	p.Permissions.CapabilityLevel = policy.LevelElevated
	_, err = w.svc.Run(ctx, p, caprun.Request{Ref: "finance/Admin", Inputs: map[string]any{"amount": 1.0}})
	if fe := fault.From(err); err == nil || fe.Kind != fault.PermissionDenied || !strings.Contains(fe.Message, "unaudited") {
		t.Fatalf("audit: %v", err)
	}
	// Credentials not granted; unknown capability; a secret as input.
	_, err = w.svc.Run(ctx, alice(), caprun.Request{Ref: "finance/Approve", Credentials: map[string]map[string]string{"api.x.com": {"access_token": "tok"}}})
	if fault.From(err).Kind != fault.PermissionDenied {
		t.Fatalf("credentials: %v", err)
	}
	if _, err = w.svc.Run(ctx, alice(), caprun.Request{Ref: "finance/Nope"}); fault.From(err).Kind != fault.NotFound {
		t.Fatalf("unknown: %v", err)
	}
	if _, err = w.svc.Run(ctx, alice(), caprun.Request{Ref: "finance/Approve", Inputs: map[string]any{"api_key": "k"}}); fault.From(err).Kind != fault.Invalid {
		t.Fatalf("secret input: %v", err)
	}
	// Cancel a waiting run.
	r, err := w.svc.Run(ctx, alice(), caprun.Request{Ref: "finance/Approve", Inputs: map[string]any{"amount": 2.0}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := w.svc.Cancel(ctx, alice(), r.RunID)
	if err != nil || v.Status != store.StatusCancelled {
		t.Fatalf("cancel: %+v %v", v, err)
	}
	if _, err := w.svc.Decide(ctx, alice(), r.RunID, json.RawMessage(`{"verdict":"yes"}`)); fault.From(err).Kind != fault.Conflict {
		t.Fatalf("answer after cancel: %v", err)
	}
}

// Capabilities as session tools: only those the account may run are listed;
// a run that waits is answered with capability.decide.
func TestSessionTools(t *testing.T) {
	w := open(t, t.TempDir(), nil)
	box := tools.New(w.svc.Tools())
	list, err := box.List(ctx, alice(), tools.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list {
		names = append(names, tl.Name)
	}
	if strings.Join(names, " ") != "cap.finance/Approve capability.decide" {
		t.Fatalf("tools: %v", names)
	}
	if !strings.Contains(string(list[0].Input), `"amount"`) || list[0].Version != "1.0.0" {
		t.Fatalf("tool: %+v", list[0])
	}
	res, err := box.Call(ctx, alice(), "cap.finance/Approve", map[string]any{"amount": 12.0}, nil)
	if err != nil || !res.Success || !strings.Contains(res.Summary, "waits for an answer to task judge") {
		t.Fatalf("call: %+v %v", res, err)
	}
	runID := res.Data.(*capability.Result).RunID
	res, err = box.Call(ctx, alice(), "capability.decide", map[string]any{"run_id": runID, "answer": map[string]any{"verdict": "no"}}, nil)
	if err != nil || !res.Success || res.Data.(*capability.Result).Outputs["verdict"] != "refused" {
		t.Fatalf("decide: %+v %v", res, err)
	}
	_, err = box.Call(ctx, alice(), "cap.finance/Admin", map[string]any{"amount": 1.0}, nil)
	if fault.From(err).Kind != fault.PermissionDenied {
		t.Fatalf("a capability above the account's level: %v", err)
	}
	_, err = box.Call(ctx, alice(), "cap.finance/Nope", nil, nil)
	if fault.From(err).Kind != fault.NotFound {
		t.Fatalf("unknown capability: %v", err)
	}
}

// A record is a run by its kind, not by its document: an A2E execution whose
// document reads like a run descriptor is no run to get, answer or cancel.
func TestOnlyCapabilityRecordsAreRuns(t *testing.T) {
	w := open(t, t.TempDir(), nil)
	doc := store.CapabilityRunPrefix + `{"namespace":"finance","id":"Approve","version":"1.0.0"}}`
	if _, _, err := w.st.CreateExecution(ctx, store.Execution{ID: "a2e-lookalike", AccountID: "alice", Kind: store.KindA2E,
		Digest: "d", Document: []byte(doc), Status: store.StatusWaiting}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc.Get(ctx, alice(), "a2e-lookalike"); fault.KindOf(err) != fault.NotFound {
		t.Fatalf("get: %v", err)
	}
	if _, err := w.svc.Decide(ctx, alice(), "a2e-lookalike", json.RawMessage(`{"verdict":"yes"}`)); fault.KindOf(err) != fault.NotFound {
		t.Fatalf("decide: %v", err)
	}
	if _, err := w.svc.Cancel(ctx, alice(), "a2e-lookalike"); fault.KindOf(err) != fault.NotFound {
		t.Fatalf("cancel: %v", err)
	}
	if e, _ := w.st.GetExecution(ctx, "alice", "a2e-lookalike"); e.Status != store.StatusWaiting {
		t.Fatalf("the A2E record was changed: %+v", e)
	}
	// A real run is of its kind.
	r, err := w.svc.Run(ctx, alice(), caprun.Request{Ref: "finance/Approve", Inputs: map[string]any{"amount": 1.0}})
	if err != nil {
		t.Fatal(err)
	}
	if e, err := w.st.GetExecution(ctx, "alice", r.RunID); err != nil || e.Kind != store.KindCapability {
		t.Fatalf("run record: %+v %v", e, err)
	}
}
