package agentflow

import (
	"context"
	"encoding/json"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// MonitorTimeout bounds the context a Monitor call gets: a callee that
// publishes somewhere must give up by then, since the worker waits for it.
const MonitorTimeout = 5 * time.Second

// maxMonitorErrorBytes bounds the error message a FAILED report carries.
const maxMonitorErrorBytes = 1024

// stepReport is what the worker knows of a step when it reports it.
type stepReport struct {
	runID, stepID, agent string
	started              time.Time // zero: the step never reached its agent
}

// report sends one monitoring message to r.Monitor, if set. It is called on
// the worker's goroutine so that a step's messages stay in order; a slow or
// panicking Monitor is the callee's problem, never the run's: the context
// ends after MonitorTimeout and a panic is logged and swallowed.
func (r *Runner) report(ctx context.Context, s stepReport, status agenthttp.StepStatus, meta map[string]any) {
	if r.Monitor == nil {
		return
	}
	if meta == nil {
		meta = map[string]any{}
	}
	meta["agent_name"] = s.agent
	meta["task_id"] = TaskID(s.runID, s.stepID)
	if !s.started.IsZero() && status != agenthttp.StepRunning {
		meta["duration_ms"] = time.Since(s.started).Milliseconds()
	}
	md, err := json.Marshal(meta)
	if err != nil {
		md = json.RawMessage("{}")
	}
	m := agenthttp.MonitoringMessage{RunID: s.runID, StepID: s.stepID, StepName: s.agent, Status: status,
		Timestamp: time.Now().UTC(), Metadata: md}
	mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), MonitorTimeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			r.log().Error("agent workflow monitor panicked", "run", s.runID, "step", s.stepID, "panic", p)
		}
	}()
	r.Monitor(mctx, m)
}

// failedMeta is a FAILED report's metadata for cause: its public message
// (never its internal cause: that is where a secret could hide), its code,
// and the attempts the invoker made when it says.
func failedMeta(cause *fault.Error) map[string]any {
	msg := cause.Message
	if len(msg) > maxMonitorErrorBytes {
		msg = truncateUTF8(msg, maxMonitorErrorBytes) + "…"
	}
	meta := map[string]any{"error": msg, "code": cause.Kind.String()}
	if n, ok := cause.Details["attempts"]; ok {
		meta["attempts"] = n
	}
	return meta
}

// cancelledMeta is a FAILED report's metadata for a step whose run was
// cancelled while it ran.
func cancelledMeta() map[string]any {
	return map[string]any{"error": "the run was cancelled while the step ran; its output is discarded",
		"code": string(store.StatusCancelled), "cancelled": true}
}

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
