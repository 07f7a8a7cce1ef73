// `sluice bench http` is a load generator in a process of its own against a
// running server (issue 27): the figures of docs/performance.md come from
// it, because a generator sharing the server's process and heap (`bench
// serve`) measures both at once. Each scenario is run in rounds, every
// scenario once per round, so that the direct baseline and the calls through
// sluice meet the same machine load; the ratios are taken within the run.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/protocol/session"
)

// Scenario names of `bench http`.
const (
	scenarioDirect  = "direct"  // a plain GET to the upstream: the baseline
	scenarioData5   = "data5"   // a 5-operation data workflow, durable, sync over REST
	scenarioApiCall = "apicall" // a one-ApiCall workflow to the upstream over REST
	scenarioSession = "session" // a one-operation tool call in an A2E session over WebSocket
)

var httpBenchScenarios = []string{scenarioDirect, scenarioData5, scenarioApiCall, scenarioSession}

// httpBenchBaselines are scenarios run only when named: they need no server.
var httpBenchBaselines = []string{scenarioMCPEcho}

type httpBenchOptions struct {
	URL, Key string
	// Upstream is the API the ApiCall workflow and the direct baseline call;
	// empty: the command serves one itself on UpstreamListen.
	Upstream       string
	UpstreamListen string
	Load           loadShape
	Duration       time.Duration // measured, per scenario, over all rounds
	Warmup         time.Duration // per scenario, once, before the first round
	Rounds         int
	Scenarios      []string
	// echoTransport connects the mcpecho scenario's baseline; nil: spawnEcho.
	echoTransport func() (mcp.Transport, error)
}

// httpBenchScenario is one scenario's figures over all rounds.
type httpBenchScenario struct {
	benchPhase
	// VsDirect is requests/s over the direct baseline's, P99Added the p99
	// over direct's: both only when direct ran.
	VsDirect float64       `json:"vs_direct,omitempty"`
	P99Added time.Duration `json:"p99_added_ns,omitempty"`
}

type httpBenchReport struct {
	URL       string              `json:"url"`
	Upstream  string              `json:"upstream"`
	Clients   int                 `json:"clients"`
	Rate      int                 `json:"rate,omitempty"`
	Rounds    int                 `json:"rounds"`
	Duration  time.Duration       `json:"duration_ns"`
	Scenarios []httpBenchScenario `json:"scenarios"`
}

