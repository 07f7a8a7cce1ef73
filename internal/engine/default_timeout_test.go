package engine_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/op"
)

// sleepOp sleeps on the real clock, honouring its context.
type sleepOp struct{ d time.Duration }

func (o sleepOp) Run(ctx context.Context, _ *op.RunContext) (any, error) {
	select {
	case <-time.After(o.d):
		return "woke", nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TestSpecDefaultTimeout: an operation's Spec.DefaultTimeout replaces the
// engine's default attempt timeout (so a long Wait is bounded by the execution's
// budget, not by 30 s), and a step's own timeout still wins over both.
func TestSpecDefaultTimeout(t *testing.T) {
	// The sleeps that must be cut last far longer than the timeouts that cut
	// them, so a loaded machine cannot reorder the two.
	reg := func(name string, def, sleep time.Duration) op.Registration {
		return op.Registration{
			Spec: op.Spec{Name: name, DefaultTimeout: def},
			New:  func(json.RawMessage, *op.Deps) (op.Operation, error) { return sleepOp{d: sleep}, nil },
		}
	}
	env := op.NewEnvironment(&op.Deps{}, reg("Long", 5*time.Second, 60*time.Millisecond),
		reg("LongSlow", 5*time.Second, 10*time.Second), reg("Plain", 0, 10*time.Second))
	eng := engine.New(engine.Options{Clock: clock.NewFake(time.Now()), Limits: engine.Limits{DefaultTimeout: 10 * time.Millisecond}})
	cases := []struct {
		name, cfg string
		want      engine.Status
	}{
		{"Long", `{}`, engine.StatusSuccess},               // spec default (5 s) instead of the engine's 10 ms
		{"Plain", `{}`, engine.StatusFailed},               // engine default 10 ms cuts the sleep
		{"LongSlow", `{"timeout":5}`, engine.StatusFailed}, // the step's own timeout wins
	}
	for _, c := range cases {
		plan := compile(t, env, def("s", c.name, c.cfg), begin("", "s"))
		res := eng.Run(context.Background(), plan, engine.RunOptions{ExecutionID: "x", MaxExecutionTime: 5 * time.Second})
		if res.Status != c.want {
			t.Errorf("%s %s: status %s, want %s (%v)", c.name, c.cfg, res.Status, c.want, res.Errors)
		}
	}
}
