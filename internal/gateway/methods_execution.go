package gateway

import (
	"context"

	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/e2a"
)

func (s *Server) executionGet(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	id := a.String("execution_id")
	v, err := s.svc.Executions.Get(ctx, c.Principal, id)
	if err != nil {
		return err
	}
	b, err := v.JSON()
	if err != nil {
		return err
	}
	return w.Complete(b)
}

// statusParam reads a list's status filter.
func statusParam(a args) ([]store.Status, error) {
	var out []store.Status
	for _, st := range a.Strings("status") {
		if !store.Status(st).Valid() {
			return nil, paramError("status", "%q is not a status (queued, running, waiting, success, failed, partial, cancelled)", st)
		}
		out = append(out, store.Status(st))
	}
	return out, nil
}

func (s *Server) executionList(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	q := store.ExecutionQuery{Page: store.Page{Cursor: a.String("cursor"), Limit: a.Int("limit")}}
	var err error
	if q.Status, err = statusParam(a); err != nil {
		return err
	}
	list, next, err := s.svc.Executions.List(ctx, c.Principal, q)
	if err != nil {
		return err
	}
	if list == nil {
		list = []execution.Summary{}
	}
	return w.Complete(map[string]any{"executions": list, "next_cursor": next})
}

func (s *Server) executionCancel(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	id := a.String("execution_id")
	v, err := s.svc.Executions.Cancel(ctx, c.Principal, id)
	if err != nil {
		return err
	}
	return w.Complete(v)
}

// executionEvents streams an execution's frames as chunks whose delta is the
// frame (delta_kind custom); the REST codec unwraps them into SSE events. The
// final frame of this call says how the stream ended.
func (s *Server) executionEvents(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	id := a.String("execution_id")
	return streamFrames(w, "execution_id", id, func(send func(execution.Frame) error) error {
		return s.svc.Executions.Follow(ctx, c.Principal, id, int64(a.Int("after")), send)
	})
}
