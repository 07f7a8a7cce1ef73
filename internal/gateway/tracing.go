package gateway

import (
	"context"
	"encoding/json"

	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/sluicehq/sluice/internal/telemetry"
)

// startCall starts the span of one dispatched call, named by its method.
// Under an HTTP request it is the server span's child; a call that came on
// no HTTP request (a session line, an MCP stdio call, an embedded ACP
// prompt) continues the trace its envelope's ACP _meta or A2A metadata
// names (the session and MCP ingresses put their _meta's in ctx), if any,
// and is then the server span itself.
func startCall(ctx context.Context, c *Call) (context.Context, trace.Span) {
	if !telemetry.Enabled() {
		return telemetry.Start(ctx, "", trace.SpanKindInternal) // ctx and a no-op span
	}
	ctx = telemetry.FromMeta(ctx, c.Env.ACPMeta)
	ctx = telemetry.FromMeta(ctx, c.Env.A2AMetadata)
	// No local parent (no HTTP server span): this call is the server span.
	kind := trace.SpanKindInternal
	if sc := trace.SpanContextFromContext(ctx); !sc.IsValid() || sc.IsRemote() {
		kind = trace.SpanKindServer
	}
	ctx, span := telemetry.Start(ctx, c.Env.Method, kind)
	if span.IsRecording() {
		span.SetAttributes(telemetry.AttrMethod.String(c.Env.Method), telemetry.AttrTransport.String(c.Transport),
			telemetry.AttrRequestID.String(c.Env.RequestID))
	}
	return ctx, span
}

// endCall ends a call's span with what the policy chain decided and the
// final frame's code.
func endCall(span trace.Span, c *Call, decision, code string) {
	if span.IsRecording() {
		span.SetAttributes(telemetry.AttrDecision.String(decision))
		if c.Principal != nil {
			span.SetAttributes(telemetry.AttrAccountID.String(c.Principal.ID))
		}
		if code != "" {
			span.SetStatus(codes.Error, code)
			span.SetAttributes(semconv.ErrorTypeKey.String(code))
		}
	}
	span.End()
}

// sessionTraceContext is ctx with the trace context of a session call's
// _meta; ctx itself when tracing is off or there is none (meta is decoded
// only then: an object, the session decoder checked).
func sessionTraceContext(ctx context.Context, meta json.RawMessage) context.Context {
	if !telemetry.Enabled() || len(meta) == 0 {
		return ctx
	}
	var m map[string]any
	if json.Unmarshal(meta, &m) != nil {
		return ctx
	}
	return telemetry.FromMeta(ctx, m)
}
