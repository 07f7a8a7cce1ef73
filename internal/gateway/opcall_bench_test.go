package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"strconv"
	"testing"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
	"github.com/sluicehq/sluice/protocol/session"
)

// BenchmarkSessionOperationCall is issue 19's figure for a session op.X
// call: op.FilterData of a small input, one call after another, through a
// sluice session over stdio pipes. "same" sends the same config each time
// (the plan cache answers after the first); "new" changes the config at
// every call, so each one is validated and compiled.
//
//	go test -run '^$' -bench BenchmarkSessionOperationCall -benchtime 5000x ./internal/gateway/
func BenchmarkSessionOperationCall(b *testing.B) {
	s, key := benchSessionServer(b, "FilterData")
	ctx := context.Background()
	input := map[string]any{"xs": []any{map[string]any{"v": 1}, map[string]any{"v": 3}}}
	argsFor := func(limit int) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"inputPath": "/input/xs", "input": input,
			"conditions": []any{map[string]any{"field": "v", "operator": "<", "value": limit}}})
		return b
	}
	for _, mode := range []string{"same", "new"} {
		b.Run(mode, func(b *testing.B) {
			c := stdioSession(b, s, key)
			i := 0
			measure(b, func() {
				limit := 1000
				if mode == "new" {
					i++
					limit += i
				}
				resp, err := c.CallTool(ctx, &session.ToolCallReq{ToolName: "op.FilterData", Arguments: argsFor(limit)})
				if err != nil || !resp.Data.Success {
					b.Fatalf("call %s: %+v %v", strconv.Itoa(i), resp, err)
				}
			})
		})
	}
}

// benchSessionServer is a server for session benchmarks: no session or
// account rate limits in the way, warnings only in the log, and a key of an
// account that may use operations.
func benchSessionServer(b *testing.B, operations ...string) (*testServer, string) {
	s := newServer(b, func(c *config.Config) {
		c.Session.CallsPerSecond = 1_000_000
		c.Log.Level = "warn"
	})
	_, key := s.account(map[string]any{"operations": operations},
		map[string]any{"requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1})
	return s, key
}

// stdioSession is the agent host's pipes to a `sluice session --stdio`
// child: two io.Pipes, the server's side served in process. The session is
// closed, and its serving done, when b ends.
func stdioSession(b *testing.B, s *testServer, key string) *session.Client {
	ctx := context.Background()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.app.Server.ServeSession(ctx, gateway.NewStreamConn(inR, outW, multiCloser{inR, outW}, 0), "bench")
	}()
	c, err := session.Connect(ctx, outR, inW, session.ClientOptions{AgentID: "bench", AuthToken: key, Caps: []string{"tools"}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		c.Close()
		<-done
	})
	return c
}
