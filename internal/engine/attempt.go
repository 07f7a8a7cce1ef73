package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/telemetry"
)

// attemptEnd says how one attempt ended.
type attemptEnd int

const (
	endDone        attemptEnd = iota // the operation returned a value
	endErr                           // the operation returned an error
	endOpTimeout                     // the step's own timeout passed
	endExecTimeout                   // the execution's budget ran out
	endCancelled                     // the caller cancelled
	endAborted                       // a sibling iteration halted
)

// noAttemptSpan stands for the span of an attempt that has none.
var noAttemptSpan = trace.SpanFromContext(context.Background())

// attemptEndNames name the ends of an attempt that failed, as the attempt
// span's error.type.
var attemptEndNames = [...]string{endDone: "", endErr: "error", endOpTimeout: "timeout",
	endExecTimeout: "execution_timeout", endCancelled: "cancelled", endAborted: "aborted"}

// errAbandoned stands for the error of an operation that did not return
// within the grace period after its context ended.
var errAbandoned = errors.New("operation did not return after its context ended")

// retryFor is the retry policy of st.
func (e *Engine) retryFor(st *Step) RetryPolicy {
	p := e.retry
	if st.Retry.MaxRetries != nil {
		p.MaxRetries = min(max(*st.Retry.MaxRetries, 0), maxRetries)
	}
	if st.Retry.InitialDelay != nil {
		p.InitialDelay = *st.Retry.InitialDelay
	}
	if st.Retry.MaxDelay != nil {
		p.MaxDelay = *st.Retry.MaxDelay
	}
	return p
}

// backoff is the delay before retry n (1-based): full jitter, uniform in
// [0, min(MaxDelay, InitialDelay * Multiplier^(n-1))].
func (e *Engine) backoff(p RetryPolicy, n int) time.Duration {
	ceiling := float64(p.InitialDelay) * math.Pow(p.Multiplier, float64(n-1))
	if ceiling > float64(p.MaxDelay) {
		ceiling = float64(p.MaxDelay)
	}
	return time.Duration(ceiling * e.float64())
}

