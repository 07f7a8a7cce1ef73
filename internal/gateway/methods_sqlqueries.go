package gateway

import (
	"context"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// The A2E reference server's SQL query library (/api/v1/sql-queries): named
// SQL statements an agent can search for. sluice keeps no such library and
// runs no SQL, so the three methods answer what is true — there are none —
// in the reference's shapes, and the reference client's methods for them
// work instead of failing on a 404 route.

// sqlQueriesSearch is POST /api/v1/sql-queries/search {query, database?,
// category?, top_k?}: {query, results: [], count: 0}.
func (s *Server) sqlQueriesSearch(_ context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	query := a.String("query")
	return w.Complete(map[string]any{"query": query, "results": []any{}, "count": 0})
}

// sqlQueriesList is GET /api/v1/sql-queries[?database=&category=]:
// {sqlQueries: [], count: 0}.
func (s *Server) sqlQueriesList(_ context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	return w.Complete(map[string]any{"sqlQueries": []any{}, "count": 0})
}

// sqlQueriesGet is GET /api/v1/sql-queries/{id}: not found, as every id is.
func (s *Server) sqlQueriesGet(_ context.Context, c *Call, a args, _ *e2a.StreamWriter) error {
	id := a.String("id")
	return fault.New(fault.NotFound, "no SQL query %q: sluice keeps no SQL query library", id).WithDetail("id", id)
}
