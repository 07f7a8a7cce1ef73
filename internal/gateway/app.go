package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sluicehq/sluice/internal/a2aserver"
	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/agent"
	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/audit"
	"github.com/sluicehq/sluice/internal/bridge"
	"github.com/sluicehq/sluice/internal/cache"
	"github.com/sluicehq/sluice/internal/capreg"
	"github.com/sluicehq/sluice/internal/caprun"
	"github.com/sluicehq/sluice/internal/catalog"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/console"
	"github.com/sluicehq/sluice/internal/discovery"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/mcp"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/queue/byurl"
	"github.com/sluicehq/sluice/internal/ratelimit"
	"github.com/sluicehq/sluice/internal/storage"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/tools"
	"github.com/sluicehq/sluice/internal/validate"
	"github.com/sluicehq/sluice/internal/workflow"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// App is a whole sluice server on one data directory: store, vault, keys,
// limits, queue, workers and the HTTP surface, wired from a Config.
type App struct {
	Server *Server
	// AdminKey is the admin key generated on first start, to be shown once;
	// "" when it existed already or comes from the configuration.
	AdminKey string
	// Console is the web console when console.enabled is set; it is
	// served on the API's address unless console.addr names its own
	// (ServeConsole).
	Console *console.Console

	cfg       *config.Config
	db        store.Store
	queue     queue.Queue
	limiter   *ratelimit.Limiter
	audit     *audit.Writer
	execs     *execution.Manager
	mcp       *mcp.Registry
	acpAgents *agent.Invoker // its ACP agent processes stop with the app
	caps      *caprun.Service
	// agentQueue is the queue of agents.queue when one is set (nil: agent
	// tasks go on queue); agentCalls is this process's caller of agents.
	agentQueue queue.Queue
	agentCalls *bridge.Client
	bg         sync.WaitGroup
	log        *slog.Logger
	stop       context.CancelFunc
}

// Options change how Open wires an App (tests and benchmarks).
type Options struct {
	Clock  clock.Clock
	Logger *slog.Logger
	// Registry receives the metrics (nil: a new one).
	Registry *prometheus.Registry
	// Session overrides the limits of A2E sessions from cfg.Session (zero
	// fields: cfg's).
	Session SessionConfig
	// MCP bounds MCP sessions (zero fields: the defaults).
	MCP MCPConfig
}

