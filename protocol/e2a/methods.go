package e2a

import (
	"fmt"
	"maps"
	"math"
	"strings"
)

// Gateway methods: the RPC names of sluice's own services (§2's "Gateway ->
// AgentServer" column). Every ingress becomes one of them.
const (
	MethodWorkflowValidate = "workflow.validate"
	MethodWorkflowExecute  = "workflow.execute"
	MethodExecutionGet     = "execution.get"
	MethodCapabilitySearch = "capability.search"
	MethodCapabilityRun    = "capability.run"
	MethodToolList         = "tool.list"
	MethodToolCall         = "tool.call"
	MethodAgentInvoke      = "agent.invoke"

	// Beyond the public eight (RESOLUTIONS "Calls, results and status words").
	MethodExecutionList    = "execution.list"
	MethodExecutionCancel  = "execution.cancel"
	MethodExecutionEvents  = "execution.events"
	MethodCapabilityDecide = "capability.decide"
	methodAdminPrefix      = "admin."
)

// PublicMethods are the eight gateway methods of the public E2A surface.
var PublicMethods = []string{
	MethodWorkflowValidate, MethodWorkflowExecute, MethodExecutionGet,
	MethodCapabilitySearch, MethodCapabilityRun, MethodToolList, MethodToolCall,
	MethodAgentInvoke,
}

// GatewayMethods are all fixed gateway methods; admin.<resource>.<verb> names
// are gateway methods too (IsGatewayMethod).
var GatewayMethods = append(append([]string(nil), PublicMethods...),
	MethodExecutionList, MethodExecutionCancel, MethodExecutionEvents, MethodCapabilityDecide)

// IsGatewayMethod reports whether m is a gateway method: one of GatewayMethods
// or admin.<resource>.<verb> with two non-empty parts.
func IsGatewayMethod(m string) bool {
	if contains(GatewayMethods, m) {
		return true
	}
	rest, ok := strings.CutPrefix(m, methodAdminPrefix)
	if !ok {
		return false
	}
	res, verb, ok := strings.Cut(rest, ".")
	return ok && res != "" && verb != "" && !strings.Contains(verb, ".")
}

// paramKind is what a gateway method's parameter must hold.
type paramKind int

const (
	pString paramKind = iota
	pObject
	pBool
	pPositiveInt
	pWorkflow // a JSONL string or an array of message objects
	pAny
)

type paramSpec struct {
	name     string
	kind     paramKind
	required bool
}

// methodParams pins each public method's params (RESOLUTIONS "Our gateway's own
// methods"). Keys outside the list are errors, so a typo is caught at the edge.
var methodParams = map[string][]paramSpec{
	MethodWorkflowValidate: {{"workflow", pWorkflow, true}},
	MethodWorkflowExecute:  {{"workflow", pWorkflow, true}, {"input", pObject, false}, {"async", pBool, false}, {"validate", pBool, false}},
	MethodExecutionGet:     {{"execution_id", pString, true}},
	MethodCapabilitySearch: {{"query", pString, true}, {"top_k", pPositiveInt, false}},
	MethodCapabilityRun:    {{"id", pString, true}, {"version", pString, false}, {"inputs", pObject, true}},
	MethodToolList:         {{"query", pString, false}, {"filter_kind", pString, false}},
	MethodToolCall:         {{"tool_name", pString, true}, {"arguments", pObject, true}},
	MethodAgentInvoke:      {{"agent", pString, true}, {"input", pAny, true}, {"task_id", pString, false}},
}

// CheckParams checks params against a public gateway method's parameter list:
// required keys present, every key known, every value of its type. Methods
// outside PublicMethods are not checked here (nil). Errors name
// "params.<key>".
func CheckParams(method string, params map[string]any) error {
	specs, ok := methodParams[method]
	if !ok {
		return nil
	}
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.name
		v, present := params[s.name]
		if !present || v == nil {
			if s.required {
				return &Error{Path: "params." + s.name, Message: fmt.Sprintf("is required for %s", method)}
			}
			continue
		}
		if msg := checkParam(s.kind, v); msg != "" {
			return &Error{Path: "params." + s.name, Message: msg}
		}
	}
	for k := range params {
		if !contains(names, k) {
			return &Error{Path: joinPath("params", k), Message: fmt.Sprintf("is not a parameter of %s (it takes %s)", method, joinList(names)),
				Suggestions: didYouMean(k, names)}
		}
	}
	return nil
}

func checkParam(kind paramKind, v any) string {
	switch kind {
	case pString:
		if s, ok := v.(string); !ok || s == "" {
			return "must be a non-empty string"
		}
	case pObject:
		if _, ok := v.(map[string]any); !ok {
			return "must be an object"
		}
	case pBool:
		if _, ok := v.(bool); !ok {
			return "must be true or false"
		}
	case pPositiveInt:
		if f, ok := v.(float64); !ok || f < 1 || f != math.Trunc(f) {
			return "must be a positive integer"
		}
	case pWorkflow:
		switch w := v.(type) {
		case string:
			if strings.TrimSpace(w) == "" {
				return "must not be empty"
			}
		case []any:
			for _, m := range w {
				if _, ok := m.(map[string]any); !ok {
					return "must be a JSONL string or an array of message objects"
				}
			}
		default:
			return "must be a JSONL string or an array of message objects"
		}
	}
	return ""
}

// ToAgentInvoke maps an ACP session/prompt or an A2A SendMessage envelope (both
// arrive with method session/prompt; provenance tells them apart) onto the
// gateway's agent.invoke, for the agent the ingress route names:
//
//   - from ACP: input is MergeParamsToACPPrompt's params (prompt, sessionId,
//     _meta) — the agent receives the prompt whatever field the client used;
//   - from A2A: input is {message, configuration}, task_id the envelope's
//     task_id when set.
//
// The result is a new envelope with method agent.invoke and params {agent,
// input, task_id?}; every other field is kept, and provenance.details records
// mapped_from_method. Any other method is an error: only these two map.
func ToAgentInvoke(e *Envelope, agent string) (*Envelope, error) {
	if agent == "" {
		return nil, &Error{Path: "params.agent", Message: "the agent to invoke is required"}
	}
	if e.Method != ACPSessionPrompt {
		return nil, &Error{Path: "method", Message: fmt.Sprintf("%q does not map onto agent.invoke; only ACP session/prompt and A2A SendMessage do", e.Method)}
	}
	params := map[string]any{"agent": agent}
	switch e.Provenance.SourceProtocol {
	case SourceA2A:
		params["input"] = map[string]any{"message": e.Params["message"], "configuration": orEmpty(asObject(e.Params["configuration"]))}
		if e.TaskID != "" {
			params["task_id"] = e.TaskID
		}
	default:
		input, err := MergeParamsToACPPrompt(e)
		if err != nil {
			return nil, err
		}
		if _, ok := input["prompt"]; !ok {
			return nil, &Error{Path: "params.prompt", Message: "session/prompt has no prompt, content_blocks, text, content or query"}
		}
		params["input"] = input
	}
	out := *e
	out.Method = MethodAgentInvoke
	out.Params = params
	out.Provenance.Details = maps.Clone(e.Provenance.Details)
	if out.Provenance.Details == nil {
		out.Provenance.Details = map[string]any{}
	}
	out.Provenance.Details["mapped_from_method"] = e.Method
	return &out, nil
}

func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
