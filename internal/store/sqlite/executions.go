package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlstore"
)

// Summary columns are what lists give; full rows add the large ones.
const (
	execSummaryCols = `seq, id, account_id, kind, client_id, digest, status, async, session_id, budget_ms, created_at, started_at, finished_at`
	execFullCols    = execSummaryCols + `, document, input, result, errors`
	finalStatuses   = `'success', 'failed', 'partial', 'cancelled'`
)

type execRow struct {
	e                     store.Execution
	seq                   int64
	clientID              sql.NullString
	created               int64
	started, finished     sql.NullInt64
	input, result, errors sql.NullString
}

func (r *execRow) targets(full bool) []any {
	t := []any{&r.seq, &r.e.ID, &r.e.AccountID, &r.e.Kind, &r.clientID, &r.e.Digest, &r.e.Status, &r.e.Async, &r.e.SessionID,
		&r.e.BudgetMs, &r.created, &r.started, &r.finished}
	if full {
		t = append(t, &r.e.Document, &r.input, &r.result, &r.errors)
	}
	return t
}

func (r *execRow) execution() store.Execution {
	e := r.e
	e.ClientID = r.clientID.String
	e.CreatedAt = fromMicros(r.created)
	e.StartedAt, e.FinishedAt = timePtr(r.started), timePtr(r.finished)
	e.Input, e.Result, e.Errors = rawJSON(r.input), rawJSON(r.result), rawJSON(r.errors)
	return e
}

