package cli

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The mcpecho baseline calls the go-sdk echo server over one session, with
// every client's calls in flight on it, and counts each answered call
// (here over in-memory transports; the command spawns `bench mcp-echo`).
func TestBenchHTTPMCPEcho(t *testing.T) {
	var connects atomic.Int64
	o := httpBenchOptions{URL: "http://127.0.0.1:1", Load: loadShape{Clients: 4}, Duration: 300 * time.Millisecond, Rounds: 2,
		Scenarios: []string{scenarioMCPEcho}, UpstreamListen: "127.0.0.1:0",
		echoTransport: func() (mcp.Transport, error) {
			connects.Add(1)
			ct, st := mcp.NewInMemoryTransports()
			if _, err := echoServer().Connect(context.Background(), st, nil); err != nil {
				return nil, err
			}
			return ct, nil
		}}
	rep, err := runBenchHTTP(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Scenarios) != 1 || rep.Scenarios[0].Name != scenarioMCPEcho {
		t.Fatalf("report: %+v", rep)
	}
	if s := rep.Scenarios[0]; s.Requests == 0 || s.Errors != 0 || s.FirstError != "" {
		t.Fatalf("mcpecho: %+v", s)
	}
	if connects.Load() != 1 {
		t.Fatalf("%d sessions opened, want one for all clients", connects.Load())
	}
}

// The baseline's tool gives back the text it is sent.
func TestEchoServerEchoes(t *testing.T) {
	ct, st := mcp.NewInMemoryTransports()
	if _, err := echoServer().Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "ping"}})
	if err != nil || r.IsError {
		t.Fatalf("call: %v %+v", err, r)
	}
	if got, _ := json.Marshal(r.StructuredContent); string(got) != `{"text":"ping"}` {
		t.Fatalf("echo gave %s", got)
	}
}
