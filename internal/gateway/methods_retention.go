package gateway

import (
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/config"

	"github.com/sluicehq/sluice/internal/retention"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// retentionAge is a retention age parameter: "30d", "720h", "0s" (for
// ever), or null to return to the configuration's.
func retentionAge(name string) param {
	return param{name: name, kind: pAny, want: ageWant}
}

const ageWant = `an age such as "30d" or "720h", "0s" (for ever), or null (the configuration's)`

// adminRetentionGet is GET /api/v1/admin/retention: the policy in force,
// the configuration's, which ages an admin set, and this gateway's last
// pass.
func (s *Server) adminRetentionGet(ctx context.Context, _ *Call, _ args, w *e2a.StreamWriter) error {
	return complete(w)(s.svc.Retention.State(ctx))
}

// complete answers with v, or fails with err: the tail of a handler whose
// service call gives both.
func complete(w *e2a.StreamWriter) func(v any, err error) error {
	return func(v any, err error) error {
		if err != nil {
			return err
		}
		return w.Complete(v)
	}
}

// adminRetentionUpdate is PATCH /api/v1/admin/retention {runs, audit,
// reset}: the ages given replace the policy's for every gateway of the
// store (kept in its settings, so a restart keeps them too); null or reset
// returns to the configuration's.
func (s *Server) adminRetentionUpdate(ctx context.Context, _ *Call, a args, w *e2a.StreamWriter) error {
	reset := a.Bool("reset")
	c := retention.Change{UnsetRuns: reset, UnsetAudit: reset}
	for _, f := range []struct {
		name  string
		dst   **retention.Age
		unset *bool
	}{{"runs", &c.Runs, &c.UnsetRuns}, {"audit", &c.Audit, &c.UnsetAudit}} {
		if !a.Has(f.name) {
			continue
		}
		v := a.Any(f.name)
		if v == nil { // null: the configuration's age again
			*f.unset = true
			continue
		}
		text, ok := v.(string)
		if !ok {
			return paramError(f.name, "must be %s", ageWant)
		}
		age, err := retention.ParseAge("params."+f.name, text)
		if err != nil {
			return err
		}
		*f.dst = &age
	}
	if _, err := s.svc.Retention.Update(ctx, c); err != nil {
		return err
	}
	return complete(w)(s.svc.Retention.State(ctx))
}

// adminRetentionPrune is POST /api/v1/admin/retention/prune: one pass
// now, its counts the answer (an error after some batches still deleted
// what they did: the report says so in the error's details).
func (s *Server) adminRetentionPrune(ctx context.Context, _ *Call, _ args, w *e2a.StreamWriter) error {
	return complete(w)(s.svc.Retention.Prune(ctx))
}

// adminStorageStats is GET /api/v1/admin/storage: rows and bytes of the
// tables that grow with use, the database's size, bytes per execution.
func (s *Server) adminStorageStats(ctx context.Context, _ *Call, _ args, w *e2a.StreamWriter) error {
	return complete(w)(s.svc.Store.StorageStats(ctx))
}

// newPruner is the pruner of the configuration's retention section; its
// passes are counted in reg; dropSecrets deletes the vault entries of the
// push notification configs it prunes.
func newPruner(db retention.Store, c config.Retention, clk clock.Clock, log *slog.Logger, reg *prometheus.Registry, dropSecrets func(context.Context, []string)) *retention.Pruner {
	deleted := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_retention_deleted_total", Help: "Rows the retention passes of this process deleted, by what they were.",
	}, []string{"kind"})
	reclaimed := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sluice_retention_reclaimed_bytes_total", Help: "Bytes the database file shrank by after this process's retention passes.",
	})
	failed := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sluice_retention_pass_errors_total", Help: "Retention passes of this process that stopped on an error.",
	})
	reg.MustRegister(deleted, reclaimed, failed)
	onPass := func(r retention.Report) {
		for kind, n := range map[string]int64{"runs": r.Runs, "events": r.Events, "checkpoints": r.Checkpoints, "push_configs": r.PushConfigs, "audit": r.Audit} {
			deleted.WithLabelValues(kind).Add(float64(n))
		}
		reclaimed.Add(float64(r.ReclaimedBytes))
		if r.Error != "" {
			failed.Inc()
		}
	}
	return retention.New(db, retention.Policy{Runs: retention.Age(c.Runs), Audit: retention.Age(c.Audit)}, retention.Options{
		Interval: c.Interval, Batch: c.Batch, Pause: c.Pause, Reclaim: c.Reclaim, Clock: clk,
		Logger: log.With("component", "retention"), OnPass: onPass, DropSecrets: dropSecrets,
	})
}
