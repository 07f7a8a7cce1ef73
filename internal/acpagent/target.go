package acpagent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/agenthttp"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// Target is what `sluice acp --agent` names: an agent (NAME: each prompt is
// agent.invoke), a capability (cap:NS/ID[@VERSION]: each prompt is
// capability.run, and a task it waits on is a permission request), or an
// agent workflow (flow:FILE: each prompt runs the workflow document in
// FILE, its steps shown as tool calls).
type Target struct {
	kind    string          // "agent", "cap" or "flow"
	name    string          // the agent's name, NS/ID, or the workflow's file
	version string          // a capability's version constraint
	flow    json.RawMessage // the workflow document
}

// Capability targets are written cap:NS/ID[@VERSION].
const capPrefix = "cap:"

// ParseTarget reads --agent.
func ParseTarget(s string) (Target, error) {
	if ref, ok := strings.CutPrefix(s, capPrefix); ok {
		ref, version, _ := strings.Cut(ref, "@")
		ns, id, ok := strings.Cut(ref, "/")
		if !ok || ns == "" || id == "" || strings.Contains(id, "/") {
			return Target{}, fmt.Errorf("--agent %q: a capability is cap:NAMESPACE/ID[@VERSION], e.g. cap:finance/Approve@^1.0.0", s)
		}
		return Target{kind: "cap", name: ref, version: version}, nil
	}
	if path, ok := strings.CutPrefix(s, flowPrefix); ok {
		raw, err := loadFlow(path)
		if err != nil {
			return Target{}, err
		}
		return Target{kind: "flow", name: path, flow: raw}, nil
	}
	if strings.Contains(s, ":") {
		return Target{}, fmt.Errorf("--agent %q: name an agent (NAME), a capability (cap:NAMESPACE/ID) or an agent workflow (flow:FILE); %q is not a kind sluice acp serves", s, s[:strings.Index(s, ":")+1])
	}
	if err := agenthttp.CheckName("--agent", s); err != nil {
		return Target{}, err
	}
	return Target{kind: "agent", name: s}, nil
}

func (t Target) String() string {
	if t.kind == "flow" {
		return flowPrefix + t.name
	}
	if t.kind == "cap" {
		s := capPrefix + t.name
		if t.version != "" {
			s += "@" + t.version
		}
		return s
	}
	return t.name
}

// run is one prompt turn for the target.
func (t Target) run(ctx context.Context, tn *turn, in *promptIn) error {
	switch t.kind {
	case "cap":
		return t.runCapability(ctx, tn, in)
	case "flow":
		return t.runFlow(ctx, tn, in)
	}
	return t.runAgent(ctx, tn, in)
}

// runCapability runs the capability with the prompt as its inputs (a JSON
// object as it is; other text as {"text": …}) in a run whose session is the
// ACP session, and answers each task it waits on through the editor: a
// question with options is a permission request, one without is handed
// back as text, which the session's next prompt answers. The outputs come
// back as one agent message.
func (t Target) runCapability(ctx context.Context, tn *turn, in *promptIn) error {
	var env *e2a.Envelope
	// What a refused answer leaves: a question handed back is asked again
	// (the next prompt may answer it better), a run answered through a
	// permission request is cancelled (nothing would answer it again).
	var askAgain *handedBack
	var waiting string
	if hb := tn.s.pending; hb != nil {
		answer, err := hb.answerOf(in.text)
		if err != nil {
			return err
		}
		tn.s.pending, askAgain = nil, hb
		env = call("capability.decide", map[string]any{"id": hb.runID, "answer": answer}, tn.s)
	} else {
		params := map[string]any{"id": t.name, "inputs": capInputs(in.text), "session_id": tn.s.id}
		if t.version != "" {
			params["version"] = t.version
		}
		env = call("capability.run", params, tn.s)
	}
	for range maxDecisions {
		out, err := tn.call(ctx, env)
		if err != nil {
			if askAgain != nil {
				tn.s.pending = askAgain
			}
			if waiting != "" {
				tn.cancelRun(ctx, waiting)
			}
			return err
		}
		askAgain, waiting = nil, ""
		// What capability.run and capability.decide answer, in the public
		// client's type.
		var r client.CapabilityRun
		if raw, err := json.Marshal(out); err != nil || json.Unmarshal(raw, &r) != nil {
			return fault.New(fault.Internal, "capability %s: the run's result is not one sluice acp reads", t.name)
		}
		switch {
		case r.Status == "waiting" && r.Pending != nil:
			d := decisionOf(r.RunID, r.Pending)
			if d == nil {
				tn.s.pending = &handedBack{runID: r.RunID, expected: r.Pending.Expected}
				return tn.say(ctx, handBackText(r.Pending))
			}
			answer, err := tn.decide(ctx, d)
			if err != nil {
				tn.cancelRun(ctx, r.RunID)
				return err
			}
			env, waiting = call("capability.decide", map[string]any{"id": r.RunID, "answer": answer}, tn.s), r.RunID
		case r.Status == "success" || r.Status == "partial":
			return tn.say(ctx, outputText(r.Outputs))
		default:
			msg := "the run " + r.Status
			if len(r.Errors) > 0 {
				if m, ok := r.Errors[0]["message"].(string); ok {
					msg = m
				}
			}
			return &callError{code: fault.Upstream.String(), message: fmt.Sprintf("capability %s: %s", t.name, msg)}
		}
	}
	tn.cancelRun(ctx, waiting)
	return fault.New(fault.Conflict, "capability %s asked more than %d questions in one turn", t.name, maxDecisions)
}

// capInputs are a capability run's inputs from a prompt's text.
func capInputs(text string) map[string]any {
	var m map[string]any
	if json.Unmarshal([]byte(strings.TrimSpace(text)), &m) == nil && m != nil {
		return m
	}
	return map[string]any{"text": text}
}
