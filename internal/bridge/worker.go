package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/telemetry"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// Invoker calls an agent once, with the agent's own retries
// (internal/agent's Invoker).
type Invoker interface {
	Invoke(ctx context.Context, name, taskID string, input json.RawMessage, correlationID string) (json.RawMessage, error)
}

// Defaults of a Worker.
const (
	DefaultWorkers = 16
	// DefaultLease is how long a worker holds a task before it must extend
	// the lease; it extends every third of it while the agent works, so a
	// task of a dead worker is taken by another within this time.
	DefaultLease = 30 * time.Second
	// leaseBatch bounds the tasks taken in one Lease.
	leaseBatch = 64
	// retryDelay is how long a worker waits after the queue failed.
	retryDelay = time.Second
)

// Worker takes agent tasks from a queue, calls the agents and publishes the
// results. Its fields are set before Run and not changed after.
type Worker struct {
	Queue   queue.Queue
	Invoker Invoker
	// Topic is the tasks topic; "": agenthttp.TopicTasks.
	Topic string
	// Monitoring is the topic of monitoring updates (RUNNING, then COMPLETED
	// or FAILED, per task); "": none are published. Off by default, since
	// nobody consumes them unless an operator set something up to.
	Monitoring string
	// Workers is how many tasks run at once; 0: DefaultWorkers.
	Workers int
	// Local is the Client of this process, when there is one: a result for
	// its reply topic is handed to it in memory instead of through the queue
	// (only this process reads that topic, and a caller waiting in it is
	// gone if the process is), which saves three queue writes a task.
	Local *Client
	// Lease is how long a task is held between extensions; 0: DefaultLease.
	Lease time.Duration
	// ResultTTL is how long a result published through the queue is kept
	// unread before the queue may drop it (queue.Message.ExpiresAt); 0:
	// ResultTTL(0). Set it from the callers' agents.max_wait: once that has
	// passed nobody waits for the result, and a reply topic of a gateway
	// that is gone is never read again.
	ResultTTL time.Duration
	Clock     clock.Clock  // nil: real time
	Logger    *slog.Logger // nil: discard

	// published, when set, is called after a task's result was published and
	// before the task is acked (tests stop a worker there).
	published func(t *agenthttp.TaskMessage)
}

func (w *Worker) topic() string {
	if w.Topic == "" {
		return agenthttp.TopicTasks
	}
	return w.Topic
}

func (w *Worker) lease() time.Duration {
	if w.Lease <= 0 {
		return DefaultLease
	}
	return w.Lease
}

func (w *Worker) now() time.Time {
	if w.Clock == nil {
		return time.Now()
	}
	return w.Clock.Now()
}

func (w *Worker) log() *slog.Logger {
	if w.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return w.Logger
}

// Run takes tasks as owner until ctx ends, then waits for the tasks in hand
// and returns nil. A task in hand when ctx ends is left to its lease (not
// acked, not published): another worker, or this one after a restart, runs
// it again.
func (w *Worker) Run(ctx context.Context, owner string) error {
	if w.Queue == nil || w.Invoker == nil {
		return fault.New(fault.Internal, "bridge: the worker needs a queue and an invoker")
	}
	n := w.Workers
	if n <= 0 {
		n = DefaultWorkers
	}
	slots := make(chan struct{}, n)
	var wg sync.WaitGroup
	defer wg.Wait()
	for ctx.Err() == nil {
		// One free slot at least, then as many more as are free now: one
		// Lease takes them all.
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		free := 1
		for free < min(n, leaseBatch) {
			select {
			case slots <- struct{}{}:
				free++
				continue
			default:
			}
			break
		}
		items, err := w.Queue.Lease(ctx, w.topic(), owner, free, w.lease())
		for range free - len(items) {
			<-slots
		}
		if err != nil {
			if ctx.Err() == nil {
				w.log().Warn("agent task queue unavailable", "error", fault.From(err))
				_ = clock.Real{}.Sleep(ctx, retryDelay)
			}
			continue
		}
		for _, it := range items {
			wg.Add(1)
			go func() {
				defer func() { <-slots; wg.Done() }()
				w.handle(ctx, it)
			}()
		}
		if len(items) == 0 {
			_ = w.Queue.Wait(ctx, w.topic())
		}
	}
	return nil
}

