package telemetry

import (
	"context"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Instrumentation is the tracer's instrumentation scope name.
const Instrumentation = "github.com/sluicehq/sluice"

// state is what Setup or Install put in force; nil: tracing is off.
type state struct {
	tracer trace.Tracer
	slow   time.Duration // Settings.SlowStoreWrite
	// slowStep is Settings.SlowStep.
	slowStep time.Duration
	// parentBased: the sampler follows the parent's decision, so a local
	// span under an unsampled one would not be sampled either and need not
	// be made (the SDK's non-recording span costs ~1 µs and 5 allocations).
	parentBased bool
}

// skip reports whether a span under ctx need not be made: the sampler
// follows the parent and ctx's local span is unsampled. The caller then
// uses ctx and that span itself (its End does nothing; the context it
// propagates is the same).
func (st *state) skip(ctx context.Context) bool {
	if !st.parentBased {
		return false
	}
	sc := trace.SpanContextFromContext(ctx)
	return sc.IsValid() && !sc.IsSampled() && !sc.IsRemote()
}

func (st *state) start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	if st.skip(ctx) {
		return ctx, trace.SpanFromContext(ctx)
	}
	return st.tracer.Start(ctx, name, opts...)
}

var current atomic.Pointer[state]

// noSpan is the span of every Start while tracing is off.
var noSpan trace.Span = noop.Span{}

// Enabled reports whether spans are being made.
func Enabled() bool { return current.Load() != nil }

// Start starts a span named name of kind under ctx's span. Off, it returns
// ctx itself and a no-op span, allocating nothing; callers set attributes
// only when span.IsRecording().
func Start(ctx context.Context, name string, kind trace.SpanKind) (context.Context, trace.Span) {
	st := current.Load()
	if st == nil {
		return ctx, noSpan
	}
	return st.start(ctx, name, trace.WithSpanKind(kind))
}

// StartWith is Start with the SDK's start options (a queue wait starts
// when its item was enqueued: trace.WithTimestamp).
func StartWith(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	st := current.Load()
	if st == nil {
		return ctx, noSpan
	}
	return st.start(ctx, name, opts...)
}

// StartNamed is Start of the span "verb name" ("operation ApiCall",
// "invoke_agent echo"): the name is made only when tracing is on.
func StartNamed(ctx context.Context, verb, name string, kind trace.SpanKind) (context.Context, trace.Span) {
	st := current.Load()
	if st == nil {
		return ctx, noSpan
	}
	if st.skip(ctx) {
		return ctx, trace.SpanFromContext(ctx) // before the name is made
	}
	return st.tracer.Start(ctx, verb+" "+name, trace.WithSpanKind(kind))
}

// DefaultSlowStoreWrite is the threshold of SlowWrite when none is set.
const DefaultSlowStoreWrite = 50 * time.Millisecond

// WriteStart is the start of a store write that SlowWrite may trace: now
// when tracing is on, else the zero time (and no clock is read).
func WriteStart() time.Time {
	if current.Load() == nil {
		return time.Time{}
	}
	return time.Now()
}

// SlowWrite gives a store write that began at start (WriteStart) a span
// "store <what>" of its own, after the fact, when it took the slow store
// write threshold or longer; faster writes, and all writes with tracing
// off, leave nothing.
func SlowWrite(ctx context.Context, what string, start time.Time, size int) {
	st := current.Load()
	if st == nil || start.IsZero() {
		return
	}
	end := time.Now()
	if end.Sub(start) < st.slow {
		return
	}
	if st.skip(ctx) {
		return
	}
	_, span := st.tracer.Start(ctx, "store "+what, trace.WithSpanKind(trace.SpanKindClient), trace.WithTimestamp(start))
	span.SetAttributes(AttrSizeBytes.Int(size))
	span.End(trace.WithTimestamp(end))
}
