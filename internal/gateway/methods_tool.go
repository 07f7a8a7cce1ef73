package gateway

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sluicehq/sluice/internal/agent"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/tools"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// maxToolTimeout bounds a tool call's own timeout (seconds).
const maxToolTimeout = 3600

func (s *Server) toolList(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	o := tools.ListOptions{Query: a.String("query"), Tags: a.Strings("filter_tags"), Kind: a.String("filter_kind")}
	if o.Kind != "" && !slices.Contains(tools.Kinds, o.Kind) {
		return paramError("filter_kind", "must be one of %s, or empty for every kind", strings.Join(tools.Kinds, ", "))
	}
	list, err := s.svc.Tools.List(ctx, c.Principal, o)
	if err != nil {
		return err
	}
	return w.Complete(map[string]any{"tools": list})
}

func (s *Server) toolCall(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	name := a.String("tool_name")
	arguments := a.Object("arguments")
	streaming := a.Bool("streaming")
	timeout := a.Seconds("timeout")
	if arguments == nil {
		arguments = map[string]any{}
	}
	callCtx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeout(ctx, time.Duration(timeout*float64(time.Second)))
		defer cancel()
	}
	if (agentTools{}).Handles(name) {
		// The session tool agent.<name> is an agent call made on the
		// session: part of the session's conversation, as agent.invoke's.
		callCtx = agent.WithConversation(callCtx, op.AgentConversationKey(c.Principal.ID, c.Env.SessionID))
	}
	var onEvent func(tools.Event)
	if streaming {
		onEvent = func(ev tools.Event) {
			_ = w.Write(&e2a.Response{Kind: e2a.KindChunk, Status: e2a.StatusInProgress,
				Body: map[string]any{"delta_kind": e2a.DeltaTool, "delta": map[string]any{"kind": ev.Kind, "data": ev.Data}}})
		}
	}
	r, err := s.svc.Tools.Call(callCtx, c.Principal, name, arguments, onEvent)
	if err != nil {
		if ownTimeoutPassed(ctx, callCtx) {
			// Whatever the tool made of its context's end (MCP's SDK returns
			// it bare), the call ran out of the time it asked for.
			return fault.New(fault.Timeout, "tool %q did not finish within its timeout of %gs", name, timeout).WithCause(err)
		}
		return err
	}
	if !r.Success && ownTimeoutPassed(ctx, callCtx) {
		r.ErrorCode = fault.Timeout.Row().ToolCode
		r.Error = fmt.Sprintf("tool %q did not finish within its timeout of %gs", name, timeout)
	}
	return w.Complete(r)
}

// ownTimeoutPassed says the call's own timeout ended callCtx while its
// caller's ctx is still live.
func ownTimeoutPassed(ctx, callCtx context.Context) bool {
	return ctx.Err() == nil && errors.Is(callCtx.Err(), context.DeadlineExceeded)
}
