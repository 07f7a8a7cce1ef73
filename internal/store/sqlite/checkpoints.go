package sqlite

import (
	"context"
	"encoding/json"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// SaveCheckpoint implements store.Checkpoints.
func (db *DB) SaveCheckpoint(ctx context.Context, executionID string, data json.RawMessage) error {
	if err := store.CheckID("execution id", executionID); err != nil {
		return err
	}
	if err := store.CheckJSON("checkpoint", data, store.MaxCheckpointBytes, true); err != nil {
		return err
	}
	now := micros(db.clock.Now())
	err := db.Write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`INSERT INTO checkpoints (execution_id, data, saved_at) VALUES (?, ?, ?)
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
	var data string
	err := db.ReadRow(ctx, `SELECT data FROM checkpoints WHERE execution_id = ?`, executionID).Scan(&data)
	if isNoRows(err) {
		return nil, fault.New(fault.NotFound, "no checkpoint for execution %q", executionID)
	}
	if err != nil {
		return nil, readErr("the checkpoint", err)
	}
	return json.RawMessage(data), nil
}

// AppendEvents implements store.Events.
func (db *DB) AppendEvents(ctx context.Context, executionID string, frames ...json.RawMessage) (int64, error) {
	if err := store.CheckID("execution id", executionID); err != nil {
		return 0, err
	}
	if err := store.CheckFrames(frames); err != nil {
		return 0, err
	}
	now := micros(db.clock.Now())
	var last int64
	err := db.Write(ctx, func(tx *Tx) error {
		if err := tx.QueryRow(`SELECT COALESCE(MAX(seq), 0) FROM events WHERE execution_id = ?`, executionID).Scan(&last); err != nil {
			return err
		}
		if last+int64(len(frames)) > store.MaxEventsPerExecution {
			return store.TooManyEvents(executionID)
		}
		for _, f := range frames {
			last++
			_, err := tx.Exec(`INSERT INTO events (execution_id, seq, data, created_at) VALUES (?, ?, ?, ?)`,
				executionID, last, string(f), now)
			if isForeignKey(err) {
				return notFound("execution", executionID)
			}
			if err != nil {
				return err
			}
		}
		return nil
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
	rows, err := db.Read(ctx, `SELECT seq, data, created_at FROM events WHERE execution_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
		executionID, afterSeq, limit)
	if err != nil {
		return nil, readErr("events", err)
	}
	defer rows.Close()
	var out []store.Event
	for rows.Next() {
		var (
			ev      = store.Event{ExecutionID: executionID}
			data    string
			created int64
		)
		if err := rows.Scan(&ev.Seq, &data, &created); err != nil {
			return nil, readErr("events", err)
		}
		ev.Data, ev.CreatedAt = json.RawMessage(data), fromMicros(created)
		out = append(out, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, readErr("events", err)
	}
	return out, nil
}
