// `sluice bench serve` starts a whole server in this
// process (SQLite in a temporary data directory, durability as in
// production), a loopback upstream API, and drives concurrent clients
// through a data workflow and an ApiCall workflow, next to the same upstream
// called directly, reporting requests per second and latency percentiles.
package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
)

// Options tune a run.
type benchOptions struct {
	Clients  int           // concurrent clients (default 32)
	Duration time.Duration // per phase (default 5 s)
	Warmup   time.Duration // per phase, not measured (default 1 s)
	DataDir  string        // default a temporary directory, removed after
	// Phases to run (default all): direct, data, apicall.
	Phases []string
	// CPUProfile names a file for a CPU profile of the measured phases.
	CPUProfile string
	// Rate paces each phase at this many requests per second in all (0: as
	// fast as the clients go). Latency is compared fairly only at the same
	// rate: at saturation each phase's p99 is mostly queueing.
	Rate int
}

// Phase is one measured load.
type benchPhase struct {
	Name     string        `json:"name"`
	Requests int64         `json:"requests"`
	Errors   int64         `json:"errors"`
	PerSec   float64       `json:"requests_per_second"`
	P50      time.Duration `json:"p50_ns"`
	P99      time.Duration `json:"p99_ns"`
	Max      time.Duration `json:"max_ns"`
	// FirstError says what went wrong, when something did.
	FirstError string `json:"first_error,omitempty"`
}

// Report is a whole run.
type benchReport struct {
	Clients  int           `json:"clients"`
	Rate     int           `json:"rate,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	Phases   []benchPhase  `json:"phases"`
	// ApiCallRatio is the ApiCall workflow's requests/s over direct calls';
	// ApiCallP99Extra its p99 minus direct calls' p99.
	ApiCallRatio    float64       `json:"apicall_vs_direct_ratio,omitempty"`
	ApiCallP99Extra time.Duration `json:"apicall_p99_extra_ns,omitempty"`
}

// Phase names.
const (
	phaseDirect  = "direct"
	phaseData    = "data"
	phaseApiCall = "apicall"
)

// Run runs the benchmark.
func runBenchServe(ctx context.Context, o benchOptions) (*benchReport, error) {
	if o.Clients <= 0 {
		o.Clients = 32
	}
	if o.Duration <= 0 {
		o.Duration = 5 * time.Second
	}
	if o.Warmup <= 0 {
		o.Warmup = time.Second
	}
	if len(o.Phases) == 0 {
		o.Phases = []string{phaseDirect, phaseData, phaseApiCall}
	}
	if o.DataDir == "" {
		dir, err := os.MkdirTemp("", "sluice-bench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		o.DataDir = dir
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":7,"name":"ann","status":"active","points":120}`)
	}))
	defer upstream.Close()

	cfg := config.Defaults()
	cfg.DataDir = o.DataDir
	cfg.Egress.AllowPrivate = []string{strings.TrimPrefix(upstream.URL, "http://")}
	cfg.Workers = 4
	adminKey := "bench-admin-" + strings.Repeat("k", 32)
	cfg.AdminKey = config.NewSecret(adminKey)
	app, err := gateway.Open(ctx, &cfg, gateway.Options{})
	if err != nil {
		return nil, err
	}
	defer app.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _ = app.Serve(sctx, ln) }()
	base := "http://" + ln.Addr().String()

	transport := &http.Transport{MaxIdleConns: 4 * o.Clients, MaxIdleConnsPerHost: 2 * o.Clients, IdleConnTimeout: time.Minute}
	hc := &http.Client{Transport: transport, Timeout: time.Minute}
	name := "bench"
	_, key, err := client.New(base, adminKey, hc).CreateAccount(ctx, client.AccountSpec{Name: &name,
		Permissions: &client.Permissions{Operations: []string{"*"}, Hosts: []string{"*"}},
		Limits: map[string]int{"requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1,
			"api_calls_per_minute": -1, "api_calls_per_hour": -1, "max_concurrent_executions": -1}})
	if err != nil {
		return nil, fmt.Errorf("creating the bench account: %w", err)
	}
	c := client.New(base, key.APIKey, hc)

	rep := &benchReport{Clients: o.Clients, Duration: o.Duration, Rate: o.Rate}
	if o.CPUProfile != "" {
		f, err := os.Create(o.CPUProfile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
		defer pprof.StopCPUProfile()
	}
	for _, ph := range o.Phases {
		var call func(ctx context.Context, client, n int) error
		switch ph {
		case phaseDirect:
			call = func(ctx context.Context, _, _ int) error { return benchGet(ctx, hc, upstream.URL+"/user") }
		case phaseData:
			call = func(ctx context.Context, cl, n int) error {
				e, err := c.Execute(ctx, dataWorkflow(cl, n), client.ExecuteOptions{Input: dataInput(n)})
				return benchOutcome(e, err)
			}
		case phaseApiCall:
			call = func(ctx context.Context, cl, n int) error {
				e, err := c.Execute(ctx, apiCallWorkflow(upstream.URL, cl, n), client.ExecuteOptions{})
				return benchOutcome(e, err)
			}
		default:
			return nil, fmt.Errorf("unknown phase %q (direct, data, apicall)", ph)
		}
		rep.Phases = append(rep.Phases, benchMeasure(ctx, ph, o, call))
	}
	var direct, api *benchPhase
	for i := range rep.Phases {
		switch rep.Phases[i].Name {
		case phaseDirect:
			direct = &rep.Phases[i]
		case phaseApiCall:
			api = &rep.Phases[i]
		}
	}
	if direct != nil && api != nil && direct.PerSec > 0 {
		rep.ApiCallRatio = api.PerSec / direct.PerSec
		rep.ApiCallP99Extra = api.P99 - direct.P99
	}
	return rep, nil
}

