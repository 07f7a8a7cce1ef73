// Package sqlstore is the store's table code written once for both SQL
// backends, internal/store/sqlite and internal/store/postgres. Each backend
// embeds a *Store, so the methods here (CreateAccount, AddAPIKey, ...) are
// the backend's own, and the contract suites (storetest, queuetest) run
// through the backends unchanged.
//
// # What a backend gives
//
// A Backend (backend.go) is three things:
//
//   - Read and Write with a Querier: Exec, Query and QueryRow with a
//     context. SQLite answers reads from its read pool and statement cache and
//     writes from its writer's transaction (group commit); PostgreSQL runs
//     both on pgx with its retries on a lost connection or a rolled-back
//     transaction. The function given may therefore run more than once: it
//     sets its results afresh each time (out = out[:0]).
//   - Now: the store's clock, UTC, truncated to the microsecond, so what a
//     write stores is what it returns.
//   - a Dialect (dialect.go): where the two databases differ for table code.
//
// A backend's Querier may also be a Pipeliner (each.go): execEach and
// queryEach then send one statement for many rows in one round trip
// (PostgreSQL's pgx batch) where SQLite simply runs them one by one. A write
// Querier may be a Copier (PostgreSQL's COPY): appendRows streams an append
// of more than CopyAbove rows through it.
//
// # The dialect
//
//   - Placeholders: every query here is written with ?. PostgreSQL's Querier
//     rewrites them as $1, $2, ... with Numbered (cached by query text). An
//     argument used twice is passed twice.
//   - Times: Time and NullTime bind, ScanTime and ScanNullTime decode.
//     SQLite keeps INTEGER microseconds since the epoch, PostgreSQL
//     timestamptz; both read back in UTC.
//   - JSON columns are text on both (kept byte for byte, not jsonb): jsonText
//     and rawJSON here, nothing in the dialect. Byte columns are BLOB and
//     bytea, bound as []byte on both.
//   - Errors: IsUnique, IsForeignKey and IsNoRows recognise the driver's
//     errors; ReadErr and WriteErr are each backend's classification into
//     faults (the messages and kinds its tests pin).
//   - Storable: PostgreSQL refuses text that is not UTF-8 or holds NUL, so a
//     look-up by such a value answers NotFound (a cursor, BadCursor) without
//     asking; SQLite stores any text.
//   - Locks: RowLock (PostgreSQL FOR NO KEY UPDATE) and SerialLock (a
//     transaction-scoped advisory lock) make a count and an insert one step
//     across processes; on SQLite both are empty, as its one writer already
//     serialises every write.
//   - Functions that differ by name: Greatest (MAX or GREATEST).
//   - Batches: Unnest is PostgreSQL's row source of one array a column, so
//     insertRows upserts many rows in one statement; SQLite has none and
//     runs one statement a row (calls within the process, as fast).
//   - Inserted: PostgreSQL's RETURNING xmax = 0, which tells the upsert's
//     insert from its update in one statement; SQLite has none, and upsert
//     (upsert.go) updates first and inserts where nothing was there, exact
//     under its one writer and, on PostgreSQL, under concurrent inserts too.
//   - KeyShareLock: PostgreSQL's FOR KEY SHARE keeps the accounts a batch of
//     discovery usage names from going before COMMIT, as a foreign key's
//     check would; empty on SQLite.
//   - ReserveEvents: where an execution's event numbers come from. SQLite
//     reads the highest seq of its events (exact under its one writer);
//     PostgreSQL bumps executions.event_seq, whose row lock orders appends
//     from every process.
//
// Upsert (INSERT ... ON CONFLICT ... DO UPDATE ... excluded) and RETURNING
// are the same on both (SQLite 3.35 and later), so they are not in the
// dialect.
//
// # What stays in the backends
//
// Connections, the SQLite writer and its group commit, PostgreSQL's retries,
// migrations (each backend's own migrations/ folder, driven by migrate.Run:
// the column types differ), the queues' tables, LISTEN/NOTIFY, and the
// shared limits' takes that are truly different (limits.go): PostgreSQL
// takes a rate or a slot in one call of a stored function (sluice_rate_take,
// sluice_slot_take) and renews and releases slots without waiting for the
// WAL flush; SQLite does each in one transaction of its writer. Pruning
// scoped values stays too: PostgreSQL locks the scopes' usage rows in key
// order first, SQLite counts with correlated subqueries.
//
// # Changing a table
//
// Write it here over s.b with ? placeholders, time columns through the
// dialect and errors through s.b.ReadErr/WriteErr, keeping each message,
// fault kind and stored encoding, with the shapes of statements.go and
// cursors.go; check that a database written by the previous binary still
// opens and reads (internal/gateway's TestUpgradeInPlace, on both
// databases); run the contract suite through ./internal/store/sqlite and,
// with SLUICE_TEST_POSTGRES set, ./internal/store/postgres. Where the two
// databases differ by more than syntax (arrays with unnest, FOR UPDATE SKIP
// LOCKED, an advisory lock), give the difference a name in the Dialect
// rather than branching on the backend.
//
// Moved: accounts, API keys, credentials, agents, MCP servers, knowledge
// bases, capabilities; then the key-value store, the rate counters and the
// audit log; last executions, events, checkpoints, discovery usage, scoped
// values, settings and the slot count. Their PostgreSQL-only forms went as
// follows, each decided by an alternated A/B of its benchmark in
// store/postgres (tables_bench_test.go, both stores in one run):
//
//   - rate counters: one pipelined upsert a counter was about twice the old
//     unnest statement on PostgreSQL (1000 counters), so the array form
//     stays, named Unnest in the dialect (insertRows);
//   - kv: update first, then insert-or-nothing cost a third round trip for a
//     new key on PostgreSQL (about 10 % slower), so xmax = 0 stays, named
//     Inserted (upsert); SQLite's new key is now three statements, not four;
//   - credentials: a rotation of a whole vault read and wrote one pipelined
//     statement a record, about 1.5 times the old two array statements on
//     PostgreSQL (1000 credentials: 21-23 ms against 13-15 ms), so its lock
//     and its write go over Unnest (lockCredentials, updateCredentials);
//   - audit: COPY stays above CopyAbove records through the Copier; below,
//     the INSERTs are pipelined (4 records: about 0.6 of the old time on
//     PostgreSQL). The query names only the filters in use on both (the
//     PostgreSQL form; on SQLite as fast as the old always-bound form).
//   - executions: the insert skips a taken client id with ON CONFLICT on the
//     partial unique index on both (SQLite read first before); lists name
//     only the filters in use, with IN lists on both (PostgreSQL's = ANY
//     arrays before); migration 0015 indexes one account's runs by status,
//     and a list of unfinished statuses names the partial index's predicate
//     so that SQLite reads it off that index;
//   - events: appended through appendRows (PostgreSQL: pipelined up to
//     CopyAbove frames, COPY above), numbered by ReserveEvents;
//   - discovery usage: one statement over Unnest with Inserted where the
//     dialect has both (PostgreSQL, as before), an upsert a row on SQLite;
//     the accounts checked first under KeyShareLock, the bound last;
//   - scoped values: PutKV's form (upsert, then the bounded usage row);
//     ClaimSetting one INSERT ... ON CONFLICT DO UPDATE ... RETURNING on
//     both.
package sqlstore
