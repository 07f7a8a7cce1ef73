package agentflow

import (
	"context"
	"encoding/json"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// Bounds of List.
const (
	DefaultListLimit = 20
	MaxListLimit     = 100
)

// Summary is one run in a list.
type Summary struct {
	RunID      string       `json:"run_id"`
	WorkflowID string       `json:"workflow_id"`
	Name       string       `json:"name"`
	Version    string       `json:"version"`
	Status     store.Status `json:"status"`
	CreatedAt  time.Time    `json:"created_at"`
	StartedAt  *time.Time   `json:"started_at,omitempty"`
	FinishedAt *time.Time   `json:"finished_at,omitempty"`
}

// ListQuery filters and pages an account's runs.
type ListQuery struct {
	Status []store.Status // any of these; empty: all
	Cursor string         // next of the previous page; "" for the first
	Limit  int            // 0: DefaultListLimit; at most MaxListLimit
}

// List pages through the account's runs, newest first. It returns at most
// Limit runs and the cursor of the next page ("" at the end). The store
// selects the records of kind agent_workflow, so every page but the last is
// full, whatever else the account runs.
func (r *Runner) List(ctx context.Context, accountID string, q ListQuery) ([]Summary, string, error) {
	limit := q.Limit
	switch {
	case limit == 0:
		limit = DefaultListLimit
	case limit < 0 || limit > MaxListLimit:
		return nil, "", fault.New(fault.Invalid, "limit must be between 1 and %d, not %d", MaxListLimit, limit).WithDetail("field", "limit")
	}
	execs, next, err := r.Store.ListExecutions(ctx, accountID, store.ExecutionQuery{Kinds: []string{store.KindAgentWorkflow},
		Status: q.Status, Page: store.Page{Cursor: q.Cursor, Limit: limit}})
	if err != nil {
		return nil, "", err
	}
	out := make([]Summary, 0, len(execs))
	for _, e := range execs {
		s, ok, err := r.summary(ctx, e)
		if err != nil {
			return nil, "", err
		}
		if ok {
			out = append(out, s)
		}
	}
	return out, next, nil
}

// summary reads a listed run's workflow names (lists leave the document
// out). ok is false when the run is gone.
func (r *Runner) summary(ctx context.Context, e store.Execution) (Summary, bool, error) {
	full, err := r.Store.GetExecution(ctx, e.AccountID, e.ID)
	if err != nil {
		if fault.KindOf(err) == fault.NotFound {
			return Summary{}, false, nil
		}
		return Summary{}, false, err
	}
	var d struct {
		Workflow struct {
			WorkflowID string `json:"workflow_id"`
			Name       string `json:"name"`
			Version    string `json:"version"`
		} `json:"agent_workflow"`
	}
	// The descriptor was written by Start; only its names are read here.
	_ = json.Unmarshal(full.Document, &d)
	return Summary{RunID: full.ID, WorkflowID: d.Workflow.WorkflowID, Name: d.Workflow.Name, Version: d.Workflow.Version,
		Status: full.Status, CreatedAt: full.CreatedAt, StartedAt: full.StartedAt, FinishedAt: full.FinishedAt}, true, nil
}
