package sqlstore

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/sluicehq/sluice/internal/store"
)

// SaveRateCounters implements store.RateCounters: one upsert a counter,
// pipelined where the backend can. Counters for the same window within one
// call apply one after another (the highest count, the last end).
func (s *Store) SaveRateCounters(ctx context.Context, now time.Time, cs []store.RateCounter) error {
	if len(cs) == 0 {
		return nil
	}
	if err := store.CheckRateCounters(cs); err != nil {
		return err
	}
	// In key order, so concurrent saves lock shared rows in one order; stable,
	// so the same window's counters keep theirs.
	sorted := slices.Clone(cs)
	slices.SortStableFunc(sorted, func(a, b store.RateCounter) int {
		return cmp.Or(cmp.Compare(a.AccountID, b.AccountID), cmp.Compare(a.Window, b.Window), a.Start.Compare(b.Start))
	})
	args := make([][]any, len(sorted))
	for i, c := range sorted {
		args[i] = []any{c.AccountID, c.Window, s.b.Time(c.Start), s.b.Time(c.End), c.Count}
	}
	err := s.b.Write(ctx, func(tx Querier) error {
		if err := execEach(ctx, tx, `INSERT INTO rate_counters (account_id, kind, window_start, window_end, count) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (account_id, kind, window_start) DO UPDATE SET
				count = `+s.b.Greatest()+`(rate_counters.count, excluded.count), window_end = excluded.window_end`, args); err != nil {
			return err
		}
		// Windows that have ended count nothing any more.
		_, err := tx.Exec(ctx, `DELETE FROM rate_counters WHERE window_end <= ?`, s.b.Time(now))
		return err
	})
	return s.b.WriteErr("the rate counters", err)
}

// LoadRateCounters implements store.RateCounters.
func (s *Store) LoadRateCounters(ctx context.Context, now time.Time) ([]store.RateCounter, error) {
	var out []store.RateCounter
	err := s.b.Read(ctx, func(q Querier) error {
		out = out[:0]
		rows, err := q.Query(ctx, `SELECT account_id, kind, window_start, window_end, count FROM rate_counters
			WHERE window_end > ? ORDER BY account_id, kind, window_start`, s.b.Time(now))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c store.RateCounter
			if err := rows.Scan(&c.AccountID, &c.Window, s.b.ScanTime(&c.Start), s.b.ScanTime(&c.End), &c.Count); err != nil {
				return err
			}
			out = append(out, c)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, s.b.ReadErr("rate counters", err)
	}
	return out, nil
}
