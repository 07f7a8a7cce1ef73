package execution

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/trace"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/telemetry"
)

// startRun starts the span of one run of rec ("run a2e", "run a2s", "run
// agent_workflow"): its steps' spans are its children.
func startRun(ctx context.Context, rec store.Execution) (context.Context, trace.Span) {
	ctx, span := telemetry.StartNamed(ctx, "run", rec.Kind, trace.SpanKindInternal)
	if span.IsRecording() {
		span.SetAttributes(telemetry.AttrExecutionID.String(rec.ID), telemetry.AttrRunKind.String(rec.Kind),
			telemetry.AttrAccountID.String(rec.AccountID))
	}
	return ctx, span
}

// endRun ends a run's span with the status the run reached.
func endRun(span trace.Span, status engine.Status) {
	if span.IsRecording() {
		span.SetAttributes(telemetry.AttrStatus.String(string(status)))
	}
	span.End()
}

// A queued execution's item payload is its account id, then, when tracing
// is on, a newline and the traceparent of the request that queued it, so
// that whichever process runs it continues that trace. An item of before
// (the account id alone) reads as it did.
func queuePayload(ctx context.Context, accountID string) []byte {
	if tc := telemetry.CarrierOf(ctx); tc.Traceparent != "" {
		return []byte(accountID + "\n" + tc.Traceparent)
	}
	return []byte(accountID)
}

// fromQueuePayload is the account id of a queued execution's payload and
// the trace context it carries.
func fromQueuePayload(p []byte) (accountID string, tc telemetry.Carrier) {
	accountID, tp, _ := strings.Cut(string(p), "\n")
	return accountID, telemetry.Carrier{Traceparent: tp}
}
