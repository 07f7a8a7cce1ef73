package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/gateway"
	"github.com/sluicehq/sluice/internal/op"
)

// baselineEnv makes the test binary the baseline of TestMCPStdioThroughput:
// a go-sdk stdio server whose one tool, op.FilterData, runs sluice's
// FilterData operation in-process, with nothing around it (no key, no
// grants, no limits, no audit, no store).
const baselineEnv = "SLUICE_TEST_MCP_BASELINE"

func serveBaselineMCP() {
	s := mcp.NewServer(&mcp.Implementation{Name: "baseline", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "op.FilterData", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args map[string]json.RawMessage
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return nil, err
			}
			var input any
			_ = json.Unmarshal(args["input"], &input)
			delete(args, "input")
			args["outputPath"] = json.RawMessage(`"/workflow/out"`) // as sluice's op.X tool sets it
			raw, _ := json.Marshal(args)
			o, err := op.FilterDataOp.New(raw, &op.Deps{Clock: clock.Real{}})
			if err != nil {
				return nil, err
			}
			out, err := o.Run(ctx, &op.RunContext{Data: datamodel.New(input), Clock: clock.Real{}, Logger: slog.New(slog.DiscardHandler),
				Save: func(json.RawMessage) error { return nil }})
			if err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
			}
			b, _ := json.Marshal(map[string]any{"result": out})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: map[string]any{"result": out}}, nil
		})
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
}

// TestMCPStdioThroughput is issue 21's stdio figure: calls/s of `sluice mcp
// --stdio` (embedded: the whole server in the host's child) against the
// baseline above, both spawned as a host spawns them and called one call
// after another with the go-sdk's client, alternating runs. A measurement,
// not a check: set SLUICE_MCP_PERF=1 to run it.
func TestMCPStdioThroughput(t *testing.T) {
	if os.Getenv("SLUICE_MCP_PERF") == "" {
		t.Skip("set SLUICE_MCP_PERF=1 to measure")
	}
	admin := "mcp-admin-" + strings.Repeat("p", 32)
	dir := t.TempDir()
	cfg := config.Defaults()
	cfg.DataDir, cfg.AdminKey = dir, config.NewSecret(admin)
	app, err := gateway.Open(context.Background(), &cfg, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(app.Server.Handler())
	name := "perf"
	_, nk, err := client.New(srv.URL, admin, nil).CreateAccount(context.Background(), client.AccountSpec{Name: &name,
		Permissions: &client.Permissions{Operations: []string{"FilterData"}},
		Limits:      map[string]int{"requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1}})
	srv.Close()
	app.Close()
	if err != nil {
		t.Fatal(err)
	}

	sluiceTr, stderr := sluiceMCP(t, nk.APIKey, []string{"SLUICE_ADMIN_KEY=" + admin, "SLUICE_LOG_LEVEL=warn"}, "--data", dir)
	sl := connectMCP(t, sluiceTr, stderr)
	defer sl.Close()
	base := exec.Command(os.Args[0])
	base.Env = append(os.Environ(), baselineEnv+"=1")
	bl := connectMCP(t, &mcp.CommandTransport{Command: base, TerminateDuration: 5 * time.Second}, stderr)
	defer bl.Close()

	args := map[string]any{"inputPath": "/input/xs", "input": map[string]any{"xs": []any{map[string]any{"v": 1}, map[string]any{"v": 3}}},
		"conditions": []any{map[string]any{"field": "v", "operator": "<", "value": 2}}}
	call := func(cs *mcp.ClientSession) {
		r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "op.FilterData", Arguments: args})
		if err != nil || r.IsError {
			t.Fatalf("call: %v %+v\nstderr:\n%s", err, r, stderr)
		}
	}
	const perRun = 2000
	rates := map[string][]float64{}
	for run := range 6 {
		for _, side := range []struct {
			name string
			cs   *mcp.ClientSession
		}{{"sluice", sl}, {"baseline", bl}} {
			if run == 0 {
				for range 200 {
					call(side.cs) // warm up
				}
			}
			start := time.Now()
			for range perRun {
				call(side.cs)
			}
			rates[side.name] = append(rates[side.name], perRun/time.Since(start).Seconds())
		}
	}
	t.Logf("calls/s, 6 alternated runs of %d: sluice mcp --stdio %v; go-sdk stdio server doing the same in-process %v", perRun, round(rates["sluice"]), round(rates["baseline"]))
	t.Logf("ratio of medians: %.2f", median(rates["sluice"])/median(rates["baseline"]))
}

func round(xs []float64) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(x)
	}
	return out
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return (s[len(s)/2] + s[(len(s)-1)/2]) / 2
}