// handle runs one task to the end: the result published, then the task
// acked. Nothing is acked when ctx ended first (the process is stopping) or
// the lease was lost (another worker has the task).
func (w *Worker) handle(ctx context.Context, it queue.Item) {
	t, err := agenthttp.DecodeTaskMessage(it.Payload, agenthttp.Limits{})
	if err != nil {
		// A message nobody can run: keeping it would redeliver it forever.
		// Its payload may hold an agent's input, so only the error (which
		// names the field) is logged.
		w.log().Warn("agent task dropped: not a task message", "item", it.ID, "error", err.Error())
		w.ack(ctx, it)
		return
	}
	// The call continues the caller's trace: the message's headers carry
	// its context where the queue keeps them, the task always.
	spanCtx, span := telemetry.StartProcess(it.Trace.Or(telemetry.Carrier{Traceparent: t.Traceparent, Tracestate: t.Tracestate,
		Baggage: t.Baggage}).Context(ctx), it.Topic, it.ID, it.Attempts, it.EnqueuedAt)
	defer span.End()
	callCtx, cancel := context.WithCancel(spanCtx)
	defer cancel()
	if w.Local != nil && t.ResultTopic() == w.Local.replyTo() {
		// Its caller waits in this process: when it gives up, the call
		// stops too (and cancels the remote task it started).
		key := itemID(t.RunID, t.TaskID)
		w.Local.started(key, cancel)
		defer w.Local.stopped(key)
	}
	hold := queue.Hold(ctx, w.Queue, it, w.lease(), func(error) { cancel() })
	w.monitor(ctx, t, agenthttp.StepRunning, map[string]any{"attempt": it.Attempts, "agent_name": t.AgentName})
	start := w.now()
	if t.RemoteTaskID != "" {
		callCtx = op.WithAgentContinuation(callCtx, op.AgentContinuation{TaskID: t.RemoteTaskID, ContextID: t.ContextID})
	}
	callCtx = op.WithAgentConversation(callCtx, t.Conversation)
	if t.Updates {
		callCtx = op.WithAgentUpdates(callCtx, w.updates(ctx, t))
	}
	out, err := w.Invoker.Invoke(callCtx, t.AgentName, t.TaskID, t.InputData, t.CorrelationID)
	telemetry.Fail(span, err)
	hold.Stop()
	if ctx.Err() != nil {
		return
	}
	if lost := hold.Lost(); lost != nil {
		w.log().Warn("agent task lease lost: another worker runs it", "item", it.ID, "error", fault.From(lost))
		return
	}
	res := resultOf(t, out, err)
	res.Timestamp = w.now()
	if perr := w.publish(ctx, t, res); perr != nil {
		// Not published: give the task back so that it runs again.
		w.log().Warn("agent task result not published; the task goes back", "item", it.ID, "error", fault.From(perr))
		if nerr := w.Queue.Nack(ctx, hold.Item(), retryDelay); nerr != nil && ctx.Err() == nil {
			w.log().Warn("agent task not given back", "item", it.ID, "error", fault.From(nerr))
		}
		return
	}
	meta := map[string]any{"duration_ms": w.now().Sub(start).Milliseconds(), "agent_name": t.AgentName}
	status := agenthttp.StepCompleted
	if err != nil {
		status = agenthttp.StepFailed
		meta["error"], meta["error_code"] = *res.ErrorMessage, res.ErrorCode
	}
	w.monitor(ctx, t, status, meta)
	if w.published != nil {
		w.published(t)
		if ctx.Err() != nil {
			return
		}
	}
	w.ack(ctx, hold.Item())
}

