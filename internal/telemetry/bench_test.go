package telemetry_test

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/sluicehq/sluice/internal/telemetry"
)

// One span site (start, an attribute when recording, end) under a
// request's span: off, on and unsampled, on and sampled (batched to an
// exporter that drops them).
func BenchmarkSpanSite(b *testing.B) {
	site := func(b *testing.B) {
		ctx, root := telemetry.Start(context.Background(), "request", trace.SpanKindServer)
		defer root.End()
		b.ReportAllocs()
		for b.Loop() {
			_, span := telemetry.StartNamed(ctx, "operation", "FilterData", trace.SpanKindInternal)
			if span.IsRecording() {
				span.SetAttributes(telemetry.AttrOperationID.String("active"))
			}
			span.End()
		}
	}
	b.Run("off", site)
	for _, m := range []struct {
		name, sampler string
		ratio         float64
	}{{"sampling-0", "parentbased_traceidratio", 0}, {"sampling-1", "parentbased_always_on", 1}} {
		b.Run(m.name, func(b *testing.B) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()),
				sdktrace.WithSampler(telemetry.Sampler(m.sampler, m.ratio)))
			restore := telemetry.Install(tp, telemetry.Settings{Sampler: m.sampler})
			defer func() { restore(); _ = tp.Shutdown(context.Background()) }()
			site(b)
		})
	}
}
