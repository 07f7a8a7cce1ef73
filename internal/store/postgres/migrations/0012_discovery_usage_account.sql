-- An account's rows, counted against store.MaxDiscoveryUsagePerAccount on
-- each write that adds some.
CREATE INDEX IF NOT EXISTS discovery_usage_account ON discovery_usage (account_id);
