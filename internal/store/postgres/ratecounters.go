package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/internal/store"
)

// SaveRateCounters implements store.RateCounters: one upsert over arrays.
// Counters for the same window within one call are merged first (the highest
// count, the last end), as saving them one after another would; one
// statement may not touch a row twice.
func (db *DB) SaveRateCounters(ctx context.Context, now time.Time, cs []store.RateCounter) error {
	if len(cs) == 0 {
		return nil
	}
	if err := store.CheckRateCounters(cs); err != nil {
		return err
	}
	type key struct {
		account, window string
		start           int64
	}
	at := make(map[key]int, len(cs))
	var (
		accounts, windows []string
		starts, ends      []time.Time
		counts            []int64
	)
	for _, c := range cs {
		k := key{c.AccountID, c.Window, c.Start.UnixMicro()}
		if i, ok := at[k]; ok {
			counts[i] = max(counts[i], c.Count)
			ends[i] = c.End
			continue
		}
		at[k] = len(accounts)
		accounts, windows = append(accounts, c.AccountID), append(windows, c.Window)
		starts, ends, counts = append(starts, c.Start), append(ends, c.End), append(counts, c.Count)
	}
	err := db.Write(ctx, func(tx pgx.Tx) error {
		// In key order, so concurrent saves lock shared rows in one order.
		if _, err := tx.Exec(ctx, `INSERT INTO rate_counters (account_id, kind, window_start, window_end, count)
			SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::bigint[])
			ORDER BY 1, 2, 3
			ON CONFLICT (account_id, kind, window_start) DO UPDATE SET
				count = GREATEST(rate_counters.count, excluded.count), window_end = excluded.window_end`,
			accounts, windows, starts, ends, counts); err != nil {
			return err
		}
		// Windows that have ended count nothing any more.
		_, err := tx.Exec(ctx, `DELETE FROM rate_counters WHERE window_end <= $1`, now)
		return err
	})
	return writeErr("the rate counters", err)
}

// LoadRateCounters implements store.RateCounters.
func (db *DB) LoadRateCounters(ctx context.Context, now time.Time) ([]store.RateCounter, error) {
	var out []store.RateCounter
	err := db.Read(ctx, func(q Querier) error {
		out = out[:0]
		rows, err := q.Query(ctx, `SELECT account_id, kind, window_start, window_end, count FROM rate_counters
			WHERE window_end > $1 ORDER BY account_id, kind, window_start`, now)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c store.RateCounter
			if err := rows.Scan(&c.AccountID, &c.Window, &c.Start, &c.End, &c.Count); err != nil {
				return err
			}
			c.Start, c.End = utc(c.Start), utc(c.End)
			out = append(out, c)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, readErr("rate counters", err)
	}
	return out, nil
}
