// Package postgres is the Store of many machines: one PostgreSQL database
// (jackc/pgx/v5, no ORM) that every gateway and worker shares. It meets the
// same contract as the SQLite store (internal/store/storetest) with the same
// bounds and error kinds; only speed and scale differ.
//
// Every write is one transaction on a pooled connection, answered after its
// COMMIT returns, so a nil error means PostgreSQL has the write
// (synchronous_commit decides what a power loss of the database host can
// take; see docs/storage.md). PostgreSQL groups concurrent commits into one
// WAL flush itself, so there is no writer goroutine here as in SQLite.
//
// When the database goes away, calls fail with fault Unavailable (the gateway
// answers 503 with Retry-After) and nothing is acknowledged that was not
// committed. A connection found dead before COMMIT was sent is retried on a
// fresh one, since PostgreSQL rolled that transaction back; a failure during
// COMMIT is never retried (its outcome is unknown) and is reported as
// Unavailable. The pool dials again by itself, so the store recovers when the
// database returns.
//
// Open brings the schema up to date from the versioned migrations in
// migrations/, under an advisory lock so several processes may start at once.
package postgres

import (
	"cmp"
	"context"
	"embed"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/migrate"
	"github.com/sluicehq/sluice/internal/store/sqlstore"
)

// Defaults of Options.
const (
	DefaultMaxConns       = 16
	DefaultConnectTimeout = 5 * time.Second
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrationLock is the advisory lock key that serialises schema migrations of
// concurrent starters on one database ("sluice" in ASCII).
const migrationLock int64 = 0x736c75696365

// Options configure Open.
type Options struct {
	// DSN is the PostgreSQL connection string, as a URL
	// (postgres://user:pass@host:5432/db?sslmode=disable) or as key=value
	// pairs; libpq's PG* environment variables fill what it leaves out. It
	// may hold a password: it is never logged or put in an error.
	DSN string
	// Logger receives what the store has to say (nil: nothing is logged).
	Logger *slog.Logger
	// Clock stamps created/updated times (nil: the real clock). Several
	// processes share the database, so their clocks should agree (NTP).
	Clock clock.Clock
	// MaxConns is the size of the connection pool; default DefaultMaxConns.
	MaxConns int
	// ConnectTimeout bounds one connection attempt; default 5 s.
	ConnectTimeout time.Duration
}

// DB is the PostgreSQL store. It implements store.Store, and the PostgreSQL
// queue (internal/queue/pgqueue) keeps its table in it through Pool, Write
// and the error helpers.
type DB struct {
	// Store is the table code shared with SQLite, over backend.
	*sqlstore.Store

	log   *slog.Logger
	clock clock.Clock
	pool  *pgxpool.Pool

	closed    atomic.Bool
	closeOnce sync.Once
	lastReset atomic.Int64 // unix nanoseconds of the last pool reset
	lastLoss  atomic.Int64 // unix nanoseconds of the last connection found dead

	ones *oneWrites // the senders of WriteOne
}

var _ store.Store = (*DB)(nil)

// Open connects to the database, checks that it answers and brings its
// schema up to date. An unreachable database, refused credentials or a
// missing database are Unavailable errors that say which; a DSN that cannot
// be read is Invalid; a schema written by a newer sluice is refused.
func Open(ctx context.Context, o Options) (*DB, error) {
	if o.DSN == "" {
		return nil, fault.New(fault.Invalid, "the PostgreSQL connection string is not set").
			WithSuggestions("Set it as a URL such as postgres://user@host:5432/sluice")
	}
	// Defaults: an option not set, or not positive, takes its default.
	o.Logger = cmp.Or(o.Logger, slog.New(slog.DiscardHandler))
	o.Clock = cmp.Or[clock.Clock](o.Clock, clock.Real{})
	o.MaxConns = cmp.Or(max(o.MaxConns, 0), DefaultMaxConns)
	o.ConnectTimeout = cmp.Or(max(o.ConnectTimeout, 0), DefaultConnectTimeout)
	cfg, err := pgxpool.ParseConfig(o.DSN)
	if err != nil {
		// pgconn's parse errors redact the password; the message is ours.
		return nil, fault.New(fault.Invalid, "the PostgreSQL connection string cannot be read").WithCause(err).
			WithSuggestions("Use a URL such as postgres://user@host:5432/sluice?sslmode=disable, or key=value pairs")
	}
	cfg.MaxConns = int32(min(o.MaxConns, 1<<20))
	cfg.ConnConfig.ConnectTimeout = o.ConnectTimeout
	// A connection whose peer vanished without a word must not hang a call.
	cfg.PingTimeout = o.ConnectTimeout
	db := &DB{log: o.Logger, clock: o.Clock}
	db.Store = sqlstore.New(backend{db})
	// pgxpool pings a connection that sat idle for a second before handing
	// it out; for a while after a connection was found dead, it pings every
	// one, so a retry gets a live connection rather than the next dead one.
	cfg.ShouldPing = func(_ context.Context, p pgxpool.ShouldPingParams) bool {
		return p.IdleDuration >= time.Second || time.Now().UnixNano()-db.lastLoss.Load() < int64(suspectFor)
	}
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = "sluice"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, connectErr(ctx, cfg.ConnConfig, err)
	}
	db.pool = pool
	if err := db.start(ctx, cfg.ConnConfig); err != nil {
		pool.Close()
		return nil, err
	}
	db.startOneWrites()
	return db, nil
}

