-- Which runner owns an execution record: 'a2e' (A2E executions),
-- 'a2s' (capability runs) or 'agent_workflow' (agent workflow runs), so
-- runners, recovery and lists select their own in SQL instead of recognising
-- documents. Rows written before are classified by their document's first
-- bytes, as store.KindOfDocument does.
ALTER TABLE executions ADD COLUMN kind text COLLATE "C" NOT NULL DEFAULT 'a2e'
	CHECK (kind IN ('a2e', 'a2s', 'agent_workflow'));
UPDATE executions SET kind = 'a2s'
	WHERE substring(document FROM 1 FOR 11) = convert_to('{"a2s_run":', 'UTF8');
UPDATE executions SET kind = 'agent_workflow'
	WHERE substring(document FROM 1 FOR 18) = convert_to('{"agent_workflow":', 'UTF8');

-- An account's executions of one kind, newest first: the list's cursor is
-- seq, as in executions_account.
CREATE INDEX executions_account_kind ON executions (account_id, kind, seq);
