package gateway

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/runs"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// The run.* methods are the one run API over every kind of run (A2E
// executions, capability runs, agent workflow runs): internal/runs holds
// the kind dispatch; these read the params and write its answers.

// newRuns is the run API over the server's services; a kind whose service
// is not configured is listed and read, not run.
func newRuns(svc Services) *runs.Service {
	cfg := runs.Config{Store: svc.Store, Executions: svc.Executions, Capabilities: svc.Capabilities}
	if svc.AgentFlows != nil {
		cfg.AgentFlows = svc.AgentFlows
	}
	return runs.New(cfg)
}

// runIDParams: run_id (E2A), or id (the REST path).
var runIDParams = params(param{name: "run_id", kind: pString, required: true, restPath: "id"})

// kindParam reads a list's kind filter.
func kindParam(a args) ([]string, error) {
	kinds := a.Strings("kind")
	for _, k := range kinds {
		if !slices.Contains(store.Kinds, k) {
			return nil, paramError("kind", "%q is not a kind of run (%s)", k, strings.Join(store.Kinds, ", "))
		}
	}
	return kinds, nil
}

// runList is GET /api/v1/runs: runs of every kind, newest first
// ({runs, next_cursor}).
func (s *Server) runList(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	q := runs.ListQuery{Account: a.String("account"), Page: store.Page{Cursor: a.String("cursor"), Limit: a.Int("limit")}}
	var err error
	if q.Kinds, err = kindParam(a); err != nil {
		return err
	}
	if q.Status, err = statusParam(a); err != nil {
		return err
	}
	list, next, err := s.runs.List(ctx, c.Principal, q)
	if err != nil {
		return err
	}
	return w.Complete(map[string]any{"runs": list, "next_cursor": next})
}

func (s *Server) runGet(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	run, err := s.runs.Get(ctx, c.Principal, a.String("run_id"))
	if err != nil {
		return err
	}
	return w.Complete(run)
}

// runAnswer answers a waiting run of any kind and runs it on; the answer
// is the run as it is then.
func (s *Server) runAnswer(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	raw, err := json.Marshal(a.Any("answer"))
	if err != nil {
		return fault.New(fault.Invalid, "params.answer is not JSON").WithDetail("path", "params.answer")
	}
	run, err := s.runs.Answer(ctx, c.Principal, a.String("run_id"), raw)
	if err != nil {
		return err
	}
	return w.Complete(run)
}

func (s *Server) runCancel(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	run, err := s.runs.Cancel(ctx, c.Principal, a.String("run_id"))
	if err != nil {
		return err
	}
	return w.Complete(run)
}

// runEvents streams a run's frames as executionEvents does an execution's.
func (s *Server) runEvents(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	id := a.String("run_id")
	return streamFrames(w, "run_id", id, func(send func(execution.Frame) error) error {
		return s.runs.Follow(ctx, c.Principal, id, int64(a.Int("after")), send)
	})
}

// streamFrames writes the frames follow sends as chunks whose delta is the
// frame (delta_kind custom; the SSE codec unwraps them into events), then a
// final frame that says how the stream ended: {<idKey>: id, frames,
// last_seq, ended}.
func streamFrames(w *e2a.StreamWriter, idKey, id string, follow func(send func(execution.Frame) error) error) error {
	var sent, last int64
	var final bool
	err := follow(func(f execution.Frame) error {
		sent, last, final = sent+1, f.Seq, f.Final
		var frame map[string]any
		if err := json.Unmarshal(f.Data, &frame); err != nil {
			return fault.New(fault.Internal, "stored frame %d of %s is unreadable", f.Seq, id).WithCause(err)
		}
		return w.Write(&e2a.Response{Kind: e2a.KindChunk, Status: e2a.StatusInProgress,
			Body: map[string]any{"delta_kind": e2a.DeltaCustom, "delta": frame, "seq": f.Seq}})
	})
	if err != nil {
		return err
	}
	return w.Complete(map[string]any{idKey: id, "frames": sent, "last_seq": last, "ended": final})
}
