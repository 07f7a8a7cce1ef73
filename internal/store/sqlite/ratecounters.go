package sqlite

import (
	"context"
	"time"

	"github.com/sluicehq/sluice/internal/store"
)

// SaveRateCounters implements store.RateCounters.
func (db *DB) SaveRateCounters(ctx context.Context, now time.Time, cs []store.RateCounter) error {
	if len(cs) == 0 {
		return nil
	}
	if err := store.CheckRateCounters(cs); err != nil {
		return err
	}
	err := db.Write(ctx, func(tx *Tx) error {
		for _, c := range cs {
			if _, err := tx.Exec(`INSERT INTO rate_counters (account_id, kind, window_start, window_end, count) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (account_id, kind, window_start) DO UPDATE SET
					count = MAX(count, excluded.count), window_end = excluded.window_end`,
				c.AccountID, c.Window, micros(c.Start), micros(c.End), c.Count); err != nil {
				return err
			}
		}
		// Windows that have ended count nothing any more.
		_, err := tx.Exec(`DELETE FROM rate_counters WHERE window_end <= ?`, micros(now))
		return err
	})
	return writeErr("the rate counters", err)
}

// LoadRateCounters implements store.RateCounters.
func (db *DB) LoadRateCounters(ctx context.Context, now time.Time) ([]store.RateCounter, error) {
	rows, err := db.Read(ctx, `SELECT account_id, kind, window_start, window_end, count FROM rate_counters
		WHERE window_end > ? ORDER BY account_id, kind, window_start`, micros(now))
	if err != nil {
		return nil, readErr("rate counters", err)
	}
	defer rows.Close()
	var out []store.RateCounter
	for rows.Next() {
		var (
			c          store.RateCounter
			start, end int64
		)
		if err := rows.Scan(&c.AccountID, &c.Window, &start, &end, &c.Count); err != nil {
			return nil, readErr("rate counters", err)
		}
		c.Start, c.End = fromMicros(start), fromMicros(end)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, readErr("rate counters", err)
	}
	return out, nil
}
