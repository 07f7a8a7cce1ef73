package execution_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/a2e"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// countingStore counts the execution record writes.
type countingStore struct {
	store.Store
	creates, updates atomic.Int64
}

func (c *countingStore) CreateExecution(ctx context.Context, e store.Execution) (store.Execution, bool, error) {
	c.creates.Add(1)
	return c.Store.CreateExecution(ctx, e)
}

func (c *countingStore) UpdateExecution(ctx context.Context, accountID, id string, u store.ExecutionUpdate) error {
	c.updates.Add(1)
	return c.Store.UpdateExecution(ctx, accountID, id, u)
}

const (
	dataDoc = `{"type":"operationUpdate","operationId":"f","operation":{"FilterData":{"inputPath":"/input/xs","conditions":[{"field":"v","operator":"<","value":2}],"outputPath":"/workflow/f"}}}
{"type":"operationUpdate","operationId":"s","operation":{"TransformData":{"inputPath":"/workflow/f","transform":"sort","config":{"field":"v"},"outputPath":"/workflow/s"}}}
{"type":"beginExecution","executionId":"once-1","operationOrder":["f","s"]}`
	loadDoc = `{"type":"operationUpdate","operationId":"l","operation":{"LoadData":{"storage":"sessionStorage","key":"none","default":[1],"outputPath":"/workflow/l"}}}
{"type":"beginExecution","executionId":"twice-1","operationOrder":["l"]}`
)

// A synchronous run of data operations nobody follows is stored once, when
// it has run, and reads back final at once; a run with any other step (a
// LoadData) or one followed frame by frame is stored before it runs and again
// after, as before.
func TestReplayableRunStoredOnce(t *testing.T) {
	var counted *countingStore
	n := startNode(t, t.TempDir(), newGatedClock(), 1, func(c *execution.Config) {
		counted = &countingStore{Store: c.Store}
		c.Store = counted
	})
	ctx := context.Background()
	input := map[string]any{"xs": []any{map[string]any{"v": 1}, map[string]any{"v": 3}}}
	writes := func(doc string, onFrame func(*e2a.Response)) (creates, updates int64, id string) {
		t.Helper()
		c0, u0 := counted.creates.Load(), counted.updates.Load()
		out, err := n.m.Execute(ctx, principal("alice"), execution.Request{Document: []byte(doc), Input: input, OnFrame: onFrame})
		if err != nil || out.Result == nil {
			t.Fatalf("execute: %+v %v", out, err)
		}
		return counted.creates.Load() - c0, counted.updates.Load() - u0, out.Result.ExecutionID
	}
	c, u, id := writes(dataDoc, nil)
	if c != 1 || u != 0 {
		t.Fatalf("a data workflow: %d creates, %d updates, want 1 and 0", c, u)
	}
	if e, err := n.db.GetExecution(ctx, "alice", id); err != nil || e.Status != store.StatusSuccess || len(e.Result) == 0 {
		t.Fatalf("its record: %+v %v", e, err)
	}
	// (LoadData fails here, with no storage configured: its writes are what
	// count.)
	if c, u, _ := writes(loadDoc, nil); c != 1 || u != 1 {
		t.Fatalf("a LoadData: %d creates, %d updates, want 1 and 1", c, u)
	}
	followed := `{"type":"operationUpdate","operationId":"f","operation":{"FilterData":{"inputPath":"/input/xs","conditions":[{"field":"","operator":">","value":0}],"outputPath":"/workflow/f"}}}
{"type":"beginExecution","executionId":"followed-1","operationOrder":["f"]}`
	if c, u, _ := writes(followed, func(*e2a.Response) {}); c != 1 || u != 1 {
		t.Fatalf("a followed run: %d creates, %d updates, want 1 and 1", c, u)
	}
}

// The same replayable document sent several times at once, with one
// executionId: every caller is answered with the one execution stored.
func TestReplayableResubmittedAtOnce(t *testing.T) {
	n := startNode(t, t.TempDir(), newGatedClock(), 1)
	ctx := context.Background()
	doc := []byte(`{"type":"operationUpdate","operationId":"f","operation":{"FilterData":{"inputPath":"/input/xs","conditions":[{"field":"","operator":">","value":0}],"outputPath":"/workflow/f"}}}
{"type":"beginExecution","executionId":"same-1","operationOrder":["f"]}`)
	const callers = 8
	ids := make([]string, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			out, err := n.m.Execute(ctx, principal("bob"), execution.Request{Document: doc, Input: map[string]any{"xs": []any{1}}})
			switch {
			case err != nil:
				t.Errorf("caller %d: %v", i, err)
			case out.Result != nil:
				ids[i] = out.Result.ExecutionID
			case out.View != nil:
				ids[i] = out.View.ExecutionID
			}
		})
	}
	wg.Wait()
	list, _, err := n.db.ListExecutions(ctx, "bob", store.ExecutionQuery{})
	if err != nil || len(list) != 1 {
		t.Fatalf("%d executions stored (%v), want 1", len(list), err)
	}
	for i, id := range ids {
		if id != list[0].ID {
			t.Fatalf("caller %d was answered with %q, the one stored is %q", i, id, list[0].ID)
		}
	}
}

// A call stored when done (an op.<Operation> tool call) has an executionId
// the server made up: its record keeps no client id, while the same
// workflow sent by a client keeps the client's.
func TestStoreWhenDoneKeepsNoClientID(t *testing.T) {
	n := startNode(t, t.TempDir(), newGatedClock(), 1)
	ctx := context.Background()
	op := a2e.Operation{Name: "FilterData", Config: []byte(`{"inputPath":"/input/xs","conditions":[{"field":"","operator":">","value":0}],"outputPath":"/workflow/f"}`)}
	input := map[string]any{"xs": []any{1, 2}}
	for _, c := range []struct {
		storeWhenDone bool
		want          string
	}{{true, ""}, {false, "call-7"}} {
		wf := a2e.OneOperation("f", "call-7", op)
		out, err := n.m.Execute(ctx, principal("carol"), execution.Request{Workflow: wf, Input: input, StoreWhenDone: c.storeWhenDone})
		if err != nil || out.Result == nil {
			t.Fatalf("execute (store when done: %v): %+v %v", c.storeWhenDone, out, err)
		}
		e, err := n.db.GetExecution(ctx, "carol", out.Result.ExecutionID)
		if err != nil || e.ClientID != c.want || e.Status != store.StatusSuccess {
			t.Fatalf("store when done %v: record %+v (%v), want client id %q", c.storeWhenDone, e, err, c.want)
		}
	}
}
