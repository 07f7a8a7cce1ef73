package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
	"github.com/sluicehq/sluice/internal/telemetry"
)

// What tracing costs the 5-operation data workflow (bench serve's data
// phase: synchronous REST executions on SQLite, 32 clients), with tracing
// off, on with sampling 0 and on with sampling 1.0 (spans batched to an
// exporter that drops them: the SDK's whole cost, none of a network's), in
// one run on one server, the three alternated round by round in a rotating
// order. A measurement, not a check: set SLUICE_TRACE_PERF=1 (and
// SLUICE_TRACE_PERF_ROUNDS, _SECONDS) to run it; nothing is asserted of the
// figures (docs/performance.md).
func TestTracingPerformance(t *testing.T) {
	if os.Getenv("SLUICE_TRACE_PERF") == "" {
		t.Skip("set SLUICE_TRACE_PERF=1 to measure")
	}
	rounds, seconds := 6, 4
	if v := os.Getenv("SLUICE_TRACE_PERF_ROUNDS"); v != "" {
		fmt.Sscan(v, &rounds)
	}
	if v := os.Getenv("SLUICE_TRACE_PERF_SECONDS"); v != "" {
		fmt.Sscan(v, &seconds)
	}
	ctx := context.Background()
	cfg := config.Defaults()
	cfg.DataDir = t.TempDir()
	cfg.Workers = 4
	adminKey := "bench-admin-" + strings.Repeat("k", 32)
	cfg.AdminKey = config.NewSecret(adminKey)
	app, err := gateway.Open(ctx, &cfg, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _ = app.Serve(sctx, ln) }()
	base := "http://" + ln.Addr().String()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConns: 128, MaxIdleConnsPerHost: 64}, Timeout: time.Minute}
	name := "bench"
	_, key, err := client.New(base, adminKey, hc).CreateAccount(ctx, client.AccountSpec{Name: &name,
		Permissions: &client.Permissions{Operations: []string{"*"}, Hosts: []string{"*"}},
		Limits: map[string]int{"requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1,
			"api_calls_per_minute": -1, "api_calls_per_hour": -1, "max_concurrent_executions": -1}})
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(base, key.APIKey, hc)

	modes := []struct {
		name, sampler string // sampler "": tracing off
		ratio         float64
	}{{"off", "", 0}, {"on, sampling 0", "parentbased_traceidratio", 0}, {"on, sampling 1.0", "parentbased_traceidratio", 1}}
	o := benchOptions{Clients: 32, Duration: time.Duration(seconds) * time.Second, Warmup: 500 * time.Millisecond}
	perSec := make([][]float64, len(modes))
	cpuPer := make([][]float64, len(modes))
	for r := range rounds {
		for i := range modes {
			m := (i + r) % len(modes) // each mode takes each place in turn
			restore := func() {}
			var tp *sdktrace.TracerProvider
			if modes[m].sampler != "" {
				tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()),
					sdktrace.WithSampler(telemetry.Sampler(modes[m].sampler, modes[m].ratio)))
				restore = telemetry.Install(tp, telemetry.Settings{Sampler: modes[m].sampler})
			}
			tag := fmt.Sprintf("r%dm%d", r, m)
			var calls atomic.Int64
			cpu0 := cpuTime()
			p := benchMeasure(ctx, "data", o, func(ctx context.Context, cl, n int) error {
				calls.Add(1)
				e, err := c.Execute(ctx, dataWorkflow(tag, cl, n), client.ExecuteOptions{Input: dataInput(n)})
				return benchOutcome(e, err)
			})
			// CPU per execution (server and clients, one process: the
			// clients' share is the same in every mode) is what the other
			// processes of a shared machine disturb least.
			cpuPer[m] = append(cpuPer[m], float64((cpuTime()-cpu0).Microseconds())/float64(calls.Load()))
			restore()
			if tp != nil {
				_ = tp.Shutdown(ctx)
			}
			if p.Errors > 0 {
				t.Fatalf("%s: %d errors (%s)", modes[m].name, p.Errors, p.FirstError)
			}
			perSec[m] = append(perSec[m], p.PerSec)
		}
	}
	offMedian, offCPU := median(perSec[0]), median(cpuPer[0])
	for m, runs := range perSec {
		med, cpu := median(runs), median(cpuPer[m])
		t.Logf("%-17s executions/s %s  median %.0f (%+.1f %% against off); CPU µs per execution %s  median %.0f (%+.1f %%)",
			modes[m].name, fmtRuns(runs), med, 100*(med-offMedian)/offMedian, fmtRuns(cpuPer[m]), cpu, 100*(cpu-offCPU)/offCPU)
	}
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func fmtRuns(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.0f", x)
	}
	return strings.Join(parts, ", ")
}
