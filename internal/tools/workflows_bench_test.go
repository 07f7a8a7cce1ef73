package tools_test

import (
	"context"
	"testing"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/queue/local"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlite"
	"github.com/sluicehq/sluice/internal/tools"
	"github.com/sluicehq/sluice/internal/workflow"
)

type benchAccounts struct{ p *account.Principal }

func (a benchAccounts) Principal(context.Context, string) (*account.Principal, error) {
	return a.p, nil
}

// BenchmarkOperationCall is a session's op.X tool call as tools.Workflows
// serves it, with the server's execution service behind it (each call is
// an execution, stored in SQLite): op.FilterData of a small input. "same"
// sends the same config each time (the plan cache answers after the
// first); "new" changes it at every call, so each call is validated and
// compiled.
//
//	go test -run '^$' -bench BenchmarkOperationCall -benchtime 5000x ./internal/tools/
func BenchmarkOperationCall(b *testing.B) {
	ctx := context.Background()
	clk := clock.Real{}
	db, err := sqlite.Open(ctx, sqlite.Options{Dir: b.TempDir(), Clock: clk})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	p := &account.Principal{ID: "bench", Permissions: policy.Permissions{Operations: []string{"FilterData"}},
		Limits: account.Limits{MaxConcurrentExecutions: 10, MaxOperations: 20, MaxExecutionTimeMs: 30000, MaxLoopIterations: 1000}}
	if _, err := db.CreateAccount(ctx, store.Account{ID: p.ID, Name: p.ID}); err != nil {
		b.Fatal(err)
	}
	runner := workflow.New(workflow.Config{Deps: op.Deps{Clock: clk, Limits: op.DefaultLimits()}})
	m := execution.New(execution.Config{Store: db, Queue: local.New(db, clk), Runner: runner, Accounts: benchAccounts{p}, Clock: clk})
	w := &tools.Workflows{Runner: runner, Executions: m}
	input := map[string]any{"xs": []any{map[string]any{"v": 1.0}, map[string]any{"v": 3.0}}}
	for _, mode := range []string{"same", "new"} {
		b.Run(mode, func(b *testing.B) {
			for i := range b.N {
				limit := 1000.0
				if mode == "new" {
					limit += float64(i)
				}
				args := map[string]any{"inputPath": "/input/xs", "input": input,
					"conditions": []any{map[string]any{"field": "v", "operator": "<", "value": limit}}}
				res, err := w.Call(ctx, p, "op.FilterData", args, nil)
				if err != nil || !res.Success {
					b.Fatalf("call %d: %+v %v", i, res, err)
				}
			}
		})
	}
}
