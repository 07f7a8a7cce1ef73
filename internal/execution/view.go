package execution

import (
	"encoding/json"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// View is an execution as the REST API shows it: the spec's execute response
// (execution_id, status, results, errors, duration_ms) and its times.
type View struct {
	ExecutionID       string          `json:"execution_id"`
	Status            store.Status    `json:"status"`
	Results           map[string]any  `json:"results"`
	Errors            []fault.Object  `json:"errors"`
	DurationMs        int64           `json:"duration_ms"`
	Async             bool            `json:"async"`
	ClientExecutionID string          `json:"client_execution_id,omitempty"`
	CreatedAt         time.Time       `json:"created_at"`
	StartedAt         *time.Time      `json:"started_at,omitempty"`
	CompletedAt       *time.Time      `json:"completed_at,omitempty"`
	Waiting           json.RawMessage `json:"waiting,omitempty"`
}

// Summary is an execution in a list.
type Summary struct {
	ExecutionID       string       `json:"execution_id"`
	Status            store.Status `json:"status"`
	Async             bool         `json:"async"`
	ClientExecutionID string       `json:"client_execution_id,omitempty"`
	CreatedAt         time.Time    `json:"created_at"`
	StartedAt         *time.Time   `json:"started_at,omitempty"`
	CompletedAt       *time.Time   `json:"completed_at,omitempty"`
}

// storedResult is the part of the engine's result JSON a view reads back.
type storedResult struct {
	Results    map[string]any  `json:"results"`
	Errors     []fault.Object  `json:"errors"`
	DurationMs int64           `json:"duration_ms"`
	Waiting    json.RawMessage `json:"waiting"`
}

// viewOf renders a stored execution.
func viewOf(e store.Execution) View {
	v := View{
		ExecutionID: e.ID, Status: e.Status, Async: e.Async, ClientExecutionID: e.ClientID,
		CreatedAt: e.CreatedAt, StartedAt: e.StartedAt, CompletedAt: e.FinishedAt,
		Results: map[string]any{}, Errors: []fault.Object{},
	}
	if len(e.Result) > 0 {
		var r storedResult
		if json.Unmarshal(e.Result, &r) == nil {
			if r.Results != nil {
				v.Results = r.Results
			}
			if r.Errors != nil {
				v.Errors = r.Errors
			}
			v.DurationMs, v.Waiting = r.DurationMs, r.Waiting
		}
	}
	return v
}

func summaryOf(e store.Execution) Summary {
	return Summary{ExecutionID: e.ID, Status: e.Status, Async: e.Async, ClientExecutionID: e.ClientID,
		CreatedAt: e.CreatedAt, StartedAt: e.StartedAt, CompletedAt: e.FinishedAt}
}