func (w *Worker) publish(ctx context.Context, t *agenthttp.TaskMessage, r agenthttp.ResultMessage) error {
	if w.Local != nil && t.ResultTopic() == w.Local.replyTo() {
		w.Local.handOver(&r)
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return fault.New(fault.Internal, "bridge: a result does not encode").WithCause(err)
	}
	if len(b) > queue.MaxPayloadBytes {
		// The agent's output is over what the queue carries: the caller gets
		// a failure that says so instead of nothing.
		msg := "the agent's output is " + strconv.Itoa(len(b)) + " bytes, over the queue's limit of " + strconv.Itoa(queue.MaxPayloadBytes)
		r.Status, r.OutputData, r.ErrorMessage, r.ErrorCode = agenthttp.ResultFailure, json.RawMessage("null"), &msg, fault.TooLarge.String()
		if b, err = json.Marshal(r); err != nil {
			return fault.New(fault.Internal, "bridge: a result does not encode").WithCause(err)
		}
	}
	ttl := w.ResultTTL
	if ttl <= 0 {
		ttl = ResultTTL(0)
	}
	_, err = w.Queue.Enqueue(ctx, queue.Message{Topic: t.ResultTopic(), ID: itemID(t.RunID, t.TaskID), Payload: b,
		ExpiresAt: w.now().Add(ttl)})
	return err
}

// updates is the update function of task t: each update goes to the
// task's reply topic ahead of its result, in memory to this process's
// Client when the caller waits here. An update that cannot be sent is
// dropped and logged: updates are progress, the result is the answer.
func (w *Worker) updates(ctx context.Context, t *agenthttp.TaskMessage) func(op.AgentUpdate) {
	seq := 0
	return func(u op.AgentUpdate) {
		seq++
		if w.Local != nil && t.ResultTopic() == w.Local.replyTo() {
			w.Local.update(t.RunID, t.TaskID, u)
			return
		}
		delta, err := json.Marshal(u.Delta)
		if err != nil {
			return
		}
		b, err := json.Marshal(agenthttp.UpdateMessage{RunID: t.RunID, TaskID: t.TaskID, Seq: seq, DeltaKind: u.Kind, Delta: delta})
		if err != nil || len(b) > queue.MaxPayloadBytes {
			return
		}
		ttl := w.ResultTTL
		if ttl <= 0 {
			ttl = ResultTTL(0)
		}
		if _, err := w.Queue.Enqueue(ctx, queue.Message{Topic: t.ResultTopic(), ID: itemID(t.RunID, t.TaskID+"/u"+strconv.Itoa(seq)),
			Payload: b, ExpiresAt: w.now().Add(ttl)}); err != nil && ctx.Err() == nil {
			w.log().Warn("agent update not published", "run", t.RunID, "task", t.TaskID, "error", fault.From(err))
		}
	}
}

func (w *Worker) ack(ctx context.Context, it queue.Item) {
	if err := w.Queue.Ack(ctx, it); err != nil && ctx.Err() == nil {
		w.log().Warn("agent task not acked; it may run again", "item", it.ID, "error", fault.From(err))
	}
}

// monitor publishes a monitoring update when a topic is set. A failure is
// logged, never the task's: monitoring is advisory.
func (w *Worker) monitor(ctx context.Context, t *agenthttp.TaskMessage, s agenthttp.StepStatus, meta map[string]any) {
	if w.Monitoring == "" {
		return
	}
	md, _ := json.Marshal(meta)
	m := agenthttp.MonitoringMessage{RunID: t.RunID, StepID: t.TaskID, StepName: t.AgentName, Status: s,
		Timestamp: w.now(), Metadata: md}
	if err := Publish(ctx, w.Queue, w.Monitoring, m); err != nil && !errors.Is(err, context.Canceled) {
		w.log().Warn("monitoring update not published", "run", t.RunID, "task", t.TaskID, "error", fault.From(err))
	}
}

// Publish puts a monitoring update on topic (agent workflows use it for
// their steps). Its item id is run/step/status, so a repeated update still
// queued is queued once.
func Publish(ctx context.Context, q queue.Queue, topic string, m agenthttp.MonitoringMessage) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fault.New(fault.Internal, "bridge: a monitoring update does not encode").WithCause(err)
	}
	_, err = q.Enqueue(ctx, queue.Message{Topic: topic, ID: itemID(m.RunID, m.StepID+"/"+string(m.Status)), Payload: b})
	return err
}
