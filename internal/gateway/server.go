// Package gateway is sluice's HTTP server: the REST API of the A2E spec, the
// E2A endpoint, the admin API and the infrastructure routes. Every call
// becomes an e2a.Envelope and passes one Dispatcher (authenticate ->
// authorize -> rate limit -> audit -> service); the services answer with E2A
// frames, which each ingress codec renders on its own wire.
package gateway

import (
	"context"
	"errors"
	"github.com/sluicehq/sluice/internal/a2aserver"
	"github.com/sluicehq/sluice/internal/agentflow"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/retention"
	"github.com/sluicehq/sluice/internal/runs"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/tools"
	"github.com/sluicehq/sluice/internal/vault"
	"github.com/sluicehq/sluice/internal/workflow"
	"github.com/sluicehq/sluice/protocol/session"
)

// Config are the server's HTTP settings.
type Config struct {
	MaxBodyBytes      int64         // request bodies (default 1 MiB + 64 KiB of envelope)
	ReadHeaderTimeout time.Duration // default 10 s
	ReadTimeout       time.Duration // default 30 s
	WriteTimeout      time.Duration // default 0: responses are bounded by executions' budgets; SSE streams are long
	IdleTimeout       time.Duration // default 120 s
	SSEHeartbeat      time.Duration // a comment line on idle SSE streams (default 15 s)
	Metrics           bool          // serve /metrics (it is not authenticated)
	Session           SessionConfig
	MCP               MCPConfig // the MCP sessions of /mcp and `sluice mcp --stdio`
	// PublicRegistry lets anyone read the A2S registry (GET without a key),
	// as remote registries are read by other servers.
	PublicRegistry bool
}

func (c Config) withDefaults() Config {
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 1<<20 + 64<<10
	}
	if c.ReadHeaderTimeout <= 0 {
		c.ReadHeaderTimeout = 10 * time.Second
	}
	if c.ReadTimeout <= 0 {
		c.ReadTimeout = 30 * time.Second
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = 120 * time.Second
	}
	if c.SSEHeartbeat <= 0 {
		c.SSEHeartbeat = 15 * time.Second
	}
	return c
}

// Limiter is the request rate limiter with its status report.
type Limiter interface {
	RequestLimiter
	// Status is the account's every window: the body of GET /api/v1/rate-limit/status.
	Status(p *account.Principal) any
}

// Services are what the gateway's methods call.
type Services struct {
	Store      store.Store
	Accounts   *account.Service
	Runner     *workflow.Runner
	Executions *execution.Manager
	Vault      *vault.Sealed
	Limiter    Limiter
	Audit      AuditSink
	Tools      *tools.Box
	// MCP serves the session's mcp namespace; nil: not offered.
	MCP MCPService
	// Capabilities runs A2S capabilities; nil: not offered.
	Capabilities CapabilityService
	// Registry is the A2S capability registry; nil: not offered.
	Registry CapabilityRegistry
	// Catalog is discovery and the API knowledge bases; nil: not offered.
	Catalog Catalog
	// Agents are the HTTP task agents; nil: not offered.
	Agents *Agents
	// AgentFlows runs multi-step agent workflows; nil: not offered.
	AgentFlows *agentflow.Runner
	// A2APush keeps and sends the A2A push notification configs (its
	// store, the vault that seals their secrets, the egress rule and
	// client); a zero Store: not offered.
	A2APush a2aserver.Push
	// Retention prunes finished work and keeps its policy; nil: the
	// admin.retention methods are not offered.
	Retention *retention.Pruner
	// Ready reports whether the server can take work (store reachable,
	// recovery done); nil: always.
	Ready func(ctx context.Context) error
}

// Server is the HTTP surface.
type Server struct {
	cfg        Config
	svc        Services
	runs       *runs.Service // the run.* methods' service, over svc's
	dispatcher *Dispatcher
	metrics    *metrics
	registry   *prometheus.Registry // what admin.stats reads back
	history    statsHistory         // the counters over the last hour (stats_history.go)
	sessions   *session.Registry    // message types of A2E sessions
	preAuth    *preAuthSlots        // session connections still in their handshake
	// sessionsCtx ends when the server shuts down: WebSocket sessions are
	// hijacked connections that http.Server.Shutdown does not wait for.
	sessionsCtx  context.Context
	stopSessions context.CancelFunc
	clock        clock.Clock
	log          *slog.Logger
	// a2a is the A2A server, when its routes are mounted (RunA2APush).
	a2a     *a2aserver.Server
	handler http.Handler
	mcp     *mcpHTTP // the MCP ingress: /mcp, and ServeMCP
}

