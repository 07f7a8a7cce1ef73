package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// AttrDurationMs is the duration of a step recorded as an event.
const AttrDurationMs = attribute.Key("sluice.duration_ms")

// Step is the trace of a workflow step whose operation calls nothing out
// (a pure operation: data in memory, microseconds). A sampled span costs
// more than such a step (4–6 µs and 1.1 KiB; docs/performance.md). By
// default every step has its span, as the semantic conventions and an
// operator reading a trace expect; with Settings.SlowStep set
// (telemetry.quick_step_events), a step that succeeds at once in less time
// is an event on the enclosing span (the run's), with its attributes and
// duration, and only a retried (its attempts need a parent), failed or
// slower step has a span of its own.
type Step struct {
	ctx    context.Context // the enclosing span's, then the step's once made
	tracer trace.Tracer    // nil: nothing is recorded
	name   string
	start  time.Time
	slow   time.Duration // Settings.SlowStep
	span   trace.Span    // made by Context or at once; nil until then
}

// StartStep starts the trace of a pure step named "verb name" under ctx.
// Off, or under an unsampled span, it records nothing and allocates
// nothing.
func StartStep(ctx context.Context, verb, name string) Step {
	st := current.Load()
	if st == nil || st.skip(ctx) {
		return Step{ctx: ctx}
	}
	s := Step{ctx: ctx, tracer: st.tracer, name: verb + " " + name, start: time.Now(), slow: st.slowStep}
	if !trace.SpanFromContext(ctx).IsRecording() {
		// No span to hold the event (a sampler that does not follow the
		// parent): a span of its own, as Start makes.
		s.ctx, s.span = st.tracer.Start(ctx, s.name, trace.WithSpanKind(trace.SpanKindInternal))
	}
	return s
}

// Recording reports whether End records anything: the caller makes End's
// attributes only then.
func (s *Step) Recording() bool { return s.tracer != nil }

// Context is the context the step's later attempts run under: with the
// step's span, made now with the step's start time when it was not yet.
func (s *Step) Context() context.Context {
	if s.tracer != nil && s.span == nil {
		s.ctx, s.span = s.tracer.Start(s.ctx, s.name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithTimestamp(s.start))
	}
	return s.ctx
}

// End ends the step with err (nil: it succeeded) and attrs: on its span
// when it has one or is slow or failed, else as an event on the enclosing
// span, attrs then with the duration appended (give attrs room for it).
func (s *Step) End(err error, attrs ...attribute.KeyValue) {
	if s.tracer == nil {
		return
	}
	if s.span != nil {
		s.span.SetAttributes(attrs...)
		End(s.span, err)
		return
	}
	end := time.Now()
	took := end.Sub(s.start)
	if err != nil || took >= s.slow {
		_, span := s.tracer.Start(s.ctx, s.name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithTimestamp(s.start),
			trace.WithAttributes(attrs...))
		Fail(span, err)
		span.End(trace.WithTimestamp(end))
		return
	}
	attrs = append(attrs, AttrDurationMs.Float64(float64(took)/float64(time.Millisecond)))
	trace.SpanFromContext(s.ctx).AddEvent(s.name, trace.WithTimestamp(s.start), trace.WithAttributes(attrs...))
}
