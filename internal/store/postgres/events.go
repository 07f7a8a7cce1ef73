package postgres

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlstore"
)

// SaveCheckpoint implements store.Checkpoints.
func (db *DB) SaveCheckpoint(ctx context.Context, executionID string, data json.RawMessage) error {
	if err := store.CheckID("execution id", executionID); err != nil {
		return err
	}
	if err := store.CheckJSON("checkpoint", data, store.MaxCheckpointBytes, true); err != nil {
		return err
	}
	now := db.now()
	err := db.Write(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO checkpoints (execution_id, data, saved_at) VALUES ($1, $2, $3)
			ON CONFLICT (execution_id) DO UPDATE SET data = excluded.data, saved_at = excluded.saved_at`,
			executionID, string(data), now)
		if isForeignKey(err) {
			return notFound("execution", executionID)
		}
		return err
	})
	return writeErr("the checkpoint", err)
}

// LoadCheckpoint implements store.Checkpoints.
func (db *DB) LoadCheckpoint(ctx context.Context, executionID string) (json.RawMessage, error) {
	none := fault.New(fault.NotFound, "no checkpoint for execution %q", executionID)
	if !storable(executionID) {
		return nil, none
	}
	var data string
	err := db.Read(ctx, func(q Querier) error {
		return q.QueryRow(ctx, `SELECT data FROM checkpoints WHERE execution_id = $1`, executionID).Scan(&data)
	})
	if isNoRows(err) {
		return nil, none
	}
	if err != nil {
		return nil, readErr("the checkpoint", err)
	}
	return json.RawMessage(data), nil
}

// AppendEvents implements store.Events. Bumping the execution's event_seq
// numbers the frames and holds the execution's row lock until COMMIT, so
// concurrent appends (from any process) get consecutive sequences without
// gaps or repeats.
func (db *DB) AppendEvents(ctx context.Context, executionID string, frames ...json.RawMessage) (int64, error) {
	if err := store.CheckID("execution id", executionID); err != nil {
		return 0, err
	}
	if err := store.CheckFrames(frames); err != nil {
		return 0, err
	}
	now := db.now()
	n := int64(len(frames))
	var last int64
	err := db.Write(ctx, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `UPDATE executions SET event_seq = event_seq + $2 WHERE id = $1 AND event_seq + $2 <= $3 RETURNING event_seq`,
			executionID, n, int64(store.MaxEventsPerExecution)).Scan(&last)
		if isNoRows(err) {
			var one int
			if err := tx.QueryRow(ctx, `SELECT 1 FROM executions WHERE id = $1`, executionID).Scan(&one); isNoRows(err) {
				return notFound("execution", executionID)
			} else if err != nil {
				return err
			}
			return store.TooManyEvents(executionID)
		}
		if err != nil {
			return err
		}
		first := last - n + 1
		if len(frames) <= sqlstore.CopyAbove {
			for i, f := range frames {
				if _, err := tx.Exec(ctx, `INSERT INTO events (execution_id, seq, data, created_at) VALUES ($1, $2, $3, $4)`,
					executionID, first+int64(i), string(f), now); err != nil {
					return err
				}
			}
			return nil
		}
		i := 0
		_, err = tx.CopyFrom(ctx, pgx.Identifier{"events"}, []string{"execution_id", "seq", "data", "created_at"},
			pgx.CopyFromFunc(func() ([]any, error) {
				if i == len(frames) {
					return nil, nil
				}
				row := []any{executionID, first + int64(i), string(frames[i]), now}
				i++
				return row, nil
			}))
		return err
	})
	if err != nil {
		return 0, writeErr("the events", err)
	}
	return last, nil
}

// ListEvents implements store.Events.
func (db *DB) ListEvents(ctx context.Context, executionID string, afterSeq int64, limit int) ([]store.Event, error) {
	limit, err := store.PageLimit(limit)
	if err != nil {
		return nil, err
	}
	if !storable(executionID) {
		return nil, nil
	}
	var out []store.Event
	err = db.Read(ctx, func(q Querier) error {
		out = out[:0]
		rows, err := q.Query(ctx, `SELECT seq, data, created_at FROM events WHERE execution_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
			executionID, afterSeq, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				ev   = store.Event{ExecutionID: executionID}
				data string
				at   time.Time
			)
			if err := rows.Scan(&ev.Seq, &data, &at); err != nil {
				return err
			}
			ev.Data, ev.CreatedAt = json.RawMessage(data), utc(at)
			out = append(out, ev)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, readErr("events", err)
	}
	return out, nil
}
