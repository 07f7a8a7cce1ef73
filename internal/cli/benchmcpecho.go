package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// The mcpecho scenario of `bench http` is issue 27's baseline for a session
// tool call: a go-sdk MCP server over stdio whose one tool, echo, gives back
// its text. The generator spawns it (this binary, `bench mcp-echo`) as a
// host spawns a stdio server and calls it with the go-sdk client over one
// session: --clients calls in flight on it, as a host would send them.
const scenarioMCPEcho = "mcpecho"

// newBenchMCPEchoCmd serves the baseline on stdin/stdout.
func newBenchMCPEchoCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "mcp-echo",
		Short:  "Serve a go-sdk MCP echo tool over stdio (the baseline of bench http's mcpecho scenario)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return echoServer().Run(cmd.Context(), &mcp.StdioTransport{})
		},
	}
}

// echoServer is the baseline: one tool, echo, and nothing around it.
func echoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "sluice-bench-echo", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "gives back its text"},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, echoArgs, error) {
			return nil, in, nil
		})
	return s
}

// spawnEcho is the baseline as a host runs it: this binary's `bench
// mcp-echo` in a child process over its stdin and stdout.
func spawnEcho() (mcp.Transport, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "bench", "mcp-echo")
	cmd.Stderr = os.Stderr
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil
}

type echoArgs struct {
	Text string `json:"text"`
}

// benchMCPEcho is the client side: one session, opened on the first call
// over the transport connect gives.
type benchMCPEcho struct {
	connect func() (mcp.Transport, error)
	once    sync.Once
	cs      *mcp.ClientSession
	err     error
}

func (b *benchMCPEcho) call(ctx context.Context, _, _ int) error {
	b.once.Do(func() {
		tr, err := b.connect()
		if err != nil {
			b.err = err
			return
		}
		c := mcp.NewClient(&mcp.Implementation{Name: "sluice-bench", Version: "1"}, nil)
		// Not bound to one call's context: the session lives across rounds.
		b.cs, b.err = c.Connect(context.WithoutCancel(ctx), tr, nil)
	})
	if b.err != nil {
		return fmt.Errorf("mcpecho: %v", b.err)
	}
	r, err := b.cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"ping"}`)})
	if err != nil {
		return err
	}
	if r.IsError {
		return fmt.Errorf("mcpecho: the tool failed")
	}
	return nil
}

func (b *benchMCPEcho) close() {
	if b.cs != nil {
		_ = b.cs.Close()
	}
}
