package cli

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/debugserver"
	"github.com/sluicehq/sluice/internal/gateway"
	"github.com/sluicehq/sluice/internal/telemetry"
)

type serveFlags struct {
	config      string
	addr        string
	data        string
	sessionAddr string
	debugAddr   string
	store       string
	queue       string
	workers     int
}

func newServeCmd(io Stdio) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the sluice server (REST API, E2A endpoint, admin API)",
		Long: `Run the sluice server on embedded defaults: SQLite in the data directory,
the vault master key and the key pepper created there on first start, and an
admin key printed once on stderr ("admin key: ...") unless SLUICE_ADMIN_KEY is
set. Configuration: --config FILE (YAML, see docs/configuration.md) or
SLUICE_CONFIG, environment overrides (SLUICE_ADDR, SLUICE_DATA, ...), then
these flags.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return serve(cmd, io, f) },
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.sessionAddr, "session-addr", "", "also serve A2E sessions over TCP on HOST:PORT (one session per connection)")
	fl.StringVar(&f.debugAddr, "debug-addr", "", "serve net/http/pprof and runtime metrics (/debug/vars) on this loopback HOST:PORT (debug_addr; default off)")
	return cmd
}

// register adds the flags that set configuration keys (serve's, and
// `sluice config print`'s, which shows what serve would run with).
func (f *serveFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "", "YAML configuration file (default $SLUICE_CONFIG, else none)")
	fl.StringVar(&f.addr, "addr", "", "listen address (default 127.0.0.1:8080)")
	fl.StringVar(&f.data, "data", "", "data directory (default ./sluice-data)")
	fl.StringVar(&f.store, "store", "", `"sqlite" (in the data directory) or a postgres:// URL shared by several gateways (default $SLUICE_STORE, else sqlite); leave the password to PGPASSWORD`)
	// Backquotes in a pflag usage name the flag's value in --help: none here
	// but the value names themselves.
	fl.StringVar(&f.queue, "queue", "", "the `URL` of the queue of agent tasks shared with sluice worker processes: nats://HOST:PORT[,...] or kafka://HOST:PORT[,...] (default $SLUICE_QUEUE, else the store's own)")
	agentWorkersFlag(fl, &f.workers, "agent task workers in this process (agents.workers, $SLUICE_AGENT_WORKERS); 0: none, sluice worker processes take the tasks")
}

func serve(cmd *cobra.Command, io Stdio, f serveFlags) error {
	cfg, err := config.Load(config.Options{Path: f.config})
	if err != nil {
		return fail(ExitInvalid, "%v", err)
	}
	if _, err := f.apply(cmd, cfg); err != nil {
		return err
	}
	if f.debugAddr != "" {
		cfg.DebugAddr = f.debugAddr
	}
	if cfg.DebugAddr != "" {
		// The file's value was checked on load; the flag's is checked here.
		if err := debugserver.CheckAddr(cfg.DebugAddr, cfg.Addr); err != nil {
			return fail(ExitInvalid, "--debug-addr: %v", err)
		}
	}
	log := newLogger(io, cfg)
	tuneGC()
	ctx := cmd.Context()
	flushTraces, err := startTracing(ctx, cfg, "gateway", log)
	if err != nil {
		return err
	}
	defer flushTraces()
	app, err := gateway.Open(ctx, cfg, gateway.Options{Logger: log})
	if err != nil {
		return startupFailure(err)
	}
	defer app.Close()
	if app.AdminKey != "" {
		fmt.Fprintf(io.Err, "admin key: %s\n", app.AdminKey)
		fmt.Fprintln(io.Err, "(shown once: keep it; set SLUICE_ADMIN_KEY to choose your own)")
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fail(ExitFailed, "listen on %s: %v", cfg.Addr, err)
	}
	if f.sessionAddr != "" {
		sln, err := net.Listen("tcp", f.sessionAddr)
		if err != nil {
			return fail(ExitFailed, "listen on %s: %v", f.sessionAddr, err)
		}
		go func() {
			if err := app.Server.ServeSessions(ctx, sln); err != nil {
				log.Error("session listener stopped", "error", err)
			}
		}()
		log.Info("sluice sessions over TCP", "addr", sln.Addr().String())
	}
	if cfg.DebugAddr != "" {
		dln, err := net.Listen("tcp", cfg.DebugAddr)
		if err != nil {
			return fail(ExitFailed, "listen on %s (debug_addr): %v", cfg.DebugAddr, err)
		}
		dsrv := &http.Server{Handler: debugserver.Handler(), ReadHeaderTimeout: 10 * time.Second}
		defer dsrv.Close()
		go func() { _ = dsrv.Serve(dln) }()
		log.Info("sluice debug endpoints (pprof, runtime metrics)", "debug_addr", dln.Addr().String())
	}
	if app.Console != nil && cfg.Console.Addr != "" {
		cln, err := net.Listen("tcp", cfg.Console.Addr)
		if err != nil {
			return fail(ExitFailed, "listen on %s (console.addr): %v", cfg.Console.Addr, err)
		}
		go func() {
			if err := app.ServeConsole(ctx, cln); err != nil {
				log.Error("console listener stopped", "error", err)
			}
		}()
		log.Info("sluice console", "addr", "http://"+cln.Addr().String()+"/console/")
	}
	log.Info("sluice serving", "addr", ln.Addr().String(), "config", cfg)
	if err := app.Serve(ctx, ln); err != nil {
		return fail(ExitFailed, "%v", err)
	}
	log.Info("sluice stopped")
	return nil
}

// apply sets the keys serve's flags override and returns them, each with
// its flag (`sluice config print` shows them so).
func (f serveFlags) apply(cmd *cobra.Command, cfg *config.Config) (map[string]string, error) {
	set := map[string]string{}
	if f.addr != "" {
		cfg.Addr, set["addr"] = f.addr, "--addr"
	}
	if f.data != "" {
		cfg.DataDir, set["data_dir"] = f.data, "--data"
	}
	if f.store != "" {
		cfg.Store.DSN, set["store.dsn"] = f.store, "--store"
		if f.store != "sqlite" && !cfg.Store.Postgres() {
			return nil, fail(ExitInvalid, `--store: want "sqlite" or a postgres:// URL`)
		}
	}
	if err := applyQueueFlags(cmd, cfg, f.queue, f.workers); err != nil {
		return nil, err
	}
	if f.queue != "" {
		set["agents.queue"] = "--queue"
	}
	if cmd.Flags().Changed("agent-workers") || cmd.Flags().Changed("workers") {
		set["agents.workers"] = "--agent-workers"
	}
	return set, nil
}

func newLogger(io Stdio, cfg *config.Config) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.Log.SlogLevel()}
	// Records logged under a span carry its trace_id and span_id.
	if cfg.Log.Format == "json" {
		return slog.New(telemetry.LogHandler(slog.NewJSONHandler(io.Err, opts)))
	}
	return slog.New(telemetry.LogHandler(slog.NewTextHandler(io.Err, opts)))
}

// serverGCPercent is the garbage collector's target for the server when
// GOGC is not set: a server's heap is small next to the machine, and at 100
// the collector took ~7 % of a busy server's CPU; 200 gave ~15 % more
// executions per second (docs/performance.md). GOGC in the environment wins.
const serverGCPercent = 200

func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(serverGCPercent)
	}
}
