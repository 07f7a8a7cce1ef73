package agentflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/queue/local"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlite"
	"github.com/sluicehq/sluice/internal/workflow"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

var ctx = context.Background()

// world is a store and a local queue on SQLite in a temporary directory.
type world struct {
	db *sqlite.DB
	q  *local.Queue
}

func newWorld(t *testing.T) *world {
	t.Helper()
	db, err := sqlite.Open(ctx, sqlite.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	q := local.New(db, nil)
	t.Cleanup(func() { q.Close(); db.Close() })
	for _, id := range []string{"alice", "bob"} {
		if _, err := db.CreateAccount(ctx, store.Account{ID: id, Name: id}); err != nil {
			t.Fatal(err)
		}
	}
	return &world{db: db, q: q}
}

// fakeInvoker answers by agent name and counts calls by task id.
//   - upper: {"text": upper(input.text)}
//   - count: {"n": len(input.text), "items": [input.text]}
//   - echo:  the input itself
//   - fail:  an upstream error
type fakeInvoker struct {
	mu     sync.Mutex
	calls  map[string]int
	inputs map[string]string
	corr   map[string]string
	// before runs before each call; a non-nil error is returned instead.
	before func(ctx context.Context, taskID string) error
}

func newFake() *fakeInvoker {
	return &fakeInvoker{calls: map[string]int{}, inputs: map[string]string{}, corr: map[string]string{}}
}

func (f *fakeInvoker) Invoke(ctx context.Context, name, taskID string, input json.RawMessage, corr string) (json.RawMessage, error) {
	f.mu.Lock()
	f.calls[taskID]++
	f.inputs[taskID] = string(input)
	f.corr[taskID] = corr
	before := f.before
	f.mu.Unlock()
	if before != nil {
		if err := before(ctx, taskID); err != nil {
			return nil, err
		}
	}
	var in struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(input, &in)
	switch name {
	case "upper":
		return json.Marshal(map[string]any{"text": strings.ToUpper(in.Text)})
	case "count":
		return json.Marshal(map[string]any{"n": len(in.Text), "items": []string{in.Text}})
	case "echo":
		return input, nil
	}
	return nil, fault.New(fault.Upstream, "agent %q answered 400: bad things", name)
}

func (f *fakeInvoker) count(taskID string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[taskID]
}

func (f *fakeInvoker) correlation(taskID string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.corr[taskID]
}

func (f *fakeInvoker) input(taskID string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.inputs[taskID]
}

func allAgents(context.Context, string) (bool, error) { return true, nil }

// accounts are principals by id, with no limit that a test reaches.
type accounts struct{}

func (accounts) Principal(_ context.Context, id string) (*account.Principal, error) {
	return &account.Principal{ID: id}, nil
}

// node is one gateway process: a run service (execution.Manager) over the
// world's store and queue, with an agentflow Runner as its kind of run.
type node struct {
	owner string
	m     *execution.Manager
	r     *agentflow.Runner
}

// node makes a process whose Manager is not started: it stores, queues and
// cancels runs but runs none (set is applied to its config first).
func (w *world) node(t *testing.T, inv agentflow.Invoker, owner string, set ...func(*execution.Config)) *node {
	t.Helper()
	cfg := execution.Config{Store: w.db, Queue: w.q, Runner: workflow.New(workflow.Config{Deps: op.Deps{Limits: op.DefaultLimits()}}),
		Accounts: accounts{}, Workers: 2, Owner: owner}
	for _, f := range set {
		f(&cfg)
	}
	m := execution.New(cfg)
	r := &agentflow.Runner{Runs: m, Store: w.db, Invoker: inv, Agents: allAgents}
	m.Register(r.Kind())
	return &node{owner: owner, m: m, r: r}
}

// start starts n's Manager (its recovery, then its workers) until the test
// ends or n crashes.
func (n *node) start(t *testing.T) *node {
	t.Helper()
	if err := n.m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.crash)
	return n
}

// withMonitor sets n's Monitor (before n starts).
func (n *node) withMonitor(f func(context.Context, agenthttp.MonitoringMessage)) *node {
	n.r.Monitor = f
	return n
}

// started is node then start.
func (w *world) started(t *testing.T, inv agentflow.Invoker, owner string, set ...func(*execution.Config)) *node {
	t.Helper()
	return w.node(t, inv, owner, set...).start(t)
}

// crash stops n's process at once: its runs in flight stop where they are
// and stay running in the store, to resume in the next process.
func (n *node) crash() { n.m.Close(0) }

// sharedPoll sets how often a Manager looks at the records of its runs (a
// cancel made by another process).
func sharedPoll(d time.Duration) func(*execution.Config) {
	return func(c *execution.Config) { c.SharedPoll = d }
}

