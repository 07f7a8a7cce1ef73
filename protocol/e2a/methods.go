package e2a

import (
	"fmt"
	"maps"
	"strings"
)

// Gateway methods: the RPC names of sluice's own services (§2's "Gateway ->
// AgentServer" column) that RESOLUTIONS names. Every ingress becomes one of
// them. sluice's gateway declares each method it serves, with its params,
// in its method table (internal/gateway/table.go), which a test holds these
// lists to.
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
