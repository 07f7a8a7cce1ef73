package store

import (
	"context"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
)

// MaxPruneBatch bounds what one PruneRuns or PruneAudit call deletes of each
// table: every call is one write transaction, and a short one, so the
// writers it shares the database with (SQLite's one writer above all) wait
// for it no longer than for a few ordinary writes.
const MaxPruneBatch = 5000

// Pruned is what one PruneRuns call deleted.
type Pruned struct {
	Runs        int64 // execution records (every kind of run)
	Events      int64 // their frames
	Checkpoints int64
	// More is true when the call stopped at its limit: another call may
	// find more to delete.
	More bool
}

// Add sums two counts (More is p's or q's).
func (p Pruned) Add(q Pruned) Pruned {
	return Pruned{Runs: p.Runs + q.Runs, Events: p.Events + q.Events, Checkpoints: p.Checkpoints + q.Checkpoints, More: p.More || q.More}
}

// TableStats is one table's share of the database.
type TableStats struct {
	Name string `json:"name"`
	Rows int64  `json:"rows"`
	// Bytes is the table with its indexes (SQLite: its pages in dbstat;
	// PostgreSQL: pg_total_relation_size).
	Bytes int64 `json:"bytes"`
}

// StorageStats is what the store holds and what it costs.
type StorageStats struct {
	Backend string `json:"backend"` // "sqlite" or "postgres"
	// DatabaseBytes is the database's size (SQLite: the file's pages, WAL
	// not counted; PostgreSQL: pg_database_size).
	DatabaseBytes int64 `json:"database_bytes"`
	// FreeBytes is space inside the database that deleted rows left and
	// that new rows reuse (SQLite: free pages, which an incremental vacuum
	// gives back to the file system; PostgreSQL: not counted, 0).
	FreeBytes int64 `json:"free_bytes"`
	// AutoVacuum is SQLite's auto_vacuum mode (none, full, incremental);
	// empty on PostgreSQL, whose autovacuum daemon reuses the space.
	AutoVacuum string `json:"auto_vacuum,omitempty"`
	// Tables are the tables that grow with use: the runs (executions), their
	// events and checkpoints, and the audit trail.
	Tables []TableStats `json:"tables"`
	// BytesPerExecution is the bytes of executions, events and checkpoints
	// (indexes included) over the number of executions; 0 with none.
	BytesPerExecution int64 `json:"bytes_per_execution"`
}

// RunTables are the tables StorageStats reports, in this order; the first
// three are a run's and make BytesPerExecution.
var RunTables = []string{"executions", "events", "checkpoints", "audit"}

// BytesPerExecution is the bytes of a run's tables (the first three of
// RunTables, as CountRows lists them) over the number of runs; 0 with none.
func BytesPerExecution(tables []TableStats) int64 {
	if len(tables) < 3 || tables[0].Rows == 0 {
		return 0
	}
	return (tables[0].Bytes + tables[1].Bytes + tables[2].Bytes) / tables[0].Rows
}

// Retention removes what has aged out, a bounded batch per call (the caller,
// internal/retention, paces the calls), and reports what the store holds.
// Pruning twice, or from two processes at once, is harmless: a row is
// deleted once, and each call counts only its own deletions.
type Retention interface {
	// PruneRuns deletes, in one write, up to limit (1..MaxPruneBatch) of the
	// account's runs that are final and finished before before, oldest
	// first, with their checkpoints, and up to limit of their events. A run
	// whose events are not all gone yet stays for the next call (More is
	// then true). Runs that are queued, running or waiting are never
	// touched, however old.
	PruneRuns(ctx context.Context, accountID string, before time.Time, limit int) (Pruned, error)
	// PrunePushConfigs deletes, in one write, up to limit A2A push
	// notification configs of the account's runs that PruneRuns would take
	// (a task is a run), and of its tasks no longer stored, created before
	// before; it returns them, for the caller to drop the vault entries
	// they name (the store does not know the vault). Called before
	// PruneRuns, so that no config outlives its task.
	PrunePushConfigs(ctx context.Context, accountID string, before time.Time, limit int) ([]PushConfig, error)
	// PruneAudit deletes, in one write, up to limit (1..MaxPruneBatch) audit
	// records older than before, oldest first, and says how many went.
	PruneAudit(ctx context.Context, before time.Time, limit int) (int64, error)
	// StorageStats counts rows and bytes (a count of each table: an
	// admin's question, not a hot path).
	StorageStats(ctx context.Context) (StorageStats, error)
	// ReclaimSpace gives space that pruning freed back, at most maxBytes
	// of it in one call (SQLite: PRAGMA incremental_vacuum, one write, in a
	// database whose auto_vacuum is incremental; PostgreSQL: a plain VACUUM
	// of the run and audit tables, which makes the space reusable and
	// returns what it can), and says how many bytes the file shrank by.
	ReclaimSpace(ctx context.Context, maxBytes int64) (int64, error)
}

// CheckPrune checks a prune call's limit and cutoff.
func CheckPrune(before time.Time, limit int) error {
	if limit < 1 || limit > MaxPruneBatch {
		return fault.New(fault.Invalid, "prune batch %d is out of range: from 1 to %d", limit, MaxPruneBatch).
			WithDetail("maximum", MaxPruneBatch)
	}
	if before.IsZero() {
		return fault.New(fault.Invalid, "prune needs a cutoff time")
	}
	return nil
}
