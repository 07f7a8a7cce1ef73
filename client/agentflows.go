package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// agentWorkflowRunsPath is the REST route of agent workflow runs.
const agentWorkflowRunsPath = "/api/v1/agent-workflows/runs"

// maxRunAnswerBytes bounds one answer about an agent workflow run (every
// step's output included).
const maxRunAnswerBytes = 64 << 20

// StartAgentWorkflowRun starts a multi-step agent workflow (the JSON of
// docs/protocols/agent-workflows.md) with input and returns the new run as
// the server answered it. A refusal is an *Error whose Body is the answer.
func (c *Client) StartAgentWorkflowRun(ctx context.Context, workflow, input json.RawMessage) (json.RawMessage, error) {
	body, err := json.Marshal(map[string]json.RawMessage{"workflow": workflow, "input": input})
	if err != nil {
		return nil, fmt.Errorf("the workflow or input is not JSON: %v", err)
	}
	return c.doRaw(ctx, http.MethodPost, agentWorkflowRunsPath, body)
}

// AgentWorkflowRun reads one agent workflow run: its status, each step's
// state and output.
func (c *Client) AgentWorkflowRun(ctx context.Context, id string) (json.RawMessage, error) {
	return c.doRaw(ctx, http.MethodGet, agentWorkflowRunsPath+"/"+pathEscape(id), nil)
}

// CancelAgentWorkflowRun cancels an agent workflow run that has not ended
// and returns it. account, when not empty, is the run's account (an admin
// key cancelling another account's run).
func (c *Client) CancelAgentWorkflowRun(ctx context.Context, id, account string) (json.RawMessage, error) {
	path := agentWorkflowRunsPath + "/" + pathEscape(id) + "/cancel"
	if account != "" {
		path += "?" + url.Values{"account_id": {account}}.Encode()
	}
	return c.doRaw(ctx, http.MethodPost, path, nil)
}

// doRaw sends body (nil: none) and returns a 2xx answer as it came, at
// most maxRunAnswerBytes; another status is an *Error with Body set.
func (c *Client) doRaw(ctx context.Context, method, path string, body []byte) (json.RawMessage, error) {
	resp, err := c.send(ctx, method, path, body, "application/json")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxRunAnswerBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %v", err)
	}
	if len(raw) > maxRunAnswerBytes {
		return nil, fmt.Errorf("the answer is over %d bytes", maxRunAnswerBytes)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, decodeError(resp, raw)
	}
	return raw, nil
}

// send makes one request with body (nil: none) as JSON, accepting accept,
// with the key; an error is the transport's (a *url.Error).
func (c *Client) send(ctx context.Context, method, path string, body []byte, accept string) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", accept)
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	return c.http.Do(req)
}
