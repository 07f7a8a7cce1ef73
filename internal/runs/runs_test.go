package runs

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store"
)

// records is a store of execution records whose statuses a test moves on;
// it remembers the last list query.
type records struct {
	store.Executions // unused methods panic
	mu               sync.Mutex
	byID             map[string]store.Execution
	reads            int
	// finishAfter: a record read this many times becomes final (success).
	finishAfter int
	lastList    store.ExecutionQuery
	lastAccount string
	onRead      func(reads int) // may be nil
}

func (r *records) GetExecution(_ context.Context, accountID, id string) (store.Execution, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.byID[id]
	if !ok || e.AccountID != accountID {
		return store.Execution{}, fault.New(fault.NotFound, "execution %q not found", id)
	}
	r.reads++
	if r.onRead != nil {
		r.onRead(r.reads)
	}
	if r.finishAfter > 0 && r.reads >= r.finishAfter && !e.Status.Final() {
		at := e.CreatedAt.Add(time.Minute)
		e.Status, e.FinishedAt = store.StatusSuccess, &at
		r.byID[id] = e
	}
	return e, nil
}

func (r *records) ListExecutions(_ context.Context, accountID string, q store.ExecutionQuery) ([]store.Execution, string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastAccount, r.lastList = accountID, q
	return nil, "", nil
}

// flows stands in for agentflow's Runner: its view is its record's status.
type flows struct{ r *records }

func (f flows) Get(ctx context.Context, accountID, runID string) (*agentflow.Run, error) {
	e, err := f.r.GetExecution(ctx, accountID, runID)
	if err != nil {
		return nil, err
	}
	return &agentflow.Run{RunID: e.ID, Status: e.Status}, nil
}

func (f flows) Cancel(context.Context, string, string) (*agentflow.Run, error) {
	panic("not called")
}

func principal(id string, level string) *account.Principal {
	return &account.Principal{ID: id, Permissions: policy.Permissions{CapabilityLevel: level}}
}

// A kind that stores no frames: its stream reads the record until it is
// final, then sends exactly one frame, final, sequence 1, built from the
// run's view; a caller that has it gets nothing more.
func TestRecordStreamFollowsTheRecordToOneFinalFrame(t *testing.T) {
	rec := &records{byID: map[string]store.Execution{
		"awf-1": {ID: "awf-1", AccountID: "alice", Kind: store.KindAgentWorkflow, Status: store.StatusRunning, CreatedAt: time.Unix(1000, 0)},
	}, finishAfter: 4}
	s := New(Config{Store: rec, AgentFlows: flows{rec}, RecordPoll: time.Millisecond})
	var got []execution.Frame
	send := func(f execution.Frame) error { got = append(got, f); return nil }
	if err := s.Follow(context.Background(), principal("alice", policy.LevelBasic), "awf-1", 0, send); err != nil {
		t.Fatal(err)
	}
	if rec.reads < 4 || len(got) != 1 || got[0].Seq != 1 || !got[0].Final {
		t.Fatalf("after %d reads of the record: frames %+v", rec.reads, got)
	}
	var frame struct {
		RequestID string `json:"request_id"`
		IsFinal   bool   `json:"is_final"`
		Kind      string `json:"response_kind"`
		Body      struct {
			Result struct {
				RunID  string `json:"run_id"`
				Status string `json:"status"`
			} `json:"result"`
		} `json:"body"`
	}
	if err := json.Unmarshal(got[0].Data, &frame); err != nil {
		t.Fatal(err)
	}
	if frame.RequestID != "awf-1" || !frame.IsFinal || frame.Kind != "e2a.complete" || frame.Body.Result.Status != "success" || frame.Body.Result.RunID != "awf-1" {
		t.Fatalf("final frame: %s", got[0].Data)
	}
	got = nil
	if err := s.Follow(context.Background(), principal("alice", policy.LevelBasic), "awf-1", 1, send); err != nil || len(got) != 0 {
		t.Fatalf("after the final frame: %v, %d frames", err, len(got))
	}
	// Another account's run is not found; nothing is sent.
	err := s.Follow(context.Background(), principal("bob", policy.LevelBasic), "awf-1", 0, send)
	if fault.KindOf(err) != fault.NotFound || len(got) != 0 {
		t.Fatalf("another account: %v, %d frames", err, len(got))
	}
}

// A stream whose caller leaves before the run ends returns without a frame.
func TestRecordStreamEndsWithItsCaller(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	rec := &records{byID: map[string]store.Execution{
		"awf-1": {ID: "awf-1", AccountID: "alice", Kind: store.KindAgentWorkflow, Status: store.StatusRunning},
	}, onRead: func(n int) {
		if n == 3 {
			cancel() // the caller leaves while the run goes on
		}
	}}
	s := New(Config{Store: rec, AgentFlows: flows{rec}, RecordPoll: time.Millisecond})
	sent := 0
	err := s.Follow(ctx, principal("alice", policy.LevelBasic), "awf-1", 0, func(execution.Frame) error { sent++; return nil })
	if err != nil || sent != 0 || rec.reads < 3 {
		t.Fatalf("a caller that left: %v, %d frames after %d reads", err, sent, rec.reads)
	}
}

// Whose runs a listing reads: the caller's, or for an admin another
// account's or every account's; a non-admin naming another account is
// refused before the store is read.
func TestListAccountPolicy(t *testing.T) {
	rec := &records{byID: map[string]store.Execution{}}
	s := New(Config{Store: rec})
	ctx := context.Background()
	alice, admin := principal("alice", policy.LevelBasic), principal("root", policy.LevelAdmin)
	for _, c := range []struct {
		p       *account.Principal
		account string
		want    string // the account read; "*": every account
		refused bool
	}{
		{alice, "", "alice", false},
		{alice, "alice", "alice", false},
		{alice, "bob", "", true},
		{alice, AllAccounts, "", true},
		{admin, "", "root", false},
		{admin, "bob", "bob", false},
		{admin, AllAccounts, "*", false},
	} {
		rec.lastAccount, rec.lastList = "", store.ExecutionQuery{}
		_, _, err := s.List(ctx, c.p, ListQuery{Account: c.account, Kinds: []string{store.KindA2E}})
		if c.refused {
			if fault.KindOf(err) != fault.PermissionDenied || rec.lastAccount != "" {
				t.Fatalf("%s naming %q: %v (read %q)", c.p.ID, c.account, err, rec.lastAccount)
			}
			continue
		}
		got := rec.lastAccount
		if rec.lastList.AllAccounts {
			got = "*"
		}
		if err != nil || got != c.want || len(rec.lastList.Kinds) != 1 {
			t.Fatalf("%s naming %q: %v, read %q %+v", c.p.ID, c.account, err, got, rec.lastList)
		}
	}
}
