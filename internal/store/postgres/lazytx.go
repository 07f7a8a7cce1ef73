package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// lazyTx is the transaction Write hands its function: BEGIN is not sent
// until the first statement is, and then in the same round trip
// (pgx.Batch.BeginTx), so a write of one statement costs two round trips
// (BEGIN with the statement, then COMMIT) instead of three, and a write that
// ends up sending nothing costs none. Statements that cannot share the BEGIN's
// round trip (a query read row by row, COPY) begin it on its own first, as
// pgx.Conn.Begin would have.
type lazyTx struct {
	conn *pgx.Conn
	tx   pgx.Tx // nil until BEGIN has been sent
}

var _ Tx = (*lazyTx)(nil)

func newLazyTx(conn *pgx.Conn) *lazyTx { return &lazyTx{conn: conn} }

// begun reports whether BEGIN has been sent (not whether it succeeded).
func (t *lazyTx) begun() bool { return t.tx != nil }

// begin sends BEGIN alone, once.
func (t *lazyTx) begin(ctx context.Context) (pgx.Tx, error) {
	if t.tx != nil {
		return t.tx, nil
	}
	tx, err := t.conn.Begin(ctx)
	if err != nil {
		return nil, err
	}
	t.tx = tx
	return tx, nil
}

// sendWithBegin sends b's queries after a BEGIN, in one round trip, reads
// the BEGIN's result and hands back the results of b's own queries.
func (t *lazyTx) sendWithBegin(ctx context.Context, b *pgx.Batch) (pgx.BatchResults, error) {
	nb := &pgx.Batch{QueuedQueries: make([]*pgx.QueuedQuery, 0, len(b.QueuedQueries)+1)}
	nb.BeginTx(pgx.TxOptions{})
	nb.QueuedQueries = append(nb.QueuedQueries, b.QueuedQueries...)
	br := t.conn.SendBatch(ctx, nb)
	t.tx = br.Tx()
	if _, err := br.Exec(); err != nil {
		_ = br.Close()
		return nil, err
	}
	return br, nil
}

// sendOneWithBegin sends one statement after a BEGIN, in one round trip.
func (t *lazyTx) sendOneWithBegin(ctx context.Context, sql string, args []any) (pgx.BatchResults, error) {
	b := &pgx.Batch{}
	b.Queue(sql, args...)
	return t.sendWithBegin(ctx, b)
}

func (t *lazyTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if t.begun() {
		return t.tx.Exec(ctx, sql, args...)
	}
	br, err := t.sendOneWithBegin(ctx, sql, args)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag, err
}

func (t *lazyTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if t.begun() {
		return t.tx.QueryRow(ctx, sql, args...)
	}
	br, err := t.sendOneWithBegin(ctx, sql, args)
	if err != nil {
		return errRow{err}
	}
	return batchRow{row: br.QueryRow(), br: br}
}

// Query reads rows one by one, which a batch would hold open: BEGIN goes
// first on its own.
func (t *lazyTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	tx, err := t.begin(ctx)
	if err != nil {
		return nil, err
	}
	return tx.Query(ctx, sql, args...)
}

func (t *lazyTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if t.begun() {
		return t.tx.SendBatch(ctx, b)
	}
	br, err := t.sendWithBegin(ctx, b)
	if err != nil {
		return pgx.FailedBatchResults(b, err)
	}
	return br
}

func (t *lazyTx) CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	tx, err := t.begin(ctx)
	if err != nil {
		return 0, err
	}
	return tx.CopyFrom(ctx, table, cols, src)
}

// Commit commits what was sent; a transaction that sent nothing has nothing
// to commit and costs no round trip.
func (t *lazyTx) Commit(ctx context.Context) error {
	if !t.begun() {
		return nil
	}
	return t.tx.Commit(ctx)
}

func (t *lazyTx) Rollback(ctx context.Context) error {
	if !t.begun() {
		return nil
	}
	return t.tx.Rollback(ctx)
}

// batchRow is the row of a query sent in a batch with its BEGIN: scanning it
// closes the batch, which frees the connection for the next statement.
type batchRow struct {
	row pgx.Row
	br  pgx.BatchResults
}

func (r batchRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	if cerr := r.br.Close(); err == nil {
		err = cerr
	}
	return err
}

// errRow is a row whose query could not be sent.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }
