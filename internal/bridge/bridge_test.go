package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// pair runs a client and a worker on q and returns the client.
func pair(t *testing.T, q queue.Queue, inv Invoker, tune func(*Client, *Worker)) *Client {
	t.Helper()
	c := &Client{Queue: q}
	w := &Worker{Queue: q, Invoker: inv, Workers: 4}
	if tune != nil {
		tune(c, w)
	}
	start(t, func(ctx context.Context) { _ = c.Run(ctx) })
	start(t, func(ctx context.Context) { _ = w.Run(ctx, "w1") })
	return c
}

func TestInvokeThroughTheQueue(t *testing.T) {
	inv := &fakeInvoker{}
	c := pair(t, localQueue(t), inv, nil)
	out, err := c.Invoke(ctx, "summarizer", "task-1", json.RawMessage(`{"text":"hi"}`), "corr-1")
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"echo":{"text":"hi"}}` {
		t.Fatalf("output %s", out)
	}
	calls := inv.recorded()
	if len(calls) != 1 || calls[0].name != "summarizer" || calls[0].taskID != "task-1" || calls[0].correlationID != "corr-1" {
		t.Fatalf("calls %+v", calls)
	}
}

func TestDefaultsForTaskIDInputAndCorrelation(t *testing.T) {
	inv := &fakeInvoker{}
	c := pair(t, localQueue(t), inv, nil)
	out, err := c.Invoke(ctx, "summarizer", "", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"echo":{}}` {
		t.Fatalf("output %s", out)
	}
	got := inv.recorded()[0]
	if !strings.HasPrefix(got.taskID, "task-") || got.correlationID != got.taskID {
		t.Fatalf("task id %q, correlation %q: want a made-up task id that is also the correlation id", got.taskID, got.correlationID)
	}
}

// A failure reaches the caller with the kind and message the worker's call
// ended with, as if the agent had been called directly.
func TestFailureKeepsItsKindAndMessage(t *testing.T) {
	for _, kind := range []fault.Kind{fault.NotFound, fault.Upstream, fault.Timeout, fault.PermissionDenied, fault.RateLimited} {
		t.Run(kind.String(), func(t *testing.T) {
			inv := &fakeInvoker{fn: func(context.Context, int, call) (json.RawMessage, error) {
				return nil, fault.New(kind, "agent summarizer answered badly").WithCause(errors.New("internal cause"))
			}}
			c := pair(t, localQueue(t), inv, nil)
			_, err := c.Invoke(ctx, "summarizer", "task-1", nil, "")
			fe, ok := fault.As(err)
			if !ok || fe.Kind != kind || fe.Message != "agent summarizer answered badly" {
				t.Fatalf("got %#v, want kind %v with the worker's message", err, kind)
			}
			if strings.Contains(err.Error(), "internal cause") {
				t.Fatal("the cause of a worker's error crossed the queue")
			}
		})
	}
}

func TestUnknownAgentIsNotFoundWithoutATask(t *testing.T) {
	q := localQueue(t)
	c := &Client{Queue: q, Agents: func(_ context.Context, name string) (bool, error) { return name == "known", nil }}
	_, err := c.Invoke(ctx, "nope", "task-1", nil, "")
	if fault.KindOf(err) != fault.NotFound || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("got %v, want a NotFound naming the agent", err)
	}
	if items, _ := q.Lease(ctx, agenthttp.TopicTasks, "probe", 10, time.Second); len(items) != 0 {
		t.Fatalf("a task was queued for an unknown agent: %+v", items)
	}
}

func TestBadAgentNameIsInvalid(t *testing.T) {
	c := &Client{Queue: localQueue(t)}
	_, err := c.Invoke(ctx, "", "task-1", nil, "")
	if fault.KindOf(err) != fault.Invalid {
		t.Fatalf("got %v, want Invalid", err)
	}
}

func TestInputMustBeAnObject(t *testing.T) {
	c := &Client{Queue: localQueue(t)}
	_, err := c.Invoke(ctx, "summarizer", "task-1", json.RawMessage(`[1,2]`), "")
	if fault.KindOf(err) != fault.Invalid || !strings.Contains(err.Error(), "input_data") {
		t.Fatalf("got %v, want Invalid naming input_data", err)
	}
}

