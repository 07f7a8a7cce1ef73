package agent

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/telemetry"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// acpAttempt is one attempt of an ACP call: a process of the agent (kept,
// or started), a new session in its working directory (or, for a call of a
// conversation, the conversation's session once it has one), and one
// prompt whose text is the task's input. Failures before the prompt is sent are
// retried by the entry's retry_config; once the agent has the prompt it may
// have acted (written files), so a failure then is not retried. A call
// with a continuation answers a permission request that an earlier call
// left open (acpAnswer) instead.
func (inv *Invoker) acpAttempt(ctx context.Context, c *call, n int) (json.RawMessage, *result) {
	if cont, ok := op.AgentContinuationFrom(ctx); ok {
		return inv.acpAnswer(ctx, c, cont.TaskID)
	}
	run, fe := acpRunOf(inv.o.Registry.o.ACP.Commands, c.entry)
	if fe != nil {
		return nil, &result{err: fe}
	}
	c.scrub = run.scrub
	conv := op.AgentConversationFrom(ctx)
	// The entry's timeout bounds the wait for a busy conversation; the
	// turn then has a timeout of its own (acpWait).
	p, _, res := inv.acp.acquire(ctx, c, run, inv.o.MaxResponseBytes, conv, c.entry.Timeout)
	if res != nil {
		return nil, res
	}
	actx, cancel := context.WithTimeout(ctx, c.entry.Timeout)
	defer cancel()
	sid := p.session
	if sid == "" {
		sess, err := p.conn.NewSession(actx, acp.NewSessionRequest{Cwd: run.cwd, McpServers: []acp.McpServer{}})
		if err != nil {
			r := inv.acpFailure(ctx, actx, c, p, run, "did not open a session", err, true)
			inv.acp.release(p)
			return nil, r
		}
		sid = sess.SessionId
		if conv != "" {
			p.session = sid // the conversation's next call prompts it again
		}
	}
	turn := newACPTurn(sid, inv.o.MaxResponseBytes, run.scrub, newUpdater(ctx, run.scrub))
	p.client.setTurn(turn)
	inv.o.Logger.Debug("calling ACP agent", "agent", c.name, "taskId", c.taskID, "attempt", n, "session", string(sid), "conversation", conv != "")

	// The prompt runs on a context of its own, so that a caller who gives
	// up (or the timeout) can send session/cancel and still read the turn's
	// end, as ACP asks of a client; and so that the turn outlives a call
	// that ends on a permission request asked of its caller.
	h := &acpHeld{agent: c.name, p: p, run: run, turn: turn, done: make(chan acpAnswer, 1)}
	pctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	h.stop = stop
	go func() {
		// The agent joins the caller's trace through the prompt's _meta.
		r, err := p.conn.Prompt(pctx, acp.PromptRequest{SessionId: sid, Prompt: promptOf(c.input), Meta: telemetry.ToMeta(pctx, nil)})
		h.done <- acpAnswer{r, err}
	}()
	return inv.acpWait(ctx, c, h)
}

// acpAnswer is how a turn's prompt ended.
type acpAnswer struct {
	r   acp.PromptResponse
	err error
}

// acpWait follows the turn of h for call c until it ends (its output, or
// why it failed: the process is then given back) or the agent asks a
// permission of the caller (the call ends with the question; the turn and
// its process stay held for the answer). The entry's timeout bounds each
// call's part of the turn.
func (inv *Invoker) acpWait(ctx context.Context, c *call, h *acpHeld) (json.RawMessage, *result) {
	p, run, turn := h.p, h.run, h.turn
	actx, cancel := context.WithTimeout(ctx, c.entry.Timeout)
	defer cancel()
	held := false
	defer func() {
		if !held {
			h.end(inv.acp)
		}
	}()
	var a acpAnswer
	select {
	case a = <-h.done:
	case q := <-turn.asks:
		held = true
		return nil, inv.acpHold(c, h, q)
	case <-p.exited:
		select {
		case a = <-h.done:
		case <-time.After(100 * time.Millisecond):
			a.err = context.Canceled
		}
	case <-actx.Done():
		// An answer that raced the cancel (the agent ended its turn
		// anyway) is the call's output.
		if a = h.cancelTurn(ctx, inv.o.Logger); a.err != nil || a.r.StopReason == acp.StopReasonCancelled {
			return nil, inv.acpFailure(ctx, actx, c, p, run, "", actx.Err(), false)
		}
	}
	if a.err != nil {
		return nil, inv.acpFailure(ctx, actx, c, p, run, "failed the prompt", a.err, false)
	}
	turn.mu.Lock()
	text, overflow := turn.text.String(), turn.overflow
	turn.mu.Unlock()
	switch {
	case overflow:
		return nil, &result{err: upstream(c.name, "answered with more than %d bytes", inv.o.MaxResponseBytes), counts: true}
	case a.r.StopReason == acp.StopReasonRefusal:
		return nil, &result{err: upstream(c.name, "refused the prompt (stopReason refusal)%s", suffix(clip(run.scrub.ScrubText(text)))).
			WithDetail("stopReason", string(a.r.StopReason)), agentAnswered: true}
	case a.r.StopReason == acp.StopReasonCancelled:
		return nil, &result{err: upstream(c.name, "cancelled its turn (stopReason cancelled) though sluice did not ask it to").
			WithDetail("stopReason", string(a.r.StopReason)), agentAnswered: true}
	}
	out, err := json.Marshal(map[string]any{"text": text, "stop_reason": string(a.r.StopReason)})
	if err != nil {
		return nil, &result{err: fault.New(fault.Internal, "agent %s: its answer could not be encoded", c.name)}
	}
	return run.scrub.ScrubJSON(out), nil
}

