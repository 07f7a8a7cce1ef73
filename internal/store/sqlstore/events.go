package sqlstore

import (
	"context"
	"encoding/json"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// SaveCheckpoint implements store.Checkpoints.
func (s *Store) SaveCheckpoint(ctx context.Context, executionID string, data json.RawMessage) error {
	if err := store.CheckID("execution id", executionID); err != nil {
		return err
	}
	if err := store.CheckJSON("checkpoint", data, store.MaxCheckpointBytes, true); err != nil {
		return err
	}
	now := s.b.Time(s.b.Now())
	err := s.b.Write(ctx, func(tx Querier) error {
		_, err := tx.Exec(ctx, `INSERT INTO checkpoints (execution_id, data, saved_at) VALUES (?, ?, ?)
			ON CONFLICT (execution_id) DO UPDATE SET data = excluded.data, saved_at = excluded.saved_at`,
			executionID, jsonText(data), now)
		if s.b.IsForeignKey(err) {
			return notFound("execution", executionID)
		}
		return err
	})
	return s.b.WriteErr("the checkpoint", err)
}

// LoadCheckpoint implements store.Checkpoints.
func (s *Store) LoadCheckpoint(ctx context.Context, executionID string) (json.RawMessage, error) {
	var data string
	err := s.readOne(ctx, "checkpoint", executionID, `SELECT data FROM checkpoints WHERE execution_id = ?`, &data)
	if fault.KindOf(err) == fault.NotFound {
		return nil, fault.New(fault.NotFound, "no checkpoint for execution %q", executionID)
	}
	if err != nil {
		return nil, err
	}
	return rawJSON(&data), nil
}

var eventCols = []string{"execution_id", "seq", "data", "created_at"}

// AppendEvents implements store.Events. The dialect's ReserveEvents numbers
// the frames so that concurrent appends (from any process) get consecutive
// sequences without gaps or repeats.
func (s *Store) AppendEvents(ctx context.Context, executionID string, frames ...json.RawMessage) (int64, error) {
	if err := store.CheckID("execution id", executionID); err != nil {
		return 0, err
	}
	if err := store.CheckFrames(frames); err != nil {
		return 0, err
	}
	now := s.b.Time(s.b.Now())
	n := int64(len(frames))
	var last int64
	err := s.b.Write(ctx, func(tx Querier) error {
		query, args := s.b.ReserveEvents(executionID, n, store.MaxEventsPerExecution)
		err := tx.QueryRow(ctx, query, args...).Scan(&last)
		if s.b.IsNoRows(err) {
			var one int
			if err := tx.QueryRow(ctx, `SELECT 1 FROM executions WHERE id = ?`, executionID).Scan(&one); s.b.IsNoRows(err) {
				return notFound("execution", executionID)
			} else if err != nil {
				return err
			}
			return store.TooManyEvents(executionID)
		}
		if err != nil {
			return err
		}
		rows := make([][]any, len(frames))
		for i, f := range frames {
			rows[i] = []any{executionID, last - n + 1 + int64(i), sharedText(f), now}
		}
		return appendRows(ctx, tx, "events", eventCols, rows)
	})
	if err != nil {
		return 0, s.b.WriteErr("the events", err)
	}
	return last, nil
}

// ListEvents implements store.Events.
func (s *Store) ListEvents(ctx context.Context, executionID string, afterSeq int64, limit int) ([]store.Event, error) {
	limit, err := store.PageLimit(limit)
	if err != nil {
		return nil, err
	}
	if !s.b.Storable(executionID) {
		return nil, nil
	}
	return collect(ctx, s, "events", nil, func(row Row) (store.Event, error) {
		ev := store.Event{ExecutionID: executionID}
		var data string
		err := row.Scan(&ev.Seq, &data, s.b.ScanTime(&ev.CreatedAt))
		ev.Data = rawJSON(&data)
		return ev, err
	}, `SELECT seq, data, created_at FROM events WHERE execution_id = ? AND seq > ? ORDER BY seq LIMIT ?`, executionID, afterSeq, limit)
}
