package agent

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/protocol/agenthttp"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// An ACP entry whose acp.permission is ask makes the agent's
// session/request_permission a pending decision of the caller, as an A2A
// agent's input-required is: the call ends with an upstream error whose
// details.inputRequired (op.AgentPending) carry the question, the options
// and, as remoteTaskId, the id of the pending permission; the turn and its
// process stay open (held) until a call continues it with the answer
// (op.WithAgentContinuation, agent.invoke's remote_task_id, a run's
// answer), or until agents.acp.pending_timeout passes, which answers the
// request cancelled and ends the turn. A held turn lives in this process:
// the answer must reach the same gateway or worker (the agent queue's
// workers of one gateway share its invoker).

// acpAsk is a permission request the agent waits on.
type acpAsk struct {
	req   acp.RequestPermissionRequest
	reply chan acp.RequestPermissionOutcome // buffered 1
}

// acpHeld is a turn under way: its process (busy while the turn lasts),
// the prompt's end, and, while it waits for its caller, the request asked.
type acpHeld struct {
	agent string
	p     *acpProc
	run   *acpRun
	turn  *acpTurn
	done  chan acpAnswer
	stop  context.CancelFunc // the prompt's context

	id    string // the pending permission's id, while held
	ask   *acpAsk
	timer *time.Timer
	once  sync.Once
}

// end gives the turn's process back: the turn is over.
func (h *acpHeld) end(pl *acpPool) {
	h.once.Do(func() {
		h.turn.giveUp()
		h.stop()
		h.p.client.setTurn(nil)
		pl.release(h.p)
	})
}

// cancelTurn sends session/cancel and waits for the prompt's answer; an
// agent that does not end its turn within acpCancelWait is stopped (its
// session would hold the process forever), and the answer is an error.
func (h *acpHeld) cancelTurn(ctx context.Context, log *slog.Logger) acpAnswer {
	h.turn.giveUp()
	_ = h.p.conn.Cancel(context.WithoutCancel(ctx), acp.CancelNotification{SessionId: h.turn.session})
	select {
	case a := <-h.done:
		return a
	case <-time.After(acpCancelWait):
		log.Warn("ACP agent did not end its turn after session/cancel; its process is stopped", "agent", h.agent)
		h.p.stop()
		return acpAnswer{err: context.DeadlineExceeded}
	}
}

// acpHeldSet holds the turns that wait for their callers by pending id, and
// remembers why recent ids are gone (expired, answered, process ended) so
// that a late answer is told.
type acpHeldSet struct {
	mu   sync.Mutex
	m    map[string]*acpHeld
	gone map[string]string
	ring []string // gone's ids, oldest first
}

// maxGone bounds the ids whose end is remembered.
const maxGone = 256

func newACPHeldSet() *acpHeldSet {
	return &acpHeldSet{m: map[string]*acpHeld{}, gone: map[string]string{}}
}

func (s *acpHeldSet) put(h *acpHeld) {
	s.mu.Lock()
	s.m[h.id] = h
	s.mu.Unlock()
}

// get is the held turn id (nil: none; why says what became of it).
func (s *acpHeldSet) get(id string) (*acpHeld, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h, ok := s.m[id]; ok {
		return h, ""
	}
	return nil, s.gone[id]
}

// take removes h (still held under its id) and records why; false when
// another took it first.
func (s *acpHeldSet) take(h *acpHeld, why string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m[h.id] != h {
		return false
	}
	delete(s.m, h.id)
	s.gone[h.id] = why
	s.ring = append(s.ring, h.id)
	if len(s.ring) > maxGone {
		delete(s.gone, s.ring[0])
		s.ring = s.ring[1:]
	}
	return true
}

// acpHold keeps h for the caller's answer to q and ends the call with the
// question.
func (inv *Invoker) acpHold(c *call, h *acpHeld, q *acpAsk) *result {
	h.id, h.ask = ids.New(ids.ACPPermission), q
	h.turn.listen(nil) // nobody follows the turn until the answer's call
	wait := inv.acp.o.PendingTimeout
	inv.acp.held.put(h)
	h.timer = time.AfterFunc(wait, func() {
		if inv.acp.held.take(h, "it expired: nobody answered within "+wait.String()+" (agents.acp.pending_timeout), so it was answered cancelled") {
			inv.o.Logger.Info("ACP agent's permission request expired; answered cancelled", "agent", h.agent)
			h.cancelTurn(context.Background(), inv.o.Logger)
			h.end(inv.acp)
		}
	})
	p := h.pending(c.name)
	title := "a tool call"
	if q.req.ToolCall.Title != nil {
		title = quote(clip(h.run.scrub.ScrubText(*q.req.ToolCall.Title)))
	}
	next, _ := json.Marshal(map[string]any{"agent": c.name, "input": map[string]string{"optionId": p.Options[0].ID}, "remote_task_id": p.TaskID})
	return &result{err: upstream(c.name, "asks permission before it goes on: %s; options: %s", title, optionList(p.Options)).
		WithDetail("state", p.State).WithDetail("remoteTaskId", p.TaskID).
		WithDetail(op.DetailInputRequired, p.Map()).
		WithSuggestions("Answer it within " + wait.String() + " by naming an option: call agent.invoke with " + string(next) +
			", or answer the run that waits (a workflow step) with the option's id"), agentAnswered: true}
}

