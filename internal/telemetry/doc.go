// Package telemetry is sluice's OpenTelemetry tracing: the tracer provider
// set up from the telemetry config section (the standard OTEL_* variables),
// the W3C trace context (traceparent, tracestate, baggage) read on every
// ingress and written on every outbound call and queue message, the span
// helpers the services call, and the slog handler that stamps trace_id and
// span_id on log records.
//
// Off (the default), Start returns the caller's context and a no-op span
// without allocating, and nothing is read or written: tracing costs one
// atomic load per span site. Attributes carry ids, names and sizes, never a
// secret or a payload (docs/observability.md).
package telemetry
