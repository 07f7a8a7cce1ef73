package caprun_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/caprun"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/store"
)

var errCrash = errors.New("simulated crash")

// dyingStore is the store as a process sees it that dies at one write: that
// write and every later one fail (what it had written stays written).
type dyingStore struct {
	store.Store
	mu   sync.Mutex
	when func(method string, u store.ExecutionUpdate) bool
	dead bool
}

func (d *dyingStore) hit(method string, u store.ExecutionUpdate) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dead = d.dead || d.when(method, u)
	return d.dead
}

func (d *dyingStore) UpdateExecution(ctx context.Context, accountID, id string, u store.ExecutionUpdate) error {
	if d.hit("update", u) {
		return errCrash
	}
	return d.Store.UpdateExecution(ctx, accountID, id, u)
}

func (d *dyingStore) SaveCheckpoint(ctx context.Context, id string, data json.RawMessage) error {
	if d.hit("checkpoint", store.ExecutionUpdate{}) {
		return errCrash
	}
	return d.Store.SaveCheckpoint(ctx, id, data)
}

// A synchronous run whose process died before its outcome was stored (its
// record left running, not Async) is resumed by the next process's run
// service at its start: from its checkpoint when it has one, else from the
// start. It then waits for its answer as it would have, and Decide finishes it.
func TestCrashedRunResumesAtStart(t *testing.T) {
	cases := []struct {
		name string
		when func(method string, u store.ExecutionUpdate) bool
	}{
		{name: "before its first checkpoint", when: func(method string, _ store.ExecutionUpdate) bool { return method == "checkpoint" }},
		{name: "before its waiting state was stored", when: func(method string, u store.ExecutionUpdate) bool {
			return method == "update" && u.Status == store.StatusWaiting
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			w := open(t, dir, func(s store.Store) store.Store { return &dyingStore{Store: s, when: c.when} })
			if _, err := w.svc.Run(ctx, alice(), caprun.Request{Ref: "finance/Approve", Inputs: map[string]any{"amount": 40.0}}); !errors.Is(err, errCrash) {
				t.Fatalf("run in the dying process: %v", err)
			}
			runs, _, err := w.st.ListExecutions(ctx, "alice", store.ExecutionQuery{})
			if err != nil || len(runs) != 1 {
				t.Fatalf("records %+v %v", runs, err)
			}
			runID := runs[0].ID
			if e, err := w.st.GetExecution(ctx, "alice", runID); err != nil || e.Status != store.StatusRunning || e.Async || e.Kind != store.KindCapability {
				t.Fatalf("left behind: %+v %v", e, err)
			}
			w.close()

			w = open(t, dir, nil)
			v := waitStatus(t, w, runID, store.StatusWaiting)
			var pending struct {
				Pending struct{ Prompt string } `json:"pending"`
			}
			if err := json.Unmarshal(v.Result, &pending); err != nil || pending.Pending.Prompt != "Approve a refund of 40 EUR?" {
				t.Fatalf("resumed run asks %s: %v", v.Result, err)
			}
			r, err := w.svc.Decide(ctx, alice(), runID, json.RawMessage(`{"verdict":"yes"}`))
			if err != nil || r.Status != engine.StatusSuccess || r.Outputs["verdict"] != "approved" {
				t.Fatalf("decide: %+v %v", r, err)
			}
			got, ok, _ := w.mem.Get(ctx, op.Area{Storage: "localStorage", Account: "alice"}, "a2s/finance/Approve/verdict")
			if !ok || got != "approved" {
				t.Fatalf("kept output: %v %v", got, ok)
			}
		})
	}
}