// Open wires an App from cfg and starts its background work (recovery of
// unfinished executions, workers, flushes). Close releases it.
func Open(ctx context.Context, cfg *config.Config, o Options) (app *App, err error) {
	clk := o.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &App{cfg: cfg, log: log}
	defer func() {
		if err != nil {
			a.Close()
		}
	}()
	prof, err := openProfile(ctx, cfg, clk, log)
	if err != nil {
		return nil, err
	}
	a.db, a.queue = prof.db, prof.queue
	pepper, sealed, err := openKeys(ctx, cfg, a.db, prof.shared, clk, log)
	if err != nil {
		return nil, err
	}
	rateOpts := ratelimit.Options{Clock: clk, Defaults: defaultRateLimits(cfg.RateLimits),
		FlushInterval: cfg.RateLimits.FlushInterval, Logger: log}
	prof.rateLimits(&rateOpts)
	if a.limiter, err = ratelimit.Open(ctx, rateOpts); err != nil {
		return nil, err
	}
	lim := limiter{a.limiter}
	// The catalog is made below; an account's apis grants imply the hosts of
	// its APIs from then on.
	var cat *catalog.Service
	accounts := account.New(account.Config{Store: a.db, Pepper: pepper, AdminKey: cfg.AdminKey.Reveal(),
		Defaults: accountDefaults(cfg), Clock: clk, APIHosts: func(apis []string) []string {
			if cat == nil {
				return nil
			}
			return cat.HostsOf(apis)
		}})
	if a.AdminKey, err = accounts.EnsureAdmin(ctx); err != nil {
		return nil, err
	}

	pol := cfg.Egress.Policy()
	resultCache := cache.New(cache.Config{Clock: clk})
	session := storage.NewMemory(clk)
	if cfg.Session.TTL > 0 {
		session.SessionTTL = cfg.Session.TTL
	}
	sessionStore, fileStore := prof.sessionStorage(session), prof.fileStorage(session)
	agents := newAgents(a.db, sealed, pol, cfg.Agents.ACP, clk, log)
	a.acpAgents = agents.Invoker
	agentRegistry := agents.Registry
	// Agents are called through a queue (the store's, or agents.queue):
	// this process enqueues, a worker here or in `sluice worker` calls.
	owner := execution.DefaultOwner()
	agentQueue := a.queue
	if cfg.Agents.Queue != "" {
		if a.agentQueue, err = byurl.Open(ctx, cfg.Agents.Queue, log.With("component", "agent-queue")); err != nil {
			return nil, err
		}
		agentQueue = a.agentQueue
	}
	a.agentCalls = &bridge.Client{Queue: agentQueue, ReplyTo: replyTopic(prof.alone && a.agentQueue == nil, owner),
		Agents: agentflow.AgentsIn(agentRegistry), MaxWait: cfg.Agents.MaxWait, Owner: owner, Clock: clk, Logger: log.With("component", "agents")}
	agents.Caller = a.agentCalls
	limits := op.DefaultLimits()
	if cfg.Limits.MaxResponseBytes > 0 {
		limits.MaxResponseBytes = cfg.Limits.MaxResponseBytes
	}
	deps := op.Deps{
		Client: egress.NewClient(pol),
		Vault:  sealed,
		Storage: &storage.Mux{
			Local:   storage.StoredLocal{KV: a.db},
			Session: sessionStore,
			File:    fileStore,
		},
		Cache:  resultCache,
		Clock:  clk,
		Limits: limits,
		Meter:  apiMeter{lim: a.limiter, accounts: accounts},
		Agents: agents.Caller,
	}
	runner := workflow.New(workflow.Config{Deps: deps, PrivateAllowed: pol.Allows, Validate: validate.Limits{
		MaxOperations: cfg.Limits.MaxOperations, MaxLoopIterations: cfg.Limits.MaxLoopIterations,
	}})
	// Small, frequent audit batches: each is a transaction of the one writer,
	// and a large one holds up the executions queued behind it.
	a.audit = audit.New(audit.Config{Store: a.db, Logger: log, Batch: 64, FlushEvery: 20 * time.Millisecond})
	sink := auditSink{add: a.audit.Add}

	reg := o.Registry
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	pruner := newPruner(a.db, cfg.Retention, clk, log, reg, func(ctx context.Context, ids []string) {
		for _, id := range ids {
			if err := sealed.Delete(context.WithoutCancel(ctx), id); err != nil && fault.KindOf(err) != fault.NotFound {
				log.Warn("a pruned push notification config's secret was left in the vault", "credentialId", id, "err", fault.From(err).Message)
			}
		}
	})
	var srv *Server
	a.execs = execution.New(execution.Config{
		Store: a.db, Queue: a.queue, Runner: runner, Accounts: accounts, Cache: resultCache,
		Engine: engine.Limits{MaxLoopIterations: cfg.Limits.MaxLoopIterations, MaxDataBytes: cfg.Limits.MaxDataBytes}, Clock: clk, Logger: log,
		Audit: func(accountID, executionID string, ev engine.Event) {
			sink.operation(accountID, executionID, ev)
			outcome := "ok"
			if ev.Kind == engine.EventFailed {
				outcome = "failed"
			}
			srv.Operation(ev.Trace, ev.Operation, outcome, time.Duration(ev.Duration)*time.Millisecond)
		},
		Slots:    lim.slots,
		Finished: func(status string) { srv.Execution(status) },
		// A cancelled run that waited on a remote A2A agent's question
		// cancels that remote task too, in the background (5 s at most).
		CancelledWaiting: func(ctx context.Context, _ string, request any) {
			if p, ok := op.AgentWaitOf(request); ok {
				go func() {
					if err := agents.Invoker.CancelRemote(ctx, p.Agent, p.TaskID); err != nil {
						log.Warn("the remote task of a cancelled run was not cancelled", "agent", p.Agent, "error", fault.From(err))
					}
				}()
			}
		},
		Workers:     cfg.Workers,
		Owner:       execution.DefaultOwner(),
		AsyncBudget: cfg.Limits.AsyncExecutionTime,
		// Over it, an execution ends failed (never unstored).
		MaxStoredBytes: int(cfg.Store.MaxExecutionBytes),
		// Gateways sharing PostgreSQL see each other's cancels and frames.
		SharedPoll: prof.sharedPoll,
	})
	a.mcp = mcp.New(mcp.Options{
		Store: a.db, Commands: cfg.MCP.Commands, Egress: pol, Vault: sealed,
		ConnectTimeout: cfg.MCP.ConnectTimeout, CallTimeout: cfg.MCP.CallTimeout, IdleTimeout: cfg.MCP.IdleTimeout,
		MaxResultBytes: cfg.MCP.MaxResultBytes, Logger: log.With("component", "mcp"),
	})
	registry := capreg.New(capreg.Options{Store: a.db, Client: egress.NewClient(pol), Logger: log.With("component", "a2s-registry")})
	specs := make([]op.Spec, 0, len(op.Builtins()))
	for _, r := range op.Builtins() {
		specs = append(specs, r.Spec)
	}
	// An agent workflow's steps call their agents from the process that
	// runs the run (the run service's lease holds the step): through the
	// agent queue, a task item left by a process killed mid-call would be
	// run again beside the resumed step's own call.
	flows := &agentflow.Runner{Runs: a.execs, Store: a.db, Invoker: agents.Invoker, Agents: agentflow.AgentsIn(agentRegistry),
		Logger: log.With("component", "agent-workflows")}
	flows.Monitor = monitor(agentQueue, cfg.Agents.MonitoringTopic, log)
	var embedder discovery.Embedder
	vectorWeight := cfg.Discovery.Embeddings.VectorWeight
	if e := cfg.Discovery.Embeddings; e.URL != "" {
		// The operator's own endpoint (often on loopback): a plain client.
		embedder = &discovery.OpenAIEmbedder{BaseURL: e.URL, Model: e.Model, APIKey: os.Getenv(e.APIKeyEnv),
			Client: &http.Client{Timeout: e.Timeout}, Timeout: e.Timeout, MaxBatch: e.Batch}
	}
	agentNames := func(ctx context.Context) ([]string, error) {
		list, err := agentRegistry.List(ctx)
		names := make([]string, 0, len(list))
		for _, e := range list {
			names = append(names, e.Name)
		}
		return names, err
	}
	catCfg := catalog.Config{Store: a.db, Operations: specs, Capabilities: capRegistry{registry}.Catalog, Agents: agentNames,
		Audit: policy.AuditPolicy(cfg.A2S.Audit), Embedder: embedder, VectorWeight: &vectorWeight, NoWordNet: !cfg.Discovery.WordNet, NoWordVectors: !cfg.Discovery.WordVectors,
		Abbreviations: cfg.Discovery.Abbreviations, Synonyms: synonymGroups(cfg.Discovery.Synonyms), Logger: log.With("component", "catalog")}
	if cfg.Discovery.Learning.Enabled {
		catCfg.Usage, catCfg.UsageRetention = a.db, cfg.Discovery.Learning.Retention
	}
	cat = catalog.New(catCfg)
	if err := cat.Load(ctx); err != nil {
		return nil, err
	}
	auditPolicy := policy.AuditPolicy(cfg.A2S.Audit)
	capEngineOpts := engine.Options{Clock: clk, Cache: resultCache, Logger: log,
		Limits: engine.Limits{MaxLoopIterations: cfg.Limits.MaxLoopIterations, MaxDataBytes: cfg.Limits.MaxDataBytes}}
	a.caps = caprun.New(caprun.Config{Store: a.db, Registry: capRegistry{registry}, Runs: a.execs,
		Env:    func(p *account.Principal) *op.Environment { return runner.Environment(execution.Account(p)) },
		Nested: engine.New(capEngineOpts), Audit: auditPolicy, Logger: log.With("component", "a2s")})
	// One run service runs every kind of run.
	a.execs.Register(a.caps.Kind())
	a.execs.Register(flows.Kind())
	// A session's tool listing ranks like the catalog: same expansions,
	// same operator vocabulary.
	toolBox := tools.New(&tools.Workflows{Runner: runner, Executions: a.execs}, a.mcp.Provider(), a.caps.Tools())
	if err := toolBox.RankWith(cat.RankingOptions()); err != nil {
		return nil, err
	}
	srv = New(Config{
		MaxBodyBytes:      cfg.MaxBodyBytes,
		ReadHeaderTimeout: cfg.Server.ReadHeaderTimeout,
		ReadTimeout:       cfg.Server.ReadTimeout,
		WriteTimeout:      cfg.Server.WriteTimeout,
		IdleTimeout:       cfg.Server.IdleTimeout,
		Metrics:           cfg.Metrics.Enabled,
		Session:           sessionConfig(cfg.Session, o.Session),
		MCP:               mcpConfig(cfg.MCP.Serve, o.MCP),
		PublicRegistry:    cfg.A2S.PublicRegistry,
	}, Services{
		Store: a.db, Accounts: accounts, Runner: runner, Executions: a.execs, Vault: sealed,
		Limiter: lim, Audit: sink,
		Tools:        toolBox,
		MCP:          a.mcp,
		Capabilities: a.caps,
		Registry:     registry,
		Catalog:      cat,
		Agents:       agents,
		AgentFlows:   flows,
		// The webhooks are POSTed under the egress rule, each POST bounded
		// by the sender itself.
		A2APush:   a2aserver.Push{Store: a.db, Vault: sealed, Egress: pol, Client: egress.NewClient(pol)},
		Retention: pruner,
		Ready: func(ctx context.Context) error {
			_, err := a.db.GetAccount(ctx, account.AdminID)
			return err
		},
	}, reg, clk, log)
	a.Server = srv
	srv.handler = retryAfterUnavailable(srv.handler)
	if cfg.Console.Enabled {
		a.Console = console.New(console.Config{Caller: srv, SessionTTL: cfg.Console.SessionTTL, Clock: clk,
			Logger: log.With("component", "console")})
		if cfg.Console.Addr == "" {
			srv.handler = withConsole(a.Console, srv.handler)
		}
	}

	if err := prof.startUp(ctx, owner); err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	a.stop = cancel
	if err := a.execs.Start(runCtx); err != nil {
		return nil, err
	}
	go agents.Invoker.RunHealthChecks(runCtx, agent.HealthInterval(0))
	// Steps queued by a version before the run service: their runs were
	// recovered by the run service's start.
	if n, err := agentflow.Drain(runCtx, agentQueue, owner); err != nil {
		log.Warn("old agent workflow steps not drained", "error", fault.From(err))
	} else if n > 0 {
		log.Info("old agent workflow steps drained: their runs go on in the run service", "items", n)
	}
	a.background(func() { _ = a.agentCalls.Run(runCtx) })
	a.background(func() { srv.RunA2APush(runCtx) })
	a.background(func() { pruner.Run(runCtx) })
	if n := cfg.Agents.Workers; n > 0 {
		w := &bridge.Worker{Queue: agentQueue, Invoker: agents.Invoker, Local: a.agentCalls, Workers: n,
			Monitoring: cfg.Agents.MonitoringTopic, ResultTTL: bridge.ResultTTL(cfg.Agents.MaxWait), Clock: clk,
			Logger: log.With("component", "agent-worker")}
		a.background(func() { _ = w.Run(runCtx, owner) })
	}
	return a, nil
}

