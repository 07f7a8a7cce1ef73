package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/config"
)

// Issue 21's figures for sluice's MCP server. Measurements, not checks:
// set SLUICE_MCP_PERF=1 to run them; nothing is asserted of the figures.
func skipUnlessMCPPerf(t *testing.T) {
	t.Helper()
	if os.Getenv("SLUICE_MCP_PERF") == "" {
		t.Skip("set SLUICE_MCP_PERF=1 to measure")
	}
}

// The same data operation (op.FilterData over a small input) called one
// call after another through MCP (tools/call over Streamable HTTP, the
// go-sdk's client), through E2A tool.call (POST /api/v1/e2a) and through
// REST (POST /api/v1/workflows/execute of a one-operation workflow),
// alternating in blocks of 100 so that the machine's load falls on all
// three alike: p50 and p99 of each, and what MCP adds to the other two.
func TestMCPToolCallAgainstREST(t *testing.T) {
	skipUnlessMCPPerf(t)
	s := newServer(t, func(c *config.Config) { c.Log.Level = "warn" })
	_, key := s.account(map[string]any{"operations": []string{"FilterData"}},
		map[string]any{"requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1})
	cs := mcpConnect(t, s, key, nil)
	ctx := context.Background()
	input := map[string]any{"xs": []any{map[string]any{"v": 1}, map[string]any{"v": 3}}}
	args := map[string]any{"inputPath": "/input/xs", "input": input,
		"conditions": []any{map[string]any{"field": "v", "operator": "<", "value": 2}}}
	client := &http.Client{}
	post := func(path string, body any) {
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", s.http.URL+path, strings.NewReader(string(b)))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(out), `"v":1`) {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, out)
		}
	}
	doc := jsonl(`{"type":"operationUpdate","operationId":"f","operation":{"FilterData":{"inputPath":"/input/xs","conditions":[{"field":"v","operator":"<","value":2}],"outputPath":"/workflow/f"}}}`,
		`{"type":"beginExecution","executionId":"perf","operationOrder":["f"]}`)
	n := 0
	calls := map[string]func(){
		"mcp": func() {
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "op.FilterData", Arguments: args})
			if err != nil || r.IsError {
				t.Fatalf("MCP call: %v %+v", err, r)
			}
		},
		"e2a": func() {
			n++
			post("/api/v1/e2a", map[string]any{"request_id": fmt.Sprint("perf-", n), "method": "tool.call",
				"params": map[string]any{"tool_name": "op.FilterData", "arguments": args}})
		},
		"rest": func() { post("/api/v1/workflows/execute", map[string]any{"workflow": doc, "input": input}) },
	}
	order := []string{"mcp", "e2a", "rest"}
	times := map[string][]time.Duration{}
	for range 3 { // warm up
		for _, name := range order {
			calls[name]()
		}
	}
	for block := range 10 {
		for i := range order {
			name := order[(i+block)%len(order)]
			for range 100 {
				start := time.Now()
				calls[name]()
				times[name] = append(times[name], time.Since(start))
			}
		}
	}
	pct := func(name string, q int) time.Duration {
		ts := times[name]
		slices.Sort(ts)
		return ts[len(ts)*q/100]
	}
	for _, name := range order {
		t.Logf("%-4s p50 %v p99 %v (%d calls)", name, pct(name, 50), pct(name, 99), len(times[name]))
	}
	for _, other := range []string{"e2a", "rest"} {
		t.Logf("MCP adds to %s: p50 %v, p99 %v", other, pct("mcp", 50)-pct(other, 50), pct("mcp", 99)-pct(other, 99))
	}
}

// Memory per idle MCP session: 1000 sessions opened on one server (an
// initialize and its initialized notification each, over plain HTTP, so
// that the clients hold nothing but the session id), the server's heap in
// use before and after, after a collection.
func TestMCPMemoryPerIdleSession(t *testing.T) {
	skipUnlessMCPPerf(t)
	const sessions = 1000
	s := newServer(t, func(c *config.Config) {
		c.Log.Level = "warn"
		c.MCP.Serve.MaxSessions, c.MCP.Serve.MaxSessionsPerAccount = 2*sessions, 2*sessions
	})
	_, key := s.account(map[string]any{"operations": []string{"FilterData"}},
		map[string]any{"requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1})
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	send := func(sid string, body string) string {
		req, _ := http.NewRequest("POST", s.http.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			t.Fatalf("%s: %d", body, resp.StatusCode)
		}
		return resp.Header.Get("Mcp-Session-Id")
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse
	}
	before := heap()
	for i := range sessions {
		sid := send("", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"perf","version":"1"}}}`, i))
		if sid == "" {
			t.Fatal("no session id")
		}
		send(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	}
	after := heap()
	t.Logf("%d idle MCP sessions: heap in use %d KiB before, %d KiB after: %.1f KiB a session", sessions,
		before>>10, after>>10, float64(after-before)/1024/sessions)
}
