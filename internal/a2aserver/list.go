package a2aserver

import (
	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/sluicehq/sluice/internal/runs"
	"github.com/sluicehq/sluice/internal/store"
)

// maxPage bounds ListTasks' pageSize (A2A: 1 to 100, default 50).
const maxPage, defaultPage = 100, 50

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
// contextId, changed after its statusTimestampAfter. Artifacts are left
// out unless req includes them.
func keep(req *a2a.ListTasksRequest, t *a2a.Task, sum runs.Summary) bool {
	if req.ContextID != "" && t.ContextID != req.ContextID {
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

// statusesOf are the run statuses of an A2A state (stateOf's inverse).
func statusesOf(s a2a.TaskState) []store.Status {
	var out []store.Status
	for _, st := range store.Statuses {
		if stateOf(st) == s {
			out = append(out, st)
		}
	}
	return out
}
