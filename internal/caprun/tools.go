package caprun

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/capability"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/tools"
	"github.com/sluicehq/sluice/protocol/a2s"
)

// Session tools (RESOLUTIONS: cap.<namespace>/<id>): each published
// capability the account may run, and capability.decide to answer a run that
// waits. A capability tool's arguments are its inputs, with two names
// reserved unless the capability declares an input of that name:
// credentials ({host: {field: vault id}}) and version (a constraint).
const (
	ToolPrefix = "cap."
	ToolDecide = "capability.decide"
)

// Tools is the capability provider of the session tool box.
func (s *Service) Tools() tools.Provider { return toolProvider{s} }

type toolProvider struct{ s *Service }

func (t toolProvider) Handles(name string) bool {
	return strings.HasPrefix(name, ToolPrefix) || name == ToolDecide
}

func (t toolProvider) List(ctx context.Context, p *account.Principal) ([]tools.Tool, error) {
	pubs, err := t.s.cfg.Registry.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]tools.Tool, 0, len(pubs)+1)
	for _, pub := range pubs {
		if t.s.allowed(p, pub) != nil {
			continue
		}
		out = append(out, capabilityTool(pub))
	}
	if len(out) > 0 {
		out = append(out, tools.Tool{Name: ToolDecide, Title: "Answer a capability run", Tags: []string{"capability"}, Version: "1.0",
			Description: "Answer the task a capability run waits for (its pending prompt or decision); the run goes on and its outcome is the answer.",
			Input:       json.RawMessage(`{"type":"object","required":["run_id","answer"],"properties":{"run_id":{"type":"string"},"answer":{"description":"matching the run's pending.expected_output"}}}`)})
	}
	return out, nil
}

func capabilityTool(pub *Published) tools.Tool {
	doc := pub.Doc
	props := map[string]any{}
	for _, in := range doc.Inputs {
		props[in.Name] = capability.ParamSchema(in)
	}
	if _, taken := props["credentials"]; !taken {
		props["credentials"] = map[string]any{"type": "object", "description": "vault credential ids per service host and field"}
	}
	if _, taken := props["version"]; !taken {
		props["version"] = map[string]any{"type": "string", "description": "npm-style version constraint (default: the latest)"}
	}
	outs := map[string]any{}
	for _, o := range doc.Outputs {
		outs[o.Name] = capability.ParamSchema(o)
	}
	in, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
	out, _ := json.Marshal(map[string]any{"type": "object", "properties": outs})
	desc := strings.TrimSpace(doc.Description.Value)
	if doc.Name.Value != "" {
		desc = doc.Name.Value + ": " + desc
	}
	return tools.Tool{Name: ToolPrefix + pub.Namespace + "/" + pub.ID, Title: doc.Name.Value, Description: desc, Input: in, Output: out,
		Tags: []string{"capability", doc.Type.Value}, Version: pub.Version, Effects: capabilityEffects(doc)}
}

func (t toolProvider) Call(ctx context.Context, p *account.Principal, name string, args map[string]any, _ func(tools.Event)) (*tools.Result, error) {
	var r *capability.Result
	var err error
	if name == ToolDecide {
		runID, _ := args["run_id"].(string)
		answer, present := args["answer"]
		if runID == "" || !present {
			return nil, fault.New(fault.Invalid, "arguments: run_id and answer are required").WithDetail("path", "arguments")
		}
		raw, _ := json.Marshal(answer)
		r, err = t.s.Decide(ctx, p, runID, raw)
	} else {
		req, rerr := t.request(ctx, strings.TrimPrefix(name, ToolPrefix), args)
		if rerr != nil {
			return nil, rerr
		}
		r, err = t.s.Run(ctx, p, req)
		if fe, ok := fault.As(err); ok && fe.Kind == fault.NotFound {
			return nil, tools.UnknownTool(name)
		}
	}
	if err != nil {
		return nil, err
	}
	res := &tools.Result{Data: r, DurationMs: r.DurationMs}
	switch r.Status {
	case engine.StatusSuccess:
		res.Success, res.Summary = true, "run "+r.RunID+" succeeded"
	case engine.StatusWaiting:
		res.Success = true
		res.Summary = "run " + r.RunID + " waits for an answer"
		if r.Pending != nil {
			res.Summary = fmt.Sprintf("run %s waits for an answer to task %s (answer with %s)", r.RunID, r.Pending.Task, ToolDecide)
		}
	default:
		res.Summary, res.ErrorCode = "run "+r.RunID+" "+string(r.Status), fault.Upstream.Row().ToolCode
		if len(r.Errors) > 0 {
			res.Error = r.Errors[0].Message
		}
	}
	return res, nil
}

// request splits a tool call's arguments into the run's inputs and its
// reserved credentials and version.
func (t toolProvider) request(ctx context.Context, ref string, args map[string]any) (Request, error) {
	req := Request{Ref: ref, Inputs: map[string]any{}}
	declared := func(string) bool { return false }
	ns, id := SplitRef(ref)
	if pub, err := t.s.cfg.Registry.Resolve(ctx, ns, id, ""); err == nil {
		declared = func(n string) bool {
			for _, in := range pub.Doc.Inputs {
				if in.Name == n {
					return true
				}
			}
			return false
		}
	}
	for k, v := range args {
		switch {
		case k == "credentials" && !declared(k):
			m, _ := v.(map[string]any)
			creds := map[string]map[string]string{}
			for host, fields := range m {
				f, ok := fields.(map[string]any)
				if !ok {
					return req, fault.New(fault.Invalid, "arguments.credentials.%s must be an object of field: vault id", host)
				}
				creds[host] = map[string]string{}
				for field, vid := range f {
					s, ok := vid.(string)
					if !ok {
						return req, fault.New(fault.Invalid, "arguments.credentials.%s.%s must be a vault credential id", host, field)
					}
					creds[host][field] = s
				}
			}
			req.Credentials = creds
		case k == "version" && !declared(k):
			req.Version, _ = v.(string)
		default:
			req.Inputs[k] = v
		}
	}
	return req, nil
}

// capabilityEffects are a capability's hints for hosts: read-only when every
// request it declares is a GET (or HEAD) and it imports nothing that could
// do more; open-world when it calls any service.
func capabilityEffects(doc *a2s.Document) tools.Effects {
	readOnly := len(doc.Requests) > 0 && len(doc.Dependencies) == 0
	for _, r := range doc.Requests {
		if m := r.Method.Value; m != "get" && m != "head" {
			readOnly = false
		}
	}
	return tools.Effects{ReadOnly: readOnly, Destructive: !readOnly,
		OpenWorld: len(doc.Requests) > 0 || len(doc.Services) > 0 || len(doc.Dependencies) > 0}
}
