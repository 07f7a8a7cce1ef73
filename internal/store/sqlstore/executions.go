package sqlstore

import (
	"context"
	"slices"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// Summary columns are what lists give; full rows add the large ones.
const (
	execSummaryCols = `seq, id, account_id, kind, client_id, digest, status, async, session_id, budget_ms, created_at, started_at, finished_at`
	execFullCols    = execSummaryCols + `, document, input, result, errors`
	// unfinished is the predicate of the partial index
	// executions_unfinished_kind (migration 0020), written as there: SQLite
	// uses a partial index only for a query that names its predicate. It
	// is equalities, not an IN list: SQLite evaluates an IN list of three
	// constants or more with a temporary b-tree built for each statement.
	unfinished = `(status = 'queued' OR status = 'running' OR status = 'waiting')`
)

// The statements of the hottest writes and of recovery's read, exported for
// the backends' tests of what SQLite makes of them: InsertExecution and
// UpdateExecutionStatus evaluate no IN list (see unfinished), UnfinishedRuns
// reads executions_unfinished_kind. UnfinishedRuns' placeholders: kind,
// after (a seq), limit.
const (
	InsertExecution = `INSERT INTO executions (id, account_id, kind, client_id, digest, document, input, status, async,
		session_id, budget_ms, result, errors, created_at, started_at, finished_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (account_id, client_id) WHERE client_id IS NOT NULL DO NOTHING`
	UpdateExecutionStatus = `UPDATE executions SET status = ?,
		result = COALESCE(?, result), errors = COALESCE(?, errors),
		started_at = COALESCE(started_at, ?), finished_at = ?
		WHERE id = ? AND account_id = ? AND ` + unfinished
	UnfinishedRuns = `SELECT ` + execFullCols + ` FROM executions
		WHERE ` + unfinished + ` AND kind = ? AND seq > ? ORDER BY seq LIMIT ?`
)

// execRow holds the columns of execSummaryCols (and execFullCols) as
// scanned.
type execRow struct {
	e                               store.Execution
	seq                             int64
	clientID, input, result, errors *string
}

func (r *execRow) targets(d Dialect, full bool) []any {
	t := []any{&r.seq, &r.e.ID, &r.e.AccountID, &r.e.Kind, &r.clientID, &r.e.Digest, &r.e.Status, &r.e.Async, &r.e.SessionID,
		&r.e.BudgetMs, d.ScanTime(&r.e.CreatedAt), d.ScanNullTime(&r.e.StartedAt), d.ScanNullTime(&r.e.FinishedAt)}
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
	e.Input, e.Result, e.Errors = rawJSON(r.input), rawJSON(r.result), rawJSON(r.errors)
	return e
}

func nullText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// CreateExecution implements store.Executions. The insert skips a taken
// client id (ON CONFLICT on the partial unique index; on PostgreSQL it waits
// for a concurrent insert of the same key to commit or roll back), so the
// check and the insert are one atomic step across processes.
func (s *Store) CreateExecution(ctx context.Context, e store.Execution) (store.Execution, bool, error) {
	if e.Kind == "" {
		e.Kind = store.KindOfDocument(e.Document)
	}
	if err := store.CheckExecution(e); err != nil {
		return store.Execution{}, false, err
	}
	e.CreatedAt = s.b.Now()
	e.StartedAt, e.FinishedAt = nil, nil
	if e.Status != store.StatusQueued {
		e.StartedAt = &e.CreatedAt
	}
	if e.Status.Final() {
		e.FinishedAt = &e.CreatedAt
	}
	return s.insertExecution(ctx, e, 3)
}

// insertExecution is CreateExecution's insert: one statement, committed by
// itself; only when the client id was taken is the execution holding it
// read, after. tries bounds how often a holder that vanished before it could
// be read (retention) sends the insert again.
func (s *Store) insertExecution(ctx context.Context, e store.Execution, tries int) (store.Execution, bool, error) {
	n, err := s.b.WriteOne(ctx, InsertExecution,
		e.ID, e.AccountID, e.Kind, nullText(e.ClientID), e.Digest, e.Document, jsonText(e.Input), string(e.Status), e.Async,
		e.SessionID, e.BudgetMs, jsonText(e.Result), jsonText(e.Errors), s.b.Time(e.CreatedAt), s.b.NullTime(e.StartedAt), s.b.NullTime(e.FinishedAt))
	switch {
	case err == nil && n == 1:
		return e, true, nil
	case s.b.IsForeignKey(err):
		err = notFound("account", e.AccountID)
	case s.b.IsUnique(err):
		err = fault.New(fault.Conflict, "execution %q already exists", e.ID).WithDetail("executionId", e.ID)
	case err == nil:
		return s.clientIDTaken(ctx, e, tries-1)
	}
	return store.Execution{}, false, s.b.WriteErr("the execution", err)
}

// clientIDTaken answers CreateExecution when e's client id was taken: the
// execution that holds it, for the same document; a conflict for another.
// The execution was committed before e's insert found it, so a read sees it
// (unless retention removed it meanwhile: then e's insert is tried again,
// while tries last).
func (s *Store) clientIDTaken(ctx context.Context, e store.Execution, tries int) (store.Execution, bool, error) {
	existing, err := s.FindExecutionByClientID(ctx, e.AccountID, e.ClientID)
	if fe, ok := fault.As(err); ok && fe.Kind == fault.NotFound && tries > 0 {
		return s.insertExecution(ctx, e, tries)
	}
	if err != nil {
		return store.Execution{}, false, err
	}
	if existing.Digest != e.Digest {
		return store.Execution{}, false, fault.New(fault.Conflict, "executionId %q was already used with another document", e.ClientID).
			WithDetail("executionId", e.ClientID).
			WithSuggestions("Use a new executionId for a new document, or resend the same document to get the earlier execution")
	}
	return existing, false, nil
}

// GetExecution implements store.Executions.
func (s *Store) GetExecution(ctx context.Context, accountID, id string) (store.Execution, error) {
	return s.oneExecution(ctx, notFound("execution", id), `id = ? AND account_id = ?`, id, accountID)
}

// FindExecutionByClientID implements store.Executions.
func (s *Store) FindExecutionByClientID(ctx context.Context, accountID, clientID string) (store.Execution, error) {
	return s.oneExecution(ctx, fault.New(fault.NotFound, "no execution with this executionId"),
		`account_id = ? AND client_id = ?`, accountID, clientID)
}

// oneExecution reads the one complete execution where says (its arguments
// two keys); none, or a key the database cannot hold, is missing.
func (s *Store) oneExecution(ctx context.Context, missing *fault.Error, where string, k1, k2 string) (store.Execution, error) {
	if !s.b.Storable(k1, k2) {
		return store.Execution{}, missing
	}
	var r execRow
	err := s.b.Read(ctx, func(q Querier) error {
		return q.QueryRow(ctx, `SELECT `+execFullCols+` FROM executions WHERE `+where, k1, k2).Scan(r.targets(s.b, true)...)
	})
	if s.b.IsNoRows(err) {
		return store.Execution{}, missing
	}
	if err != nil {
		return store.Execution{}, s.b.ReadErr("the execution", err)
	}
	return r.execution(), nil
}

// ListExecutions implements store.Executions: newest first by insertion
// order; the cursor is the seq of the last execution given. The statement
// names only the filters in use, so each form gets its own plan: one
// account's by executions_account, _account_kind or _account_status (0015),
// unfinished ones by executions_unfinished_kind, the rest in seq order.
func (s *Store) ListExecutions(ctx context.Context, accountID string, q store.ExecutionQuery) ([]store.Execution, string, error) {
	limit, err := store.CheckExecutionQuery(q)
	if err != nil {
		return nil, "", err
	}
	before, err := parseSeqCursor(q.Cursor)
	if err != nil {
		return nil, "", err
	}
	var f filter
	if !q.AllAccounts {
		if !s.b.Storable(accountID) {
			return nil, "", nil
		}
		f.add(`account_id = ?`, accountID)
	}
	if before > 0 {
		f.add(`seq < ?`, before)
	}
	if len(q.Kinds) > 0 {
		in(&f, `kind`, q.Kinds)
	}
	if len(q.Status) > 0 {
		in(&f, `status`, q.Status)
		if !slices.ContainsFunc(q.Status, store.Status.Final) {
			f.add(unfinished) // read off the partial index of unfinished runs
		}
	}
	return s.listExecutions(ctx, `SELECT `+execSummaryCols+` FROM executions`+f.where()+` ORDER BY seq DESC LIMIT ?`,
		false, limit, append(f.args, limit+1)...)
}

// ListUnfinished implements store.Executions. The partial index
// executions_unfinished_kind (kind, seq) serves it.
func (s *Store) ListUnfinished(ctx context.Context, kind string, p store.Page) ([]store.Execution, string, error) {
	limit, err := store.CheckUnfinishedQuery(kind, p)
	if err != nil {
		return nil, "", err
	}
	after, err := parseSeqCursor(p.Cursor)
	if err != nil {
		return nil, "", err
	}
	return s.listExecutions(ctx, UnfinishedRuns, true, limit, kind, after, limit+1)
}

func (s *Store) listExecutions(ctx context.Context, query string, full bool, limit int, args ...any) ([]store.Execution, string, error) {
	rows, err := collect(ctx, s, "executions", nil, func(row Row) (execRow, error) {
		var r execRow
		err := row.Scan(r.targets(s.b, full)...)
		return r, err
	}, query, args...)
	if err != nil {
		return nil, "", err
	}
	rows, next := nextPage(rows, limit, func(r execRow) string { return seqCursor(r.seq) })
	var out []store.Execution
	for i := range rows {
		out = append(out, rows[i].execution())
	}
	return out, next, nil
}

// UpdateExecution implements store.Executions. The common case is one
// statement; only when it changes nothing is the row read to say why.
func (s *Store) UpdateExecution(ctx context.Context, accountID, id string, u store.ExecutionUpdate) error {
	if err := store.CheckExecutionUpdate(u); err != nil {
		return err
	}
	if !s.b.Storable(accountID, id) {
		return notFound("execution", id)
	}
	now := s.b.Now()
	var started, finished *time.Time
	if u.Status != store.StatusQueued {
		started = &now
	}
	if u.Status.Final() {
		finished = &now
	}
	n, err := s.b.WriteOne(ctx, UpdateExecutionStatus,
		string(u.Status), jsonText(u.Result), jsonText(u.Errors), s.b.NullTime(started), s.b.NullTime(finished), id, accountID)
	if err == nil && n != 1 {
		// Nothing changed: say why. A final status stays final, so what
		// is read after the write is what the write found.
		var current store.Status
		err = s.b.Read(ctx, func(q Querier) error {
			return q.QueryRow(ctx, `SELECT status FROM executions WHERE id = ? AND account_id = ?`, id, accountID).Scan(&current)
		})
		switch {
		case s.b.IsNoRows(err):
			return notFound("execution", id)
		case err != nil:
			return s.b.ReadErr("the execution", err)
		}
		return store.StatusGuard(id, current, u.Status)
	}
	return s.b.WriteErr("the execution", err)
}
