-- The predicate of executions_unfinished_kind (0009) as three equalities
-- instead of an IN list: SQLite evaluates the predicate of a partial index
-- on every insert and status change, and an IN list of three or more
-- constants it evaluates by building a temporary b-tree of them each time
-- (a pager opened and closed per write: ~10 % of a one-row insert). The
-- queries that read the index name the predicate in this form
-- (sqlstore's unfinished). PostgreSQL has the same index for the same
-- queries.
DROP INDEX executions_unfinished_kind;
CREATE INDEX executions_unfinished_kind ON executions (kind, seq) WHERE (status = 'queued' OR status = 'running' OR status = 'waiting');
