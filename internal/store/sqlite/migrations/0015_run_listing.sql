-- One account's runs by status, newest first (ListExecutions with Status):
-- its page is read off this index in seq order, where executions_account
-- read every run of the account to find a rare status. Every account's
-- unfinished runs of a kind are read off executions_unfinished_kind (0009):
-- the query names that index's predicate when every status asked is
-- unfinished. A further index here would cost every insert and status change.
CREATE INDEX executions_account_status ON executions (account_id, status, seq);
