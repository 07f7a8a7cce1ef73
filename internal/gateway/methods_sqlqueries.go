package gateway

import (
	"context"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// Gateway methods of the A2E reference server's SQL query library
// (/api/v1/sql-queries): named SQL statements an agent can search for. sluice
// keeps no such library and runs no SQL, so the three answer what is true —
// there are none — in the reference's shapes, and the reference client's
// methods for them work instead of failing on a 404 route.
const (
	MethodSQLQueriesSearch = "sql_queries.search"
	MethodSQLQueriesList   = "sql_queries.list"
	MethodSQLQueriesGet    = "sql_queries.get"
)

// sqlQueriesSearch is POST /api/v1/sql-queries/search {query, database?,
// category?, top_k?}: {query, results: [], count: 0}.
func (s *Server) sqlQueriesSearch(_ context.Context, c *Call, w *e2a.StreamWriter) error {
	p := newParams(c.Env.Params)
	query := p.RequiredString("query")
	_ = p.String("database")
	_ = p.String("category")
	_ = p.Int("top_k", 5, 1, 100)
	if err := p.Done(); err != nil {
		return err
	}
	return w.Complete(map[string]any{"query": query, "results": []any{}, "count": 0})
}

// sqlQueriesList is GET /api/v1/sql-queries[?database=&category=]:
// {sqlQueries: [], count: 0}.
func (s *Server) sqlQueriesList(_ context.Context, c *Call, w *e2a.StreamWriter) error {
	p := newParams(c.Env.Params)
	_ = p.String("database")
	_ = p.String("category")
	if err := p.Done(); err != nil {
		return err
	}
	return w.Complete(map[string]any{"sqlQueries": []any{}, "count": 0})
}

// sqlQueriesGet is GET /api/v1/sql-queries/{id}: not found, as every id is.
func (s *Server) sqlQueriesGet(_ context.Context, c *Call, _ *e2a.StreamWriter) error {
	p := newParams(c.Env.Params)
	id := p.RequiredString("id")
	if err := p.Done(); err != nil {
		return err
	}
	return fault.New(fault.NotFound, "no SQL query %q: sluice keeps no SQL query library", id).WithDetail("id", id)
}
