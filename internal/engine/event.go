package engine

import (
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/sluicehq/sluice/internal/fault"
)

// EventKind names what happened.
type EventKind string

// The event kinds.
const (
	EventExecutionStarted  EventKind = "execution.started"
	EventExecutionFinished EventKind = "execution.finished"
	EventStarted           EventKind = "started"  // a step's first attempt begins
	EventRetried           EventKind = "retried"  // an attempt failed and will be retried after Delay
	EventFinished          EventKind = "finished" // a step succeeded
	EventFailed            EventKind = "failed"   // a step failed for good
	EventWaiting           EventKind = "waiting"  // a step suspended the execution
	EventParked            EventKind = "parked"   // a step parked the execution until a time (a Wait)
	// EventChunk is progress a running step reported (op.RunContext.Progress,
	// an agent's updates): DeltaKind and Delta, written as the execution's
	// e2a.chunk frame of that kind.
	EventChunk EventKind = "chunk"
)

// MaxChunkEvents bounds the EventChunk events of one run (of one Run or
// Resume): past it a step's progress is dropped, and one last chunk says so.
const MaxChunkEvents = 4096

// Event is one progress report. It holds only public-safe data: errors are
// their public objects, outputs are never included.
type Event struct {
	Kind        EventKind `json:"kind"`
	Time        time.Time `json:"time"`
	ExecutionID string    `json:"executionId"`
	OperationID string    `json:"operationId,omitempty"`
	Operation   string    `json:"operation,omitempty"` // operation name
	// Position names the step's place: "3", "3/0" (in a branch), "3/it5/0" (in
	// iteration 5 of a loop).
	Position string `json:"position,omitempty"`
	// Iteration is the index of the innermost loop iteration the step runs in.
	Iteration *int          `json:"iteration,omitempty"`
	Attempt   int           `json:"attempt,omitempty"`
	DelayMs   int64         `json:"delayMs,omitempty"`    // retried: the wait before the next attempt
	Duration  int64         `json:"durationMs,omitempty"` // finished/failed/execution.finished
	Cached    bool          `json:"cached,omitempty"`     // finished from the cache
	Resumed   bool          `json:"resumed,omitempty"`    // execution.started by Resume
	Status    Status        `json:"status,omitempty"`     // execution.finished
	Error     *fault.Object `json:"error,omitempty"`      // retried, failed
	Reason    string        `json:"reason,omitempty"`     // waiting
	DeltaKind string        `json:"deltaKind,omitempty"`  // chunk: an E2A delta kind
	Delta     any           `json:"delta,omitempty"`      // chunk: a string, or an object
	// Trace is the span context of the run the event belongs to, when
	// tracing is on: an observer of finished operations gives it to its
	// latency histogram as the exemplar. Never encoded.
	Trace trace.SpanContext `json:"-"`
}
