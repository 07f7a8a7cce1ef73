package telemetry

import (
	"context"
	"sync/atomic"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Instrumentation is the tracer's instrumentation scope name.
const Instrumentation = "github.com/sluicehq/sluice"

// state is what Setup or Install put in force; nil: tracing is off.
type state struct {
	tracer trace.Tracer
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
	return st.tracer.Start(ctx, name, trace.WithSpanKind(kind))
}

// StartWith is Start with the SDK's start options (a queue wait starts
// when its item was enqueued: trace.WithTimestamp).
func StartWith(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	st := current.Load()
	if st == nil {
		return ctx, noSpan
	}
	return st.tracer.Start(ctx, name, opts...)
}

// StartNamed is Start of the span "verb name" ("operation ApiCall",
// "invoke_agent echo"): the name is made only when tracing is on.
func StartNamed(ctx context.Context, verb, name string, kind trace.SpanKind) (context.Context, trace.Span) {
	st := current.Load()
	if st == nil {
		return ctx, noSpan
	}
	return st.tracer.Start(ctx, verb+" "+name, trace.WithSpanKind(kind))
}
