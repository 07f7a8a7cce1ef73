// Package sqlite is the Store of a single machine: one SQLite database
// (modernc.org/sqlite, pure Go) in the data directory, in WAL mode with
// synchronous=NORMAL, foreign keys on and a busy timeout.
//
// All writes go through one writer goroutine that owns the only write
// connection and commits concurrent callers' writes together (group commit, see
// writer.go): each caller is answered after the COMMIT that holds its write, so
// a nil error means the write survives kill -9 of the process. Reads use a
// separate pool of query-only connections, which WAL lets run while the writer
// commits.
//
// Open takes the data directory's lock (internal/store/dirlock) first, so two
// processes never share a database.
package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"embed"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/dirlock"
	"github.com/sluicehq/sluice/internal/store/migrate"
	"github.com/sluicehq/sluice/internal/store/sqlstore"
)

// FileName is the database file inside the data directory.
const FileName = "sluice.db"

// Defaults of Options.
const (
	DefaultMaxBatch    = 512
	DefaultBusyTimeout = 5 * time.Second
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Options configure Open.
type Options struct {
	// Dir is the data directory (created when missing). The database is
	// Dir/sluice.db and the lock Dir/sluice.lock.
	Dir string
	// Logger receives what the store has to say (nil: nothing is logged).
	Logger *slog.Logger
	// Clock stamps created/updated times (nil: the real clock).
	Clock clock.Clock
	// MaxBatch is how many concurrent writes one transaction may carry; 1
	// turns group commit off (one transaction per write). Default 512.
	MaxBatch int
	// CheckpointEvery is how often the WAL is checkpointed, off the write
	// path (default DefaultCheckpointEvery).
	CheckpointEvery time.Duration
	// Readers is the size of the read pool; default max(4, GOMAXPROCS).
	Readers int
	// BusyTimeout is how long a connection waits for a lock; default 5 s.
	BusyTimeout time.Duration
	// SyncFull sets synchronous=FULL: a power loss then loses no committed
	// write either, at the price of an fsync per commit (see docs/storage.md).
	SyncFull bool
}

// DB is the SQLite store. It implements store.Store, and the local queue
// (internal/queue/local) keeps its table in it through Write and the read
// helpers.
type DB struct {
	// Store is the table code shared with PostgreSQL, over backend.
	*sqlstore.Store

	log   *slog.Logger
	clock clock.Clock
	lock  *dirlock.Lock
	w     *writer
	rdb   *sql.DB
	reads stmtCache
	ckpt  *walCheckpointer

	closeOnce sync.Once
	closeErr  error
}

var _ store.Store = (*DB)(nil)

// Open locks the data directory, opens (or creates) the database and brings
// its schema up to date. A database written by a newer sluice is refused.
func Open(ctx context.Context, o Options) (*DB, error) {
	if o.Dir == "" {
		return nil, fault.New(fault.Invalid, "the data directory is not set")
	}
	if strings.ContainsAny(o.Dir, "?#") {
		return nil, fault.New(fault.Invalid, "data directory %q may not contain '?' or '#'", o.Dir)
	}
	// Defaults: an option not set, or not positive, takes its default.
	o.Logger = cmp.Or(o.Logger, slog.New(slog.DiscardHandler))
	o.Clock = cmp.Or[clock.Clock](o.Clock, clock.Real{})
	o.MaxBatch = cmp.Or(max(o.MaxBatch, 0), DefaultMaxBatch)
	o.Readers = cmp.Or(max(o.Readers, 0), max(4, runtime.GOMAXPROCS(0)))
	o.BusyTimeout = cmp.Or(max(o.BusyTimeout, 0), DefaultBusyTimeout)
	lock, err := dirlock.Acquire(o.Dir, o.Clock.Now())
	if err != nil {
		return nil, err
	}
	db := &DB{log: o.Logger, clock: o.Clock, lock: lock}
	db.Store = sqlstore.New(backend{db: db})
	if err := db.open(ctx, o); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func (db *DB) open(ctx context.Context, o Options) error {
	path := filepath.Join(o.Dir, FileName)
	sync := "NORMAL"
	if o.SyncFull {
		sync = "FULL"
	}
	common := url.Values{}
	common.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", o.BusyTimeout.Milliseconds()))
	common.Add("_pragma", "synchronous("+sync+")")
	common.Add("_pragma", "foreign_keys(1)")

	// wal_autocheckpoint(0): checkpoints run in their own connection (see
	// walCheckpointer), never inside a commit. auto_vacuum(2), first: a new
	// database keeps its free pages in a list that ReclaimSpace gives back
	// to the file system (retention.go); on an existing one it changes
	// nothing until a VACUUM (Compact).
	wq := url.Values{"_pragma": append([]string{"auto_vacuum(2)", "journal_mode(WAL)", "journal_size_limit(67108864)", "cache_size(-16000)", "wal_autocheckpoint(0)"}, common["_pragma"]...)}
	wq.Set("_txlock", "immediate")
	wdb, err := sql.Open("sqlite", path+"?"+wq.Encode())
	if err != nil {
		return fault.New(fault.Unavailable, "database %s cannot be opened", path).WithCause(err)
	}
	wdb.SetMaxOpenConns(1)
	wdb.SetMaxIdleConns(1)
	wdb.SetConnMaxLifetime(0)
	wdb.SetConnMaxIdleTime(0)
	db.w = newWriter(wdb, o.MaxBatch, o.Logger)
	if err := wdb.PingContext(ctx); err != nil {
		return fault.New(fault.Unavailable, "database %s cannot be opened", path).WithCause(err)
	}
	if err := db.migrate(ctx, wdb); err != nil {
		return err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return fault.New(fault.Unavailable, "database %s cannot be protected", path).WithCause(err)
	}

	rq := url.Values{"_pragma": common["_pragma"]}
	rq.Set("_query_only", "1")
	rdb, err := sql.Open("sqlite", path+"?"+rq.Encode())
	if err != nil {
		return fault.New(fault.Unavailable, "database %s cannot be opened for reading", path).WithCause(err)
	}
	rdb.SetMaxOpenConns(o.Readers)
	rdb.SetMaxIdleConns(o.Readers)
	rdb.SetConnMaxIdleTime(0)
	db.rdb = rdb
	db.reads = stmtCache{db: rdb}
	if err := db.w.start(ctx); err != nil {
		return unavailable("the database cannot be written", err)
	}
	every := o.CheckpointEvery
	if every <= 0 {
		every = DefaultCheckpointEvery
	}
	if db.ckpt, err = startCheckpointer(path, common, every, db); err != nil {
		return unavailable("the database cannot be checkpointed", err)
	}
	return nil
}

// migrate applies the pending schema migrations, each in its own transaction,
// before the writer goroutine starts.
func (db *DB) migrate(ctx context.Context, wdb *sql.DB) error {
	return migrate.Run(ctx, migrationFiles, "migrations", schema{wdb, db.clock}, db.log)
}

// schema is the write connection as migrate.Run's target.
type schema struct {
	db    *sql.DB
	clock clock.Clock
}

func (s schema) Applied(ctx context.Context) (int, error) {
	var applied int
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT`); err != nil {
		return 0, unavailable("the schema cannot be read", err)
	}
	if err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&applied); err != nil {
		return 0, unavailable("the schema cannot be read", err)
	}
	return applied, nil
}

func (s schema) Apply(ctx context.Context, m migrate.Migration) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return unavailable("the schema cannot be updated", err)
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		tx.Rollback()
		return fault.New(fault.Internal, "schema migration %s failed", m.Name).WithCause(err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
		m.Version, m.Name, micros(s.clock.Now())); err != nil {
		tx.Rollback()
		return unavailable("the schema cannot be updated", err)
	}
	if err := tx.Commit(); err != nil {
		return unavailable("the schema cannot be updated", err)
	}
	return nil
}

// SchemaVersion is the highest migration this binary knows.
func SchemaVersion() int { return migrate.Latest(migrationFiles, "migrations") }

// Close answers the writes already submitted, then closes the database and
// releases the data directory.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		var errs []error
		if db.w != nil {
			errs = append(errs, db.w.close())
		}
		if db.ckpt != nil {
			errs = append(errs, db.ckpt.close())
		}
		if db.rdb != nil {
			db.reads.close()
			errs = append(errs, db.rdb.Close())
		}
		errs = append(errs, db.lock.Release())
		for _, err := range errs {
			if err != nil && db.closeErr == nil {
				db.closeErr = unavailable("the database did not close cleanly", err)
			}
		}
	})
	return db.closeErr
}

// Now is the store's clock.
func (db *DB) Now() time.Time { return db.clock.Now() }
