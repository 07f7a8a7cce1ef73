package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/protocol/session"
)

// BenchmarkSessionTrivialCall is the session issue's figure: trivial tool
// calls, one after another, through a sluice session over stdio pipes and
// over WebSocket, next to the MCP go-sdk making a trivial tool call over
// stdio pipes, in one run. It reports calls/s and p99 per call.
//
// The sluice call is workflow.validate of a one-Wait workflow: it passes the
// whole policy chain (authentication by session, permission, rate limits,
// audit record) and the plan cache answers it. The MCP call is a tool that
// echoes its argument, with the go-sdk's input and output schema checks.
//
//	go test -run '^$' -bench BenchmarkSessionTrivialCall -benchtime 20000x ./internal/gateway/
func BenchmarkSessionTrivialCall(b *testing.B) {
	s, key := benchSessionServer(b, "Wait")
	doc := jsonl(`{"type":"operationUpdate","operationId":"w","operation":{"Wait":{"duration":1}}}`,
		`{"type":"beginExecution","executionId":"bench","operationOrder":["w"]}`)
	args, _ := json.Marshal(map[string]any{"workflow": doc})
	ctx := context.Background()

	sluiceCall := func(b *testing.B, c *session.Client) {
		resp, err := c.CallTool(ctx, &session.ToolCallReq{ToolName: "workflow.validate", Arguments: args})
		if err != nil || !resp.Data.Success {
			b.Fatalf("call: %+v %v", resp, err)
		}
	}

	b.Run("sluice-stdio", func(b *testing.B) {
		c := stdioSession(b, s, key)
		measure(b, func() { sluiceCall(b, c) })
	})

	b.Run("sluice-websocket", func(b *testing.B) {
		url := "ws" + strings.TrimPrefix(s.http.URL, "http") + "/api/v1/session"
		ws, _, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			b.Fatal(err)
		}
		nc := websocket.NetConn(ctx, ws, websocket.MessageText)
		c, err := session.Connect(ctx, nc, nc, session.ClientOptions{AgentID: "bench", AuthToken: key, Caps: []string{"tools"}})
		if err != nil {
			b.Fatal(err)
		}
		measure(b, func() { sluiceCall(b, c) })
		c.Close()
	})

	b.Run("mcp-stdio", func(b *testing.B) {
		srv := sdk.NewServer(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
		type text struct {
			Text string `json:"text"`
		}
		sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "Echo the text back"},
			func(_ context.Context, _ *sdk.CallToolRequest, in text) (*sdk.CallToolResult, text, error) {
				return nil, in, nil
			})
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ss, err := srv.Connect(ctx, &sdk.IOTransport{Reader: inR, Writer: outW}, nil)
		if err != nil {
			b.Fatal(err)
		}
		client := sdk.NewClient(&sdk.Implementation{Name: "bench-client", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
		if err != nil {
			b.Fatal(err)
		}
		params := &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}
		measure(b, func() {
			res, err := cs.CallTool(ctx, params)
			if err != nil || res.IsError {
				b.Fatalf("call: %+v %v", res, err)
			}
		})
		cs.Close()
		ss.Close()
	})
}

// measure runs call b.N times and reports calls/s and the p99 of one call.
func measure(b *testing.B, call func()) {
	for range 50 { // warm up: connections, caches, stacks
		call()
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		t0 := time.Now()
		call()
		lat = append(lat, time.Since(t0))
	}
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

type multiCloser []io.Closer

func (m multiCloser) Close() error {
	for _, c := range m {
		_ = c.Close()
	}
	return nil
}
