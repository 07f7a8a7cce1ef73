package client

import (
	"context"
	"encoding/json"
)

// CapabilityRun is the outcome of an A2S capability run.
type CapabilityRun struct {
	RunID      string           `json:"run_id"`
	Status     string           `json:"status"`
	Outputs    map[string]any   `json:"outputs"`
	Tasks      map[string]any   `json:"tasks"`
	Errors     []map[string]any `json:"errors"`
	Pending    *Pending         `json:"pending,omitempty"`
	DurationMs int64            `json:"duration_ms"`
}

// Pending is what a waiting run asks of the agent.
type Pending struct {
	Task     string         `json:"task"`
	Type     string         `json:"type"`
	Prompt   string         `json:"prompt,omitempty"`
	Inputs   map[string]any `json:"inputs"`
	Expected map[string]any `json:"expected_output"`
}

// RunCapabilityOptions are the optional parts of a run.
type RunCapabilityOptions struct {
	Version     string                       // npm-style constraint
	Credentials map[string]map[string]string // host -> field -> vault id
}

// RunCapability runs the published capability NS/ID with inputs.
func (c *Client) RunCapability(ctx context.Context, ref string, inputs map[string]any, o RunCapabilityOptions) (*CapabilityRun, error) {
	body := map[string]any{"id": ref, "inputs": inputs}
	if o.Version != "" {
		body["version"] = o.Version
	}
	if o.Credentials != nil {
		body["credentials"] = o.Credentials
	}
	var r CapabilityRun
	return &r, c.Do(ctx, "POST", "/api/v1/a2s/runs", body, &r)
}

// Decide answers the task a run waits for; the run goes on.
func (c *Client) Decide(ctx context.Context, runID string, answer json.RawMessage) (*CapabilityRun, error) {
	var r CapabilityRun
	return &r, c.Do(ctx, "POST", "/api/v1/a2s/runs/"+pathEscape(runID)+"/decisions", map[string]any{"answer": answer}, &r)
}