// monitor publishes agent workflow step updates on topic ("": none).
func monitor(q queue.Queue, topic string, log *slog.Logger) func(context.Context, agenthttp.MonitoringMessage) {
	if topic == "" {
		return nil
	}
	return func(ctx context.Context, m agenthttp.MonitoringMessage) {
		if err := bridge.Publish(ctx, q, topic, m); err != nil {
			log.Warn("monitoring update not published", "run", m.RunID, "step", m.StepID, "error", fault.From(err))
		}
	}
}

// background runs fn until the App closes; Close waits for it.
func (a *App) background(fn func()) {
	a.bg.Add(1)
	go func() { defer a.bg.Done(); fn() }()
}

// replyTopic is the results topic of this process's agent calls: the
// default one when the process is alone on its queue (SQLite's local
// queue), else one of its own, so that each gateway gets its own callers'
// results.
func replyTopic(alone bool, owner string) string {
	if alone {
		return agenthttp.TopicResults
	}
	b := []byte(owner)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			b[i] = '-'
		}
	}
	return agenthttp.TopicResults + "." + string(b)
}

// accountDefaults are the account limits of the configuration.
func accountDefaults(cfg *config.Config) account.Limits {
	r := cfg.RateLimits
	return account.Limits{
		RequestsPerMinute: r.RequestsPerMinute, RequestsPerHour: r.RequestsPerHour, RequestsPerDay: r.RequestsPerDay,
		APICallsPerMinute: r.APICallsPerMinute, APICallsPerHour: r.APICallsPerHour,
		MaxConcurrentExecutions: r.MaxConcurrentExecutions,
		MaxOperations:           cfg.Limits.MaxOperations,
		MaxExecutionTimeMs:      int(cfg.Limits.MaxExecutionTime.Milliseconds()),
		MaxLoopIterations:       cfg.Limits.MaxLoopIterations,
		MaxDataBytes:            cfg.Limits.MaxDataBytes,
	}
}