// promptOf is the prompt of a task's input: the text of {"text": "..."}
// as one text block; the content blocks of an input whose "prompt" is a
// list of ACP content blocks (what `sluice acp` and ACP-shaped callers
// send), as they are; else the input's JSON as one text block.
func promptOf(input json.RawMessage) []acp.ContentBlock {
	var only map[string]json.RawMessage
	if json.Unmarshal(input, &only) != nil {
		return []acp.ContentBlock{acp.TextBlock(string(input))}
	}
	if len(only) == 1 {
		var s string
		if raw, ok := only["text"]; ok && json.Unmarshal(raw, &s) == nil {
			return []acp.ContentBlock{acp.TextBlock(s)}
		}
	}
	if raw, ok := only["prompt"]; ok {
		var blocks []acp.ContentBlock
		if knownKinds(raw) && json.Unmarshal(raw, &blocks) == nil && len(blocks) > 0 && validBlocks(blocks) {
			return blocks
		}
	}
	return []acp.ContentBlock{acp.TextBlock(string(input))}
}

// acpBlockKinds are the types of ACP content blocks.
var acpBlockKinds = []string{"text", "image", "audio", "resource_link", "resource"}

// knownKinds reports whether raw is an array of objects whose types are all
// ACP's: the SDK reads a block of another type as empty text, which would
// lose what the caller sent.
func knownKinds(raw json.RawMessage) bool {
	var kinds []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &kinds) != nil {
		return false
	}
	for _, k := range kinds {
		if !slices.Contains(acpBlockKinds, k.Type) {
			return false
		}
	}
	return true
}

// validBlocks reports whether every block is one the SDK can send.
func validBlocks(blocks []acp.ContentBlock) bool {
	for _, b := range blocks {
		if b.Validate() != nil {
			return false
		}
		if _, err := json.Marshal(b); err != nil {
			return false
		}
	}
	return true
}

// acpFailure classifies an error of an ACP call. before: the prompt was
// not sent yet, so a retry cannot repeat what the agent did.
func (inv *Invoker) acpFailure(ctx, actx context.Context, c *call, p *acpProc, run *acpRun, what string, err error, before bool) *result {
	select {
	case <-p.conn.Done():
		// The agent closed its output: it is ending, or is no use alive.
		select {
		case <-p.exited:
		case <-time.After(time.Second):
			p.stop()
			<-p.exited
		}
	default:
	}
	switch {
	case ctx.Err() != nil:
		return &result{err: fault.New(fault.Unavailable, "the call to agent %s ended before it answered: %s; its turn was cancelled (session/cancel)", c.name, ctx.Err()).
			WithDetail("agent", c.name).WithCause(ctx.Err())}
	case actx.Err() != nil:
		return &result{err: fault.New(fault.Timeout, "agent %s did not answer within its timeout of %s; its turn was cancelled (session/cancel)", c.name, c.entry.Timeout).
			WithDetail("agent", c.name), retry: before, counts: true}
	case p.dead():
		return &result{err: upstream(c.name, "%s: its process ended (%s); the next call starts it again", what, p.status).
			WithDetail("exit", p.status), retry: before, counts: true}
	}
	return &result{err: upstream(c.name, "%s: %s", what, acpErrText(run.scrub, err)), retry: before, counts: true}
}

// acpCheck is an ACP agent's health check: healthy when a process of it is
// running, or one starts and answers initialize (it is then kept for the
// next call, as a call's would be).
func (inv *Invoker) acpCheck(e agenthttp.Entry, h *Health) {
	run, fe := acpRunOf(inv.o.Registry.o.ACP.Commands, e)
	if fe != nil {
		h.Error = fe.Message
		return
	}
	if inv.acp.running(run.key(e.Name)) {
		h.Healthy = true
		return
	}
	start := time.Now()
	p, _, res := inv.acp.acquire(context.Background(), &call{name: e.Name, entry: e, scrub: run.scrub}, run, inv.o.MaxResponseBytes, "", 0)
	h.LatencyMs = time.Since(start).Milliseconds()
	if res != nil {
		h.Error = res.err.Message
		return
	}
	inv.acp.release(p)
	h.Healthy = true
}
