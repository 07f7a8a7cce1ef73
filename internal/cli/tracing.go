package cli

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/telemetry"
)

// traceFlushTimeout bounds the export of the last spans at shutdown: a
// collector that is down must not hold the process.
const traceFlushTimeout = 5 * time.Second

// startTracing puts cfg's telemetry section in force for a process of role
// ("gateway", "worker") and returns what flushes the spans left at exit.
// Tracing off, it does nothing and the flush is a no-op.
func startTracing(ctx context.Context, cfg *config.Config, role string, log *slog.Logger) (flush func(), err error) {
	t := cfg.Telemetry
	if strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") {
		t.Exporter = "none" // the specification's switch for every SDK
	}
	p, err := telemetry.Setup(ctx, telemetry.Settings{
		Exporter: t.Exporter, Endpoint: t.Endpoint, TracesEndpoint: t.TracesEndpoint, Protocol: t.Protocol,
		ServiceName: t.ServiceName, Sampler: t.Sampler, Ratio: t.Ratio(), ResourceAttributes: t.ResourceAttributes,
		SlowStoreWrite: t.SlowStoreWrite,
		SlowStep:       t.QuickStepEvents,
	}, role, version())
	if err != nil {
		return nil, fail(ExitFailed, "%v", err)
	}
	if t.Enabled() {
		log.Info("traces on", "protocol", t.Protocol, "sampler", t.Sampler, "service", t.ServiceName)
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), traceFlushTimeout)
		defer cancel()
		if err := p.Shutdown(ctx); err != nil {
			log.Warn("traces not all exported at shutdown", "error", err)
		}
	}, nil
}
