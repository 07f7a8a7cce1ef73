package engine

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/jsonvalue"
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
	// DataBytes is what the execution's data budget had charged when the
	// result was made (the estimated heap of its data): MarshalJSON sizes a
	// large result before encoding it (jsonvalue.Size). Not encoded.
	DataBytes int64
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

// MarshalJSON writes the execute response; results is {} and errors [] when
// empty. The bytes are json.Marshal's of resultJSON (the order of its
// fields, its escaping); the results tree is written by jsonvalue, without
// reflection, since it is most of every response (docs/performance.md).
func (r *Result) MarshalJSON() ([]byte, error) {
	size := 256
	if r.DataBytes >= PresizeAbove {
		n, err := jsonvalue.Size(r.Results)
		if err != nil {
			return nil, err
		}
		size += n
	}
	b := make([]byte, 0, size)
	b = append(b, `{"execution_id":`...)
	b = jsonvalue.AppendString(b, r.ExecutionID, true)
	b = append(b, `,"status":`...)
	b = jsonvalue.AppendString(b, string(r.Status), true)
	b = append(b, `,"results":`...)
	var err error
	if r.Results == nil {
		b = append(b, "{}"...)
	} else if b, err = jsonvalue.Append(b, r.Results); err != nil {
		return nil, err
	}
	b = append(b, `,"errors":`...)
	if len(r.Errors) == 0 {
		b = append(b, "[]"...)
	} else if b, err = jsonvalue.Append(b, r.Errors); err != nil {
		return nil, err
	}
	b = append(b, `,"duration_ms":`...)
	b = strconv.AppendInt(b, r.DurationMs, 10)
	for _, t := range []struct {
		key string
		at  time.Time
	}{{`,"started_at":`, r.StartedAt}, {`,"completed_at":`, r.CompletedAt}} {
		if t.at.IsZero() {
			continue
		}
		ts, err := t.at.UTC().MarshalJSON()
		if err != nil {
			return nil, err
		}
		b = append(append(b, t.key...), ts...)
	}
	if r.Waiting != nil {
		b = append(b, `,"waiting":`...)
		if b, err = jsonvalue.Append(b, r.Waiting); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
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
