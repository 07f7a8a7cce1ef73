// Package mcptest is an MCP server for tests and benchmarks, made with the
// go-sdk: the same tools in process (streamable HTTP or pipes) and as a child
// process (the test binary run again, see Serve).
package mcptest

import (
	"context"
	"os"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// EnvServe, set to "1" in a test binary's environment, makes ServeIfAsked
// serve the test tools on stdin/stdout and exit.
const EnvServe = "SLUICE_MCPTEST_SERVE"

type textArgs struct {
	Text string `json:"text" jsonschema:"the text"`
}

type addArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type sum struct {
	Sum float64 `json:"sum"`
}

type slowArgs struct {
	Ms int `json:"ms"`
}

type progressArgs struct {
	Steps int `json:"steps"`
	Ms    int `json:"ms,omitempty"` // wait after each notification
}

type envArgs struct {
	Name string `json:"name"`
}

// NewServer returns a server with the test tools:
//
//	echo {text} -> {text}           structured output
//	add {a, b} -> {sum}             structured output, idempotent
//	upper.text {text} -> "TEXT"     one text content; a dot in the name
//	fail {} -> isError "disk full"
//	slow {ms}                        waits ms or until cancelled
//	getenv {name} -> the variable's value as text ("" when unset)
//	progress {steps, ms}             sends steps progress notifications (k of
//	                                 steps, "step k") ms apart, then answers "done"
//	exit {}                          the process exits (child servers only)
//	ask {} -> what eliciting an answer from the client gave (an error's text)
func NewServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "sluice-mcptest", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text back"},
		func(_ context.Context, _ *sdk.CallToolRequest, in textArgs) (*sdk.CallToolResult, textArgs, error) {
			return nil, in, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Add two numbers", Annotations: &sdk.ToolAnnotations{IdempotentHint: true, ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in addArgs) (*sdk.CallToolResult, sum, error) {
			return nil, sum{Sum: in.A + in.B}, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "upper.text", Description: "Upper-case the text"},
		func(_ context.Context, _ *sdk.CallToolRequest, in textArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.ToUpper(in.Text)}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Always fails"},
		func(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "disk full"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "slow", Description: "Wait ms milliseconds"},
		func(ctx context.Context, _ *sdk.CallToolRequest, in slowArgs) (*sdk.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(in.Ms) * time.Millisecond):
			case <-ctx.Done():
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "getenv", Description: "The value of an environment variable"},
		func(_ context.Context, _ *sdk.CallToolRequest, in envArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: os.Getenv(in.Name)}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "progress", Description: "Report progress, then answer"},
		func(ctx context.Context, req *sdk.CallToolRequest, in progressArgs) (*sdk.CallToolResult, any, error) {
			if token := req.Params.GetProgressToken(); token != nil {
				for k := 1; k <= in.Steps; k++ {
					_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token,
						Progress: float64(k), Total: float64(in.Steps), Message: "step " + strconv.Itoa(k)})
					select {
					case <-time.After(time.Duration(in.Ms) * time.Millisecond):
					case <-ctx.Done():
					}
				}
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "ask", Description: "Ask the client's user a question"},
		func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			_, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Proceed?", RequestedSchema: map[string]any{"type": "object"}})
			if err != nil {
				return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: err.Error()}}}, nil, nil
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "answered"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "exit", Description: "Stop the server process"},
		func(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			os.Exit(3)
			return nil, nil, nil
		})
	return s
}

// ServeIfAsked serves NewServer on stdin/stdout and exits when EnvServe is
// "1"; call it first in TestMain so the test binary can be its own MCP
// server command.
func ServeIfAsked() {
	if os.Getenv(EnvServe) != "1" {
		return
	}
	err := NewServer().Run(context.Background(), &sdk.StdioTransport{})
	if err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}
