package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientFor is the SDK client of one connection. It advertises no client
// capability, because it serves none: no roots (sluice has no workspace to
// offer), no sampling, no elicitation (an agent behind sluice cannot be
// asked a question mid-call; the SDK refuses such a request at once with
// "client does not support elicitation", and a tool that needs it fails
// with that message instead of waiting).
func clientFor(c *conn) *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: "sluice", Version: "1"}, &sdk.ClientOptions{
		Capabilities:                &sdk.ClientCapabilities{},
		ProgressNotificationHandler: c.progress.handle,
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			c.toolsMu.Lock()
			c.toolsAt = time.Time{} // listed again at the next use
			c.toolsMu.Unlock()
		},
	})
}

// taskTools are the tools a server lists as needing MCP tasks
// (2025-11-25: execution.taskSupport "required"), which this client does not
// run: a call to one fails at once saying so. The SDK's Tool type drops the
// field, so the wire taps hand tools/list answers here.
type taskTools struct {
	mu    sync.Mutex
	names map[string]bool
}

// sawResult looks at a result read off the wire for a tools list naming
// tools that require tasks.
func (t *taskTools) sawResult(result []byte) {
	if !bytes.Contains(result, []byte("taskSupport")) {
		return
	}
	var r struct {
		Tools []struct {
			Name      string `json:"name"`
			Execution struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &r) != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.names == nil {
		t.names = map[string]bool{}
	}
	for _, tool := range r.Tools {
		if len(t.names) < maxTools || t.names[tool.Name] {
			t.names[tool.Name] = tool.Execution.TaskSupport == "required"
		}
	}
}

// sawMessage looks at a message read off the wire (one JSON-RPC message).
func (t *taskTools) sawMessage(msg []byte) {
	if !bytes.Contains(msg, []byte("taskSupport")) {
		return
	}
	var m struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(msg, &m) == nil && len(m.Result) > 0 {
		t.sawResult(m.Result)
	}
}

func (t *taskTools) required(name string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.names[name]
}