// No worker: the caller is told so when its wait is over, and the task's
// late result is dropped.
func TestNoWorkerTimesOutAndTheLateResultIsDropped(t *testing.T) {
	q := localQueue(t)
	c := &Client{Queue: q, MaxWait: 50 * time.Millisecond}
	start(t, func(ctx context.Context) { _ = c.Run(ctx) })
	_, err := c.Invoke(ctx, "summarizer", "task-1", nil, "")
	if fault.KindOf(err) != fault.Timeout || !strings.Contains(err.Error(), "worker") {
		t.Fatalf("got %v, want a Timeout that points at the workers", err)
	}
	w := &Worker{Queue: q, Invoker: &fakeInvoker{}}
	start(t, func(ctx context.Context) { _ = w.Run(ctx, "late") })
	eventually(t, "the late result to be dropped", func() bool { return c.Dropped() == 1 })
}

func TestCallerContextEnds(t *testing.T) {
	release := make(chan struct{})
	inv := &fakeInvoker{fn: func(ctx context.Context, _ int, _ call) (json.RawMessage, error) {
		<-release
		return json.RawMessage(`{}`), nil
	}}
	c := pair(t, localQueue(t), inv, nil)
	// Long enough that a worker has the task before the caller gives up,
	// even on a busy machine: the result it then sends is the one dropped.
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err := c.Invoke(cctx, "summarizer", "task-1", nil, "")
	if fault.KindOf(err) != fault.Timeout {
		t.Fatalf("got %v, want Timeout", err)
	}
	close(release)
	eventually(t, "the result of the abandoned call to be dropped", func() bool { return c.Dropped() == 1 })
}

// A worker killed mid-task (its context ends while the agent works, so it
// neither publishes nor acks): the task is redelivered to another worker
// once the lease runs out, the agent is called again with the same task id,
// and the caller sees one result.
func TestWorkerKilledMidTask(t *testing.T) {
	q := localQueue(t)
	started := make(chan struct{})
	inv := &fakeInvoker{fn: func(ctx context.Context, n int, c call) (json.RawMessage, error) {
		if n == 1 {
			close(started)
			<-ctx.Done() // the first worker dies here
			return nil, ctx.Err()
		}
		return json.RawMessage(`{"attempt":` + string(rune('0'+n)) + `}`), nil
	}}
	c := &Client{Queue: q}
	start(t, func(ctx context.Context) { _ = c.Run(ctx) })
	lease := 300 * time.Millisecond
	killA := start(t, func(ctx context.Context) { _ = (&Worker{Queue: q, Invoker: inv, Lease: lease}).Run(ctx, "a") })
	type answer struct {
		out json.RawMessage
		err error
	}
	done := make(chan answer, 1)
	go func() {
		out, err := c.Invoke(ctx, "summarizer", "task-1", nil, "corr-1")
		done <- answer{out, err}
	}()
	<-started
	killA()
	start(t, func(ctx context.Context) { _ = (&Worker{Queue: q, Invoker: inv, Lease: lease}).Run(ctx, "b") })
	got := <-done
	if got.err != nil || string(got.out) != `{"attempt":2}` {
		t.Fatalf("got %s, %v; want the second worker's answer", got.out, got.err)
	}
	calls := inv.recorded()
	if len(calls) != 2 || calls[0].taskID != calls[1].taskID || calls[0].correlationID != calls[1].correlationID {
		t.Fatalf("calls %+v: want two with the same task and correlation ids", calls)
	}
	if n := c.Dropped(); n != 0 {
		t.Fatalf("%d results dropped; the dead worker published none", n)
	}
}

// A worker killed after it published the result but before it acked the
// task: the task runs again and a second result is published; the caller
// still sees one, and the second is dropped.
func TestWorkerKilledAfterPublishingBeforeAck(t *testing.T) {
	q := localQueue(t)
	inv := &fakeInvoker{}
	c := &Client{Queue: q}
	start(t, func(ctx context.Context) { _ = c.Run(ctx) })
	lease := 300 * time.Millisecond
	actx, killA := context.WithCancel(ctx)
	defer killA()
	a := &Worker{Queue: q, Invoker: inv, Lease: lease, published: func(*agenthttp.TaskMessage) { killA() }}
	doneA := make(chan struct{})
	go func() { defer close(doneA); _ = a.Run(actx, "a") }()
	out, err := c.Invoke(ctx, "summarizer", "task-1", json.RawMessage(`{"n":1}`), "")
	if err != nil || string(out) != `{"echo":{"n":1}}` {
		t.Fatalf("got %s, %v", out, err)
	}
	<-doneA
	start(t, func(ctx context.Context) { _ = (&Worker{Queue: q, Invoker: inv, Lease: lease}).Run(ctx, "b") })
	eventually(t, "the duplicate result to be dropped", func() bool { return c.Dropped() == 1 })
	if n := len(inv.recorded()); n != 2 {
		t.Fatalf("agent called %d times, want 2 (once per delivery)", n)
	}
}
