-- Account names are unique (issue 24): `sluice accounts get|update` take a
-- name or an id, and a name must say which account. Names that repeat
-- before this migration keep the oldest-id one as it is; each other gets
-- its id appended, " (acct-...)", so the index can be built and no account
-- is lost or merged. An empty name (allowed, never shown as a handle) may
-- repeat.
UPDATE accounts SET name = name || ' (' || id || ')'
	WHERE name <> '' AND EXISTS (SELECT 1 FROM accounts other WHERE other.name = accounts.name AND other.id < accounts.id);

CREATE UNIQUE INDEX accounts_name ON accounts (name) WHERE name <> '';
