package a2aserver

import (
	"context"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/runs"
	"github.com/sluicehq/sluice/internal/store"
)

// maxPage bounds ListTasks' pageSize (A2A: 1 to 100, default 50).
const maxPage, defaultPage = 100, 50

// list pages through p's runs of kind, newest first, as tasks: task reads
// each, and a run it does not find (not a task of this endpoint, or gone
// since it was listed) is left out. A page is a page of runs with those
// left out, so it may hold fewer tasks than pageSize; nextPageToken says
// whether there are more, and totalSize is the page's count.
func (s *Server) list(ctx context.Context, p *account.Principal, req *a2a.ListTasksRequest, kind string,
	task func(context.Context, a2a.TaskID) (*a2a.Task, error)) (*a2a.ListTasksResponse, error) {
	size, q, err := listQuery(req, kind)
	if err != nil || q == nil {
		return emptyList(err)
	}
	runList, next, err := s.cfg.Runs.List(ctx, p, *q)
	if err != nil {
		return nil, a2aError(err)
	}
	tasks := []*a2a.Task{}
	for _, sum := range runList {
		if t, err := task(ctx, a2a.TaskID(sum.RunID)); err == nil && keep(req, t, sum) {
			if req.HistoryLength != nil { // a read more a task: only when asked
				t = s.history(ctx, p.ID, t, req.HistoryLength)
			}
			tasks = append(tasks, t)
		}
	}
	return &a2a.ListTasksResponse{Tasks: tasks, TotalSize: len(tasks), PageSize: size, NextPageToken: next}, nil
}

// listQuery is the listing of runs of kind behind req's page, and the
// page's size. A nil query is a state no run is in: the page is empty.
func listQuery(req *a2a.ListTasksRequest, kind string) (int, *runs.ListQuery, error) {
	size := req.PageSize
	switch {
	case size == 0:
		size = defaultPage
	case size < 0 || size > maxPage:
		return 0, nil, invalid("pageSize must be from 1 to %d", maxPage)
	}
	q := &runs.ListQuery{Kinds: []string{kind}, Page: store.Page{Cursor: req.PageToken, Limit: size}}
	if req.Status != a2a.TaskStateUnspecified {
		if q.Status = statusesOf(req.Status); len(q.Status) == 0 {
			return size, nil, nil
		}
	}
	return size, q, nil
}

func emptyList(err error) (*a2a.ListTasksResponse, error) {
	if err != nil {
		return nil, err
	}
	return &a2a.ListTasksResponse{Tasks: []*a2a.Task{}}, nil
}

// keep reports whether task t (of run sum) is on req's page: of its
// contextId and state, changed after its statusTimestampAfter. Artifacts are left
// out unless req includes them.
func keep(req *a2a.ListTasksRequest, t *a2a.Task, sum runs.Summary) bool {
	if req.ContextID != "" && t.ContextID != req.ContextID || req.Status != a2a.TaskStateUnspecified && t.Status.State != req.Status {
		return false
	}
	if req.StatusTimestampAfter != nil && !sum.UpdatedAt.After(*req.StatusTimestampAfter) {
		return false
	}
	if !req.IncludeArtifacts {
		t.Artifacts = nil
	}
	return true
}

// statusesOf are the run statuses of an A2A state (stateOf's inverse; a
// rejected task is a failed run).
func statusesOf(s a2a.TaskState) []store.Status {
	if s == a2a.TaskStateRejected {
		s = a2a.TaskStateFailed
	}
	var out []store.Status
	for _, st := range store.Statuses {
		if stateOf(st) == s {
			out = append(out, st)
		}
	}
	return out
}
