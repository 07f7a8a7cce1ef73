package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

// adminShow is the RunE of an admin command that makes one call and prints
// its answer in the -o format.
func adminShow(io Stdio, output *string, af *adminFlags, call func(ctx context.Context, c *client.Client) (any, error)) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		format, c, err := io.start(*output, af.client)
		if err != nil {
			return err
		}
		v, err := call(cmd.Context(), c)
		if err != nil {
			return serverError(err)
		}
		return io.render(format, v)
	}
}

// newRetentionCmd is `sluice retention get|set|prune|stats|compact`.
func newRetentionCmd(io Stdio) *cobra.Command {
	var af adminFlags
	var output string
	cmd := &cobra.Command{
		Use:   "retention",
		Short: "How long finished runs and audit records are kept; prune now; what the store holds",
		Long: `How long the server keeps finished runs (every kind, with their frames and
checkpoints) and audit records, through the admin API. Every gateway prunes in
the background (retention.interval) in small batches; docs/storage.md,
"Retention and bounded growth", says how. An account's limits.retention_days
overrides the runs' age for its own runs (sluice accounts update ID --limit
retention_days=90).`,
	}
	af.register(cmd)
	cmd.PersistentFlags().StringVarP(&output, "output", "o", "", "output format: json, yaml or table (default: table on a terminal, else json)")

	get := &cobra.Command{
		Use:   "get",
		Short: "Show the policy in force, the configuration's, and this gateway's last pass",
		Args:  cobra.NoArgs,
		RunE: adminShow(io, &output, &af, func(ctx context.Context, c *client.Client) (any, error) {
			return c.Retention(ctx)
		}),
	}

	var ch client.RetentionChange
	var reset bool
	set := &cobra.Command{
		Use:   "set [--runs AGE] [--audit AGE] [--reset]",
		Short: "Change how long finished runs and audit records are kept, for every gateway",
		Long: `Change how long finished runs and audit records are kept. AGE is "30d",
"720h", "0s" (keep for ever) or "default" (the configuration's again). The
change is kept in the store: it outlives a restart and every gateway sharing
the store prunes by it from its next pass. --reset returns both to the
configuration's.

  sluice retention set --runs 7d --audit 90d
  sluice retention set --runs default`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if ch.Runs == "" && ch.Audit == "" && !reset {
				return fail(ExitInvalid, "set needs --runs, --audit or --reset")
			}
			for _, f := range []struct {
				age *string
				def *bool
			}{{&ch.Runs, &ch.DefaultRuns}, {&ch.Audit, &ch.DefaultAudit}} {
				if *f.age == "default" || reset {
					*f.age, *f.def = "", true
				}
			}
			return adminShow(io, &output, &af, func(ctx context.Context, c *client.Client) (any, error) {
				return c.SetRetention(ctx, ch)
			})(cmd, nil)
		},
	}
	set.Flags().StringVar(&ch.Runs, "runs", "", `age of finished runs: "30d", "720h", "0s" (for ever) or "default"`)
	set.Flags().StringVar(&ch.Audit, "audit", "", `age of audit records: "30d", "720h", "0s" (for ever) or "default"`)
	set.Flags().BoolVar(&reset, "reset", false, "both ages back to the configuration's")

	prune := &cobra.Command{
		Use:   "prune",
		Short: "Run a retention pass now and print what it deleted",
		Args:  cobra.NoArgs,
		RunE: adminShow(io, &output, &af, func(ctx context.Context, c *client.Client) (any, error) {
			return c.PruneNow(ctx)
		}),
	}

	stats := &cobra.Command{
		Use:   "stats",
		Short: "Rows and bytes of the runs' and audit tables, the database's size, bytes per execution",
		Args:  cobra.NoArgs,
		RunE: adminShow(io, &output, &af, func(ctx context.Context, c *client.Client) (any, error) {
			return c.StorageStats(ctx)
		}),
	}

	var dataDir string
	compact := &cobra.Command{
		Use:   "compact [--data-dir DIR]",
		Short: "Rewrite a stopped server's SQLite database: smaller, and giving space back from then on",
		Long: `Rewrite the SQLite database of a stopped server (VACUUM) in incremental
auto_vacuum mode. A database made by a sluice before retention keeps the pages
that pruning frees for new rows but never gives them back to the file system;
once compacted, every retention pass does (retention.reclaim). It also shrinks
the file at once after a large prune. Stop the server first (the data directory
is locked while it runs); it needs free disk space of about the database's
size, and takes a while on a large one. Not for PostgreSQL, whose autovacuum
reuses the space (docs/storage.md, "Retention and bounded growth").`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dataDir == "" {
				dataDir = os.Getenv("SLUICE_DATA")
			}
			if dataDir == "" {
				dataDir = "./sluice-data"
			}
			before, after, err := sqlite.Compact(cmd.Context(), dataDir)
			if err != nil {
				return fail(ExitFailed, "%s", fault.From(err).Message)
			}
			fmt.Fprintf(io.Err, "compacted %s: %d bytes, now %d\n", dataDir, before, after)
			return writeJSON(io.Out, map[string]any{"data_dir": dataDir, "bytes_before": before, "bytes_after": after})
		},
	}
	compact.Flags().StringVar(&dataDir, "data-dir", "", "the data directory (default $SLUICE_DATA, else ./sluice-data)")

	cmd.AddCommand(get, set, prune, stats, compact)
	return cmd
}
