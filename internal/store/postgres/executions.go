package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

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
	clientID              *string
	input, result, errors *string
}

func (r *execRow) targets(full bool) []any {
	t := []any{&r.seq, &r.e.ID, &r.e.AccountID, &r.e.Kind, &r.clientID, &r.e.Digest, &r.e.Status, &r.e.Async, &r.e.SessionID,
		&r.e.BudgetMs, &r.e.CreatedAt, &r.e.StartedAt, &r.e.FinishedAt}
	if full {
		t = append(t, &r.e.Document, &r.input, &r.result, &r.errors)
	}
	return t
}

func (r *execRow) execution() store.Execution {
	e := r.e
	if r.clientID != nil {
		e.ClientID = *r.clientID
	}
	e.CreatedAt = utc(e.CreatedAt)
	e.StartedAt, e.FinishedAt = utcPtr(e.StartedAt), utcPtr(e.FinishedAt)
	e.Input, e.Result, e.Errors = sqlstore.RawJSON(r.input), sqlstore.RawJSON(r.result), sqlstore.RawJSON(r.errors)
	return e
}

// CreateExecution implements store.Executions. The insert skips a taken
// client id (ON CONFLICT on the partial unique index, which waits for a
// concurrent insert of the same key to commit or roll back), so the check and
// the insert are one atomic step across processes.
func (db *DB) CreateExecution(ctx context.Context, e store.Execution) (store.Execution, bool, error) {
	if e.Kind == "" {
		e.Kind = store.KindOfDocument(e.Document)
	}
	if err := store.CheckExecution(e); err != nil {
		return store.Execution{}, false, err
	}
	e.CreatedAt = db.now()
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
	err := db.Write(ctx, func(tx pgx.Tx) error {
		found = false
		var seq int64
		err := tx.QueryRow(ctx, `INSERT INTO executions (id, account_id, kind, client_id, digest, document, input, status, async,
			session_id, budget_ms, result, errors, created_at, started_at, finished_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
			ON CONFLICT (account_id, client_id) WHERE client_id IS NOT NULL DO NOTHING
			RETURNING seq`,
			e.ID, e.AccountID, e.Kind, nullText(e.ClientID), e.Digest, e.Document, sqlstore.JSONText(e.Input), string(e.Status), e.Async,
			e.SessionID, e.BudgetMs, sqlstore.JSONText(e.Result), sqlstore.JSONText(e.Errors), e.CreatedAt, e.StartedAt, e.FinishedAt).Scan(&seq)
		switch {
		case err == nil:
			return nil
		case isForeignKey(err):
			return notFound("account", e.AccountID)
		case isUnique(err):
			return fault.New(fault.Conflict, "execution %q already exists", e.ID).WithDetail("executionId", e.ID)
		case !isNoRows(err):
			return err
		}
		// The client id is taken: the same document gets that execution.
		var r execRow
		if err := tx.QueryRow(ctx, `SELECT `+execFullCols+` FROM executions WHERE account_id = $1 AND client_id = $2`,
			e.AccountID, e.ClientID).Scan(r.targets(true)...); err != nil {
			return err
		}
		if r.e.Digest != e.Digest {
			return fault.New(fault.Conflict, "executionId %q was already used with another document", e.ClientID).
				WithDetail("executionId", e.ClientID).
				WithSuggestions("Use a new executionId for a new document, or resend the same document to get the earlier execution")
		}
		existing, found = r.execution(), true
		return nil
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
	if !storable(accountID, id) {
		return store.Execution{}, notFound("execution", id)
	}
	e, err := db.oneExecution(ctx, `WHERE id = $1 AND account_id = $2`, id, accountID)
	if isNoRows(err) {
		return store.Execution{}, notFound("execution", id)
	}
	return e, err
}

// FindExecutionByClientID implements store.Executions.
func (db *DB) FindExecutionByClientID(ctx context.Context, accountID, clientID string) (store.Execution, error) {
	if !storable(accountID, clientID) {
		return store.Execution{}, fault.New(fault.NotFound, "no execution with this executionId")
	}
	e, err := db.oneExecution(ctx, `WHERE account_id = $1 AND client_id = $2`, accountID, clientID)
	if isNoRows(err) {
		return store.Execution{}, fault.New(fault.NotFound, "no execution with this executionId")
	}
	return e, err
}

// oneExecution reads one complete execution; pgx.ErrNoRows when none.
func (db *DB) oneExecution(ctx context.Context, where string, args ...any) (store.Execution, error) {
	var r execRow
	err := db.Read(ctx, func(q Querier) error {
		return q.QueryRow(ctx, `SELECT `+execFullCols+` FROM executions `+where, args...).Scan(r.targets(true)...)
	})
	if isNoRows(err) {
		return store.Execution{}, err
	}
	if err != nil {
		return store.Execution{}, readErr("the execution", err)
	}
	return r.execution(), nil
}

// ListExecutions implements store.Executions: newest first by insertion
// order; the cursor is the seq of the last execution given. The statement
// names only the filters in use, so each form gets its own plan.
func (db *DB) ListExecutions(ctx context.Context, accountID string, q store.ExecutionQuery) ([]store.Execution, string, error) {
	limit, err := store.CheckExecutionQuery(q)
	if err != nil {
		return nil, "", err
	}
	before, err := sqlstore.ParseSeqCursor(q.Cursor)
	if err != nil {
		return nil, "", err
	}
	var args []any
	query := `SELECT ` + execSummaryCols + ` FROM executions WHERE TRUE`
	if !q.AllAccounts {
		if !storable(accountID) {
			return nil, "", nil
		}
		args = append(args, accountID)
		query += fmt.Sprintf(` AND account_id = $%d`, len(args))
	}
	if before > 0 {
		args = append(args, before)
		query += fmt.Sprintf(` AND seq < $%d`, len(args))
	}
	if len(q.Kinds) > 0 {
		args = append(args, q.Kinds)
		query += fmt.Sprintf(` AND kind = ANY($%d)`, len(args))
	}
	if len(q.Status) > 0 {
		statuses := make([]string, len(q.Status))
		for i, s := range q.Status {
			statuses[i] = string(s)
		}
		args = append(args, statuses)
		query += fmt.Sprintf(` AND status = ANY($%d)`, len(args))
	}
	args = append(args, limit+1)
	query += fmt.Sprintf(` ORDER BY seq DESC LIMIT $%d`, len(args))
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
		WHERE status IN ('queued', 'running', 'waiting') AND kind = $1 AND seq > $2 ORDER BY seq LIMIT $3`, true, limit, kind, after, limit+1)
}

func (db *DB) listExecutions(ctx context.Context, query string, full bool, limit int, args ...any) ([]store.Execution, string, error) {
	var (
		out  []store.Execution
		seqs []int64
	)
	err := db.Read(ctx, func(q Querier) error {
		out, seqs = out[:0], seqs[:0]
		rows, err := q.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r execRow
			if err := rows.Scan(r.targets(full)...); err != nil {
				return err
			}
			out = append(out, r.execution())
			seqs = append(seqs, r.seq)
		}
		return rows.Err()
	})
	if err != nil {
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
	if !storable(accountID, id) {
		return notFound("execution", id)
	}
	now := db.now()
	var finished *time.Time
	if u.Status.Final() {
		finished = &now
	}
	err := db.Write(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE executions SET status = $1,
			result = COALESCE($2, result), errors = COALESCE($3, errors),
			started_at = CASE WHEN started_at IS NULL AND $1 <> 'queued' THEN $4 ELSE started_at END,
			finished_at = $5
			WHERE id = $6 AND account_id = $7 AND status NOT IN (`+finalStatuses+`)`,
			string(u.Status), sqlstore.JSONText(u.Result), sqlstore.JSONText(u.Errors), now, finished, id, accountID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			return nil
		}
		var current store.Status
		err = tx.QueryRow(ctx, `SELECT status FROM executions WHERE id = $1 AND account_id = $2`, id, accountID).Scan(&current)
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