// Serve listens on the configured address until ctx ends, then shuts down:
// HTTP first (in-flight requests drain within the grace), then the workers.
func (a *App) Serve(ctx context.Context, ln net.Listener) error {
	grace := a.cfg.Server.ShutdownGrace
	if grace <= 0 {
		grace = 30 * time.Second
	}
	return a.Server.Serve(ctx, ln, grace)
}

// ServeConsole serves the console alone on ln (console.addr) until ctx
// ends. Its pages drain within the shutdown grace, 5 s at most: what is
// left then is a browser following a run, which reconnects to the next
// server.
func (a *App) ServeConsole(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: a.Console, ReadHeaderTimeout: a.cfg.Server.ReadHeaderTimeout,
		ReadTimeout: a.cfg.Server.ReadTimeout, IdleTimeout: a.cfg.Server.IdleTimeout, MaxHeaderBytes: 64 << 10}
	return serveUntil(ctx, hs, ln, min(a.cfg.Server.ShutdownGrace, 5*time.Second), nil)
}

// Close stops the workers (running executions get the shutdown grace, then
// resume after a restart), flushes the audit trail and the rate counters,
// and closes the store, releasing the data directory.
func (a *App) Close() error {
	var errs []error
	if a.execs != nil {
		grace := a.cfg.Server.ShutdownGrace
		if grace <= 0 {
			grace = 30 * time.Second
		}
		a.execs.Close(grace)
	}
	if a.stop != nil {
		a.stop()
	}
	// Agent calls and workers stop with the context: tasks in hand are left
	// to their leases and run again elsewhere or after a restart.
	a.bg.Wait()
	if a.mcp != nil {
		errs = append(errs, a.mcp.Close())
	}
	if a.acpAgents != nil {
		a.acpAgents.Close() // the ACP agent processes it runs
	}
	if a.audit != nil {
		a.audit.Close()
	}
	if a.limiter != nil {
		errs = append(errs, a.limiter.Close(context.Background()))
	}
	if a.agentQueue != nil {
		errs = append(errs, a.agentQueue.Close())
	}
	if a.queue != nil {
		errs = append(errs, a.queue.Close())
	}
	if a.db != nil {
		errs = append(errs, a.db.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("closing: %w", err)
	}
	return nil
}

// sessionConfig is the session limits of the config file, each overridden by
// the same field of o when set.
// synonymGroups splits each configured group ("invoice bill statement")
// into its words.
func synonymGroups(groups []string) [][]string {
	out := make([][]string, 0, len(groups))
	for _, g := range groups {
		out = append(out, strings.Fields(g))
	}
	return out
}

func sessionConfig(c config.Session, o SessionConfig) SessionConfig {
	sc := SessionConfig{
		MaxLineBytes:     int(c.MaxLineBytes),
		MaxParallel:      c.MaxParallel,
		CallsPerSecond:   float64(c.CallsPerSecond),
		HandshakeTimeout: c.HandshakeTimeout,
		ShutdownTimeout:  c.ShutdownTimeout,

		MaxUnauthenticated:           c.MaxUnauthenticated,
		MaxUnauthenticatedPerAddress: c.MaxUnauthenticatedPerAddress,
	}
	override(&sc.MaxLineBytes, o.MaxLineBytes)
	override(&sc.MaxParallel, o.MaxParallel)
	override(&sc.CallsPerSecond, o.CallsPerSecond)
	override(&sc.HandshakeTimeout, o.HandshakeTimeout)
	override(&sc.ShutdownTimeout, o.ShutdownTimeout)
	override(&sc.MaxUnauthenticated, o.MaxUnauthenticated)
	override(&sc.MaxUnauthenticatedPerAddress, o.MaxUnauthenticatedPerAddress)
	return sc
}

// retryAfterUnavailable adds Retry-After: 1 to a 503 that has none: the
// store (or queue) could not be reached, and the client may try again soon.
func retryAfterUnavailable(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&retryAfterWriter{w}, r)
	})
}

