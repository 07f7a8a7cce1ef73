package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/sluicehq/sluice/internal/agent"
	"github.com/sluicehq/sluice/internal/bridge"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/queue/byurl"
	"github.com/sluicehq/sluice/internal/queue/pgqueue"
	"github.com/sluicehq/sluice/internal/store/postgres"
)

// Worker is `sluice worker`: agent task workers on the queue the gateways
// enqueue to (InvokeAgent's calls and agent workflow steps' alike), with the
// gateways' shared PostgreSQL store (the agent registry, the vault) and
// their key files. It serves no HTTP; the runs themselves are the gateways'.
type Worker struct {
	db    *postgres.DB
	queue queue.Queue // the agents.queue one, or the store's
	tasks *bridge.Worker
	inv   *agent.Invoker
	owner string
	log   *slog.Logger
}

// OpenWorker wires a Worker from cfg. The store must be PostgreSQL: a
// SQLite data directory is one process's, so its gateway runs the workers.
func OpenWorker(ctx context.Context, cfg *config.Config, o Options) (_ *Worker, err error) {
	if !cfg.Store.Postgres() {
		return nil, fault.New(fault.Invalid, "a worker shares the gateways' store: give it the postgres:// URL they use (--store); a SQLite data directory belongs to one process, whose own workers run its tasks")
	}
	clk := o.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// The deferred Close releases what was opened before a failure. It closes
	// the local worker: a named result would be the nil every failing return
	// sets.
	w := &Worker{log: log, owner: execution.DefaultOwner()}
	defer func() {
		if err != nil {
			w.Close()
		}
	}()
	if w.db, err = postgres.Open(ctx, postgres.Options{DSN: cfg.Store.DSN, Logger: log, Clock: clk}); err != nil {
		return nil, err
	}
	// The agents' credentials are sealed with the gateways' master key: a
	// worker with other keys could not open them, so it is refused now.
	_, sealed, err := openKeys(ctx, cfg, w.db, true, clk, log)
	if err != nil {
		return nil, err
	}
	if cfg.Agents.Queue != "" {
		if w.queue, err = byurl.Open(ctx, cfg.Agents.Queue, log.With("component", "agent-queue")); err != nil {
			return nil, err
		}
	} else {
		w.queue = pgqueue.New(w.db, pgqueue.Options{Clock: clk, Logger: log})
	}
	agents := newAgents(w.db, sealed, cfg.Egress.Policy(), cfg.Agents.ACP, clk, log)
	w.inv = agents.Invoker
	workers := cfg.Agents.Workers
	if workers == 0 {
		workers = bridge.DefaultWorkers // `sluice worker` is for working
	}
	// Results wait for their callers as long as the gateways' agents.max_wait
	// (set the same on workers and gateways), then the queue may drop them.
	w.tasks = &bridge.Worker{Queue: w.queue, Invoker: w.inv, Workers: workers, Monitoring: cfg.Agents.MonitoringTopic,
		ResultTTL: bridge.ResultTTL(cfg.Agents.MaxWait), Clock: clk, Logger: log.With("component", "agent-worker")}
	return w, nil
}

// Run works until ctx ends, then waits for the tasks in hand (which, cut
// short, are left to their leases and run again elsewhere).
func (w *Worker) Run(ctx context.Context) error {
	go w.inv.RunHealthChecks(ctx, agent.HealthInterval(0))
	w.log.Info("sluice worker running", "owner", w.owner)
	return w.tasks.Run(ctx, w.owner)
}

// Close releases the queue and the store.
func (w *Worker) Close() error {
	var errs []error
	if w.inv != nil {
		w.inv.Close() // the ACP agent processes it runs
	}
	if w.queue != nil {
		errs = append(errs, w.queue.Close())
	}
	if w.db != nil {
		errs = append(errs, w.db.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("closing: %w", err)
	}
	return nil
}
