package gateway

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// workflowDocument reads params.workflow, which the method table checked:
// the JSONL document as a string, or (RESOLUTIONS) a JSON array of message
// objects, turned into JSONL.
func workflowDocument(a args) ([]byte, error) {
	switch x := a.Any("workflow").(type) {
	case string:
		return []byte(x), nil
	case []any:
		var b strings.Builder
		for i, m := range x {
			line, err := json.Marshal(m)
			if err != nil {
				return nil, paramError("workflow", "element %d cannot be encoded", i)
			}
			b.Write(line)
			b.WriteByte('\n')
		}
		return []byte(b.String()), nil
	}
	return nil, paramError("workflow", "must be a string (JSONL) or an array of message objects")
}

func (s *Server) workflowValidate(_ context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	doc, err := workflowDocument(a)
	if err != nil {
		return err
	}
	report := s.svc.Runner.Validate(doc, execution.Account(c.Principal))
	return w.Complete(report)
}

func (s *Server) workflowExecute(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	doc, err := workflowDocument(a)
	if err != nil {
		return err
	}
	req := execution.Request{Document: doc, Async: a.Bool("async"), SessionID: c.Env.SessionID}
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
