package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// Tx is the writer's transaction as one caller's function sees it. Statements
// are prepared once per query text on the write connection and reused across
// transactions. A Tx is valid only during the function it was given to.
type Tx struct {
	w *writer
}

// Exec runs a statement.
func (t *Tx) Exec(query string, args ...any) (sql.Result, error) {
	s, err := t.stmt(query)
	if err != nil {
		return nil, err
	}
	return s.Exec(args...)
}

// QueryRow runs a query expected to return at most one row.
func (t *Tx) QueryRow(query string, args ...any) *sql.Row {
	s, err := t.stmt(query)
	if err != nil {
		// Let Scan report the failure: run the query unprepared.
		return t.w.conn.QueryRowContext(context.Background(), query, args...)
	}
	return s.QueryRow(args...)
}

// Query runs a query.
func (t *Tx) Query(query string, args ...any) (*sql.Rows, error) {
	s, err := t.stmt(query)
	if err != nil {
		return nil, err
	}
	return s.Query(args...)
}

func (t *Tx) stmt(query string) (*sql.Stmt, error) {
	if s, ok := t.w.stmts[query]; ok {
		return s, nil
	}
	s, err := t.w.conn.PrepareContext(context.Background(), query)
	if err != nil {
		return nil, err
	}
	t.w.stmts[query] = s
	return s, nil
}

// stmtCache keeps the read pool's prepared statements by query text. The set of queries is
// fixed by the code, so it does not grow without bound.
type stmtCache struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

func (c *stmtCache) get(query string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.m[query]; ok {
		return s, nil
	}
	s, err := c.db.PrepareContext(context.Background(), query)
	if err != nil {
		return nil, err
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[query] = s
	return s, nil
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.m {
		s.Close()
	}
	c.m = nil
}

// Read runs a query on the read pool.
func (db *DB) Read(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s, err := db.reads.get(query)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(ctx, args...)
}

// ReadRow runs a query expected to return at most one row on the read pool.
func (db *DB) ReadRow(ctx context.Context, query string, args ...any) *sql.Row {
	s, err := db.reads.get(query)
	if err != nil {
		return db.rdb.QueryRowContext(ctx, query, args...)
	}
	return s.QueryRowContext(ctx, args...)
}

type panicError struct{ v any }

func (p panicError) Error() string { return fmt.Sprintf("panic: %v", p.v) }
