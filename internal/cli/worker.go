package cli

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
)

type workerFlags struct {
	config, data, store, queue, monitoring string
	workers                                int
}

func newWorkerCmd(io Stdio) *cobra.Command {
	var f workerFlags
	cmd := &cobra.Command{
		Use:   "worker --store postgres://... [--queue nats://HOST:PORT]",
		Short: "Call HTTP task agents for the gateways: take agent tasks and workflow steps from the queue",
		Long: `Run agent task workers and agent workflow step workers, and nothing else
(no HTTP). Gateways enqueue agent tasks; workers on any machine take them,
call the agent (with its retries, timeout and credentials) and publish the
result, then ack. A worker killed mid-task leaves the task to its lease:
another worker runs it again with the same task_id, and the caller sees one
result. See docs/scale-out.md.

A worker shares the gateways' PostgreSQL store (the agent registry, the vault,
workflow runs) and their key files (--data, or SLUICE_MASTER_KEY and
SLUICE_KEY_PEPPER): it is refused when its keys are not theirs. The queue is
the store's own unless --queue (or agents.queue) names a NATS JetStream or
Kafka one, which must then be the gateways' too.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runWorker(cmd, io, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "", "YAML configuration file (default $SLUICE_CONFIG, else none)")
	fl.StringVar(&f.data, "data", "", "the directory of the key files (default ./sluice-data)")
	fl.StringVar(&f.store, "store", "", "the gateways' PostgreSQL store, a postgres:// URL (default $SLUICE_STORE); leave the password to PGPASSWORD")
	fl.StringVar(&f.queue, "queue", "", "the `URL` of the gateways' queue: nats://HOST:PORT[,...] or kafka://HOST:PORT[,...] (default $SLUICE_QUEUE, else the store's own)")
	agentWorkersFlag(fl, &f.workers, "agent tasks run at once (agents.workers, $SLUICE_AGENT_WORKERS)")
	fl.StringVar(&f.monitoring, "monitoring-topic", "", "publish RUNNING/COMPLETED/FAILED updates per task on this topic (default agents.monitoring_topic, else none)")
	return cmd
}

func runWorker(cmd *cobra.Command, io Stdio, f workerFlags) error {
	cfg, err := config.Load(config.Options{Path: f.config})
	if err != nil {
		return fail(ExitInvalid, "%v", err)
	}
	if f.data != "" {
		cfg.DataDir = f.data
	}
	if f.store != "" {
		cfg.Store.DSN = f.store
	}
	if !cfg.Store.Postgres() {
		return fail(ExitInvalid, "--store: a worker needs the gateways' postgres:// store")
	}
	if err := applyQueueFlags(cmd, cfg, f.queue, f.workers); err != nil {
		return err
	}
	if f.monitoring != "" {
		cfg.Agents.MonitoringTopic = f.monitoring
	}
	log := newLogger(io, cfg)
	ctx := cmd.Context()
	flushTraces, err := startTracing(ctx, cfg, "worker", log)
	if err != nil {
		return err
	}
	defer flushTraces()
	w, err := gateway.OpenWorker(ctx, cfg, gateway.Options{Logger: log})
	if err != nil {
		return startupFailure(err)
	}
	defer w.Close()
	if err := w.Run(ctx); err != nil {
		return fail(ExitFailed, "%v", err)
	}
	log.Info("sluice worker stopped")
	return nil
}

// agentWorkersFlag registers --agent-workers, the flag of agents.workers
// (SLUICE_AGENT_WORKERS), at its configured default so --help shows the
// default once and truly. It was --workers, a name SLUICE_WORKERS (the
// asynchronous execution workers, another setting) also seemed to claim:
// --workers still works, deprecated, for the scripts that use it.
func agentWorkersFlag(fl *pflag.FlagSet, workers *int, usage string) {
	fl.IntVar(workers, "agent-workers", config.Defaults().Agents.Workers, usage)
	fl.IntVar(workers, "workers", config.Defaults().Agents.Workers, usage)
	_ = fl.MarkDeprecated("workers", "use --agent-workers (SLUICE_WORKERS is another setting: the asynchronous execution workers)")
}

// applyQueueFlags sets agents.queue and agents.workers from the flags of
// serve and worker, checking them as the config file's are.
func applyQueueFlags(cmd *cobra.Command, cfg *config.Config, queue string, workers int) error {
	if queue != "" {
		cfg.Agents.Queue = queue
		if k := cfg.Agents.QueueKind(); k != "nats" && k != "kafka" {
			return fail(ExitInvalid, "--queue: want nats://HOST:PORT or kafka://HOST:PORT")
		}
	}
	if cmd.Flags().Changed("agent-workers") || cmd.Flags().Changed("workers") {
		if workers < 0 || workers > 1024 {
			return fail(ExitInvalid, "--agent-workers: want 0 to 1024, got %d", workers)
		}
		cfg.Agents.Workers = workers
	}
	return nil
}
