// Package account is the service behind accounts, the callers of sluice (the
// A2E spec's "agents"): creating them, their API keys, and turning a presented
// key into the Principal a call runs as. It is not the registry of external
// agents that sluice calls (internal/agent).
package account

import (
	"cmp"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/policy"
)

// Principal is an authenticated account as a call sees it.
type Principal struct {
	ID          string
	Name        string
	KeyID       string // the key the call presented
	Permissions policy.Permissions
	Limits      Limits // with the server's defaults filled in
}

// Admin reports whether the account may call admin.* methods.
func (p *Principal) Admin() bool { return p.Permissions.CapabilityLevel == policy.LevelAdmin }

// Limits are an account's limits. In the admin API a zero or absent field
// means the server's default (Resolve fills them in); -1 in a rate or
// concurrency field means no limit.
type Limits struct {
	RequestsPerMinute       int `json:"requests_per_minute,omitempty"`
	RequestsPerHour         int `json:"requests_per_hour,omitempty"`
	RequestsPerDay          int `json:"requests_per_day,omitempty"`
	APICallsPerMinute       int `json:"api_calls_per_minute,omitempty"`
	APICallsPerHour         int `json:"api_calls_per_hour,omitempty"`
	MaxConcurrentExecutions int `json:"max_concurrent_executions,omitempty"`
	MaxOperations           int `json:"max_operations,omitempty"`
	MaxExecutionTimeMs      int `json:"max_execution_time_ms,omitempty"`
	MaxLoopIterations       int `json:"max_loop_iterations,omitempty"`
	// MaxDataBytes is the data budget of one execution: the bytes of data
	// (as held in memory) its operations may produce.
	MaxDataBytes int64 `json:"max_data_bytes,omitempty"`
	// RetentionDays keeps the account's finished runs this many days
	// (internal/retention); 0: the server's retention.runs, -1: for ever.
	// It has no default to resolve: 0 stays 0.
	RetentionDays int `json:"retention_days,omitempty"`
}

// Resolve fills each zero field of l from def; max_loop_iterations is at
// most def's.
func (l Limits) Resolve(def Limits) Limits {
	pick := func(v, d int) int {
		if v != 0 {
			return v
		}
		return d
	}
	return Limits{
		RequestsPerMinute:       pick(l.RequestsPerMinute, def.RequestsPerMinute),
		RequestsPerHour:         pick(l.RequestsPerHour, def.RequestsPerHour),
		RequestsPerDay:          pick(l.RequestsPerDay, def.RequestsPerDay),
		APICallsPerMinute:       pick(l.APICallsPerMinute, def.APICallsPerMinute),
		APICallsPerHour:         pick(l.APICallsPerHour, def.APICallsPerHour),
		MaxConcurrentExecutions: pick(l.MaxConcurrentExecutions, def.MaxConcurrentExecutions),
		MaxOperations:           pick(l.MaxOperations, def.MaxOperations),
		MaxExecutionTimeMs:      pick(l.MaxExecutionTimeMs, def.MaxExecutionTimeMs),
		// The server's value is also the engine's bound on every loop: an
		// account stored with more (before that was refused) has what it gets.
		MaxLoopIterations: min(pick(l.MaxLoopIterations, def.MaxLoopIterations), def.MaxLoopIterations),
		MaxDataBytes:      cmp.Or(l.MaxDataBytes, def.MaxDataBytes),
		RetentionDays:     l.RetentionDays,
	}
}

// DefaultLimits are RESOLUTIONS' defaults.
func DefaultLimits() Limits {
	return Limits{
		RequestsPerMinute: 60, RequestsPerHour: 1000, RequestsPerDay: 10000,
		APICallsPerMinute: 30, APICallsPerHour: 500,
		MaxConcurrentExecutions: 20,
		MaxOperations:           20, MaxExecutionTimeMs: 30000, MaxLoopIterations: 1000,
		MaxDataBytes: datamodel.DefaultDataBytes,
	}
}
