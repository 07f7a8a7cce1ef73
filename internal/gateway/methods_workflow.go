package gateway

import (
	"context"
	"encoding/json"

	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/workflow"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// workflowDocument reads params.workflow, which the method table checked:
// the JSONL document as a string, or (RESOLUTIONS) a JSON array of message
// objects, each message read once by the workflow's message decoder (no
// JSONL text is made of them to be read again). The ingress has decoded the
// body already, so each message is encoded here once, the one form the
// message decoder reads.
func workflowDocument(a args) (workflow.Source, error) {
	switch x := a.Any("workflow").(type) {
	case string:
		return workflow.Source{Document: []byte(x)}, nil
	case []any:
		msgs := make([]json.RawMessage, 0, len(x))
		for i, m := range x {
			b, err := json.Marshal(m)
			if err != nil {
				return workflow.Source{}, paramError("workflow", "element %d cannot be encoded", i)
			}
			msgs = append(msgs, b)
		}
		return workflow.Source{Messages: msgs}, nil
	}
	return workflow.Source{}, paramError("workflow", "must be a string (JSONL) or an array of message objects")
}

func (s *Server) workflowValidate(_ context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	src, err := workflowDocument(a)
	if err != nil {
		return err
	}
	report := s.svc.Runner.ValidateSource(src, execution.Account(c.Principal))
	return w.Complete(report)
}

func (s *Server) workflowExecute(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	src, err := workflowDocument(a)
	if err != nil {
		return err
	}
	req := execution.Request{Document: src.Document, Messages: src.Messages, Async: a.Bool("async"), SessionID: c.Env.SessionID}
	if in := a.Object("input"); in != nil {
		req.Input = in
	}
	if sid := a.String("session_id"); sid != "" {
		req.SessionID = sid
	}
	if c.Transport != "rest" {
		// A streaming ingress sees the execution's progress as it happens.
		req.OnFrame = func(f *e2a.Response) {
			if !f.IsFinal {
				_ = w.Write(&e2a.Response{Status: e2a.StatusInProgress, Kind: e2a.KindChunk, Body: f.Body})
			}
		}
	}
	out, err := s.svc.Executions.Execute(ctx, c.Principal, req)
	if err != nil {
		var inv *execution.InvalidError
		if asInvalid(err, &inv) {
			return &reportError{report: inv.Report}
		}
		return err
	}
	f := e2a.CompleteFrame(out.Body())
	if out.Queued {
		f.Metadata = map[string]any{metaHTTPStatus: 202}
	}
	return w.Write(f)
}

func asInvalid(err error, target **execution.InvalidError) bool {
	inv, ok := err.(*execution.InvalidError)
	if ok {
		*target = inv
	}
	return ok
}
