package gateway

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/workflow"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// workflowDocument reads params.workflow: the JSONL document as a string, or
// (RESOLUTIONS) a JSON array of message objects, each message read once by
// the workflow's message decoder (no JSONL text is made of them to be read
// again). The ingress has decoded the body already, so each message is
// encoded here once, the one form the message decoder reads.
func workflowDocument(p *params) workflow.Source {
	v, ok := p.take("workflow")
	if !ok {
		p.fail("workflow", "is required: the JSONL document as a string, or an array of message objects")
		return workflow.Source{}
	}
	switch x := v.(type) {
	case string:
		if strings.TrimSpace(x) == "" {
			p.fail("workflow", "is empty")
		}
		return workflow.Source{Document: []byte(x)}
	case []any:
		msgs := make([]json.RawMessage, 0, len(x))
		for i, m := range x {
			if _, isObject := m.(map[string]any); !isObject {
				p.fail("workflow", "element %d is not a message object", i)
				return workflow.Source{}
			}
			b, err := json.Marshal(m)
			if err != nil {
				p.fail("workflow", "element %d cannot be encoded", i)
				return workflow.Source{}
			}
			msgs = append(msgs, b)
		}
		return workflow.Source{Messages: msgs}
	}
	p.fail("workflow", "must be a string (JSONL) or an array of message objects")
	return workflow.Source{}
}

func (s *Server) workflowValidate(_ context.Context, c *Call, w *e2a.StreamWriter) error {
	p := newParams(c.Env.Params)
	src := workflowDocument(p)
	if err := p.Done(); err != nil {
		return err
	}
	report := s.svc.Runner.ValidateSource(src, execution.Account(c.Principal))
	return w.Complete(report)
}

func (s *Server) workflowExecute(ctx context.Context, c *Call, w *e2a.StreamWriter) error {
	p := newParams(c.Env.Params)
	src := workflowDocument(p)
	req := execution.Request{Document: src.Document, Messages: src.Messages, Input: p.Any("input"), Async: p.Bool("async"), SessionID: c.Env.SessionID}
	if sid := p.String("session_id"); sid != "" {
		req.SessionID = sid
	}
	// validate is the A2E reference client's switch (it sends true). sluice
	// validates every workflow before it runs it, so false turns nothing
	// off; it is read so that it is a known, type-checked parameter.
	_ = p.Bool("validate")
	if err := p.Done(); err != nil {
		return err
	}
	if req.Input != nil {
		if _, isObject := req.Input.(map[string]any); !isObject {
			return fault.New(fault.Invalid, "params.input must be an object (read by /input/... paths)").WithDetail("path", "params.input")
		}
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