// CreateExecution implements store.Executions.
func (db *DB) CreateExecution(ctx context.Context, e store.Execution) (store.Execution, bool, error) {
	if e.Kind == "" {
		e.Kind = store.KindOfDocument(e.Document)
	}
	if err := store.CheckExecution(e); err != nil {
		return store.Execution{}, false, err
	}
	now := db.clock.Now()
	e.CreatedAt = fromMicros(micros(now))
	e.StartedAt, e.FinishedAt = nil, nil
	if e.Status != store.StatusQueued {
		e.StartedAt = &e.CreatedAt
	}
	if e.Status.Final() {
		e.FinishedAt = &e.CreatedAt
	}
	var (
		existing store.Execution
		found    bool
	)
	err := db.Write(ctx, func(tx *Tx) error {
		found = false
		if e.ClientID != "" {
			var r execRow
			err := tx.QueryRow(`SELECT `+execFullCols+` FROM executions WHERE account_id = ? AND client_id = ?`,
				e.AccountID, e.ClientID).Scan(r.targets(true)...)
			switch {
			case err == nil:
				if r.e.Digest != e.Digest {
					return fault.New(fault.Conflict, "executionId %q was already used with another document", e.ClientID).
						WithDetail("executionId", e.ClientID).
						WithSuggestions("Use a new executionId for a new document, or resend the same document to get the earlier execution")
				}
				existing, found = r.execution(), true
				return nil
			case !isNoRows(err):
				return err
			}
		}
		_, err := tx.Exec(`INSERT INTO executions (id, account_id, kind, client_id, digest, document, input, status, async,
			session_id, budget_ms, result, errors, created_at, started_at, finished_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.ID, e.AccountID, e.Kind, nullText(e.ClientID), e.Digest, e.Document, jsonText(e.Input), string(e.Status), e.Async,
			e.SessionID, e.BudgetMs, jsonText(e.Result), jsonText(e.Errors), micros(e.CreatedAt),
			nullMicros(e.StartedAt), nullMicros(e.FinishedAt))
		switch {
		case isForeignKey(err):
			return notFound("account", e.AccountID)
		case isUnique(err):
			return fault.New(fault.Conflict, "execution %q already exists", e.ID).WithDetail("executionId", e.ID)
		}
		return err
	})
	if err != nil {
		return store.Execution{}, false, writeErr("the execution", err)
	}
	if found {
		return existing, false, nil
	}
	return e, true, nil
}

// GetExecution implements store.Executions.
func (db *DB) GetExecution(ctx context.Context, accountID, id string) (store.Execution, error) {
	var r execRow
	err := db.ReadRow(ctx, `SELECT `+execFullCols+` FROM executions WHERE id = ? AND account_id = ?`, id, accountID).
		Scan(r.targets(true)...)
	if isNoRows(err) {
		return store.Execution{}, notFound("execution", id)
	}
	if err != nil {
		return store.Execution{}, readErr("the execution", err)
	}
	return r.execution(), nil
}

// FindExecutionByClientID implements store.Executions.
func (db *DB) FindExecutionByClientID(ctx context.Context, accountID, clientID string) (store.Execution, error) {
	var r execRow
	err := db.ReadRow(ctx, `SELECT `+execFullCols+` FROM executions WHERE account_id = ? AND client_id = ?`, accountID, clientID).
		Scan(r.targets(true)...)
	if isNoRows(err) {
		return store.Execution{}, fault.New(fault.NotFound, "no execution with this executionId")
	}
	if err != nil {
		return store.Execution{}, readErr("the execution", err)
	}
	return r.execution(), nil
}

// ListExecutions implements store.Executions: newest first by insertion
// order; the cursor is the seq of the last execution given.
func (db *DB) ListExecutions(ctx context.Context, accountID string, q store.ExecutionQuery) ([]store.Execution, string, error) {
	limit, err := store.CheckExecutionQuery(q)
	if err != nil {
		return nil, "", err
	}
	before, err := sqlstore.ParseSeqCursor(q.Cursor)
	if err != nil {
		return nil, "", err
	}
	args := []any{before, before}
	query := `SELECT ` + execSummaryCols + ` FROM executions WHERE (? = 0 OR seq < ?)`
	if !q.AllAccounts {
		query += ` AND account_id = ?`
		args = append(args, accountID)
	}
	if len(q.Kinds) > 0 {
		query += ` AND kind IN (?` + strings.Repeat(`, ?`, len(q.Kinds)-1) + `)`
		for _, k := range q.Kinds {
			args = append(args, k)
		}
	}
	if len(q.Status) > 0 {
		query += ` AND status IN (?` + strings.Repeat(`, ?`, len(q.Status)-1) + `)`
		for _, s := range q.Status {
			args = append(args, string(s))
		}
	}
	query += ` ORDER BY seq DESC LIMIT ?`
	args = append(args, limit+1)
	return db.listExecutions(ctx, query, false, limit, args...)
}

// ListUnfinished implements store.Executions. The partial index
// executions_unfinished_kind (kind, seq) serves it.
func (db *DB) ListUnfinished(ctx context.Context, kind string, p store.Page) ([]store.Execution, string, error) {
	limit, err := store.CheckUnfinishedQuery(kind, p)
	if err != nil {
		return nil, "", err
	}
	after, err := sqlstore.ParseSeqCursor(p.Cursor)
	if err != nil {
		return nil, "", err
	}
	return db.listExecutions(ctx, `SELECT `+execFullCols+` FROM executions
		WHERE status IN ('queued', 'running', 'waiting') AND kind = ? AND seq > ? ORDER BY seq LIMIT ?`, true, limit, kind, after, limit+1)
}

func (db *DB) listExecutions(ctx context.Context, query string, full bool, limit int, args ...any) ([]store.Execution, string, error) {
	rows, err := db.Read(ctx, query, args...)
	if err != nil {
		return nil, "", readErr("executions", err)
	}
	defer rows.Close()
	var (
		out  []store.Execution
		seqs []int64
	)
	for rows.Next() {
		var r execRow
		if err := rows.Scan(r.targets(full)...); err != nil {
			return nil, "", readErr("executions", err)
		}
		out = append(out, r.execution())
		seqs = append(seqs, r.seq)
	}
	if err := rows.Err(); err != nil {
		return nil, "", readErr("executions", err)
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		next = sqlstore.SeqCursor(seqs[limit-1])
	}
	return out, next, nil
}

// UpdateExecution implements store.Executions. The common case is one
// statement; only when it changes nothing is the row read to say why.
func (db *DB) UpdateExecution(ctx context.Context, accountID, id string, u store.ExecutionUpdate) error {
	if err := store.CheckExecutionUpdate(u); err != nil {
		return err
	}
	now := micros(db.clock.Now())
	var finished sql.NullInt64
	if u.Status.Final() {
		finished = sql.NullInt64{Int64: now, Valid: true}
	}
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE executions SET status = ?,
			result = COALESCE(?, result), errors = COALESCE(?, errors),
			started_at = CASE WHEN started_at IS NULL AND ? != 'queued' THEN ? ELSE started_at END,
			finished_at = ?
			WHERE id = ? AND account_id = ? AND status NOT IN (`+finalStatuses+`)`,
			string(u.Status), jsonText(u.Result), jsonText(u.Errors), string(u.Status), now, finished, id, accountID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return nil
		}
		var current store.Status
		err = tx.QueryRow(`SELECT status FROM executions WHERE id = ? AND account_id = ?`, id, accountID).Scan(&current)
		if isNoRows(err) {
			return notFound("execution", id)
		}
		if err != nil {
			return err
		}
		return store.StatusGuard(id, current, u.Status)
	})
	return writeErr("the execution", err)
}
