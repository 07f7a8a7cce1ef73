-- Which runner owns an execution record: 'a2e' (A2E executions),
-- 'a2s' (capability runs) or 'agent_workflow' (agent workflow runs), so
-- runners, recovery and lists select their own in SQL instead of recognising
-- documents. Rows written before are classified by their document's first
-- bytes, as store.KindOfDocument does.
ALTER TABLE executions ADD COLUMN kind TEXT NOT NULL DEFAULT 'a2e';
UPDATE executions SET kind = 'a2s'
	WHERE CAST(substr(document, 1, 11) AS BLOB) = CAST('{"a2s_run":' AS BLOB);
UPDATE executions SET kind = 'agent_workflow'
	WHERE CAST(substr(document, 1, 18) AS BLOB) = CAST('{"agent_workflow":' AS BLOB);

-- An account's executions of one kind, newest first: the list's cursor is
-- seq, as in executions_account.
CREATE INDEX executions_account_kind ON executions (account_id, kind, seq);
