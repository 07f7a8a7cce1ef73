package op

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"maps"
	"time"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/a2e"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// InvokeAgentOp sends one task to a registered HTTP task agent.
var InvokeAgentOp = Registration{
	Spec: Spec{
		Name:    a2e.OpInvokeAgent,
		Summary: "Send a task to a registered HTTP task agent and store its output",
		Description: "Sends input (an object, default {}) as the task's input_data to the registered agent named " +
			"agent and writes the agent's output_data to outputPath. The account needs the agent in its agents " +
			"grant. Strings in input may hold {/workflow/...} and {/input/...} references (a string that is " +
			"exactly one reference takes the value as it is), and input may itself be one reference to an object; " +
			"credentialRef is not allowed, the agent's credentials live in the registry. taskId is the task's " +
			"idempotency key, sent on every attempt; by default it is derived from the account, execution, " +
			"operation and input, so a resumed execution sends the same id again. The agent invoker alone " +
			"retries, by the registry's retry_config: the operation takes no retry and the engine never " +
			"repeats it. timeout (ms) bounds the whole call, retries included; without it only the " +
			"execution's budget does. The agent's failures (not registered, an error answer, a timeout) fail " +
			"the operation with the agent's message. An A2A agent's progress (status messages, artifact updates) is " +
			"streamed as the execution's chunk frames; when its task asks for input the execution waits with the " +
			"agent's question, and the run's answer is sent as the next message of the same remote task.",
		SideEffects: true,
		Remote:      true,
		MetersData:  true,
		// Longer than any allowed timeout, so only the execution budget cuts a
		// call: each HTTP attempt already has the registry's timeout, and the
		// engine's 30 s default would cut off the invoker's retries.
		DefaultTimeout: 601 * time.Second,
		Example: `{"type":"operationUpdate","operationId":"summarize","operation":{"InvokeAgent":{"agent":"summarizer","input":{"text":"{/input/text}","maxWords":50},"outputPath":"/workflow/summary"}}}
{"type":"beginExecution","executionId":"invokeagent-example","operationOrder":["summarize"]}
`,
	},
	New: newInvokeAgent,
}

const invokeBase = "operation.InvokeAgent"

type invokeAgent struct {
	agent  string
	input  *bodyNode     // nil: {}
	taskID *textTemplate // nil: derived
	output a2e.Path
	reads  []a2e.Path
	d      *Deps
}

func newInvokeAgent(raw json.RawMessage, d *Deps) (Operation, error) {
	if err := refuseEngineFields(raw); err != nil {
		return nil, err
	}
	var cfg a2e.InvokeAgent
	if err := decodeStrict(raw, &cfg, a2e.OpInvokeAgent); err != nil {
		return nil, err
	}
	if err := validateCommon(a2e.Common{Timeout: cfg.Timeout}, invokeBase); err != nil {
		return nil, err
	}
	if err := agenthttp.CheckName("InvokeAgent", cfg.Agent); err != nil {
		return nil, invalidConfig(invokeBase+".agent", "%s %q is not an agent name: use 1 to %d letters, digits, '_' and '-', starting with a letter or digit",
			invokeBase+".agent", clipText(cfg.Agent), agenthttp.MaxNameBytes).
			WithSuggestions("Give the name the agent was registered under")
	}
	// The name is literal, so the grant is checked before anything runs (as
	// ApiCall's literal host is); Run checks again.
	if !d.Permissions.AllowsAgent(cfg.Agent) {
		return nil, agentDenied(cfg.Agent).At(0, invokeBase+".agent")
	}
	a := &invokeAgent{agent: cfg.Agent, d: d}
	var err error
	if a.input, err = parseAgentInput(cfg.Input); err != nil {
		return nil, err
	}
	if cfg.TaskID != "" {
		if len(cfg.TaskID) > agenthttp.MaxTaskIDBytes {
			return nil, invalidConfig(invokeBase+".taskId", "%s is over %d bytes", invokeBase+".taskId", agenthttp.MaxTaskIDBytes)
		}
		t, err := parseTextTemplate(cfg.TaskID, invokeBase+".taskId")
		if err != nil {
			return nil, err
		}
		if lit, ok := t.literal(); ok {
			if err := agenthttp.CheckTaskID("InvokeAgent", "taskId", lit); err != nil {
				return nil, invalidConfig(invokeBase+".taskId", "%s must be printable text without control characters", invokeBase+".taskId")
			}
		}
		a.taskID = &t
		a.reads = append(a.reads, t.refs()...)
	}
	if a.output, err = parseOutputPath(cfg.OutputPath, invokeBase+".outputPath"); err != nil {
		return nil, err
	}
	return a, nil
}

