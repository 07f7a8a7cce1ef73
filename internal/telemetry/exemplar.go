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
		if sc := trace.SpanContextFromContext(ctx); sc.IsSampled() {
			if eo, ok := o.(prometheus.ExemplarObserver); ok {
				eo.ObserveWithExemplar(v, prometheus.Labels{"trace_id": sc.TraceID().String(), "span_id": sc.SpanID().String()})
				return
			}
		}
	}
	o.Observe(v)
}