// pending is the question h holds, scrubbed and bounded as an error's
// details are.
func (h *acpHeld) pending(agent string) *op.AgentPending {
	r := h.ask.req
	tc := map[string]any{"toolCallId": string(r.ToolCall.ToolCallId)}
	q := map[string]any{"toolCall": tc}
	if r.ToolCall.Title != nil {
		q["title"] = *r.ToolCall.Title
		tc["title"] = *r.ToolCall.Title
	}
	if r.ToolCall.Kind != nil {
		tc["kind"] = string(*r.ToolCall.Kind)
	}
	if r.ToolCall.RawInput != nil {
		// The tool call's input goes along when it is small: it is what
		// the caller decides on.
		if raw, err := json.Marshal(r.ToolCall.RawInput); err == nil && len(raw) <= agenthttp.MaxErrorMessageBytes*8 {
			tc["rawInput"] = json.RawMessage(raw)
		}
	}
	var v any
	raw, _ := json.Marshal(q)
	_ = json.Unmarshal(h.run.scrub.ScrubJSON(raw), &v)
	p := &op.AgentPending{Agent: agent, State: op.StateInputRequired, TaskID: h.id, Question: v}
	for _, o := range r.Options {
		p.Options = append(p.Options, op.AgentOption{ID: string(o.OptionId), Name: clip(h.run.scrub.ScrubText(o.Name)), Kind: string(o.Kind)})
	}
	return p
}

// acpAnswer continues the turn held under id with the answer c's input
// names: an option, by {"optionId": ...}, or a string (as is, or as
// {"text": ...} or {"answer": ...}) that is an option's id, name or kind.
// An answer that names no option is refused, listing them, and the
// request stays open.
func (inv *Invoker) acpAnswer(ctx context.Context, c *call, id string) (json.RawMessage, *result) {
	h, why := inv.acp.held.get(id)
	if h == nil || h.agent != c.name {
		if why == "" || h != nil {
			why = "no such request is open in this sluice process (it was never asked here, or it was answered and its turn ended)"
		}
		return nil, &result{err: fault.New(fault.NotFound, "agent %s has no pending permission request %s: %s", c.name, quote(clip(id)), why).
			WithDetail("agent", c.name).WithDetail("remoteTaskId", clip(id)).
			WithSuggestions("Call the agent again without remote_task_id to start a new turn")}
	}
	c.scrub = h.run.scrub
	if h.p.dead() {
		if inv.acp.held.take(h, "its process ended ("+h.p.status+")") {
			h.timer.Stop()
			h.end(inv.acp)
		}
		return nil, &result{err: upstream(c.name, "its process ended while permission request %s waited for its answer; call the agent again to start a new turn", quote(id)).
			WithDetail("remoteTaskId", id)}
	}
	opt, fe := pickOption(c.name, c.input, h.ask.req.Options)
	if fe != nil {
		fe.Message = h.run.scrub.ScrubText(fe.Message) // the options' names are the agent's
		return nil, &result{err: fe}
	}
	if !inv.acp.held.take(h, "it was answered") {
		return nil, &result{err: fault.New(fault.Conflict, "agent %s: permission request %s was answered or expired while this answer arrived", c.name, quote(id)).
			WithDetail("agent", c.name)}
	}
	h.timer.Stop()
	h.turn.listen(newUpdater(ctx, h.run.scrub))
	h.turn.emit(e2a.DeltaCustom, permissionDelta(h.ask.req, string(opt.Kind), string(agenthttp.ACPAsk)))
	h.ask.reply <- acp.NewRequestPermissionOutcomeSelected(opt.OptionId)
	inv.o.Logger.Debug("ACP agent's permission request answered by its caller", "agent", c.name, "option", string(opt.OptionId))
	return inv.acpWait(ctx, c, h)
}

// pickOption reads the answer in input against the options offered: an
// option's id first, then its name (any case), then its kind when one
// option has it.
func pickOption(agent string, input json.RawMessage, opts []acp.PermissionOption) (acp.PermissionOption, *fault.Error) {
	var v any
	_ = json.Unmarshal(input, &v)
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case map[string]any:
		for _, k := range []string{"optionId", "text", "answer"} {
			if str, ok := x[k].(string); ok {
				s = str
				break
			}
		}
	}
	s = strings.TrimSpace(s)
	byKind := -1
	for _, o := range opts {
		if string(o.OptionId) == s {
			return o, nil
		}
	}
	for i, o := range opts {
		if s != "" && strings.EqualFold(o.Name, s) {
			return o, nil
		}
		if string(o.Kind) == s {
			if byKind >= 0 {
				byKind = -2 // two options of that kind: the kind names none
			} else if byKind == -1 {
				byKind = i
			}
		}
	}
	if byKind >= 0 {
		return opts[byKind], nil
	}
	list := make([]op.AgentOption, len(opts))
	for i, o := range opts {
		list[i] = op.AgentOption{ID: string(o.OptionId), Name: o.Name, Kind: string(o.Kind)}
	}
	what := "the answer names no option"
	if s != "" {
		what = "the answer " + quote(clip(s)) + " is not one of its options"
	}
	return acp.PermissionOption{}, fault.New(fault.Invalid, "agent %s asked permission and %s; answer one of: %s", agent, what, optionList(list)).
		WithDetail("agent", agent).WithDetail("path", "input").
		WithSuggestions(`Answer {"optionId": "<an option's optionId>"}; the request stays open until it is answered or expires`)
}

// optionList names options for a message: "yes" (Allow, allow_once), ...
func optionList(opts []op.AgentOption) string {
	parts := make([]string, len(opts))
	for i, o := range opts {
		parts[i] = quote(o.ID) + " (" + o.Name + ", " + o.Kind + ")"
	}
	return strings.Join(parts, ", ")
}
