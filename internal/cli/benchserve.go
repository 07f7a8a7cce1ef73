// `sluice bench serve` starts a whole server in this
// process (SQLite in a temporary data directory, durability as in
// production), a loopback upstream API, and drives concurrent clients
// through a data workflow and an ApiCall workflow, next to the same upstream
// called directly, reporting requests per second and latency percentiles.
// With --store it measures PostgreSQL too, with --gateways 1,2 that many
// gateways sharing it, each configuration in the same run.
package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/gateway"
	"github.com/sluicehq/sluice/internal/ids"
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
	// Stores to measure, each "sqlite" or a postgres:// URL (default
	// sqlite); each PostgreSQL run takes a schema of its own, dropped after.
	Stores []string
	// Gateways are the numbers of gateways sharing a PostgreSQL store to
	// measure (default 1); clients are spread over them.
	Gateways []int
}

// Phase is one measured load.
type benchPhase struct {
	Name     string        `json:"name"`
	Requests int64         `json:"requests"`
	Errors   int64         `json:"errors"`
	PerSec   float64       `json:"requests_per_second"`
	P50      time.Duration `json:"p50_ns"`
	P99      time.Duration `json:"p99_ns"`
	P999     time.Duration `json:"p999_ns,omitempty"` // bench http reports it
	Max      time.Duration `json:"max_ns"`
	// FirstError says what went wrong, when something did.
	FirstError string `json:"first_error,omitempty"`
	// Store and Gateways say what was measured, when a run measures more
	// than one store or gateway count.
	Store    string `json:"store,omitempty"`
	Gateways int    `json:"gateways,omitempty"`
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
	if len(o.Stores) == 0 {
		o.Stores = []string{"sqlite"}
	}
	if len(o.Gateways) == 0 {
		o.Gateways = []int{1}
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":7,"name":"ann","status":"active","points":120}`)
	}))
	defer upstream.Close()
	// Its own HTTP, not the client/ package: a load generator measures raw
	// requests with pooled connections, not the API client's calls.
	transport := &http.Transport{MaxIdleConns: 4 * o.Clients, MaxIdleConnsPerHost: 2 * o.Clients, IdleConnTimeout: time.Minute}
	hc := &http.Client{Transport: transport, Timeout: time.Minute}

	// One configuration per store and gateway count (SQLite: one gateway,
	// it owns its data directory). Each names its phases only when there is
	// more than one, so the default run reads as before.
	var configs []benchTarget
	for _, st := range o.Stores {
		if st == "sqlite" {
			configs = append(configs, benchTarget{store: st, gateways: 1})
			continue
		}
		for _, g := range o.Gateways {
			configs = append(configs, benchTarget{store: st, gateways: g})
		}
	}
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
	for i, t := range configs {
		if err := runBenchTarget(ctx, o, t, len(configs) > 1, i, upstream.URL, hc, rep); err != nil {
			return nil, err
		}
	}
	var direct, api *benchPhase
	for i := range rep.Phases {
		switch {
		case rep.Phases[i].Name == phaseDirect && direct == nil:
			direct = &rep.Phases[i]
		case strings.HasPrefix(rep.Phases[i].Name, phaseApiCall) && api == nil:
			api = &rep.Phases[i]
		}
	}
	if direct != nil && api != nil && direct.PerSec > 0 {
		rep.ApiCallRatio = api.PerSec / direct.PerSec
		rep.ApiCallP99Extra = api.P99 - direct.P99
	}
	return rep, nil
}

// benchTarget is one configuration measured: a store and how many gateways
// share it (clients are spread over them).
type benchTarget struct {
	store    string // "sqlite" or a postgres:// URL
	gateways int
}

func (t benchTarget) label() string {
	if t.store == "sqlite" {
		return "sqlite"
	}
	return fmt.Sprintf("postgres x%d", t.gateways)
}