// refuseEngineFields explains the common fields InvokeAgent does not take,
// where the strict decoder would only say "unknown field".
func refuseEngineFields(raw json.RawMessage) error {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return nil // the strict decoder reports it
	}
	if _, ok := top["retry"]; ok {
		return invalidConfig(invokeBase+".retry", "%s.retry: InvokeAgent takes no retry; the agent invoker retries by the agent's registry retry_config, and the engine adds no retry on top", invokeBase).
			WithSuggestions("Remove retry; change the agent's retry_config in the registry instead")
	}
	if _, ok := top["cache"]; ok {
		return invalidConfig(invokeBase+".cache", "%s.cache: an agent's answer is never cached", invokeBase).
			WithSuggestions("Remove cache")
	}
	return nil
}

// parseAgentInput builds the input template: an object (its strings may be
// references), or one whole reference to an object. Absent or null is {}.
func parseAgentInput(raw json.RawMessage) (*bodyNode, error) {
	const at = invokeBase + ".input"
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil, nil
	}
	n, err := parseBody(t, at)
	if err != nil {
		return nil, err
	}
	switch {
	case n.kind == bodyObject, n.kind == bodyWhole:
	case n.kind == bodyLiteral && n.raw[0] == '{':
	default:
		return nil, invalidConfig(at, "%s must be a JSON object, or a string that is exactly one reference to an object such as \"{/workflow/task}\"", at).
			WithSuggestions(`Write "input": {"text": "{/input/text}"}`)
	}
	var cred bool
	n.visit(func(c *bodyNode) { cred = cred || c.kind == bodyCred })
	if cred {
		return nil, invalidConfig(at, "%s holds a credentialRef; secrets are never sent to an agent as input", at).
			WithSuggestions("The agent's own credentials are kept in its registry entry (auth_config)")
	}
	return n, nil
}

// Reads is what the input and the task id read.
func (a *invokeAgent) Reads() []a2e.Path {
	out := append([]a2e.Path(nil), a.reads...)
	if a.input != nil {
		a.input.visit(func(n *bodyNode) {
			switch n.kind {
			case bodyWhole:
				out = append(out, n.ref)
			case bodyText:
				out = append(out, n.text.refs()...)
			}
		})
	}
	return out
}

// Writes is the outputPath.
func (a *invokeAgent) Writes() (a2e.Path, bool) { return a.output, true }

// Run sends the task and returns the agent's output. Its errors are never
// Retryable: the invoker has already retried as the registry says.
func (a *invokeAgent) Run(ctx context.Context, rc *RunContext) (any, error) {
	if !a.d.Permissions.AllowsAgent(a.agent) {
		return nil, agentDenied(a.agent).WithOp(rc.OperationID)
	}
	if a.d.Agents == nil {
		return nil, fault.Typed(fault.Unavailable, fault.ExecutionError, "calling agents is not configured on this server (agent %q)", a.agent).
			WithDetail("agent", a.agent).WithOp(rc.OperationID).
			WithSuggestions("Run the workflow on a sluice server that has the agent registered")
	}
	input, err := a.renderInput(rc.Data)
	if err != nil {
		return nil, withOpID(err, rc.OperationID)
	}
	taskID, err := a.renderTaskID(rc, input)
	if err != nil {
		return nil, withOpID(err, rc.OperationID)
	}
	// An A2A agent's updates become the step's progress; a remote task
	// that waits for input makes the step wait for the run's answer, which
	// goes on with that task.
	ctx, input, taskID, err = PrepareAgentStep(ctx, rc, input, taskID)
	if err != nil {
		return nil, err
	}
	// The execution id correlates every attempt of every agent step of one
	// execution in the agent's logs and ours.
	out, err := a.d.Agents.Invoke(ctx, a.agent, taskID, input, rc.ExecutionID)
	if err != nil {
		if waits, ok := AgentStepWaits(rc, err); ok {
			return nil, waits
		}
		return nil, a.agentFault(err, rc.OperationID)
	}
	t := bytes.TrimSpace(out)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil, nil
	}
	// The output's length is known before it is decoded: charged first.
	if err := rc.Budget.Charge(rc.OperationID, int64(len(t))); err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(t, &v); err != nil {
		return nil, fault.Typed(fault.Upstream, fault.ExecutionError, "agent %q answered with output that is not JSON", a.agent).
			WithDetail("agent", a.agent).WithOp(rc.OperationID).WithCause(err)
	}
	if err := chargeDecoded(rc, v, int64(len(t))); err != nil {
		return nil, err
	}
	return v, nil
}

