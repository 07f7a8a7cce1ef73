package sqlstore

import (
	"context"
	"strings"

	"github.com/sluicehq/sluice/internal/store"
)

var auditCols = []string{"time", "request_id", "account_id", "method", "operation", "decision", "latency_ms", "status", "error_code", "details"}

// AppendAudit implements store.Audit. Records go in in the order given (see
// appendRows), so their ids rise in that order.
func (s *Store) AppendAudit(ctx context.Context, recs []store.AuditRecord) error {
	if len(recs) == 0 {
		return nil
	}
	if err := store.CheckAudit(recs); err != nil {
		return err
	}
	rows := make([][]any, len(recs))
	for i, r := range recs {
		rows[i] = []any{s.b.Time(r.Time), r.RequestID, r.AccountID, r.Method, r.Operation, r.Decision, r.LatencyMs, r.Status, r.ErrorCode, jsonText(r.Details)}
	}
	err := s.b.Write(ctx, func(tx Querier) error { return appendRows(ctx, tx, "audit", auditCols, rows) })
	return s.b.WriteErr("the audit records", err)
}

// QueryAudit implements store.Audit: newest first by id; the cursor is the id
// of the last record given. The statement names only the filters in use, so
// the planner plans each form for its own index (account, time or id).
func (s *Store) QueryAudit(ctx context.Context, q store.AuditQuery) ([]store.AuditRecord, string, error) {
	limit, err := store.CheckAuditQuery(q)
	if err != nil {
		return nil, "", err
	}
	before, err := parseSeqCursor(q.Cursor)
	if err != nil {
		return nil, "", err
	}
	if !s.b.Storable(q.AccountID, q.Method) {
		return nil, "", nil
	}
	var f filter
	add := f.add
	if before > 0 {
		add("id < ?", before)
	}
	if q.AccountID != "" {
		add("account_id = ?", q.AccountID)
	}
	if q.Method != "" {
		add("method = ?", q.Method)
	}
	if q.Decision != "" {
		add("decision = ?", q.Decision)
	}
	if !q.Since.IsZero() {
		add("time >= ?", s.b.Time(q.Since))
	}
	if !q.Until.IsZero() {
		add("time < ?", s.b.Time(q.Until))
	}
	query := `SELECT id, ` + strings.Join(auditCols, ", ") + ` FROM audit` + f.where() + ` ORDER BY id DESC LIMIT ?`
	args := append(f.args, limit+1)

	out, err := collect(ctx, s, "audit records", nil, func(row Row) (r store.AuditRecord, err error) {
		var details *string
		err = row.Scan(&r.ID, s.b.ScanTime(&r.Time), &r.RequestID, &r.AccountID, &r.Method, &r.Operation, &r.Decision,
			&r.LatencyMs, &r.Status, &r.ErrorCode, &details)
		r.Details = rawJSON(details)
		return r, err
	}, query, args...)
	if err != nil {
		return nil, "", err
	}
	out, next := nextPage(out, limit, func(r store.AuditRecord) string { return seqCursor(r.ID) })
	return out, next, nil
}
