package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/telemetry"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// DefaultMaxWait bounds how long a Client waits for a result: an agent's
// timeout times its attempts and backoff fits well inside it.
const DefaultMaxWait = 10 * time.Minute

// Client calls agents through the queue: Invoke enqueues a task and waits
// for its result, which Run takes from the reply topic. It has the
// Invoker's signature, so the gateway uses either.
type Client struct {
	Queue queue.Queue
	// Tasks is the tasks topic; "": agenthttp.TopicTasks.
	Tasks string
	// ReplyTo is this client's results topic: one per gateway process when
	// several share a queue, so each gets its own callers' results; "":
	// agenthttp.TopicResults.
	ReplyTo string
	// Agents reports whether an agent is registered, so an unknown name is a
	// NotFound at once instead of a task; nil skips the check.
	Agents func(ctx context.Context, name string) (bool, error)
	// MaxWait bounds one Invoke; 0: DefaultMaxWait.
	MaxWait time.Duration
	// Owner names this client's leases of results; "": "bridge-client".
	Owner  string
	Clock  clock.Clock  // nil: real time
	Logger *slog.Logger // nil: discard

	mu      sync.Mutex
	pending map[string]chan *agenthttp.ResultMessage
	// listeners are the update functions of waiters that asked for updates
	// (op.WithAgentUpdates), by the same key.
	listeners map[string]func(op.AgentUpdate)
	// running are the cancel functions of tasks a worker of this process
	// runs for this client's callers (Worker.Local), by the same key: a
	// caller that gives up stops its task, which cancels the remote A2A
	// task it started.
	running map[string]context.CancelFunc
	// dropped counts results nobody waited for (duplicates, or callers that
	// gave up), for tests and logs.
	dropped int
}

func (c *Client) replyTo() string {
	if c.ReplyTo == "" {
		return agenthttp.TopicResults
	}
	return c.ReplyTo
}

func (c *Client) log() *slog.Logger {
	if c.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Logger
}

func (c *Client) now() time.Time {
	if c.Clock == nil {
		return time.Now()
	}
	return c.Clock.Now()
}

// Invoke sends a task to agent name through the queue and returns its
// output, or the error the worker's call ended with (same kind and message
// as calling the agent directly). taskID is the agent's idempotency key
// (empty: one is made up); correlationID goes in X-Correlation-ID (empty:
// the task id). When ctx ends or MaxWait passes first, the task may still
// run; its result is then dropped.
func (c *Client) Invoke(ctx context.Context, name, taskID string, input json.RawMessage, correlationID string) (json.RawMessage, error) {
	if err := agenthttp.CheckName("agent", name); err != nil {
		return nil, fault.New(fault.Invalid, "%v", err).WithDetail("agent", name)
	}
	if c.Agents != nil {
		ok, err := c.Agents(ctx, name)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fault.New(fault.NotFound, "agent %q is not registered", name).WithDetail("agent", name).
				WithSuggestions("List the registered agents with `sluice agents list`")
		}
	}
	if taskID == "" {
		taskID = ids.New(ids.Task)
	}
	if correlationID == "" {
		correlationID = taskID
	}
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}
	// Each call is its own run: its id keys the result to this waiter, and
	// nobody else can guess it (a caller reusing a task id gets its own
	// result, never another account's).
	t := agenthttp.TaskMessage{RunID: ids.New(ids.AgentCall), TaskID: taskID, AgentName: name, InputData: input,
		CorrelationID: correlationID, ReplyTo: c.replyTo(), Timestamp: c.now()}
	// What the caller asked beyond the input goes with the task: the remote
	// task it continues, the conversation it is part of, and whether it
	// listens to updates.
	if cont, ok := op.AgentContinuationFrom(ctx); ok {
		t.RemoteTaskID, t.ContextID = cont.TaskID, cont.ContextID
	}
	t.Conversation = op.AgentConversationFrom(ctx)
	listen := op.AgentUpdatesFrom(ctx)
	t.Updates = listen != nil
	key := itemID(t.RunID, t.TaskID)
	// The task carries the send span's context: the worker's spans are its
	// children, in the caller's trace, whichever queue is between.
	ctx, span := telemetry.StartSend(ctx, c.tasks(), key, len(input))
	defer span.End()
	tc := telemetry.CarrierOf(ctx)
	t.Traceparent, t.Tracestate, t.Baggage = tc.Traceparent, tc.Tracestate, tc.Baggage
	b, err := json.Marshal(t)
	if err != nil {
		return nil, fault.New(fault.Invalid, "the agent's input is not JSON").WithDetail("path", "input")
	}
	if _, err := agenthttp.DecodeTaskMessage(b, agenthttp.Limits{}); err != nil {
		return nil, fault.New(fault.Invalid, "%v", err)
	}
	ch := make(chan *agenthttp.ResultMessage, 1)
	c.mu.Lock()
	if c.pending == nil {
		c.pending = map[string]chan *agenthttp.ResultMessage{}
	}
	c.pending[key] = ch
	if listen != nil {
		if c.listeners == nil {
			c.listeners = map[string]func(op.AgentUpdate){}
		}
		c.listeners[key] = listen
	}
	c.mu.Unlock()
	defer c.forget(key)
	if _, err := c.Queue.Enqueue(ctx, queue.Message{Topic: c.tasks(), ID: key, Payload: b}); err != nil {
		telemetry.Fail(span, err)
		return nil, err
	}
	wait := c.MaxWait
	if wait <= 0 {
		wait = DefaultMaxWait
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case r := <-ch:
		if r.Status == agenthttp.ResultSuccess {
			return r.OutputData, nil
		}
		return nil, errorOf(r, name)
	case <-timer.C:
		return nil, fault.New(fault.Timeout, "no result for agent %s's task %s within %s: is a worker running (`sluice worker`, or serve without --workers 0)?",
			name, taskID, wait).WithDetail("agent", name).WithDetail("taskId", taskID)
	case <-ctx.Done():
		c.stop(key)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fault.New(fault.Timeout, "agent %s's task %s did not finish in time", name, taskID).
				WithDetail("agent", name).WithDetail("taskId", taskID)
		}
		return nil, ctx.Err()
	}
}