// execute runs a step's attempts: from the cache when it may, else with
// retries of retryable failures. It returns the output, whether it came from
// the cache, a halt of the whole execution, or the step's final error.
func (ex *execution) execute(f *frame, pos string, st *Step) (out any, cached bool, h halt, fe *fault.Error) {
	// One span per step, one child per attempt: retries show in the trace.
	// A pure operation's step is an event on the run's span unless it is
	// retried, fails or is slow (telemetry.Step): a span costs more than it.
	octx, span := f.ctx, noAttemptSpan
	var pure telemetry.Step
	if st.Spec.Pure {
		pure = telemetry.StartStep(f.ctx, "operation", st.Name)
		if pure.Recording() {
			defer func() {
				var err error
				if fe != nil {
					err = fe
				}
				// Room for the duration End adds to an event: one allocation.
				pure.End(err, append(make([]attribute.KeyValue, 0, 5), telemetry.AttrOperation.String(st.Name),
					telemetry.AttrOperationID.String(st.ID), telemetry.AttrExecutionID.String(ex.id),
					attribute.Bool("sluice.cache_hit", cached))...)
			}()
		}
	} else {
		octx, span = telemetry.StartNamed(f.ctx, "operation", st.Name, trace.SpanKindInternal)
	}
	if span.IsRecording() {
		span.SetAttributes(telemetry.AttrOperation.String(st.Name), telemetry.AttrOperationID.String(st.ID),
			telemetry.AttrExecutionID.String(ex.id))
		defer func() {
			span.SetAttributes(attribute.Bool("sluice.cache_hit", cached))
			if fe != nil {
				telemetry.Fail(span, fe)
			}
		}()
	}
	defer span.End()
	var key string
	if ex.e.cache != nil && st.Cache && st.Spec.Pure && !st.Spec.Control && st.Spec.CacheTTL > 0 {
		if k, ok := cacheKey(st, f.v); ok {
			key = k
			if v, hit := ex.e.cache.Get(ex.account, key); hit {
				return v, true, haltNone, nil
			}
		}
	}
	if ex.onEvent != nil {
		ev := stepEvent(EventStarted, f, pos, st)
		ev.Attempt = 1
		ex.emit(ev)
	}
	policy := ex.e.retryFor(st)
	for attempt := 1; ; attempt++ {
		remaining := ex.remaining()
		if remaining <= 0 {
			return nil, false, ex.execTimeout(f, pos, st), nil
		}
		timeout := st.Timeout
		if timeout <= 0 {
			timeout = st.Spec.DefaultTimeout
		}
		if timeout <= 0 {
			timeout = ex.e.limits.DefaultTimeout
		}
		capped := timeout >= remaining
		if capped {
			timeout = remaining
		}
		if attempt > 1 && pure.Recording() {
			octx = pure.Context() // a retried pure step has its span, over its attempts'
		}
		out, end, err := ex.attempt(octx, f, pos, st, attempt, timeout, capped)
		var fe *fault.Error
		switch end {
		case endDone:
			if key != "" {
				ex.e.cache.Put(ex.account, key, "", out, st.Spec.CacheTTL)
			}
			return out, false, haltNone, nil
		case endCancelled:
			return nil, false, haltCancelled, nil
		case endAborted:
			return nil, false, haltAborted, nil
		case endExecTimeout:
			return nil, false, ex.execTimeout(f, pos, st), nil
		case endOpTimeout:
			fe = fault.Typed(fault.Timeout, fault.TimeoutError,
				"operation %q timed out after %d ms", st.ID, timeout.Milliseconds()).
				WithOp(st.ID).WithDetail("timeoutMs", timeout.Milliseconds()).WithCause(err).
				WithSuggestions("Raise the operation's timeout (milliseconds)")
			// The operation knows best whether repeating it is safe; when it
			// said nothing, only operations without side effects are retried.
			if ofe, ok := fault.As(err); ok {
				fe.Retryable, fe.RetryAfter = ofe.Retryable, ofe.RetryAfter
			} else {
				fe.Retryable = !st.Spec.SideEffects
			}
		case endErr:
			var s *op.Suspend
			if errors.As(err, &s) {
				return nil, false, ex.suspend(f, pos, st, s), nil
			}
			var p *op.Park
			if errors.As(err, &p) && ex.parkAfter > 0 && f.mayPark() {
				return nil, false, ex.park(f, pos, st, p), nil
			}
			fe = stepError(st, err)
			if fe.Kind == fault.Internal && fe.Cause != nil {
				ex.logger.ErrorContext(octx, "operation failed", "operationId", st.ID, "error", fe)
			}
		}
		if !fe.Retryable || attempt > policy.MaxRetries {
			return nil, false, haltNone, fe
		}
		delay := max(ex.e.backoff(policy, attempt), fe.RetryAfter)
		if delay >= ex.remaining() {
			// Sleeping would pass the deadline: stop with the last error.
			return nil, false, haltNone, fe
		}
		if ex.onEvent != nil {
			ev := stepEvent(EventRetried, f, pos, st)
			ev.Attempt = attempt
			ev.DelayMs = delay.Milliseconds()
			obj := fe.Object()
			ev.Error = &obj
			ex.emit(ev)
		}
		if err := ex.e.clock.Sleep(f.ctx, delay); err != nil {
			return nil, false, ex.interrupted(f, pos, st), nil
		}
	}
}

// stepError makes an operation's error the step's public error.
func stepError(st *Step, err error) *fault.Error {
	fe, ok := fault.As(err)
	if !ok {
		// A foreign error may carry anything: its text stays internal.
		return fault.Typed(fault.Internal, fault.ExecutionError,
			"operation %q failed with an internal error", st.ID).WithOp(st.ID).WithCause(err)
	}
	fe = copyFault(fe)
	if fe.OperationID == "" {
		fe.OperationID = st.ID
	}
	return fe
}

type attemptResult struct {
	out any
	err error
}

