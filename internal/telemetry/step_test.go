package telemetry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/sluicehq/sluice/internal/telemetry"
)

// A pure step has its span by default (SlowStep 0); with SlowStep set it is
// an event on its parent span when it succeeds at once and quickly, and a
// span of its own when it fails, is slow, or is retried (made at its start,
// the attempts under it). Off, it records nothing.
func TestStep(t *testing.T) {
	op := telemetry.AttrOperation.String("FilterData")
	for _, c := range []struct {
		name      string
		slow      time.Duration
		err       error
		retried   bool
		wantEvent bool
	}{
		{"default: a span", 0, nil, false, false},
		{"quick", time.Hour, nil, false, true},
		{"failed", time.Hour, errors.New("bad"), false, false},
		{"slow", time.Nanosecond, nil, false, false},
		{"retried", time.Hour, nil, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			exp := tracetest.NewInMemoryExporter()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
			t.Cleanup(telemetry.Install(tp, telemetry.Settings{SlowStep: c.slow}))
			ctx, run := telemetry.Start(context.Background(), "run a2e", trace.SpanKindInternal)
			step := telemetry.StartStep(ctx, "operation", "FilterData")
			if !step.Recording() {
				t.Fatal("a step under a sampled span records nothing")
			}
			if c.retried {
				_, attempt := telemetry.Start(step.Context(), "attempt", trace.SpanKindInternal)
				attempt.End()
			}
			time.Sleep(time.Microsecond) // "slow": past its 1 ns
			step.End(c.err, op)
			run.End()
			spans := exp.GetSpans()
			byName := map[string]tracetest.SpanStub{}
			for _, s := range spans {
				byName[s.Name] = s
			}
			runSpan := byName["run a2e"]
			stepSpan, isSpan := byName["operation FilterData"]
			if c.wantEvent {
				if isSpan || len(runSpan.Events) != 1 || runSpan.Events[0].Name != "operation FilterData" {
					t.Fatalf("spans %v, run's events %v; want one event", names(spans), runSpan.Events)
				}
				return
			}
			if !isSpan || len(runSpan.Events) != 0 || stepSpan.Parent.SpanID() != runSpan.SpanContext.SpanID() {
				t.Fatalf("spans %v, run's events %v; want the step's span under the run", names(spans), runSpan.Events)
			}
			if got := attrOf(stepSpan, "sluice.operation.type"); got != "FilterData" {
				t.Fatalf("the step span's operation type %q", got)
			}
			if (c.err != nil) != (attrOf(stepSpan, "error.type") != "") {
				t.Fatalf("error.type %q for error %v", attrOf(stepSpan, "error.type"), c.err)
			}
			if c.retried && byName["attempt"].Parent.SpanID() != stepSpan.SpanContext.SpanID() {
				t.Fatal("the retry's attempt is not under the step's span")
			}
		})
	}
	// Off: nothing recorded, nothing allocated.
	if allocs := testing.AllocsPerRun(100, func() {
		s := telemetry.StartStep(context.Background(), "operation", "FilterData")
		if s.Recording() {
			t.Fatal("recording with tracing off")
		}
		s.End(nil)
	}); allocs != 0 {
		t.Fatalf("%v allocations off", allocs)
	}
}

func names(spans tracetest.SpanStubs) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

func attrOf(s tracetest.SpanStub, key string) string {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value.Emit()
		}
	}
	return ""
}
