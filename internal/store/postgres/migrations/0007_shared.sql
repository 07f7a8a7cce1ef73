-- What gateways sharing a store share beyond the tables before: rate counts
-- of the shared rate limiter (in rate_counters, through sluice_rate_take),
-- concurrent-execution slots, the values of sessionStorage and file storage,
-- and settings every process must agree on.

-- One row per running execution holding a slot of its account's limit of
-- concurrent executions; a process that dies leaves its rows to expire.
CREATE TABLE rate_slots (
	slot_id    TEXT COLLATE "C" PRIMARY KEY,
	account_id TEXT COLLATE "C" NOT NULL,
	expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX rate_slots_account ON rate_slots (account_id, expires_at);

-- sessionStorage (scope: the session, or the execution without one) and file
-- storage (scope ''); expires_at NULL never expires.
CREATE TABLE scoped_values (
	area       TEXT COLLATE "C" NOT NULL,
	account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts (id),
	scope      TEXT COLLATE "C" NOT NULL,
	key        TEXT COLLATE "C" NOT NULL,
	value      TEXT NOT NULL,
	expires_at TIMESTAMPTZ,
	updated_at TIMESTAMPTZ NOT NULL,
	PRIMARY KEY (area, account_id, scope, key)
);
CREATE INDEX scoped_values_expires ON scoped_values (expires_at) WHERE expires_at IS NOT NULL;

-- How many keys each scope holds (expired ones included until they are
-- deleted). A new key takes the scope's row lock here first, which
-- serialises the scope's new keys across processes, so the bound is exact
-- and costs one row instead of a count.
CREATE TABLE scoped_value_usage (
	area       TEXT COLLATE "C" NOT NULL,
	account_id TEXT COLLATE "C" NOT NULL,
	scope      TEXT COLLATE "C" NOT NULL,
	keys       INTEGER NOT NULL,
	PRIMARY KEY (area, account_id, scope)
);

CREATE TABLE settings (
	name       TEXT COLLATE "C" PRIMARY KEY,
	value      BYTEA NOT NULL,
	updated_at TIMESTAMPTZ NOT NULL
);

-- sluice_rate_take is store.SharedLimits.TakeRate in one round trip: under
-- the account's transaction-scoped advisory lock ('slrt'), it drops the
-- account's ended windows, reads the counts of the windows asked (0 when
-- absent) and the bucket's instant (kept as window_end of the row of kind
-- bkind at window_start 'epoch'; absent: full), and when every limited
-- window has room for n more and the bucket n tokens (GCRA), counts them.
-- It returns the state as it was before; the caller adds n when taken. The
-- commit does not wait for its WAL flush: a database crash may forget the
-- last few hundred milliseconds of counts, which errs on the permissive side.
CREATE FUNCTION sluice_rate_take(acct text, kinds text[], starts timestamptz[], ends timestamptz[],
	limits bigint[], n bigint, bkind text, binterval bigint, bburst bigint, now_at timestamptz)
RETURNS TABLE (taken boolean, counts bigint[], tat timestamptz)
LANGUAGE plpgsql AS $$
DECLARE
	cur  bigint[] := '{}';
	c    bigint;
	btat timestamptz;
	ok   boolean := true;
BEGIN
	PERFORM set_config('synchronous_commit', 'off', true);
	PERFORM pg_advisory_xact_lock(1936487028, hashtext(acct));
	DELETE FROM rate_counters r WHERE r.account_id = acct AND r.window_end <= now_at;
	FOR i IN 1 .. coalesce(array_length(kinds, 1), 0) LOOP
		SELECT r.count INTO c FROM rate_counters r
			WHERE r.account_id = acct AND r.kind = kinds[i] AND r.window_start = starts[i];
		c := coalesce(c, 0);
		cur := cur || c;
		IF limits[i] > 0 AND c + n > limits[i] THEN
			ok := false;
		END IF;
	END LOOP;
	IF bkind IS NOT NULL THEN
		SELECT r.window_end INTO btat FROM rate_counters r
			WHERE r.account_id = acct AND r.kind = bkind AND r.window_start = 'epoch';
		IF greatest(coalesce(btat, now_at), now_at) + (n * binterval) * interval '1 microsecond'
			> now_at + (bburst * binterval) * interval '1 microsecond' THEN
			ok := false;
		END IF;
	END IF;
	IF ok AND n > 0 THEN
		INSERT INTO rate_counters AS r (account_id, kind, window_start, window_end, count)
			SELECT acct, u.k, u.s, u.e, n FROM unnest(kinds, starts, ends) AS u(k, s, e)
			ON CONFLICT (account_id, kind, window_start) DO UPDATE SET count = r.count + excluded.count;
		IF bkind IS NOT NULL THEN
			INSERT INTO rate_counters AS r (account_id, kind, window_start, window_end, count)
			VALUES (acct, bkind, 'epoch', greatest(coalesce(btat, now_at), now_at) + (n * binterval) * interval '1 microsecond', 0)
			ON CONFLICT (account_id, kind, window_start) DO UPDATE SET window_end = excluded.window_end;
		END IF;
	END IF;
	RETURN QUERY SELECT ok, cur, btat;
END
$$;

-- sluice_slot_take is store.SharedLimits.TakeSlot in one round trip, under
-- the account's advisory lock ('slsl'): expired slots of the account go, a
-- slot already held is renewed, and a new one is taken while fewer than
-- maxslots (> 0) are held. Like counts, slots do not wait for a WAL flush.
CREATE FUNCTION sluice_slot_take(acct text, slot text, maxslots integer, now_at timestamptz, until_at timestamptz)
RETURNS TABLE (held integer, taken boolean)
LANGUAGE plpgsql AS $$
DECLARE
	h integer;
BEGIN
	PERFORM set_config('synchronous_commit', 'off', true);
	PERFORM pg_advisory_xact_lock(1936487276, hashtext(acct));
	DELETE FROM rate_slots s WHERE s.account_id = acct AND s.expires_at <= now_at;
	UPDATE rate_slots s SET expires_at = until_at WHERE s.slot_id = slot AND s.account_id = acct;
	IF FOUND THEN
		RETURN QUERY SELECT count(*)::integer, true FROM rate_slots s WHERE s.account_id = acct;
		RETURN;
	END IF;
	SELECT count(*) INTO h FROM rate_slots s WHERE s.account_id = acct;
	IF maxslots > 0 AND h >= maxslots THEN
		RETURN QUERY SELECT h, false;
		RETURN;
	END IF;
	INSERT INTO rate_slots (slot_id, account_id, expires_at) VALUES (slot, acct, until_at);
	RETURN QUERY SELECT h + 1, true;
END
$$;
