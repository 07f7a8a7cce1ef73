package sqlite

import (
	"context"
	"time"

	"github.com/sluicehq/sluice/internal/store"
)

// bucketStart is the window_start of a token bucket's row in rate_counters:
// a bucket has one row, whose window_end is its instant.
const bucketStart = 0

// TakeRate implements store.SharedLimits. The one writer makes it atomic.
func (db *DB) TakeRate(ctx context.Context, t store.RateTake) (store.RateTaken, error) {
	if err := store.CheckRateTake(t); err != nil {
		return store.RateTaken{}, err
	}
	at := micros(t.At)
	var out store.RateTaken
	err := db.Write(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(`DELETE FROM rate_counters WHERE account_id = ? AND window_end <= ?`, t.AccountID, at); err != nil {
			return err
		}
		counts := make([]int64, len(t.Windows))
		for i, w := range t.Windows {
			err := tx.QueryRow(`SELECT count FROM rate_counters WHERE account_id = ? AND kind = ? AND window_start = ?`,
				t.AccountID, w.Kind, micros(w.Start)).Scan(&counts[i])
			if err != nil && !isNoRows(err) {
				return err
			}
		}
		var tat time.Time
		if t.Bucket != nil {
			var end int64
			err := tx.QueryRow(`SELECT window_end FROM rate_counters WHERE account_id = ? AND kind = ? AND window_start = ?`,
				t.AccountID, t.Bucket.Kind, bucketStart).Scan(&end)
			switch {
			case err == nil:
				tat = fromMicros(end)
			case !isNoRows(err):
				return err
			}
		}
		out = store.DecideRate(t, counts, tat)
		if !out.Taken || t.N == 0 {
			return nil
		}
		for _, w := range t.Windows {
			if _, err := tx.Exec(`INSERT INTO rate_counters (account_id, kind, window_start, window_end, count) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (account_id, kind, window_start) DO UPDATE SET count = count + excluded.count`,
				t.AccountID, w.Kind, micros(w.Start), micros(w.End), t.N); err != nil {
				return err
			}
		}
		if t.Bucket != nil {
			_, next := t.Bucket.Allows(tat, t.At, t.N)
			if _, err := tx.Exec(`INSERT INTO rate_counters (account_id, kind, window_start, window_end, count) VALUES (?, ?, ?, ?, 0)
				ON CONFLICT (account_id, kind, window_start) DO UPDATE SET window_end = excluded.window_end`,
				t.AccountID, t.Bucket.Kind, bucketStart, micros(next)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return store.RateTaken{}, writeErr("the rate counters", err)
	}
	return out, nil
}

// TakeSlot implements store.SharedLimits. The one writer makes the count
// and the insert one step.
func (db *DB) TakeSlot(ctx context.Context, s store.SlotTake) (held int, taken bool, err error) {
	if err = store.CheckSlotTake(s); err != nil {
		return 0, false, err
	}
	err = db.Write(ctx, func(tx *Tx) error {
		held, taken = 0, false
		if _, err := tx.Exec(`DELETE FROM rate_slots WHERE account_id = ? AND expires_at <= ?`, s.AccountID, micros(s.At)); err != nil {
			return err
		}
		res, err := tx.Exec(`UPDATE rate_slots SET expires_at = ? WHERE slot_id = ? AND account_id = ?`, micros(s.Expires), s.SlotID, s.AccountID)
		if err != nil {
			return err
		}
		if err := tx.QueryRow(`SELECT COUNT(*) FROM rate_slots WHERE account_id = ?`, s.AccountID).Scan(&held); err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			taken = true
			return nil
		}
		if s.Max > 0 && held >= s.Max {
			return nil
		}
		if _, err := tx.Exec(`INSERT INTO rate_slots (slot_id, account_id, expires_at) VALUES (?, ?, ?)`,
			s.SlotID, s.AccountID, micros(s.Expires)); err != nil {
			return err
		}
		held, taken = held+1, true
		return nil
	})
	if err != nil {
		return 0, false, writeErr("the execution slot", err)
	}
	return held, taken, nil
}

// RenewSlots implements store.SharedLimits.
func (db *DB) RenewSlots(ctx context.Context, ids []string, expires time.Time) error {
	if err := store.CheckSlotIDs(ids); err != nil || len(ids) == 0 {
		return err
	}
	err := db.Write(ctx, func(tx *Tx) error {
		for _, id := range ids {
			if _, err := tx.Exec(`UPDATE rate_slots SET expires_at = ? WHERE slot_id = ?`, micros(expires), id); err != nil {
				return err
			}
		}
		return nil
	})
	return writeErr("the execution slots", err)
}

// ReleaseSlot implements store.SharedLimits.
func (db *DB) ReleaseSlot(ctx context.Context, id string) error {
	if err := store.CheckID("slot id", id); err != nil {
		return err
	}
	err := db.Write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`DELETE FROM rate_slots WHERE slot_id = ?`, id)
		return err
	})
	return writeErr("the execution slot", err)
}

// PruneValues implements store.Values.
func (db *DB) PruneValues(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE scoped_value_usage SET keys = keys - (SELECT COUNT(*) FROM scoped_values v
			WHERE v.area = scoped_value_usage.area AND v.account_id = scoped_value_usage.account_id
			AND v.scope = scoped_value_usage.scope AND v.expires_at <= ?1)
			WHERE (area, account_id, scope) IN (SELECT area, account_id, scope FROM scoped_values WHERE expires_at <= ?1)`, micros(now))
		if err != nil {
			return err
		}
		if res, err = tx.Exec(`DELETE FROM scoped_values WHERE expires_at <= ?`, micros(now)); err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		_, err = tx.Exec(`DELETE FROM scoped_value_usage WHERE keys <= 0`)
		return err
	})
	if err != nil {
		return 0, writeErr("the stored values", err)
	}
	return n, nil
}
