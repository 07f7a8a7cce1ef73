package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlstore"
)

var auditCols = []string{"time", "request_id", "account_id", "method", "operation", "decision", "latency_ms", "status", "error_code", "details"}

// AppendAudit implements store.Audit. Records go in by COPY in the order
// given, so their ids rise in that order.
func (db *DB) AppendAudit(ctx context.Context, recs []store.AuditRecord) error {
	if len(recs) == 0 {
		return nil
	}
	if err := store.CheckAudit(recs); err != nil {
		return err
	}
	err := db.Write(ctx, func(tx pgx.Tx) error {
		if len(recs) <= copyAbove {
			for _, r := range recs {
				if _, err := tx.Exec(ctx, `INSERT INTO audit (`+strings.Join(auditCols, ", ")+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
					auditRow(r)...); err != nil {
					return err
				}
			}
			return nil
		}
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"audit"}, auditCols, pgx.CopyFromSlice(len(recs), func(i int) ([]any, error) {
			return auditRow(recs[i]), nil
		}))
		return err
	})
	return writeErr("the audit records", err)
}

func auditRow(r store.AuditRecord) []any {
	return []any{r.Time, r.RequestID, r.AccountID, r.Method, r.Operation, r.Decision, r.LatencyMs, r.Status, r.ErrorCode, sqlstore.JSONText(r.Details)}
}

// QueryAudit implements store.Audit: newest first by id; the cursor is the id
// of the last record given. The statement names only the filters in use, so
// PostgreSQL plans each form for its own index (account, time or id).
func (db *DB) QueryAudit(ctx context.Context, q store.AuditQuery) ([]store.AuditRecord, string, error) {
	limit, err := store.CheckAuditQuery(q)
	if err != nil {
		return nil, "", err
	}
	before, err := sqlstore.ParseSeqCursor(q.Cursor)
	if err != nil {
		return nil, "", err
	}
	if !storable(q.AccountID, q.Method) {
		return nil, "", nil
	}
	var (
		where []string
		args  []any
	)
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, fmt.Sprintf(cond, len(args)))
	}
	if before > 0 {
		add("id < $%d", before)
	}
	if q.AccountID != "" {
		add("account_id = $%d", q.AccountID)
	}
	if q.Method != "" {
		add("method = $%d", q.Method)
	}
	if q.Decision != "" {
		add("decision = $%d", q.Decision)
	}
	if !q.Since.IsZero() {
		add("time >= $%d", q.Since)
	}
	if !q.Until.IsZero() {
		add("time < $%d", q.Until)
	}
	query := `SELECT id, time, request_id, account_id, method, operation, decision, latency_ms, status, error_code, details FROM audit`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, " AND ")
	}
	args = append(args, limit+1)
	query += fmt.Sprintf(` ORDER BY id DESC LIMIT $%d`, len(args))

	var out []store.AuditRecord
	err = db.Read(ctx, func(qr Querier) error {
		out = out[:0]
		rows, err := qr.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				r       store.AuditRecord
				at      time.Time
				details *string
			)
			if err := rows.Scan(&r.ID, &at, &r.RequestID, &r.AccountID, &r.Method, &r.Operation, &r.Decision,
				&r.LatencyMs, &r.Status, &r.ErrorCode, &details); err != nil {
				return err
			}
			r.Time, r.Details = utc(at), sqlstore.RawJSON(details)
			out = append(out, r)
		}
		return rows.Err()
	})
	if err != nil {
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
	err := db.Write(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM audit WHERE time < $1`, before)
		n = tag.RowsAffected()
		return err
	})
	return n, writeErr("the audit records", err)
}