func (db *DB) start(ctx context.Context, cc *pgx.ConnConfig) error {
	c, err := db.pool.Acquire(ctx)
	if err != nil {
		return connectErr(ctx, cc, err)
	}
	defer c.Release()
	if err := c.Ping(ctx); err != nil {
		return connectErr(ctx, cc, err)
	}
	return db.migrate(ctx, c.Conn())
}

// migrate applies the pending migrations, each in its own transaction, while
// holding a session advisory lock: a second process starting at the same time
// waits, then finds nothing left to do.
func (db *DB) migrate(ctx context.Context, conn *pgx.Conn) error {
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrationLock); err != nil {
		return schemaErr("the schema cannot be locked for migration", err)
	}
	defer func() {
		// A lost connection drops the lock by itself.
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLock); err != nil {
			db.log.Warn("schema migration lock not released", "error", err)
		}
	}()
	return migrate.Run(ctx, migrationFiles, "migrations", schema{conn, db}, db.log)
}

// schema is the migrating connection as migrate.Run's target.
type schema struct {
	conn *pgx.Conn
	db   *DB
}

func (s schema) Applied(ctx context.Context) (int, error) {
	var applied int
	if _, err := s.conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)`); err != nil {
		return 0, schemaErr("the schema cannot be read", err)
	}
	if err := s.conn.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&applied); err != nil {
		return 0, schemaErr("the schema cannot be read", err)
	}
	return applied, nil
}

func (s schema) Apply(ctx context.Context, m migrate.Migration) error {
	err := pgx.BeginFunc(ctx, s.conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return fault.New(fault.Internal, "schema migration %s failed", m.Name).WithCause(err)
		}
		_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
			m.Version, m.Name, s.db.now())
		return err
	})
	if _, ok := fault.As(err); ok || err == nil {
		return err
	}
	return schemaErr("the schema cannot be updated", err)
}

func schemaErr(msg string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return unavailable(msg, err)
}

// SchemaVersion is the highest migration this binary knows.
func SchemaVersion() int { return migrate.Latest(migrationFiles, "migrations") }

// Close waits for the calls in flight to give back their connections, then
// closes the pool. Calls after Close fail with Unavailable.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		db.closed.Store(true)
		if db.ones != nil {
			db.ones.close()
		}
		db.pool.Close()
	})
	return nil
}

// Now is the store's clock, at the microsecond precision the database keeps.
func (db *DB) Now() time.Time { return db.now() }

func (db *DB) now() time.Time { return db.clock.Now().UTC().Truncate(time.Microsecond) }

// Pool is the connection pool, for the queue that shares the database. Use
// Write and Read where a call should survive a lost connection.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }
