package runs

import (
	"context"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// The methods that start the kinds that store no frames: a frame built from
// a run's record answers the request that started it, as an A2E
// execution's frames answer its workflow.execute.
const (
	methodCapabilityRun    = e2a.MethodCapabilityRun
	methodAgentWorkflowRun = agentflow.RunMethod
)

// recordFrames is the events stream of a kind that stores no frames
// (capability runs, agent workflow runs): exactly one frame, the final one,
// sequence 1, an e2a complete frame whose body is the run's view, sent once
// the record is final. Until then the record is read every poll: a run
// finishing or cancelled in any process ends the stream. A caller that has
// the final frame already (afterSeq >= 1) gets nothing more.
type recordFrames struct {
	store  recordReader
	poll   time.Duration
	method string
}

// finalSeq is the sequence of the one frame a record stream sends.
const finalSeq = 1

func (r recordFrames) follow(ctx context.Context, p *account.Principal, id string, afterSeq int64,
	view func(context.Context, *account.Principal, string) (any, error), send func(execution.Frame) error) error {
	if afterSeq >= finalSeq {
		return nil
	}
	t := time.NewTicker(r.poll)
	defer t.Stop()
	for {
		e, err := r.store.GetExecution(ctx, p.ID, id)
		if err != nil {
			if ctx.Err() != nil {
				return nil // the caller left
			}
			return err
		}
		if e.Status.Final() {
			v, err := view(ctx, p, id)
			if err != nil {
				return err
			}
			frame, err := execution.RecordedFrame(e, r.method, v)
			if err != nil {
				return err
			}
			return send(execution.Frame{Seq: finalSeq, Data: frame, Final: true})
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// recordReader reads a run's record (store.Executions has it).
type recordReader interface {
	GetExecution(ctx context.Context, accountID, id string) (store.Execution, error)
}
