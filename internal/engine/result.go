package engine

import (
	"encoding/json"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
)

// Status is an execution's state.
type Status string

// The statuses an engine run ends in (queued and running belong to the caller's
// record of an execution that has not returned yet).
const (
	StatusRunning   Status = "running" // only in checkpoints of unfinished runs
	StatusSuccess   Status = "success"
	StatusFailed    Status = "failed"
	StatusPartial   Status = "partial"
	StatusWaiting   Status = "waiting"
	StatusCancelled Status = "cancelled"
)

// Terminal reports whether s is final: success, failed or partial. A waiting or
// cancelled execution may be resumed.
func (s Status) Terminal() bool {
	return s == StatusSuccess || s == StatusFailed || s == StatusPartial
}

// Result is the outcome of Run or Resume.
type Result struct {
	ExecutionID string
	Status      Status
	// Results maps each operation that finished to its output (null when it has
	// no outputPath; inside loops, the last iteration's).
	Results     map[string]any
	Errors      []fault.Object
	DurationMs  int64 // time spent running, over every run of the execution
	StartedAt   time.Time
	CompletedAt time.Time // zero unless the status is terminal or cancelled
	Waiting     *Waiting  // set when the status is waiting
	// ParkedUntil is set when a step parked the run (RunOptions.ParkAfter):
	// the status is running, the checkpoint is saved, and the caller resumes
	// the execution at this time. Not part of the execute response.
	ParkedUntil time.Time
}

// Waiting says which step waits for an answer and what it asks.
type Waiting struct {
	OperationID string `json:"operationId"`
	Reason      string `json:"reason"`
	Request     any    `json:"request,omitempty"`
}

// resultJSON is the execute response: {execution_id, status, results, errors,
// duration_ms}, plus the timestamps and waiting when they are set.
type resultJSON struct {
	ExecutionID string         `json:"execution_id"`
	Status      Status         `json:"status"`
	Results     map[string]any `json:"results"`
	Errors      []fault.Object `json:"errors"`
	DurationMs  int64          `json:"duration_ms"`
	StartedAt   *time.Time     `json:"started_at,omitempty"`
	CompletedAt *time.Time     `json:"completed_at,omitempty"`
	Waiting     *Waiting       `json:"waiting,omitempty"`
}

// MarshalJSON writes the execute response; results is {} and errors [] when empty.
func (r *Result) MarshalJSON() ([]byte, error) {
	w := resultJSON{
		ExecutionID: r.ExecutionID,
		Status:      r.Status,
		Results:     r.Results,
		Errors:      r.Errors,
		DurationMs:  r.DurationMs,
		Waiting:     r.Waiting,
	}
	if w.Results == nil {
		w.Results = map[string]any{}
	}
	if w.Errors == nil {
		w.Errors = []fault.Object{}
	}
	if !r.StartedAt.IsZero() {
		t := r.StartedAt.UTC()
		w.StartedAt = &t
	}
	if !r.CompletedAt.IsZero() {
		t := r.CompletedAt.UTC()
		w.CompletedAt = &t
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads what MarshalJSON writes (for clients and tests).
func (r *Result) UnmarshalJSON(b []byte) error {
	var w resultJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = Result{ExecutionID: w.ExecutionID, Status: w.Status, Results: w.Results, Errors: w.Errors,
		DurationMs: w.DurationMs, Waiting: w.Waiting}
	if w.StartedAt != nil {
		r.StartedAt = *w.StartedAt
	}
	if w.CompletedAt != nil {
		r.CompletedAt = *w.CompletedAt
	}
	return nil
}