// renderInput renders the task's input_data, which must be an object.
func (a *invokeAgent) renderInput(data Data) (json.RawMessage, error) {
	if a.input == nil {
		return json.RawMessage("{}"), nil
	}
	if a.input.kind == bodyWhole {
		v, err := data.Get(a.input.ref)
		if err != nil {
			return nil, err
		}
		if _, ok := v.(map[string]any); !ok {
			return nil, dataError(a.input.ref, "%s is %s; the input of agent %q must be an object", a.input.ref, datamodel.KindOf(v), a.agent).
				WithSuggestions(`Wrap the value in an object: "input": {"value": "` + "{" + a.input.ref.String() + "}" + `"}`)
		}
	}
	var b bytes.Buffer
	if err := a.input.write(&b, data, nil, false); err != nil {
		return nil, err
	}
	if b.Len() > agenthttp.DefaultMaxRequestBytes {
		return nil, fault.Typed(fault.Invalid, fault.DataError, "the input of agent %q is %d bytes, over the limit of %d", a.agent, b.Len(), agenthttp.DefaultMaxRequestBytes).
			WithDetail("agent", a.agent)
	}
	return b.Bytes(), nil
}

// renderTaskID is the configured key, or one derived from what identifies this
// call: the account, the execution, the operation and the input. A resumed
// execution derives the same id, so an agent that keeps task ids sees the
// retry of the same task; each iteration of a Loop over different items
// derives its own. The account keeps ids of different accounts apart.
func (a *invokeAgent) renderTaskID(rc *RunContext, input json.RawMessage) (string, error) {
	if a.taskID != nil {
		id, err := a.taskID.render(rc.Data)
		if err != nil {
			return "", err
		}
		if err := agenthttp.CheckTaskID("InvokeAgent", "taskId", id); err != nil {
			return "", fault.Typed(fault.Invalid, fault.DataError, "the taskId of agent %q is empty, over %d bytes or holds control characters once rendered", a.agent, agenthttp.MaxTaskIDBytes).
				WithDetail("agent", a.agent)
		}
		return id, nil
	}
	return DerivedTaskID(rc.Account, rc.ExecutionID, rc.OperationID, input), nil
}

// DerivedTaskID is InvokeAgent's default task id: "sluice-" and 32 hex
// digits of a SHA-256 over the length-framed parts, so no two different
// calls share one by concatenation.
func DerivedTaskID(account, executionID, operationID string, input []byte) string {
	h := sha256.New()
	var n [8]byte
	for _, p := range [][]byte{[]byte(account), []byte(executionID), []byte(operationID), input} {
		binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write(p)
	}
	return "sluice-" + hex.EncodeToString(h.Sum(nil)[:16])
}

// agentFault passes the agent's failure on with its kind and message, naming
// the operation and the agent, and never Retryable.
func (a *invokeAgent) agentFault(err error, opID string) error {
	fe, ok := fault.As(err)
	if !ok {
		// A foreign error's text may hold anything: it stays internal.
		return fault.Typed(fault.Internal, fault.ExecutionError, "calling agent %q failed with an internal error", a.agent).
			WithDetail("agent", a.agent).WithOp(opID).WithCause(err)
	}
	c := *fe
	c.Details = maps.Clone(fe.Details)
	c.Retryable = false
	if c.OperationID == "" {
		c.OperationID = opID
	}
	if _, ok := c.Details["agent"]; !ok {
		c.WithDetail("agent", a.agent)
	}
	return &c
}

func agentDenied(name string) *fault.Error {
	return fault.Typed(fault.PermissionDenied, fault.PermissionError, "agent %q is not permitted for this account", name).
		WithDetail("agent", name).
		WithSuggestions("Use an agent this account is granted (agents in its permissions), or ask an administrator to grant " + name)
}

// clipText bounds text quoted back in a message.
func clipText(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}