// New makes a Server; reg receives its metrics (nil: a new registry).
func New(cfg Config, svc Services, reg *prometheus.Registry, clk clock.Clock, log *slog.Logger) *Server {
	if clk == nil {
		clk = clock.Real{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	s := &Server{cfg: cfg.withDefaults(), svc: svc, clock: clk, log: log, metrics: newMetrics(reg), registry: reg, sessions: session.NewRegistry(),
		runs: newRuns(svc)}
	sc := s.cfg.Session.withDefaults()
	s.preAuth = newPreAuthSlots(sc.MaxUnauthenticated, sc.MaxUnauthenticatedPerAddress)
	s.sessionsCtx, s.stopSessions = context.WithCancel(context.Background())
	if err := s.sessions.Register(session.MCP); err != nil {
		panic("gateway: the mcp session namespace: " + err.Error()) // a defect; tests catch it
	}
	s.dispatcher = &Dispatcher{
		methods: map[string]method{}, auth: svc.Accounts, limiter: svc.Limiter, audit: svc.Audit,
		metrics: s.metrics, clock: clk, logger: log,
	}
	if svc.Limiter == nil {
		s.dispatcher.limiter = nil
	}
	s.registerMethods()
	if svc.Agents != nil && svc.Tools != nil {
		svc.Tools.Add(agentTools{s}) // each agent is also the session tool agent.<name>
	}
	s.mcp = newMCPHTTP(s)
	s.handler = s.routes(reg)
	return s
}

// Handler is the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Dispatcher is the server's dispatcher (for other ingresses: sessions).
func (s *Server) Dispatcher() *Dispatcher { return s.dispatcher }

// routes builds the mux: the infrastructure routes, and each method's
// routes from methodTable.
func (s *Server) routes(reg *prometheus.Registry) http.Handler {
	mux := http.NewServeMux()
	for _, rt := range routes {
		pattern := rt.method + " " + rt.pattern
		switch rt.pattern {
		case "/health":
			mux.HandleFunc(pattern, s.health)
		case "/ready":
			mux.HandleFunc(pattern, s.ready)
		case "/metrics":
			if s.cfg.Metrics {
				mux.Handle(pattern, metricsHandler(reg))
			} else {
				mux.HandleFunc(pattern, func(w http.ResponseWriter, _ *http.Request) {
					writeJSON(w, http.StatusNotFound, errorObject(fault.New(fault.NotFound, "metrics are off").
						WithSuggestions("Set metrics.enabled: true (or SLUICE_METRICS=true)").Object()))
				})
			}
		case "/openapi.json":
			mux.HandleFunc(pattern, serveOpenAPI)
		case "/api/v1/e2a":
			mux.HandleFunc(pattern, s.e2aHandler)
		case "/api/v1/session":
			mux.HandleFunc(pattern, s.sessionWS)
		case "/mcp":
			mux.Handle(pattern, s.mcp)
		default:
			if rt.sse {
				mux.HandleFunc(pattern, s.sseHandler(rt))
			} else {
				mux.HandleFunc(pattern, s.restHandler(rt))
			}
		}
	}
	s.mountA2A(mux)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, errorObject(notFoundRoute(r).Object()))
	})
	return s.metrics.wrap(mux)
}

func (s *Server) health(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "healthy", "service": "sluice"})
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	if s.svc.Ready != nil {
		if err := s.svc.Ready(r.Context()); err != nil {
			writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "unavailable", "reason": err.Error()})
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready"})
}

// HTTPServer is an http.Server for the handler with the configured timeouts.
func (s *Server) HTTPServer(addr string) *http.Server {
	hs := &http.Server{
		Addr:              addr,
		Handler:           s.handler,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		ReadTimeout:       s.cfg.ReadTimeout,
		WriteTimeout:      s.cfg.WriteTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	// MCP sessions' streams are long requests Shutdown would wait for.
	hs.RegisterOnShutdown(s.mcp.sessions.closeAll)
	return hs
}

// Serve serves on ln until ctx ends, then shuts down gracefully within grace.
func (s *Server) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	go s.sampleStats(ctx)
	return serveUntil(ctx, s.HTTPServer(ln.Addr().String()), ln, grace, s.stopSessions)
}

// serveUntil serves hs on ln until ctx ends, then shuts it down within
// grace (closing what is left after it), calling stopped between the two.
func serveUntil(ctx context.Context, hs *http.Server, ln net.Listener, grace time.Duration, stopped func()) error {
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := hs.Shutdown(sctx)
	if stopped != nil {
		stopped()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		_ = hs.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}
