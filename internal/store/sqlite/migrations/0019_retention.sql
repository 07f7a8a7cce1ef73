-- Retention (issue 27): the pruner asks each account for its runs that
-- finished before a cutoff, oldest first, a batch at a time. This index
-- answers that with one seek per account, and holds only finished runs:
-- a run gets its entry once, when it becomes final. Without it, the pruner
-- would read every old run of an account (its live ones included) on every
-- pass.
CREATE INDEX IF NOT EXISTS executions_account_finished ON executions (account_id, finished_at, seq) WHERE finished_at IS NOT NULL;
