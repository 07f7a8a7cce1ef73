package capability

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/a2s"
)

// Result is a run's outcome.
type Result struct {
	RunID      string         `json:"run_id"`
	Status     engine.Status  `json:"status"`
	Outputs    map[string]any `json:"outputs"`
	Tasks      map[string]any `json:"tasks"` // each task that ran: its outputs
	Errors     []fault.Object `json:"errors"`
	Pending    *Pending       `json:"pending,omitempty"`
	DurationMs int64          `json:"duration_ms"`
}

// RunOptions describe one run.
type RunOptions struct {
	RunID     string
	Account   string
	SessionID string
	Inputs    map[string]any
	MaxTime   time.Duration
	// MaxDataBytes is the run's data budget (the account's
	// limits.max_data_bytes); 0: the engine's.
	MaxDataBytes int64
	OnEvent      func(engine.Event)
}

// secretFields are input names that hold secrets: they are refused as
// capability inputs (RESOLUTIONS), whose place is the run's credentials.
var secretFields = []string{"services", "client_secret", "access_token", "refresh_token", "api_key", "password", "token"}

// CheckInputs refuses secrets given as inputs, inputs the capability does
// not declare, and declared inputs that do not match their schema.
func (c *Compiled) CheckInputs(inputs map[string]any) error {
	for name, v := range inputs {
		if slices.Contains(secretFields, name) {
			return fault.Typed(fault.Invalid, fault.ValidationError,
				"inputs.%s: secret values are never capability inputs; name vault credentials per service in credentials", name).
				WithDetail("field", "inputs."+name).
				WithSuggestions(`Store the secret with sluice vault and pass {"credentials": {"<service host>": {"<field>": "<vault id>"}}}`)
		}
		p := findInput(c, name)
		if p == nil {
			return fault.Typed(fault.Invalid, fault.ValidationError, "inputs.%s: the capability %s has no such input", name, c.Doc.ID.Value).
				WithDetail("field", "inputs."+name)
		}
		schema := paramSchema(p)
		if len(schema) == 0 {
			continue
		}
		if err := checkAnswer(schema, v); err != nil {
			return fault.Typed(fault.Invalid, fault.ValidationError, "inputs.%s %v", name, err).WithDetail("field", "inputs."+name)
		}
	}
	return nil
}

func findInput(c *Compiled, name string) *a2s.Param {
	for _, p := range c.Doc.Inputs {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Run runs a compiled capability from the start.
func Run(ctx context.Context, e *engine.Engine, c *Compiled, o RunOptions) *Result {
	inputs := o.Inputs
	if inputs == nil {
		inputs = map[string]any{}
	}
	res := e.Run(ctx, c.Plan, engine.RunOptions{ExecutionID: o.RunID, Account: o.Account, SessionID: o.SessionID,
		Input: inputs, MaxExecutionTime: o.MaxTime, MaxDataBytes: o.MaxDataBytes, OnEvent: o.OnEvent})
	return c.Result(res, inputs)
}

// Resume goes on with a run from its checkpoint; answer is the agent's answer
// to the task the run waits for (nil when it does not wait).
func Resume(ctx context.Context, e *engine.Engine, c *Compiled, cp *engine.Checkpoint, answer json.RawMessage, o RunOptions) *Result {
	res := e.Resume(ctx, c.Plan, cp, engine.ResumeOptions{Answer: answer, MaxExecutionTime: o.MaxTime, MaxDataBytes: o.MaxDataBytes, OnEvent: o.OnEvent})
	inputs, _ := cp.Input.(map[string]any)
	return c.Result(res, inputs)
}

// Result is the run's outcome of the engine's res, for a run whose inputs were inputs.
func (c *Compiled) Result(res *engine.Result, inputs map[string]any) *Result {
	r := &Result{RunID: res.ExecutionID, Status: res.Status, Tasks: map[string]any{}, Errors: res.Errors, DurationMs: res.DurationMs}
	if r.Errors == nil {
		r.Errors = []fault.Object{}
	}
	for _, t := range c.Doc.Tasks {
		if v, ok := res.Results[t.ID.Value]; ok {
			r.Tasks[t.ID.Value] = v
		}
	}
	r.Outputs = c.Outputs(inputs, res.Results)
	if res.Waiting != nil {
		if p, ok := res.Waiting.Request.(*Pending); ok {
			r.Pending = p
		} else if res.Waiting.Request != nil {
			// After a restart the request comes back from the checkpoint as JSON.
			var p Pending
			if b, err := json.Marshal(res.Waiting.Request); err == nil && json.Unmarshal(b, &p) == nil {
				r.Pending = &p
			}
		}
	}
	return r
}

// CheckAnswer validates an answer to a pending task before the run resumes,
// so a wrong answer is refused and the run keeps waiting.
func CheckAnswer(p *Pending, answer json.RawMessage) error {
	var v any
	if err := json.Unmarshal(answer, &v); err != nil {
		return fault.Typed(fault.Invalid, fault.ValidationError, "answer: not JSON: %v", err).WithDetail("field", "answer")
	}
	if err := checkAnswer(p.Expected, v); err != nil {
		return fault.Typed(fault.Invalid, fault.ValidationError, "answer to task %q %v", p.Task, err).WithDetail("field", "answer")
	}
	return nil
}