func benchOutcome(e *client.Execution, err error) error {
	if err != nil {
		return err
	}
	if e.Status != "success" {
		return fmt.Errorf("execution %s ended %s: %v", e.ExecutionID, e.Status, e.Errors)
	}
	return nil
}

func benchGet(ctx context.Context, hc *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

// measure runs call from o.Clients goroutines: a warm-up, then o.Duration of
// measured calls.
func benchMeasure(ctx context.Context, name string, o benchOptions, call func(ctx context.Context, client, n int) error) benchPhase {
	var seq atomic.Int64
	run := func(d time.Duration, record bool) ([]time.Duration, int64, string) {
		var mu sync.Mutex
		var all []time.Duration
		var errs atomic.Int64
		var first atomic.Value
		end := time.Now().Add(d)
		// With a rate, a pacer hands out the times requests are due; latency
		// counts from that time, so a server that falls behind is charged
		// for the wait (no coordinated omission).
		var due chan time.Time
		if o.Rate > 0 {
			due = make(chan time.Time, o.Clients)
			go func() {
				defer close(due)
				interval := time.Second / time.Duration(o.Rate)
				next := time.Now()
				for next.Before(end) && ctx.Err() == nil {
					time.Sleep(time.Until(next))
					select {
					case due <- next:
					case <-ctx.Done():
						return
					}
					next = next.Add(interval)
				}
			}()
		}
		var wg sync.WaitGroup
		for cl := range o.Clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				lat := make([]time.Duration, 0, 4096)
				for time.Now().Before(end) && ctx.Err() == nil {
					n := int(seq.Add(1))
					t0 := time.Now()
					if due != nil {
						at, ok := <-due
						if !ok {
							break
						}
						t0 = at
					}
					err := call(ctx, cl, n)
					if err != nil {
						errs.Add(1)
						first.CompareAndSwap(nil, err.Error())
						continue
					}
					if record {
						lat = append(lat, time.Since(t0))
					}
				}
				mu.Lock()
				all = append(all, lat...)
				mu.Unlock()
			}()
		}
		wg.Wait()
		fe, _ := first.Load().(string)
		return all, errs.Load(), fe
	}
	run(o.Warmup, false)
	start := time.Now()
	lat, errs, fe := run(o.Duration, true)
	elapsed := time.Since(start)
	slices.Sort(lat)
	p := benchPhase{Name: name, Requests: int64(len(lat)), Errors: errs, FirstError: fe}
	if len(lat) > 0 {
		p.PerSec = float64(len(lat)) / elapsed.Seconds()
		p.P50 = lat[len(lat)*50/100]
		p.P99 = lat[min(len(lat)*99/100, len(lat)-1)]
		p.Max = lat[len(lat)-1]
	}
	return p
}

