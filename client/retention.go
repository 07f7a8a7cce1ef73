package client

import (
	"context"
	"time"
)

// RetentionPolicy is how long finished work is kept: ages such as "30d" or
// "36h0m0s"; "0s" keeps for ever.
type RetentionPolicy struct {
	Runs  string `json:"runs"`  // finished runs of every kind, with their frames and checkpoints
	Audit string `json:"audit"` // audit records
}

// RetentionReport is what one retention pass deleted.
type RetentionReport struct {
	Started        time.Time       `json:"started"`
	DurationMs     int64           `json:"duration_ms"`
	Policy         RetentionPolicy `json:"policy"`
	Accounts       int             `json:"accounts"`
	Runs           int64           `json:"runs"`
	Events         int64           `json:"events"`
	Checkpoints    int64           `json:"checkpoints"`
	PushConfigs    int64           `json:"push_configs"` // A2A push notification configs of the runs
	Audit          int64           `json:"audit"`
	Batches        int             `json:"batches"`
	ReclaimedBytes int64           `json:"reclaimed_bytes"`
	Error          string          `json:"error,omitempty"`
}

// RetentionState is the retention as the server has it: the policy in
// force, the configuration's, the ages an admin set over it, the pass's
// settings and this gateway's last pass.
type RetentionState struct {
	Policy     RetentionPolicy  `json:"policy"`
	Configured RetentionPolicy  `json:"configured"`
	SetByAdmin []string         `json:"set_by_admin"`
	UpdatedAt  *time.Time       `json:"updated_at,omitempty"`
	Interval   string           `json:"interval"`
	Batch      int              `json:"batch"`
	Pause      string           `json:"pause"`
	Reclaim    int64            `json:"reclaim_bytes"`
	LastPass   *RetentionReport `json:"last_pass,omitempty"`
}

// RetentionChange changes the policy: an age given replaces the stored
// one; Default* returns that age to the configuration's.
type RetentionChange struct {
	Runs, Audit               string // "": unchanged
	DefaultRuns, DefaultAudit bool
}

// Retention reads the retention (GET /api/v1/admin/retention; admin).
func (c *Client) Retention(ctx context.Context) (*RetentionState, error) {
	var s RetentionState
	return &s, c.Do(ctx, "GET", "/api/v1/admin/retention", nil, &s)
}

// SetRetention changes the policy for every gateway of the store (PATCH
// /api/v1/admin/retention; admin).
func (c *Client) SetRetention(ctx context.Context, ch RetentionChange) (*RetentionState, error) {
	body := map[string]any{}
	for _, f := range []struct {
		name, age string
		def       bool
	}{{"runs", ch.Runs, ch.DefaultRuns}, {"audit", ch.Audit, ch.DefaultAudit}} {
		switch {
		case f.age != "":
			body[f.name] = f.age
		case f.def:
			body[f.name] = nil
		}
	}
	var s RetentionState
	return &s, c.Do(ctx, "PATCH", "/api/v1/admin/retention", body, &s)
}

// PruneNow runs a retention pass now (POST /api/v1/admin/retention/prune;
// admin).
func (c *Client) PruneNow(ctx context.Context) (*RetentionReport, error) {
	var r RetentionReport
	return &r, c.Do(ctx, "POST", "/api/v1/admin/retention/prune", nil, &r)
}

// TableStats is one table's rows and bytes (with its indexes).
type TableStats struct {
	Name  string `json:"name"`
	Rows  int64  `json:"rows"`
	Bytes int64  `json:"bytes"`
}

// StorageStats is what the server's store holds and costs.
type StorageStats struct {
	Backend           string       `json:"backend"`
	DatabaseBytes     int64        `json:"database_bytes"`
	FreeBytes         int64        `json:"free_bytes"`
	AutoVacuum        string       `json:"auto_vacuum,omitempty"`
	Tables            []TableStats `json:"tables"`
	BytesPerExecution int64        `json:"bytes_per_execution"`
}

// StorageStats reads the store's rows and bytes (GET /api/v1/admin/storage;
// admin).
func (c *Client) StorageStats(ctx context.Context) (*StorageStats, error) {
	var s StorageStats
	return &s, c.Do(ctx, "GET", "/api/v1/admin/storage", nil, &s)
}
