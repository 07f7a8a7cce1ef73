package acpagent

import (
	"context"
	"errors"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// runAgent is a prompt to an agent: agent.invoke, its output the answer.
// A call that ends because the agent waits for its caller (the error's
// details.inputRequired: an A2A agent's input-required, an ACP agent's
// permission request) is asked in the editor: with options, as
// session/request_permission (turn.decide), whose choice goes back as the
// answer (agent.invoke again with remote_task_id and context_id) and the
// turn goes on; without, as agent text, and the session's next prompt is
// the answer (the same continuation).
func (t Target) runAgent(ctx context.Context, tn *turn, in *promptIn) error {
	var env *e2a.Envelope
	if p := tn.s.asked; p != nil {
		tn.s.asked = nil
		// A JSON object is sent as data, other text as {"text": ...}
		// (an A2A agent gets it as a text part), as a capability's inputs
		// are read.
		env = continueAgent(tn.s, p, capInputs(in.text))
	} else {
		var err error
		if env, err = in.agentInvoke(t.name, tn.s); err != nil {
			return err
		}
	}
	for range maxDecisions {
		out, err := tn.call(ctx, env)
		var ce *callError
		if err != nil && (!errors.As(err, &ce) || ce.pending == nil) {
			return err
		}
		if err == nil {
			if !tn.sentText {
				// The agent streamed no text: its whole output is one chunk.
				return tn.say(ctx, outputText(out))
			}
			return nil
		}
		p := ce.pending
		if len(p.Options) == 0 {
			tn.s.asked = p
			return tn.say(ctx, questionText(p))
		}
		answer, err := tn.decide(ctx, agentDecision(p))
		if err != nil {
			// A pending permission of an ACP agent stays open until it
			// expires on the server; an A2A task waits as it is.
			return err
		}
		env = continueAgent(tn.s, p, answer)
	}
	return fault.New(fault.Conflict, "agent %s asked more than %d questions in one turn", t.name, maxDecisions)
}

// continueAgent is agent.invoke answering p: the answer as the input, sent
// as the next message of what asked (remote_task_id, context_id).
func continueAgent(s *session, p *op.AgentPending, answer any) *e2a.Envelope {
	params := map[string]any{"agent": p.Agent, "input": answer, "remote_task_id": p.TaskID, "streaming": true}
	if p.ContextID != "" {
		params["context_id"] = p.ContextID
	}
	return call(e2a.MethodAgentInvoke, params, s)
}

// agentDecision is an agent's question with options as a decision: each
// option keeps its id, name and kind, and answers {"optionId": id}.
func agentDecision(p *op.AgentPending) *Decision {
	d := &Decision{ID: "ask-" + p.TaskID, Title: questionTitle(p), Inputs: p.Question}
	for _, o := range p.Options {
		d.Options = append(d.Options, Option{ID: o.ID, Name: o.Name, Kind: acp.PermissionOptionKind(o.Kind),
			Reject: strings.HasPrefix(o.Kind, "reject"), Answer: map[string]any{"optionId": o.ID}})
	}
	return d
}

// questionTitle is a short title for the question: its title, its text,
// else who asks.
func questionTitle(p *op.AgentPending) string {
	if q, ok := p.Question.(map[string]any); ok {
		for _, k := range []string{"title", "text"} {
			if s, ok := q[k].(string); ok && s != "" {
				return s
			}
		}
	}
	return "Agent " + p.Agent + " asks"
}

// questionText asks a question without options in the conversation.
func questionText(p *op.AgentPending) string {
	q := outputText(p.Question)
	if q == "" {
		q = "Agent " + p.Agent + " waits for your answer."
	}
	return q + "\n\n(Reply with your answer; it goes to " + p.Agent + ".)"
}