func newBenchHTTPCmd(io Stdio) *cobra.Command {
	var o httpBenchOptions
	var scenarios string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "http --url URL --key KEY",
		Short: "Load a running server from this process: data and ApiCall workflows and a session tool call, beside the upstream called directly",
		Long: `Load a running sluice server from this process, with keep-alive connections,
in a closed loop (--clients) or paced (--rate), and report requests/s and
p50/p99/p99.9 of each scenario and its ratio to the direct baseline, measured
in the same run:

  direct   a plain GET to the upstream (the baseline)
  data5    a 5-operation data workflow, durable, sync (POST /api/v1/workflows/execute)
  apicall  a one-ApiCall workflow GETting the upstream (cache off)
  session  op.FilterData called in an A2E session over WebSocket (/api/v1/session),
           one session per client
  mcpecho  only when named: the echo tool of a go-sdk MCP server over stdio, which
           this command spawns, called over one session with --clients calls in
           flight (issue 27's baseline for the session scenario)

Scenarios alternate in --rounds rounds, so each meets the same machine load.
Without --upstream the command serves a tiny JSON API on --upstream-listen;
the server must allow it in egress (e.g. SLUICE_EGRESS_ALLOW_PRIVATE=127.0.0.1).
The key's account needs the operations FilterData, TransformData, MergeData
and ApiCall, the upstream's host, and no rate limits that the load would meet
(session.calls_per_second bounds each session). docs/performance.md, "How to
measure", has the whole recipe. Reads SLUICE_URL and SLUICE_API_KEY.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			base, key, err := accountTarget(o.URL, o.Key)
			if err != nil {
				return err
			}
			o.URL, o.Key = base, key
			if scenarios != "" {
				o.Scenarios = strings.Split(scenarios, ",")
			}
			rep, err := runBenchHTTP(cmd.Context(), o)
			if err != nil {
				return fail(ExitFailed, "%v", err)
			}
			if asJSON {
				err = writeJSON(io.Out, rep)
			} else {
				rep.Write(io.Out)
			}
			if err != nil {
				return err
			}
			for _, s := range rep.Scenarios {
				if s.Errors > 0 {
					return silent(ExitFailed)
				}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.URL, "url", "", "server URL (default $SLUICE_URL, else http://127.0.0.1:8080)")
	fl.StringVar(&o.Key, "key", "", "the account's API key, @FILE or env:VAR (default $SLUICE_API_KEY)")
	fl.StringVar(&o.Upstream, "upstream", "", "URL of the upstream API (GET URL/user answers JSON); default: serve one on --upstream-listen")
	fl.StringVar(&o.UpstreamListen, "upstream-listen", "127.0.0.1:0", "where to serve the upstream when --upstream is not given")
	fl.IntVar(&o.Load.Clients, "clients", 32, "concurrent clients (connections)")
	fl.IntVar(&o.Load.Rate, "rate", 0, "pace each scenario at this many requests/s in all (0: closed loop, as fast as the clients go)")
	fl.DurationVar(&o.Duration, "duration", 10*time.Second, "measured time per scenario, over all rounds")
	fl.DurationVar(&o.Warmup, "warmup", time.Second, "unmeasured time per scenario before the first round (0: none)")
	fl.IntVar(&o.Rounds, "rounds", 5, "rounds; each runs every scenario for --duration/--rounds")
	fl.StringVar(&scenarios, "scenarios", "", "comma-separated: "+strings.Join(slices.Concat(httpBenchScenarios, httpBenchBaselines), ",")+" (default all but "+scenarioMCPEcho+")")
	fl.BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

func runBenchHTTP(ctx context.Context, o httpBenchOptions) (*httpBenchReport, error) {
	if o.Load.Clients <= 0 {
		return nil, errors.New("--clients: want at least 1")
	}
	if o.Rounds <= 0 || o.Duration <= 0 || o.Load.Rate < 0 || o.Warmup < 0 {
		return nil, errors.New("--rounds and --duration must be positive, --rate and --warmup not negative")
	}
	if len(o.Scenarios) == 0 {
		o.Scenarios = httpBenchScenarios
	}
	for _, s := range o.Scenarios {
		if !slices.Contains(httpBenchScenarios, s) && !slices.Contains(httpBenchBaselines, s) {
			return nil, fmt.Errorf("--scenarios: unknown scenario %q (%s)", s, strings.Join(slices.Concat(httpBenchScenarios, httpBenchBaselines), ", "))
		}
	}
	if o.Upstream == "" {
		up, stop, err := serveBenchUpstream(o.UpstreamListen)
		if err != nil {
			return nil, err
		}
		defer stop()
		o.Upstream = up
	}
	o.Upstream = strings.TrimRight(o.Upstream, "/")
	transport := &http.Transport{MaxIdleConns: 4 * o.Load.Clients, MaxIdleConnsPerHost: 2 * o.Load.Clients, IdleConnTimeout: time.Minute}
	defer transport.CloseIdleConnections()
	hc := &http.Client{Transport: transport, Timeout: time.Minute}
	sessions := newBenchSessions(o, hc)
	defer sessions.close()
	echo := &benchMCPEcho{connect: o.echoTransport}
	if echo.connect == nil {
		echo.connect = spawnEcho
	}
	defer echo.close()

	data5, err := newExecutePoster(hc, o.URL, o.Key, dataWorkflow("http", -1, -1), benchExecutionID("data", "http", -1, -1), true)
	if err != nil {
		return nil, err
	}
	apicall, err := newExecutePoster(hc, o.URL, o.Key, apiCallWorkflow(o.Upstream, "http", -1, -1), benchExecutionID("api", "http", -1, -1), false)
	if err != nil {
		return nil, err
	}
	calls := map[string]func(ctx context.Context, c, n int) error{
		scenarioDirect: func(ctx context.Context, _, _ int) error { return benchGet(ctx, hc, o.Upstream+"/user") },
		scenarioData5: func(ctx context.Context, c, n int) error {
			return data5.post(ctx, benchExecutionID("data", "http", c, n), n)
		},
		scenarioApiCall: func(ctx context.Context, c, n int) error {
			return apicall.post(ctx, benchExecutionID("api", "http", c, n), n)
		},
		scenarioSession: sessions.call,
		scenarioMCPEcho: echo.call,
	}
	// Ids must not meet those of an earlier run against the same server.
	var seq atomic.Int64
	seq.Store(time.Now().UnixNano() / 1000)
	results := make([]loadResult, len(o.Scenarios))
	if o.Warmup > 0 {
		for _, s := range o.Scenarios {
			runLoad(ctx, o.Load, o.Warmup, &seq, calls[s])
		}
	}
	slice := o.Duration / time.Duration(o.Rounds)
	for range o.Rounds {
		for i, s := range o.Scenarios {
			r := runLoad(ctx, o.Load, slice, &seq, calls[s])
			acc := &results[i]
			acc.Latencies = append(acc.Latencies, r.Latencies...)
			acc.Errors += r.Errors
			acc.Elapsed += r.Elapsed
			if acc.FirstError == "" {
				acc.FirstError = r.FirstError
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	rep := &httpBenchReport{URL: o.URL, Upstream: o.Upstream, Clients: o.Load.Clients, Rate: o.Load.Rate, Rounds: o.Rounds, Duration: o.Duration}
	for i, s := range o.Scenarios {
		rep.Scenarios = append(rep.Scenarios, httpBenchScenario{benchPhase: phaseOf(s, results[i])})
	}
	rep.compareToDirect()
	return rep, nil
}

// compareToDirect sets each scenario's ratio to the direct baseline.
func (r *httpBenchReport) compareToDirect() {
	var direct *httpBenchScenario
	for i := range r.Scenarios {
		if r.Scenarios[i].Name == scenarioDirect {
			direct = &r.Scenarios[i]
		}
	}
	if direct == nil || direct.PerSec == 0 {
		return
	}
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		if s == direct || s.PerSec == 0 {
			continue
		}
		s.VsDirect = s.PerSec / direct.PerSec
		s.P99Added = s.P99 - direct.P99
	}
}

// Write prints the report as a table.
func (r *httpBenchReport) Write(w io.Writer) {
	pace := "closed loop"
	if r.Rate > 0 {
		pace = fmt.Sprintf("paced at %d requests/s", r.Rate)
	}
	fmt.Fprintf(w, "%s: %d clients, %s, %s per scenario in %d alternated rounds; upstream %s\n\n", r.URL, r.Clients, pace, r.Duration, r.Rounds, r.Upstream)
	fmt.Fprintf(w, "%-9s %11s %9s %9s %9s %9s %9s %10s %7s\n", "scenario", "requests/s", "p50", "p99", "p99.9", "max", "vs direct", "p99 added", "errors")
	for _, s := range r.Scenarios {
		ratio, added := "", ""
		if s.VsDirect > 0 {
			ratio, added = fmt.Sprintf("%.2fx", s.VsDirect), roundLatency(s.P99Added).String()
		}
		fmt.Fprintf(w, "%-9s %11.0f %9s %9s %9s %9s %9s %10s %7d\n", s.Name, s.PerSec, roundLatency(s.P50), roundLatency(s.P99),
			roundLatency(s.P999), roundLatency(s.Max), ratio, added, s.Errors)
		if s.FirstError != "" {
			fmt.Fprintf(w, "          first error: %s\n", s.FirstError)
		}
	}
}

// serveBenchUpstream serves the upstream API on addr: GET /user answers a
// small JSON object, as benchserve's does.
func serveBenchUpstream(addr string) (string, func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("--upstream-listen: %v", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":7,"name":"ann","status":"active","points":120}`)
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = srv.Close() }, nil
}

