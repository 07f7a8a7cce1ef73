package sqlstore

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/sluicehq/sluice/internal/store"
)

// SaveRateCounters implements store.RateCounters: one upsert over the
// dialect's batch (see insertRows). Counters for the same window within one
// call are merged first (the highest count, the last end), as saving them
// one after another would.
func (s *Store) SaveRateCounters(ctx context.Context, now time.Time, cs []store.RateCounter) error {
	if len(cs) == 0 {
		return nil
	}
	if err := store.CheckRateCounters(cs); err != nil {
		return err
	}
	// Sorted stably, so the same window's counters stay in their order.
	sorted := slices.Clone(cs)
	slices.SortStableFunc(sorted, compareWindow)
	var rows [][]any
	for i, c := range sorted {
		if i > 0 && compareWindow(sorted[i-1], c) == 0 {
			last := rows[len(rows)-1]
			last[3], last[4] = s.b.Time(c.End), max(last[4].(int64), c.Count)
			continue
		}
		rows = append(rows, []any{c.AccountID, c.Window, s.b.Time(c.Start), s.b.Time(c.End), c.Count})
	}
	err := s.b.Write(ctx, func(tx Querier) error {
		if err := s.insertRows(ctx, tx, `rate_counters (account_id, kind, window_start, window_end, count)`,
			[]string{"text", "text", "timestamptz", "timestamptz", "bigint"},
			`ON CONFLICT (account_id, kind, window_start) DO UPDATE SET
				count = `+s.b.Greatest()+`(rate_counters.count, excluded.count), window_end = excluded.window_end`, rows); err != nil {
			return err
		}
		// Windows that have ended count nothing any more.
		_, err := tx.Exec(ctx, `DELETE FROM rate_counters WHERE window_end <= ?`, s.b.Time(now))
		return err
	})
	return s.b.WriteErr("the rate counters", err)
}

// compareWindow orders counters by their key, byte-wise like the table's
// "C" collation, and the start at the microsecond both databases keep.
func compareWindow(a, b store.RateCounter) int {
	return cmp.Or(cmp.Compare(a.AccountID, b.AccountID), cmp.Compare(a.Window, b.Window), cmp.Compare(a.Start.UnixMicro(), b.Start.UnixMicro()))
}

// LoadRateCounters implements store.RateCounters.
func (s *Store) LoadRateCounters(ctx context.Context, now time.Time) ([]store.RateCounter, error) {
	return collect(ctx, s, "rate counters", nil, func(row Row) (c store.RateCounter, err error) {
		err = row.Scan(&c.AccountID, &c.Window, s.b.ScanTime(&c.Start), s.b.ScanTime(&c.End), &c.Count)
		return c, err
	}, `SELECT account_id, kind, window_start, window_end, count FROM rate_counters
		WHERE window_end > ? ORDER BY account_id, kind, window_start`, s.b.Time(now))
}