func (c *Client) tasks() string {
	if c.Tasks == "" {
		return agenthttp.TopicTasks
	}
	return c.Tasks
}

func (c *Client) forget(key string) {
	c.mu.Lock()
	delete(c.pending, key)
	delete(c.listeners, key)
	c.mu.Unlock()
}

// started records the cancel function of a task a worker of this process
// runs for this client; the worker calls stopped when it is done.
func (c *Client) started(key string, cancel context.CancelFunc) {
	c.mu.Lock()
	if c.running == nil {
		c.running = map[string]context.CancelFunc{}
	}
	c.running[key] = cancel
	c.mu.Unlock()
}

func (c *Client) stopped(key string) {
	c.mu.Lock()
	delete(c.running, key)
	c.mu.Unlock()
}

// stop cancels the task of key when a worker of this process runs it. A
// task a worker of another process runs goes on to its end, and its result
// is dropped.
func (c *Client) stop(key string) {
	c.mu.Lock()
	cancel := c.running[key]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// update hands one update of a task to its caller, when it still listens.
// The listener runs outside the lock, in the order updates arrive.
func (c *Client) update(runID, taskID string, u op.AgentUpdate) {
	c.mu.Lock()
	fn := c.listeners[itemID(runID, taskID)]
	c.mu.Unlock()
	if fn != nil {
		fn(u)
	}
}

// Run takes results from the reply topic until ctx ends and hands each to
// its waiter; a result nobody waits for (a duplicate of one handed over
// already, or its caller gave up) is dropped. Every result is acked.
func (c *Client) Run(ctx context.Context) error {
	owner := c.Owner
	if owner == "" {
		owner = "bridge-client"
	}
	for ctx.Err() == nil {
		items, err := c.Queue.Lease(ctx, c.replyTo(), owner, leaseBatch, DefaultLease)
		if err != nil {
			if ctx.Err() == nil {
				c.log().Warn("agent result queue unavailable", "error", fault.From(err))
				_ = clock.Real{}.Sleep(ctx, retryDelay)
			}
			continue
		}
		if len(items) == 0 {
			_ = c.Queue.Wait(ctx, c.replyTo())
			continue
		}
		for _, it := range items {
			c.deliver(it)
			if err := c.Queue.Ack(ctx, it); err != nil && ctx.Err() == nil {
				c.log().Warn("agent result not acked", "item", it.ID, "error", fault.From(err))
			}
		}
	}
	return nil
}

func (c *Client) deliver(it queue.Item) {
	if agenthttp.IsUpdateMessage(it.Payload) {
		m, err := agenthttp.DecodeUpdateMessage(it.Payload, agenthttp.Limits{})
		if err != nil {
			c.log().Warn("agent update dropped: not an update message", "item", it.ID, "error", err.Error())
			return
		}
		var delta any
		_ = json.Unmarshal(m.Delta, &delta) // the decoder read it as JSON
		c.update(m.RunID, m.TaskID, op.AgentUpdate{Kind: m.DeltaKind, Delta: delta})
		return
	}
	r, err := agenthttp.DecodeResultMessage(it.Payload, agenthttp.Limits{})
	if err != nil {
		c.log().Warn("agent result dropped: not a result message", "item", it.ID, "error", err.Error())
		return
	}
	c.handOver(r)
}

// handOver gives r to its waiter, or drops it when there is none.
func (c *Client) handOver(r *agenthttp.ResultMessage) {
	key := itemID(r.RunID, r.TaskID)
	c.mu.Lock()
	ch, ok := c.pending[key]
	delete(c.pending, key)
	if !ok {
		c.dropped++
	}
	c.mu.Unlock()
	if !ok {
		c.log().Debug("agent result nobody waits for: a duplicate, or its caller gave up", "run", r.RunID, "task", r.TaskID)
		return
	}
	delete(c.listeners, key) // the result is the last word: no update after it
	ch <- r                  // buffered, and the only send: the key was removed above
}

// Dropped is how many results were dropped because nobody waited for them.
func (c *Client) Dropped() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped
}

// TaskDepth counts the agent tasks on the queue (waiting, delayed or being
// called), up to max, when the queue can tell (queue.Depther); ok is false
// when it cannot.
func (c *Client) TaskDepth(ctx context.Context, max int) (n int, ok bool, err error) {
	d, ok := c.Queue.(queue.Depther)
	if !ok {
		return 0, false, nil
	}
	n, err = d.Depth(ctx, c.tasks(), max)
	return n, err == nil, err
}