// attempt runs the operation once with timeout. The operation runs in its own
// goroutine so that one which ignores its context, or panics, cannot hang or
// crash the engine: after the context ends it gets AbandonGrace to return.
func (ex *execution) attempt(parent context.Context, f *frame, pos string, st *Step, n int, timeout time.Duration, capped bool) (_ any, end attemptEnd, err error) {
	// parent is f.ctx, or the step's span under it. The first attempt of a
	// pure operation (data in memory, no call out) has no span of its own:
	// the step's span is its whole story, and on the 5-operation data
	// workflow the five spans cost more than the rest of a sampled trace
	// (docs/performance.md). A retry always has its span.
	actx, span := parent, noAttemptSpan
	if n > 1 || !st.Spec.Pure {
		actx, span = telemetry.Start(parent, "attempt", trace.SpanKindInternal)
	}
	if span.IsRecording() {
		span.SetAttributes(telemetry.AttrAttempt.Int(n))
		defer func() {
			if end != endDone {
				span.SetStatus(codes.Error, attemptEndNames[end])
				span.SetAttributes(semconv.ErrorTypeKey.String(attemptEndNames[end]))
			}
		}()
	}
	defer span.End()
	// A capped attempt ends with the execution's budget, which f.ctx carries
	// already: no second timer. (With the default 30 s attempt timeout and 30 s
	// budget, that is every attempt.)
	if !capped {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(actx, timeout)
		defer cancel()
	}
	rc := &op.RunContext{
		Data:        f.v,
		Account:     ex.account,
		SessionID:   ex.session,
		ExecutionID: ex.id,
		OperationID: st.ID,
		Attempt:     n,
		Clock:       ex.e.clock,
		Logger:      ex.logger,
		Save:        ex.saver(pos),
		Budget:      ex.data,
	}
	if ex.e.cp != nil && f.mayPark() {
		rc.ParkAfter = ex.parkAfter
	}
	if ex.onEvent != nil {
		rc.Progress = ex.progress(f, pos, st)
	}
	ex.mu.Lock()
	rc.State = ex.states[pos]
	if pos == ex.answerPos {
		rc.Answer = ex.answer
	}
	ex.mu.Unlock()

	ch := make(chan attemptResult, 1)
	ex.e.workers.run(func() { ex.call(actx, st, rc, ch) })
	var r attemptResult
	select {
	case r = <-ch:
	case <-actx.Done():
		t := time.NewTimer(ex.e.limits.AbandonGrace)
		select {
		case r = <-ch:
		case <-t.C:
			r.err = errAbandoned
			ex.logger.Warn("operation abandoned: it did not return after its context ended", "operationId", st.ID)
		}
		t.Stop()
	}
	if r.err == nil {
		return r.out, endDone, nil
	}
	switch {
	case ex.userCtx.Err() != nil:
		return nil, endCancelled, r.err
	case stoppedEarly(f.ctx):
		return nil, endAborted, r.err
	case ex.ctx.Err() != nil:
		return nil, endExecTimeout, r.err
	case actx.Err() != nil:
		if capped {
			return nil, endExecTimeout, r.err
		}
		return nil, endOpTimeout, r.err
	}
	return nil, endErr, r.err
}

// call runs the operation, turning a panic into an internal error of the step.
func (ex *execution) call(ctx context.Context, st *Step, rc *op.RunContext, ch chan<- attemptResult) {
	defer func() {
		if p := recover(); p != nil {
			fe := fault.Typed(fault.Internal, fault.ExecutionError,
				"operation %q failed with an internal error", st.ID).WithOp(st.ID).
				WithCause(fmt.Errorf("panic: %v\n%s", p, debug.Stack()))
			ch <- attemptResult{err: fe} // logged with its stack by execute
		}
	}()
	out, err := st.Op.Run(ctx, rc)
	ch <- attemptResult{out: out, err: err}
}

// progress is RunContext.Progress for the step at pos: each report an
// EventChunk, up to MaxChunkEvents a run, then one that says the rest are
// dropped.
func (ex *execution) progress(f *frame, pos string, st *Step) func(string, any) {
	return func(kind string, delta any) {
		n := ex.chunks.Add(1)
		switch {
		case n > MaxChunkEvents+1:
			return
		case n == MaxChunkEvents+1:
			kind, delta = "custom", map[string]any{"type": "truncated", "reason": "the run reported more progress than its frames keep"}
		}
		ev := stepEvent(EventChunk, f, pos, st)
		ev.DeltaKind, ev.Delta = kind, delta
		ex.emit(ev)
	}
}

// saver is RunContext.Save for the step at pos: the state is kept with the
// execution and checkpointed before Save returns.
func (ex *execution) saver(pos string) func(json.RawMessage) error {
	return func(state json.RawMessage) error {
		if len(state) > ex.e.limits.MaxStateBytes {
			return fault.New(fault.Internal, "step state of %d bytes exceeds the limit of %d", len(state), ex.e.limits.MaxStateBytes)
		}
		if len(state) > 0 && !json.Valid(state) {
			return fault.New(fault.Internal, "step state is not JSON")
		}
		ex.mu.Lock()
		if ex.finished[pos] {
			// An abandoned attempt saving late: the step has moved on.
			ex.mu.Unlock()
			return nil
		}
		setKey(&ex.states, pos, append(json.RawMessage(nil), state...))
		ex.noteLocked(pos)
		ex.mu.Unlock()
		return ex.save(StatusRunning)
	}
}