// runBenchTarget starts t's gateways and measures the phases on them.
func runBenchTarget(ctx context.Context, o benchOptions, t benchTarget, named bool, index int, upstream string, hc *http.Client, rep *benchReport) error {
	dir := o.DataDir
	if dir == "" || named {
		d, err := os.MkdirTemp("", "sluice-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	dsn := ""
	if t.store != "sqlite" {
		var drop func()
		var err error
		if dsn, drop, err = benchSchema(ctx, t.store); err != nil {
			return err
		}
		defer drop()
	}
	cfg := config.Defaults()
	cfg.DataDir = dir
	cfg.Store.DSN = dsn
	cfg.Egress.AllowPrivate = []string{strings.TrimPrefix(upstream, "http://")}
	cfg.Workers = 4
	adminKey := "bench-admin-" + strings.Repeat("k", 32)
	cfg.AdminKey = config.NewSecret(adminKey)
	var bases []string
	for range t.gateways {
		app, err := gateway.Open(ctx, &cfg, gateway.Options{}) // one data directory: the same keys
		if err != nil {
			return err
		}
		defer app.Close()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		sctx, stop := context.WithCancel(ctx)
		defer stop()
		go func() { _ = app.Serve(sctx, ln) }()
		bases = append(bases, "http://"+ln.Addr().String())
	}
	name := "bench"
	_, key, err := client.New(bases[0], adminKey, hc).CreateAccount(ctx, client.AccountSpec{Name: &name,
		Permissions: &client.Permissions{Operations: []string{"*"}, Hosts: []string{"*"}},
		Limits: map[string]int{"requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1,
			"api_calls_per_minute": -1, "api_calls_per_hour": -1, "max_concurrent_executions": -1}})
	if err != nil {
		return fmt.Errorf("creating the bench account: %w", err)
	}
	clients := make([]*client.Client, len(bases))
	for i, b := range bases {
		clients[i] = client.New(b, key.APIKey, hc)
	}
	// Each client keeps to one gateway, as behind a load balancer with
	// keep-alive connections.
	via := func(cl int) *client.Client { return clients[cl%len(clients)] }
	tag := fmt.Sprint(index)
	for _, ph := range o.Phases {
		var call func(ctx context.Context, client, n int) error
		switch ph {
		case phaseDirect:
			if index > 0 {
				continue // the upstream alone: once is enough
			}
			call = func(ctx context.Context, _, _ int) error { return benchGet(ctx, hc, upstream+"/user") }
		case phaseData:
			call = func(ctx context.Context, cl, n int) error {
				e, err := via(cl).Execute(ctx, dataWorkflow(tag, cl, n), client.ExecuteOptions{Input: dataInput(n)})
				return benchOutcome(e, err)
			}
		case phaseApiCall:
			call = func(ctx context.Context, cl, n int) error {
				e, err := via(cl).Execute(ctx, apiCallWorkflow(upstream, tag, cl, n), client.ExecuteOptions{})
				return benchOutcome(e, err)
			}
		default:
			return fmt.Errorf("unknown phase %q (direct, data, apicall)", ph)
		}
		p := benchMeasure(ctx, ph, o, call)
		if named && ph != phaseDirect {
			p.Name, p.Store, p.Gateways = ph+" "+t.label(), storeKind(t.store), t.gateways
		}
		rep.Phases = append(rep.Phases, p)
	}
	return nil
}

func storeKind(s string) string {
	if s == "sqlite" {
		return s
	}
	return "postgres"
}

// benchSchema makes a schema of its own in the PostgreSQL database for one
// configuration, so runs never meet earlier rows or keys, and returns the
// DSN that uses it and a function that drops it.
func benchSchema(ctx context.Context, dsn string) (string, func(), error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", nil, fmt.Errorf("--store: PostgreSQL does not answer: %v", fault.From(err).Message)
	}
	schema := ids.New(ids.BenchSchema)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		conn.Close(ctx)
		return "", nil, fmt.Errorf("--store: cannot create a schema for the run: %v", err)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		conn.Close(ctx)
		return "", nil, fmt.Errorf("--store: want a postgres:// URL")
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), "DROP SCHEMA "+schema+" CASCADE")
		conn.Close(context.WithoutCancel(ctx))
	}, nil
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
	shape := loadShape{Clients: o.Clients, Rate: o.Rate}
	runLoad(ctx, shape, o.Warmup, &seq, call)
	return phaseOf(name, runLoad(ctx, shape, o.Duration, &seq, call))
}

// dataWorkflow is a 5-operation data workflow over /input/items with a
// client-unique executionId (each call is a new execution).
func dataWorkflow(tag string, cl, n int) string {
	return fmt.Sprintf(`{"type":"operationUpdate","operationId":"active","operation":{"FilterData":{"inputPath":"/input/items","conditions":[{"field":"status","operator":"==","value":"active"}],"outputPath":"/workflow/active"}}}
{"type":"operationUpdate","operationId":"ranked","operation":{"TransformData":{"inputPath":"/workflow/active","transform":"sort","config":{"field":"points","order":"desc"},"outputPath":"/workflow/ranked"}}}
{"type":"operationUpdate","operationId":"top","operation":{"TransformData":{"inputPath":"/workflow/ranked","transform":"select","config":{"fields":["name","points"]},"outputPath":"/workflow/top"}}}
{"type":"operationUpdate","operationId":"totals","operation":{"TransformData":{"inputPath":"/input/items","transform":"aggregate","config":{"operations":[{"op":"sum","field":"points","as":"points"},{"op":"count","as":"n"}],"groupBy":"status"},"outputPath":"/workflow/totals"}}}
{"type":"operationUpdate","operationId":"report","operation":{"MergeData":{"sources":["/workflow/top","/workflow/totals"],"strategy":"concat","outputPath":"/workflow/report"}}}
{"type":"beginExecution","executionId":"%s","operationOrder":["active","ranked","top","totals","report"]}`, benchExecutionID("data", tag, cl, n))
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

// benchExecutionID is the execution id of client cl's n-th call.
func benchExecutionID(kind, tag string, cl, n int) string {
	return kind + "-" + tag + "-" + strconv.Itoa(cl) + "-" + strconv.Itoa(n)
}

// apiCallWorkflow GETs the upstream once (result cache off, so every call
// reaches it).
func apiCallWorkflow(upstream, tag string, cl, n int) string {
	return fmt.Sprintf(`{"type":"operationUpdate","operationId":"get","operation":{"ApiCall":{"method":"GET","url":"%s/user","cache":false,"outputPath":"/workflow/user"}}}
{"type":"beginExecution","executionId":"%s","operationOrder":["get"]}`, upstream, benchExecutionID("api", tag, cl, n))
}

// Write prints the report as a table.
func (r *benchReport) Write(w io.Writer) {
	pace := "as fast as they go"
	if r.Rate > 0 {
		pace = fmt.Sprintf("paced at %d requests/s", r.Rate)
	}
	fmt.Fprintf(w, "%d concurrent clients %s, %s per phase; server, upstream and clients in one process on %d CPUs\n\n", r.Clients, pace, r.Duration, numCPU())
	fmt.Fprintf(w, "%-22s %12s %10s %10s %10s %8s\n", "phase", "requests/s", "p50", "p99", "max", "errors")
	for _, p := range r.Phases {
		fmt.Fprintf(w, "%-22s %12.0f %10s %10s %10s %8d\n", p.Name, p.PerSec, roundLatency(p.P50), roundLatency(p.P99), roundLatency(p.Max), p.Errors)
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
