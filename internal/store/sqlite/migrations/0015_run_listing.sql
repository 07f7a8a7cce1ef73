-- The run listing (ListExecutions), newest first, for the filters it takes:
-- every account's runs by kind and status, or by kind alone, and one
-- account's by status. Each reads its page off an index in seq order (with
-- (kind, status, seq) alone, SQLite answered a list by kind alone by sorting
-- every run of the kind). One account's runs, and those by kind, keep
-- executions_account and executions_account_kind.
CREATE INDEX executions_listing ON executions (kind, status, seq);
CREATE INDEX executions_kind ON executions (kind, seq);
CREATE INDEX executions_account_status ON executions (account_id, status, seq);