// waitFinal polls the run until it is final. Only a generous deadline, never
// a timing assertion.
func waitFinal(t *testing.T, r *agentflow.Runner, account, runID string) *agentflow.Run {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		v, err := r.Get(ctx, account, runID)
		if err != nil {
			t.Fatal(err)
		}
		if v.Status.Final() {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s not final: %+v", runID, v)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func decode(t *testing.T, doc string) *agenthttp.Workflow {
	t.Helper()
	wf, err := agenthttp.DecodeWorkflow([]byte(doc), agenthttp.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return wf
}

// threeSteps: upper -> count -> echo, each using earlier outputs.
const threeSteps = `{"workflow_id": "wf-1", "name": "three", "version": "1.0.0", "start_step": "shout",
 "steps": {
  "shout": {"id": "shout", "agent_name": "upper", "next_step": "measure", "input_mapping": {"text": "${workflow.input.text}"}},
  "measure": {"id": "measure", "agent_name": "count", "next_step": "report", "input_mapping": {"text": "${shout.output.text}"}},
  "report": {"id": "report", "agent_name": "echo", "next_step": null,
             "input_mapping": {"line": "${shout.output.text} has ${measure.output.n} letters", "n": "${measure.output.n}",
                               "first": "${measure.output.items[0]}", "fixed": true}}}}`

// threeStepsOutput is the output of threeSteps on "river".
const threeStepsOutput = `{"line": "RIVER has 5 letters", "n": 5, "first": "RIVER", "fixed": true}`

func jsonEq(t *testing.T, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got %s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Fatalf("got  %s\nwant %s", gb, wb)
	}
}

var errCrash = errors.New("simulated crash")

// dyingStore is the store as a process sees it that dies at one call: that
// call and every later one fail (what it had written stays written).
type dyingStore struct {
	store.Store
	mu      sync.Mutex
	when    func(method string, u store.ExecutionUpdate) bool
	crashed chan struct{}
}

func dying(s store.Store, when func(method string, u store.ExecutionUpdate) bool) *dyingStore {
	return &dyingStore{Store: s, when: when, crashed: make(chan struct{})}
}

// hit reports whether the process is dead at this call.
func (d *dyingStore) hit(method string, u store.ExecutionUpdate) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	select {
	case <-d.crashed:
		return true
	default:
	}
	if d.when(method, u) {
		close(d.crashed)
		return true
	}
	return false
}

func (d *dyingStore) UpdateExecution(ctx context.Context, accountID, id string, u store.ExecutionUpdate) error {
	if d.hit("update", u) {
		return errCrash
	}
	return d.Store.UpdateExecution(ctx, accountID, id, u)
}

func (d *dyingStore) GetExecution(ctx context.Context, accountID, id string) (store.Execution, error) {
	if d.hit("get", store.ExecutionUpdate{}) {
		return store.Execution{}, errCrash
	}
	return d.Store.GetExecution(ctx, accountID, id)
}

func (d *dyingStore) SaveCheckpoint(ctx context.Context, id string, data json.RawMessage) error {
	if d.hit("checkpoint", store.ExecutionUpdate{}) {
		return errCrash
	}
	return d.Store.SaveCheckpoint(ctx, id, data)
}

func (d *dyingStore) AppendEvents(ctx context.Context, id string, frames ...json.RawMessage) (int64, error) {
	if d.hit("events", store.ExecutionUpdate{}) {
		return 0, errCrash
	}
	return d.Store.AppendEvents(ctx, id, frames...)
}

// waitCrashed waits for the process of d to die.
func (d *dyingStore) waitCrashed(t *testing.T) {
	t.Helper()
	select {
	case <-d.crashed:
	case <-time.After(30 * time.Second):
		t.Fatal("the crash point was never reached")
	}
}

// resumeIn kills the process first while it runs runID, which stays
// running in the store, and starts next, which frees the dead process's
// leases as a gateway does at its start and finishes the run; it returns
// the run, which must have succeeded.
func (w *world) resumeIn(t *testing.T, first, next *node, runID string) *agentflow.Run {
	t.Helper()
	first.crash()
	if e, err := w.db.GetExecution(ctx, "alice", runID); err != nil || e.Status != store.StatusRunning {
		t.Fatalf("after the crash: %+v %v", e, err)
	}
	if _, err := w.q.ReleaseOthers(ctx, next.owner); err != nil {
		t.Fatal(err)
	}
	next.start(t)
	v := waitFinal(t, next.r, "alice", runID)
	if v.Status != store.StatusSuccess {
		t.Fatalf("run %+v", v)
	}
	jsonEq(t, v.Output, threeStepsOutput)
	return v
}

// startThreeSteps starts alice's run of threeSteps on "river" with r.
func startThreeSteps(t *testing.T, r *agentflow.Runner) string {
	t.Helper()
	runID, err := r.Start(ctx, "alice", decode(t, threeSteps), json.RawMessage(`{"text": "river"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	return runID
}
