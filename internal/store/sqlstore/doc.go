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
// (PostgreSQL's pgx batch) where SQLite simply runs them one by one.
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
//
// Upsert (INSERT ... ON CONFLICT ... DO UPDATE ... excluded) and RETURNING
// are the same on both (SQLite 3.35 and later), so they are not in the
// dialect.
//
// # What stays in the backends
//
// Connections, the SQLite writer and its group commit, PostgreSQL's retries,
// migrations (each backend's own migrations/ folder: the column types
// differ), the queues' tables, LISTEN/NOTIFY, and the tables not moved yet.
//
// # Moving the next table
//
// Take the PostgreSQL file as the model (it already reads through Read's
// function and uses RETURNING), write it here over s.b with ? placeholders,
// time columns through the dialect and errors through s.b.ReadErr/WriteErr,
// keeping each message, fault kind and stored encoding, with the shapes of
// statements.go and cursors.go; delete the file from both backends; check
// the stored bytes by writing with the previous binary and reading with the
// new one, and the other way round, on both databases; run the contract suite through ./internal/store/sqlite and,
// with SLUICE_TEST_POSTGRES set, ./internal/store/postgres. Where the two
// files differ by more than syntax (arrays with unnest, FOR UPDATE SKIP
// LOCKED, an advisory lock), give the difference a name in the Dialect
// rather than branching on the backend. A backend's own helper goes when
// its last user has moved; the ones exported here for the tables still in
// the backends (JSONText, RawJSON, SeqCursor, ParseSeqCursor) become
// unexported when theirs have.
//
// Moved: accounts, API keys, credentials, agents, MCP servers, knowledge
// bases, capabilities. What the rest does differently on PostgreSQL, where
// SQLite runs one statement a row: arrays (unnest, = ANY) for batches (usage,
// rate counters, shared slots and values), COPY (audit, events), RETURNING
// xmax = 0 to tell an insert from an update (kv, shared values, usage), and
// statements built for the planner (audit, executions). A batch can be one
// per-row statement through execEach on both (pipelined on PostgreSQL: a
// rotation of 1000 credentials takes about 1.7 times the old two array
// statements there, and less than before on SQLite), or a dialect name for
// the array form where that is too slow; measure against the benchmarks in
// store/postgres and store/sqlite first.
package sqlstore
