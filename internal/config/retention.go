package config

import "time"

// Retention is how long finished work is kept (issue 27). A background
// pass in every gateway (internal/retention) deletes what is older, a
// small batch per transaction with a pause between, so that writers never
// wait long. Runs and Audit are the defaults: `sluice retention set`
// (admin.retention.update) replaces them at run time for every gateway
// sharing the store, and an account's limits.retention_days replaces Runs
// for its own runs.
type Retention struct {
	// Runs is the age of a finished run (an A2E execution, A2S capability
	// run or agent workflow run; success, failed, partial or cancelled) at
	// which it goes with its frames and checkpoint, counted from when it
	// finished. 0 keeps runs for ever. Runs that are queued, running or
	// waiting for a decision are never deleted.
	Runs time.Duration `yaml:"runs"`
	// Audit is the age at which an audit record goes; 0 keeps it for ever.
	Audit time.Duration `yaml:"audit"`
	// Interval is the time between two passes (the first comes one
	// interval after start).
	Interval time.Duration `yaml:"interval"`
	// Batch is the most rows of a table one transaction deletes.
	Batch int `yaml:"batch"`
	// Pause is the wait between two batches of a pass, which leaves the
	// database to the writers.
	Pause time.Duration `yaml:"pause"`
	// Reclaim is how much free space a pass gives back to the file system
	// at most (SQLite: PRAGMA incremental_vacuum; PostgreSQL: a plain
	// VACUUM of the pruned tables after a pass that deleted rows, this
	// value aside). 0: none; the space is then reused by new rows.
	Reclaim int64 `yaml:"reclaim" unit:"bytes"`
}

// MaxRetentionBatch is store.MaxPruneBatch (config cannot import store; a
// test there keeps the two equal).
const MaxRetentionBatch = 5000

// maxAge is the longest retention: ten years.
const maxAge = 10 * 365 * 24 * time.Hour

func (d *decoder) validateRetention(r Retention) {
	if r.Runs != 0 {
		d.durationIn("retention.runs", r.Runs, time.Hour, maxAge)
	}
	if r.Audit != 0 {
		d.durationIn("retention.audit", r.Audit, time.Hour, maxAge)
	}
	d.durationIn("retention.interval", r.Interval, time.Second, 24*time.Hour)
	d.intIn("retention.batch", int64(r.Batch), 1, MaxRetentionBatch)
	d.durationIn("retention.pause", r.Pause, 0, time.Minute)
	d.sizeIn("retention.reclaim", r.Reclaim, 0, 1<<40)
}
