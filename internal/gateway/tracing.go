package gateway

import (
	"context"

	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/sluicehq/sluice/internal/telemetry"
)

// startCall starts the span of one dispatched call, named by its method.
// Under an HTTP request it is the server span's child; a call that came on
// no HTTP request (a session line, an MCP stdio call, an embedded ACP
// prompt) continues the trace its _meta or metadata names, if any, and is
// then the server span itself.
func startCall(ctx context.Context, c *Call) (context.Context, trace.Span) {
	if !telemetry.Enabled() {
		return telemetry.Start(ctx, "", trace.SpanKindInternal) // ctx and a no-op span
	}
	kind := trace.SpanKindInternal
	if !trace.SpanContextFromContext(ctx).IsValid() {
		kind = trace.SpanKindServer
	}
	ctx = telemetry.FromMeta(ctx, c.Env.ACPMeta)
	ctx = telemetry.FromMeta(ctx, c.Env.A2AMetadata)
	if m, ok := c.Env.Params["_meta"].(map[string]any); ok {
		ctx = telemetry.FromMeta(ctx, m)
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