// dataWorkflow is a 5-operation data workflow over /input/items with a
// client-unique executionId (each call is a new execution).
func dataWorkflow(cl, n int) string {
	return fmt.Sprintf(`{"type":"operationUpdate","operationId":"active","operation":{"FilterData":{"inputPath":"/input/items","conditions":[{"field":"status","operator":"==","value":"active"}],"outputPath":"/workflow/active"}}}
{"type":"operationUpdate","operationId":"ranked","operation":{"TransformData":{"inputPath":"/workflow/active","transform":"sort","config":{"field":"points","order":"desc"},"outputPath":"/workflow/ranked"}}}
{"type":"operationUpdate","operationId":"top","operation":{"TransformData":{"inputPath":"/workflow/ranked","transform":"select","config":{"fields":["name","points"]},"outputPath":"/workflow/top"}}}
{"type":"operationUpdate","operationId":"totals","operation":{"TransformData":{"inputPath":"/input/items","transform":"aggregate","config":{"operations":[{"op":"sum","field":"points","as":"points"},{"op":"count","as":"n"}],"groupBy":"status"},"outputPath":"/workflow/totals"}}}
{"type":"operationUpdate","operationId":"report","operation":{"MergeData":{"sources":["/workflow/top","/workflow/totals"],"strategy":"concat","outputPath":"/workflow/report"}}}
{"type":"beginExecution","executionId":"data-%d-%d","operationOrder":["active","ranked","top","totals","report"]}`, cl, n)
}

func dataInput(n int) map[string]any {
	items := make([]any, 20)
	for i := range items {
		status := "active"
		if i%3 == 0 {
			status = "idle"
		}
		items[i] = map[string]any{"name": fmt.Sprintf("u%d", i), "status": status, "points": (n*7 + i*13) % 500}
	}
	return map[string]any{"items": items}
}

// apiCallWorkflow GETs the upstream once (result cache off, so every call
// reaches it).
func apiCallWorkflow(upstream string, cl, n int) string {
	return fmt.Sprintf(`{"type":"operationUpdate","operationId":"get","operation":{"ApiCall":{"method":"GET","url":"%s/user","cache":false,"outputPath":"/workflow/user"}}}
{"type":"beginExecution","executionId":"api-%d-%d","operationOrder":["get"]}`, upstream, cl, n)
}

// Write prints the report as a table.
func (r *benchReport) Write(w io.Writer) {
	pace := "as fast as they go"
	if r.Rate > 0 {
		pace = fmt.Sprintf("paced at %d requests/s", r.Rate)
	}
	fmt.Fprintf(w, "%d concurrent clients %s, %s per phase; server, upstream and clients in one process on %d CPUs\n\n", r.Clients, pace, r.Duration, numCPU())
	fmt.Fprintf(w, "%-10s %12s %10s %10s %10s %8s\n", "phase", "requests/s", "p50", "p99", "max", "errors")
	for _, p := range r.Phases {
		fmt.Fprintf(w, "%-10s %12.0f %10s %10s %10s %8d\n", p.Name, p.PerSec, roundLatency(p.P50), roundLatency(p.P99), roundLatency(p.Max), p.Errors)
		if p.FirstError != "" {
			fmt.Fprintf(w, "           first error: %s\n", p.FirstError)
		}
	}
	if r.ApiCallRatio > 0 {
		fmt.Fprintf(w, "\nApiCall workflow vs direct: %.2fx requests/s, p99 %+s\n", r.ApiCallRatio, roundLatency(r.ApiCallP99Extra))
	}
}

func roundLatency(d time.Duration) time.Duration {
	switch {
	case d > 10*time.Millisecond:
		return d.Round(100 * time.Microsecond)
	case d > time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

func numCPU() int { return runtime.GOMAXPROCS(0) }
