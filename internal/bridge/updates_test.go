package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
)

// A caller behind the queue gets what it would calling the agent
// directly: the call's updates, in order, before its result (in memory to
// a Client of the worker's process, as update messages through the queue
// to another); the remote task it continues reaches the invoker; and a
// waiting remote task's question and ids come back in the error's details.
func TestUpdatesContinuationAndPendingCrossTheQueue(t *testing.T) {
	for _, local := range []bool{false, true} {
		t.Run(map[bool]string{false: "queue", true: "in-process"}[local], func(t *testing.T) {
			var seen op.AgentContinuation
			inv := &fakeInvoker{fn: func(ctx context.Context, n int, c call) (json.RawMessage, error) {
				up := op.AgentUpdatesFrom(ctx)
				if up == nil {
					return nil, fault.New(fault.Internal, "no update function in the worker's call")
				}
				for i := range 5 {
					up(op.AgentUpdate{Kind: "text", Delta: fmt.Sprint("chunk ", i)})
				}
				up(op.AgentUpdate{Kind: "custom", Delta: map[string]any{"type": "status", "state": "TASK_STATE_WORKING"}})
				if n == 1 {
					p := &op.AgentPending{Agent: c.name, State: "TASK_STATE_INPUT_REQUIRED", TaskID: "remote-1", ContextID: "ctx-1",
						Question: map[string]any{"text": "which color?"}}
					return nil, fault.New(fault.Upstream, "agent %s asks for input", c.name).WithDetail(op.DetailInputRequired, p.Map())
				}
				seen, _ = op.AgentContinuationFrom(ctx)
				return json.RawMessage(`{"color":"blue"}`), nil
			}}
			c := pair(t, localQueue(t), inv, func(c *Client, w *Worker) {
				if local {
					w.Local = c
				}
			})
			var mu sync.Mutex
			var got []op.AgentUpdate
			listen := op.WithAgentUpdates(ctx, func(u op.AgentUpdate) { mu.Lock(); got = append(got, u); mu.Unlock() })

			_, err := c.Invoke(listen, "planner", "task-1", json.RawMessage(`{}`), "")
			p, ok := op.AgentPendingOf(err)
			if !ok || p.TaskID != "remote-1" || p.ContextID != "ctx-1" || p.Question.(map[string]any)["text"] != "which color?" {
				t.Fatalf("error %v: pending %+v", err, p)
			}
			out, err := c.Invoke(op.WithAgentContinuation(listen, op.AgentContinuation{TaskID: p.TaskID, ContextID: p.ContextID}),
				"planner", "task-2", json.RawMessage(`{"text":"blue"}`), "")
			if err != nil || string(out) != `{"color":"blue"}` {
				t.Fatalf("answer %s, %v", out, err)
			}
			if seen != (op.AgentContinuation{TaskID: "remote-1", ContextID: "ctx-1"}) {
				t.Fatalf("the invoker continued %+v", seen)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != 12 {
				t.Fatalf("%d updates, want 12 (6 a call): %v", len(got), got)
			}
			for i, u := range got[:6] {
				want := fmt.Sprint("chunk ", i)
				if i == 5 {
					want = "map[state:TASK_STATE_WORKING type:status]"
				}
				if fmt.Sprint(u.Delta) != want {
					t.Fatalf("update %d is %v, want %s", i, u.Delta, want)
				}
			}
		})
	}
}

// A caller that asks for no updates gets none sent: the task says so.
func TestNoUpdatesUnlessAsked(t *testing.T) {
	inv := &fakeInvoker{fn: func(ctx context.Context, _ int, _ call) (json.RawMessage, error) {
		if op.AgentUpdatesFrom(ctx) != nil {
			return nil, fault.New(fault.Internal, "the worker listens for updates nobody asked for")
		}
		return json.RawMessage(`{}`), nil
	}}
	c := pair(t, localQueue(t), inv, nil)
	if _, err := c.Invoke(ctx, "planner", "task-1", nil, ""); err != nil {
		t.Fatal(err)
	}
}

// A caller that gives up stops its task in a worker of its own process:
// the invoker's context ends (and an A2A call cancels its remote task).
func TestCallerGivingUpStopsTheLocalTask(t *testing.T) {
	began, ended := make(chan struct{}), make(chan struct{})
	inv := &fakeInvoker{fn: func(ctx context.Context, _ int, _ call) (json.RawMessage, error) {
		close(began)
		<-ctx.Done()
		close(ended)
		return nil, ctx.Err()
	}}
	c := pair(t, localQueue(t), inv, func(c *Client, w *Worker) { w.Local = c })
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := c.Invoke(cctx, "planner", "task-1", nil, "")
		done <- err
	}()
	wait(t, began, "the task to begin")
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled call answered")
	}
	wait(t, ended, "the task to stop once its caller gave up")
}

// wait fails the test when ch is not closed within 30 s.
func wait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}