// A run whose process died after it took the answer, before the outcome
// was stored, is finished by the next process from its checkpoint: it does
// not ask again.
func TestAnsweredRunFinishesAfterACrash(t *testing.T) {
	dir := t.TempDir()
	dying := &dyingStore{when: func(method string, u store.ExecutionUpdate) bool { return method == "update" && u.Status.Final() }}
	w := open(t, dir, func(s store.Store) store.Store { dying.Store = s; return dying })
	r, err := w.svc.Run(ctx, alice(), caprun.Request{Ref: "finance/Approve", Inputs: map[string]any{"amount": 40.0}})
	if err != nil || r.Status != engine.StatusWaiting {
		t.Fatalf("run: %+v %v", r, err)
	}
	if _, err := w.svc.Decide(ctx, alice(), r.RunID, json.RawMessage(`{"verdict":"no"}`)); !errors.Is(err, errCrash) {
		t.Fatalf("decide in the dying process: %v", err)
	}
	if e, err := w.st.GetExecution(ctx, "alice", r.RunID); err != nil || e.Status != store.StatusRunning || e.Async {
		t.Fatalf("left behind: %+v %v", e, err)
	}
	w.close()

	w = open(t, dir, nil)
	v := waitStatus(t, w, r.RunID, store.StatusSuccess)
	var res struct {
		Outputs map[string]any `json:"outputs"`
	}
	if err := json.Unmarshal(v.Result, &res); err != nil || res.Outputs["verdict"] != "refused" {
		t.Fatalf("result %s: %v", v.Result, err)
	}
	// The output is kept once the record is stored: wait for it.
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, ok, _ := w.mem.Get(ctx, op.Area{Storage: "localStorage", Account: "alice"}, "a2s/finance/Approve/verdict")
		if ok && got == "refused" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("kept output: %v %v", got, ok)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitStatus polls alice's run until it has status st. Only a generous
// deadline, never a timing assertion.
func waitStatus(t *testing.T, w *world, runID string, st store.Status) *caprun.View {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		v, err := w.svc.Get(ctx, alice(), runID)
		if err != nil {
			t.Fatal(err)
		}
		if v.Status == st {
			return v
		}
		if v.Status.Final() || time.Now().After(deadline) {
			t.Fatalf("run %s is %s, want %s: %s", runID, v.Status, st, v.Result)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// enqueueLog is a queue that notes the ids it is given.
type enqueueLog struct {
	queue.Queue
	mu  sync.Mutex
	ids []string
}

func (l *enqueueLog) Enqueue(ctx context.Context, m queue.Message) (bool, error) {
	l.mu.Lock()
	l.ids = append(l.ids, m.ID)
	l.mu.Unlock()
	return l.Queue.Enqueue(ctx, m)
}

func (l *enqueueLog) has(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Contains(l.ids, id)
}

// Gateways sharing the store (SharedPoll set): a synchronous run found
// running when one of them starts may be running in another, live one, as
// for an A2E execution (abandonSync). The starting gateway leaves it alone
// while its budget lasts; it does not run it a second time at once.
func TestSharedStartLeavesARunningSyncRunAlone(t *testing.T) {
	dir := t.TempDir()
	w := open(t, dir, nil)
	// The record as gateway A holds it while it runs the capability.
	doc := store.CapabilityRunPrefix + `{"namespace":"finance","id":"Approve","version":"1.0.0","checksum":"` + approveChecksum(t) + `"}}`
	if _, _, err := w.st.CreateExecution(ctx, store.Execution{ID: "cap-running-in-a", AccountID: "alice", Kind: store.KindCapability,
		Digest: "a2s:x", Document: []byte(doc), Input: json.RawMessage(`{"amount":40}`), Status: store.StatusRunning,
		BudgetMs: 30000}); err != nil {
		t.Fatal(err)
	}
	w.close()
	log := &enqueueLog{}
	open(t, dir, nil, func(c *execution.Config) {
		c.SharedPoll = 20 * time.Millisecond
		log.Queue = c.Queue
		c.Queue = log
	})
	if log.has("cap-running-in-a") {
		t.Fatal("gateway B queued a run gateway A may be running: it runs twice")
	}
}

func approveChecksum(t *testing.T) string {
	t.Helper()
	pub, err := registry{"finance/Approve": approve}.Resolve(ctx, "finance", "Approve", "")
	if err != nil {
		t.Fatal(err)
	}
	return pub.Checksum
}