type retryAfterWriter struct{ http.ResponseWriter }

func (w *retryAfterWriter) WriteHeader(code int) {
	if code == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "1")
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection (flush, hijack).
func (w *retryAfterWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *retryAfterWriter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

// mcpConfig is the MCP server's configuration from c, with o's non-zero
// fields over it.
func mcpConfig(c config.MCPServe, o MCPConfig) MCPConfig {
	mc := MCPConfig{MaxSessions: c.MaxSessions, MaxSessionsPerAccount: c.MaxSessionsPerAccount, IdleTimeout: c.IdleTimeout,
		PageSize: c.PageSize, ListChangedEvery: c.ListChangedInterval, AllowedHosts: c.AllowedHosts, AllowedOrigins: c.AllowedOrigins,
		ServerVersion: o.ServerVersion}
	override(&mc.MaxSessions, o.MaxSessions)
	override(&mc.MaxSessionsPerAccount, o.MaxSessionsPerAccount)
	override(&mc.IdleTimeout, o.IdleTimeout)
	override(&mc.PageSize, o.PageSize)
	override(&mc.ListChangedEvery, o.ListChangedEvery)
	if o.AllowedHosts != nil {
		mc.AllowedHosts = o.AllowedHosts
	}
	if o.AllowedOrigins != nil {
		mc.AllowedOrigins = o.AllowedOrigins
	}
	return mc
}

// override sets *dst to v when v is set (a value above zero): an option
// given over the configuration's.
func override[T int | float64 | time.Duration](dst *T, v T) {
	if v > 0 {
		*dst = v
	}
}
