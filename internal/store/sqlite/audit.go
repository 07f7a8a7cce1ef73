package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlstore"
)

// AppendAudit implements store.Audit.
func (db *DB) AppendAudit(ctx context.Context, recs []store.AuditRecord) error {
	if len(recs) == 0 {
		return nil
	}
	if err := store.CheckAudit(recs); err != nil {
		return err
	}
	err := db.Write(ctx, func(tx *Tx) error {
		for _, r := range recs {
			if _, err := tx.Exec(`INSERT INTO audit (time, request_id, account_id, method, operation, decision,
				latency_ms, status, error_code, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				micros(r.Time), r.RequestID, r.AccountID, r.Method, r.Operation, r.Decision,
				r.LatencyMs, r.Status, r.ErrorCode, jsonText(r.Details)); err != nil {
				return err
			}
		}
		return nil
	})
	return writeErr("the audit records", err)
}

// QueryAudit implements store.Audit: newest first by id; the cursor is the id
// of the last record given. Every filter is always bound (a zero value turns
// it off) so the query text, and its prepared statement, is one.
func (db *DB) QueryAudit(ctx context.Context, q store.AuditQuery) ([]store.AuditRecord, string, error) {
	limit, err := store.CheckAuditQuery(q)
	if err != nil {
		return nil, "", err
	}
	before, err := sqlstore.ParseSeqCursor(q.Cursor)
	if err != nil {
		return nil, "", err
	}
	var since, until int64
	if !q.Since.IsZero() {
		since = micros(q.Since)
	}
	if !q.Until.IsZero() {
		until = micros(q.Until)
	}
	query := `SELECT id, time, request_id, account_id, method, operation, decision, latency_ms, status, error_code, details
		FROM audit WHERE (?1 = 0 OR id < ?1)
		AND (?2 = '' OR account_id = ?2) AND (?3 = '' OR method = ?3) AND (?4 = '' OR decision = ?4)
		AND (?5 = 0 OR time >= ?5) AND (?6 = 0 OR time < ?6)
		ORDER BY id DESC LIMIT ?7`
	if q.AccountID != "" {
		// Lets SQLite pick the account index: with the OR form it cannot.
		query = `SELECT id, time, request_id, account_id, method, operation, decision, latency_ms, status, error_code, details
		FROM audit WHERE account_id = ?2 AND (?1 = 0 OR id < ?1)
		AND (?3 = '' OR method = ?3) AND (?4 = '' OR decision = ?4)
		AND (?5 = 0 OR time >= ?5) AND (?6 = 0 OR time < ?6)
		ORDER BY id DESC LIMIT ?7`
	}
	rows, err := db.Read(ctx, query, before, q.AccountID, q.Method, q.Decision, since, until, limit+1)
	if err != nil {
		return nil, "", readErr("audit records", err)
	}
	defer rows.Close()
	var out []store.AuditRecord
	for rows.Next() {
		var (
			r       store.AuditRecord
			at      int64
			details sql.NullString
		)
		if err := rows.Scan(&r.ID, &at, &r.RequestID, &r.AccountID, &r.Method, &r.Operation, &r.Decision,
			&r.LatencyMs, &r.Status, &r.ErrorCode, &details); err != nil {
			return nil, "", readErr("audit records", err)
		}
		r.Time, r.Details = fromMicros(at), rawJSON(details)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, "", readErr("audit records", err)
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		next = sqlstore.SeqCursor(out[limit-1].ID)
	}
	return out, next, nil
}

// PruneAudit implements store.Audit.
func (db *DB) PruneAudit(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`DELETE FROM audit WHERE time < ?`, micros(before))
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return n, writeErr("the audit records", err)
}
