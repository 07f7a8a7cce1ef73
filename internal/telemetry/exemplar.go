package telemetry

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"
)

// Observe records v in o, with ctx's trace as the exemplar when its span
// is sampled (a latency histogram's bucket then leads to a trace).
func Observe(ctx context.Context, o prometheus.Observer, v float64) {
	if Enabled() {
		ObserveIn(trace.SpanContextFromContext(ctx), o, v)
		return
	}
	o.Observe(v)
}

// ObserveIn is Observe for a caller that holds the span context rather than
// a context: an observer called after the fact, as the operations histogram
// is from the engine's events (engine.Event.Trace).
func ObserveIn(sc trace.SpanContext, o prometheus.Observer, v float64) {
	if sc.IsSampled() {
		if eo, ok := o.(prometheus.ExemplarObserver); ok {
			eo.ObserveWithExemplar(v, prometheus.Labels{"trace_id": sc.TraceID().String(), "span_id": sc.SpanID().String()})
			return
		}
	}
	o.Observe(v)
}
