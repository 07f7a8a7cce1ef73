package gateway

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/tools"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// maxToolTimeout bounds a tool call's own timeout (seconds, float).
const maxToolTimeout = 3600.0

func (s *Server) toolList(ctx context.Context, c *Call, w *e2a.StreamWriter) error {
	p := newParams(c.Env.Params)
	o := tools.ListOptions{Query: p.String("query"), Tags: p.Strings("filter_tags"), Kind: p.String("filter_kind")}
	_ = p.Bool("include_deferred") // every tool is listed now; nothing is deferred
	if o.Kind != "" && !slices.Contains(tools.Kinds, o.Kind) {
		p.fail("filter_kind", "must be one of %s, or empty for every kind", strings.Join(tools.Kinds, ", "))
	}
	if err := p.Done(); err != nil {
		return err
	}
	list, err := s.svc.Tools.List(ctx, c.Principal, o)
	if err != nil {
		return err
	}
	return w.Complete(map[string]any{"tools": list})
}

func (s *Server) toolCall(ctx context.Context, c *Call, w *e2a.StreamWriter) error {
	p := newParams(c.Env.Params)
	name := p.RequiredString("tool_name")
	args := p.Object("arguments")
	streaming := p.Bool("streaming")
	timeout := floatParam(p, "timeout")
	_ = p.String("correlation_id")
	_ = p.String("session_id")
	if err := p.Done(); err != nil {
		return err
	}
	if args == nil {
		args = map[string]any{}
	}
	callCtx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeout(ctx, time.Duration(timeout*float64(time.Second)))
		defer cancel()
	}
	var onEvent func(tools.Event)
	if streaming {
		onEvent = func(ev tools.Event) {
			_ = w.Write(&e2a.Response{Kind: e2a.KindChunk, Status: e2a.StatusInProgress,
				Body: map[string]any{"delta_kind": e2a.DeltaTool, "delta": map[string]any{"kind": ev.Kind, "data": ev.Data}}})
		}
	}
	r, err := s.svc.Tools.Call(callCtx, c.Principal, name, args, onEvent)
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

// floatParam is an optional number in (0, maxToolTimeout]; 0 when absent.
func floatParam(p *params, name string) float64 {
	v, ok := p.take(name)
	if !ok {
		return 0
	}
	f, isNumber := v.(float64)
	if !isNumber || math.IsNaN(f) || f <= 0 || f > maxToolTimeout {
		p.fail(name, "must be a number of seconds from 0 to %g", maxToolTimeout)
		return 0
	}
	return f
}