// benchSessions holds one A2E session per client, each opened on the
// client's first call (not measured apart: the warm-up opens them).
type benchSessions struct {
	url, key string
	hc       *http.Client
	open     []*session.Client // by client; each touched by its client only
	args     json.RawMessage
}

func newBenchSessions(o httpBenchOptions, hc *http.Client) *benchSessions {
	args, _ := json.Marshal(map[string]any{"inputPath": "/input/xs",
		"input":      map[string]any{"xs": []any{map[string]any{"v": 1}, map[string]any{"v": 3}}},
		"conditions": []any{map[string]any{"field": "v", "operator": "<", "value": 2}}})
	return &benchSessions{url: "ws" + strings.TrimPrefix(o.URL, "http") + "/api/v1/session", key: o.Key, hc: hc,
		open: make([]*session.Client, o.Load.Clients), args: args}
}

func (b *benchSessions) call(ctx context.Context, c, _ int) error {
	if b.open[c] == nil {
		ws, _, err := websocket.Dial(ctx, b.url, &websocket.DialOptions{HTTPClient: b.hc})
		if err != nil {
			return fmt.Errorf("session: %v", err)
		}
		ws.SetReadLimit(1 << 20)
		// The session lives across rounds: not bound to one call's context.
		nc := websocket.NetConn(context.WithoutCancel(ctx), ws, websocket.MessageText)
		sc, err := session.Connect(ctx, nc, nc, session.ClientOptions{AgentID: "bench", AuthToken: b.key, Caps: []string{"tools"}})
		if err != nil {
			_ = nc.Close()
			return fmt.Errorf("session: %v", err)
		}
		b.open[c] = sc
	}
	resp, err := b.open[c].CallTool(ctx, &session.ToolCallReq{ToolName: "op.FilterData", Arguments: b.args})
	if err != nil {
		return err
	}
	if !resp.Data.Success {
		return fmt.Errorf("op.FilterData: %s", resp.Data.Error)
	}
	return nil
}

func (b *benchSessions) close() {
	for _, sc := range b.open {
		if sc != nil {
			_ = sc.Close()
		}
	}
}
