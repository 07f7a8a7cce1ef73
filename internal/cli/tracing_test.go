package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/telemetry"
	"github.com/sluicehq/sluice/internal/telemetry/telemetrytest"
)

// The logger of serve and worker stamps a record logged under a span with
// its trace_id and span_id, in both formats.
func TestServerLogsCarryTheTrace(t *testing.T) {
	telemetrytest.Install(t)
	for _, format := range []string{"text", "json"} {
		var buf bytes.Buffer
		cfg := config.Defaults()
		cfg.Log.Format = format
		log := newLogger(Stdio{Err: &buf}, &cfg)
		ctx, span := telemetry.Start(context.Background(), "x", trace.SpanKindInternal)
		log.WarnContext(ctx, "under a span")
		span.End()
		if out := buf.String(); !strings.Contains(out, span.SpanContext().TraceID().String()) ||
			!strings.Contains(out, span.SpanContext().SpanID().String()) || !strings.Contains(out, "trace_id") {
			t.Errorf("%s: %s", format, out)
		}
	}
}
