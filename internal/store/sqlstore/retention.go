package sqlstore

import (
	"context"
	"strings"
	"time"

	"github.com/sluicehq/sluice/internal/store"
)

// PrunableRuns is the account's runs that a prune may take, oldest first: final
// (finished_at is set exactly when a run becomes final; the status is named
// too, so a live run can never match) and finished before the cutoff. It is
// read off executions_account_finished (migration 0019) with one seek. Its
// placeholders: account, cutoff, limit. (Exported for the backends' tests
// of its plan.)
const PrunableRuns = `SELECT id FROM executions
	WHERE account_id = ? AND finished_at IS NOT NULL AND finished_at < ?
	AND status IN ('success', 'failed', 'partial', 'cancelled')
	ORDER BY finished_at, seq LIMIT ?`

// eventsGone says a run's frames are all deleted: its checkpoint and record
// go only then (events reference the record).
const eventsGone = ` AND NOT EXISTS (SELECT 1 FROM events WHERE events.execution_id = `

// PruneRuns implements store.Retention. One transaction: up to limit frames
// of the oldest prunable runs, then the checkpoints and records of those whose
// frames are all gone. The statements name the same ordered selection, so
// they agree on the runs within the transaction. On PostgreSQL the serial
// lock makes two gateways' batches take turns (each then sees the other's
// deletions); under SQLite's one writer they do anyway.
func (s *Store) PruneRuns(ctx context.Context, accountID string, before time.Time, limit int) (store.Pruned, error) {
	if err := store.CheckPrune(before, limit); err != nil {
		return store.Pruned{}, err
	}
	if !s.b.Storable(accountID) {
		return store.Pruned{}, nil
	}
	cut := s.b.Time(before)
	// Most accounts have nothing to prune on most passes: a read (one
	// seek) says so without taking the writer.
	var any int
	err := s.b.Read(ctx, func(q Querier) error {
		any = 0
		return q.QueryRow(ctx, `SELECT COUNT(*) FROM (`+PrunableRuns+`) AS due`, accountID, cut, 1).Scan(&any)
	})
	if err != nil {
		return store.Pruned{}, s.b.ReadErr("the runs to prune", err)
	}
	if any == 0 {
		return store.Pruned{}, nil
	}
	var p store.Pruned
	err = s.b.Write(ctx, func(tx Querier) error {
		p = store.Pruned{}
		if err := s.serialLock(ctx, tx, "retention"); err != nil {
			return err
		}
		var err error
		if p.Events, err = tx.Exec(ctx, `DELETE FROM events WHERE (execution_id, seq) IN (
			SELECT execution_id, seq FROM events WHERE execution_id IN (`+PrunableRuns+`) LIMIT ?)`,
			accountID, cut, limit, limit); err != nil {
			return err
		}
		if p.Checkpoints, err = tx.Exec(ctx, `DELETE FROM checkpoints WHERE execution_id IN (`+PrunableRuns+`)`+
			eventsGone+`checkpoints.execution_id)`, accountID, cut, limit); err != nil {
			return err
		}
		if p.Runs, err = tx.Exec(ctx, `DELETE FROM executions WHERE id IN (`+PrunableRuns+`)`+
			eventsGone+`executions.id)`, accountID, cut, limit); err != nil {
			return err
		}
		p.More = p.Events == int64(limit) || p.Runs == int64(limit)
		return nil
	})
	return p, s.b.WriteErr("the pruned runs", err)
}

// PrunePushConfigs implements store.Retention: the A2A push notification
// configs of the account's prunable runs (its task is the run), and those
// older than the cutoff whose task is no longer stored (pruned before
// configs were). The configs go in the same transaction as they are read,
// so two gateways never return one config twice.
func (s *Store) PrunePushConfigs(ctx context.Context, accountID string, before time.Time, limit int) ([]store.PushConfig, error) {
	if err := store.CheckPrune(before, limit); err != nil {
		return nil, err
	}
	if !s.b.Storable(accountID) {
		return nil, nil
	}
	// Most accounts have no push configs: a read (one seek on the unique
	// key's account) says so without taking the writer.
	var some int
	err := s.b.Read(ctx, func(q Querier) error {
		some = 0
		return q.QueryRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM a2a_push_configs WHERE account_id = ? LIMIT 1) AS found`, accountID).Scan(&some)
	})
	if err != nil {
		return nil, s.b.ReadErr("the push notification configs to prune", err)
	}
	if some == 0 {
		return nil, nil
	}
	cut := s.b.Time(before)
	var out []store.PushConfig
	err = s.b.Write(ctx, func(tx Querier) error {
		var err error
		if err = s.serialLock(ctx, tx, "retention"); err != nil {
			return err
		}
		out, err = queryAll(ctx, tx, out[:0], `SELECT `+pushCols+` FROM a2a_push_configs WHERE account_id = ?
			AND (task_id IN (`+PrunableRuns+`)
				OR created_at < ? AND NOT EXISTS (SELECT 1 FROM executions WHERE executions.id = a2a_push_configs.task_id))
			ORDER BY seq LIMIT ?`, []any{accountID, accountID, cut, limit, cut, limit}, s.scanPush)
		if err != nil {
			return err
		}
		for _, c := range out {
			if _, err := tx.Exec(ctx, `DELETE FROM a2a_push_configs WHERE seq = ?`, c.Seq); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, s.b.WriteErr("the pruned push notification configs", err)
	}
	return out, nil
}

// PruneAudit implements store.Retention: the oldest records first, off the
// audit_time index.
func (s *Store) PruneAudit(ctx context.Context, before time.Time, limit int) (int64, error) {
	if err := store.CheckPrune(before, limit); err != nil {
		return 0, err
	}
	var n int64
	err := s.b.Write(ctx, func(tx Querier) error {
		var err error
		n, err = tx.Exec(ctx, `DELETE FROM audit WHERE id IN (SELECT id FROM audit WHERE time < ? ORDER BY time LIMIT ?)`,
			s.b.Time(before), limit)
		return err
	})
	return n, s.b.WriteErr("the audit records", err)
}

// CountRows counts the rows of each of store.RunTables, for StorageStats
// (the backends add the bytes, which each database measures its own way).
func (s *Store) CountRows(ctx context.Context) ([]store.TableStats, error) {
	var out []store.TableStats
	err := s.b.Read(ctx, func(q Querier) error {
		out = make([]store.TableStats, len(store.RunTables))
		parts := make([]string, len(store.RunTables))
		for i, t := range store.RunTables {
			out[i].Name = t
			parts[i] = `(SELECT COUNT(*) FROM ` + t + `)`
		}
		dest := make([]any, len(out))
		for i := range out {
			dest[i] = &out[i].Rows
		}
		return q.QueryRow(ctx, `SELECT `+strings.Join(parts, ", ")).Scan(dest...)
	})
	if err != nil {
		return nil, s.b.ReadErr("the row counts", err)
	}
	return out, nil
}
