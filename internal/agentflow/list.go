package agentflow

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// Bounds of List.
const (
	DefaultListLimit = 20
	MaxListLimit     = 100
	// maxListScanPages bounds the store pages one List reads: runs share
	// the executions table with A2E executions and capability runs, which
	// it skips, so a page may come back short (even empty) with a cursor.
	maxListScanPages = 20
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
// Limit runs and the cursor of the next page ("" at the end); a page may
// hold fewer runs than Limit while the cursor is not "".
func (r *Runner) List(ctx context.Context, accountID string, q ListQuery) ([]Summary, string, error) {
	limit := q.Limit
	switch {
	case limit == 0:
		limit = DefaultListLimit
	case limit < 0 || limit > MaxListLimit:
		return nil, "", fault.New(fault.Invalid, "limit must be between 1 and %d, not %d", MaxListLimit, limit).WithDetail("field", "limit")
	}
	out := []Summary{}
	cursor := q.Cursor
	for pages := 0; len(out) < limit && pages < maxListScanPages; pages++ {
		// A page no larger than what is missing: every row read is taken or
		// skipped, so the store's cursor is where the next page starts.
		execs, next, err := r.Store.ListExecutions(ctx, accountID, store.ExecutionQuery{Status: q.Status,
			Page: store.Page{Cursor: cursor, Limit: limit - len(out)}})
		if err != nil {
			return nil, "", err
		}
		for _, e := range execs {
			if !strings.HasPrefix(e.Digest, digestPrefix) {
				continue
			}
			s, ok, err := r.summary(ctx, e)
			if err != nil {
				return nil, "", err
			}
			if ok {
				out = append(out, s)
			}
		}
		cursor = next
		if next == "" {
			break
		}
	}
	return out, cursor, nil
}

// summary reads a listed run's workflow names (lists leave the document
// out). ok is false when e is not a run after all.
func (r *Runner) summary(ctx context.Context, e store.Execution) (Summary, bool, error) {
	full, err := r.Store.GetExecution(ctx, e.AccountID, e.ID)
	if err != nil {
		if fault.KindOf(err) == fault.NotFound {
			return Summary{}, false, nil
		}
		return Summary{}, false, err
	}
	if !IsRun(full.Document) {
		return Summary{}, false, nil
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
