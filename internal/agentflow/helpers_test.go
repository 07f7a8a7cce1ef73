package agentflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/queue/local"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlite"
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

func (f *fakeInvoker) input(taskID string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.inputs[taskID]
}

func allAgents(context.Context, string) (bool, error) { return true, nil }

func (w *world) runner(inv agentflow.Invoker, q queue.Queue) *agentflow.Runner {
	if q == nil {
		q = w.q
	}
	return &agentflow.Runner{Store: w.db, Queue: q, Invoker: inv, Agents: allAgents}
}

// work runs a worker until the test ends (or stop is called).
func work(t *testing.T, r *agentflow.Runner, owner string) (stop func()) {
	t.Helper()
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Work(wctx, owner) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Work: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
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

// crashQueue is a queue whose process "dies" at one call: that call and
// every later one fail, and the worker's context is cancelled, as if the
// process were killed there.
type crashQueue struct {
	queue.Queue
	mu      sync.Mutex
	when    func(op, id string) bool
	cancel  context.CancelFunc
	crashed bool
}

func (c *crashQueue) hit(op, id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.crashed && c.when(op, id) {
		c.crashed = true
		c.cancel()
	}
	return c.crashed
}

func (c *crashQueue) Enqueue(ctx context.Context, m queue.Message) (bool, error) {
	if c.hit("enqueue", m.ID) {
		return false, errCrash
	}
	return c.Queue.Enqueue(ctx, m)
}

func (c *crashQueue) Lease(ctx context.Context, topic, owner string, n int, d time.Duration) ([]queue.Item, error) {
	if c.hit("lease", "") {
		return nil, errCrash
	}
	return c.Queue.Lease(ctx, topic, owner, n, d)
}

func (c *crashQueue) Ack(ctx context.Context, it queue.Item) error {
	if c.hit("ack", it.ID) {
		return errCrash
	}
	return c.Queue.Ack(ctx, it)
}

func (c *crashQueue) Nack(ctx context.Context, it queue.Item, d time.Duration) error {
	if c.hit("nack", it.ID) {
		return errCrash
	}
	return c.Queue.Nack(ctx, it, d)
}

func (c *crashQueue) Extend(ctx context.Context, it queue.Item, d time.Duration) (queue.Item, error) {
	if c.hit("extend", it.ID) {
		return it, errCrash
	}
	return c.Queue.Extend(ctx, it, d)
}

// startThreeSteps starts alice's run of threeSteps on "river" with r.
func startThreeSteps(t *testing.T, r *agentflow.Runner) string {
	t.Helper()
	runID, err := r.Start(ctx, "alice", decode(t, threeSteps), json.RawMessage(`{"text": "river"}`))
	if err != nil {
		t.Fatal(err)
	}
	return runID
}
