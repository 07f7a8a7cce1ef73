package engine

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/telemetry"
)

// halt says why a sequence of steps stopped early.
type halt int

const (
	haltNone      halt = iota
	haltFailed         // a step failed under onError stop, or a fatal limit was hit
	haltCancelled      // the caller's context ended
	haltWaiting        // a step suspended the execution
	haltAborted        // a sibling iteration halted, so this one was stopped
	haltParked         // a step has nothing to do until a time: see park
)

// execution is the state of one run of a plan.
type execution struct {
	e       *Engine
	plan    *Plan
	id      string
	account string
	session string
	logger  *slog.Logger
	onEvent func(Event)
	evMu    sync.Mutex

	userCtx context.Context         // the caller's: its end means cancelled
	ctx     context.Context         // userCtx with the execution's deadline
	stop    context.CancelCauseFunc // ends ctx early (errUnstorable)

	root  *view
	input any
	data  *datamodel.Budget // bytes of data the operations produced

	// mu guards everything below; when a step finishes, its output is written
	// and its position recorded under mu, so a checkpoint (built under mu)
	// never sees one without the other.
	mu        sync.Mutex
	results   map[string]any
	resultAt  map[string]ResultMark // which concurrent iteration wrote results[id]
	errs      []fault.Object
	finished  map[string]bool
	outputs   map[string]any
	decisions map[string]*Decision
	states    map[string]json.RawMessage
	overlays  map[string]*view // live views of concurrent iterations
	// noted and kids index the positions above (position tree), so dropping
	// what lies below a finished container costs the number of entries below it
	// rather than a scan of every entry (a loop of n iterations was O(n²)).
	noted         map[string]bool
	kids          map[string][]string
	savedOverlays map[string]map[string]any // from the checkpoint, used once
	succeeded     int
	failed        int
	timedOut      bool
	waiting       *WaitingStep
	parkAfter     time.Duration // RunContext.ParkAfter of sequential steps
	parked        *Parked       // set when a step parked the execution
	giveWay       func() bool   // RunOptions.GiveWay
	executed      atomic.Int64  // steps of this run that ran their operation
	chunks        atomic.Int64  // EventChunk events emitted (bounded by MaxChunkEvents)
	unstorable    *fault.Error  // a checkpoint over the stored limit (unstorable.go)

	answerPos string // the position that receives answer on resume
	answer    json.RawMessage

	steps atomic.Int64

	startedAt     time.Time // first start, wall clock of the engine's clock
	runStart      time.Time // start of this run
	elapsedBefore time.Duration
	budget        time.Duration

	saveMu sync.Mutex // orders checkpoint saves
}

// frame is where a sequence of steps runs.
type frame struct {
	v          *view
	ctx        context.Context
	depth      int
	iter       int    // innermost loop iteration, -1 outside loops
	concIter   int    // innermost concurrent iteration, -1 outside them
	concLoop   string // position of the innermost concurrent loop
	concurrent bool   // inside a concurrent iteration
	forked     bool   // inside a branch of a fork with siblings
}

// mayPark says whether a step of f may park the execution. Not beside
// siblings running at the same time: halting would stop them mid-step.
func (f *frame) mayPark() bool { return !f.concurrent && !f.forked }

func (e *Engine) newExecution(ctx context.Context, plan *Plan, id, account, session string, onEvent func(Event)) *execution {
	if id == "" {
		id = ids.New(ids.EngineExecution)
	}
	return &execution{
		e: e, plan: plan, id: id, account: account, session: session, onEvent: onEvent,
		logger:   executionLogger(e.logger, id),
		userCtx:  ctx,
		results:  map[string]any{},
		finished: map[string]bool{},
		noted:    map[string]bool{},
		runStart: e.clock.Now(),
		// The other maps are made when first written (setKey): most
		// executions have no loops, branches or saved state.
	}
}

// Run executes plan from its first step.
func (e *Engine) Run(ctx context.Context, plan *Plan, o RunOptions) *Result {
	ex := e.newExecution(ctx, plan, o.ExecutionID, o.Account, o.SessionID, o.OnEvent)
	ex.budget = o.MaxExecutionTime
	if ex.budget <= 0 {
		ex.budget = e.limits.MaxExecutionTime
	}
	ex.parkAfter, ex.giveWay = o.ParkAfter, o.GiveWay
	ex.startedAt = ex.runStart
	ex.input = o.Input
	ex.root = newView(datamodel.New(o.Input))
	ex.data = e.newDataBudget(o.MaxDataBytes)
	if plan == nil {
		return ex.refuse(fault.New(fault.Internal, "no plan to run"))
	}
	if fe := ex.chargeInput(o.Input); fe != nil {
		return ex.refuse(fe)
	}
	return ex.run(false)
}

// Resume continues a checkpointed execution after its last finished step,
// replaying plan and skipping what is done, with the budget that is left. A
// checkpoint of a finished execution gives back its result unchanged.
func (e *Engine) Resume(ctx context.Context, plan *Plan, cp *Checkpoint, o ResumeOptions) *Result {
	if cp == nil {
		ex := e.newExecution(ctx, plan, "", "", "", o.OnEvent)
		ex.root = newView(datamodel.New(nil))
		return ex.refuse(fault.New(fault.Internal, "no checkpoint to resume"))
	}
	ex := e.newExecution(ctx, plan, cp.ExecutionID, cp.Account, cp.SessionID, o.OnEvent)
	ex.restore(cp)
	ex.data = e.newDataBudget(o.MaxDataBytes)
	// What the checkpoint holds counts from the start; going over shows at
	// the next charge.
	_ = ex.data.ChargeValue("checkpoint", cp.Workflow)
	if o.MaxExecutionTime > 0 {
		ex.budget = o.MaxExecutionTime
	}
	ex.parkAfter, ex.giveWay = o.ParkAfter, o.GiveWay
	switch {
	case plan == nil:
		return ex.refuse(fault.New(fault.Internal, "no plan to resume"))
	case cp.Version > CheckpointVersion:
		return ex.refuse(fault.New(fault.Internal, "checkpoint format %d is newer than this engine's (%d)", cp.Version, CheckpointVersion))
	case cp.PlanDigest != "" && plan.Digest != "" && cp.PlanDigest != plan.Digest:
		return ex.refuse(fault.New(fault.Conflict, "checkpoint of execution %q was made by another workflow", cp.ExecutionID))
	case cp.Status.Terminal():
		return ex.result(cp.Status)
	}
	if cp.Waiting != nil && len(o.Answer) > 0 {
		ex.answerPos, ex.answer = cp.Waiting.Position, o.Answer
	}
	return ex.run(true)
}

// restore loads a checkpoint into a fresh execution.
func (ex *execution) restore(cp *Checkpoint) {
	ex.input = cp.Input
	ex.root = newView(datamodel.FromSnapshot(maps.Clone(cp.Workflow), cp.Input))
	if cp.Results != nil {
		ex.results = maps.Clone(cp.Results)
	}
	ex.errs = slices.Clone(cp.Errors)
	for _, p := range cp.Finished {
		ex.finished[p] = true
		ex.noteLocked(p)
	}
	ex.outputs = maps.Clone(cp.Outputs)
	ex.decisions = maps.Clone(cp.Decisions)
	ex.states = maps.Clone(cp.State)
	for _, m := range []map[string]bool{keySet(cp.Outputs), keySet(cp.Decisions), keySet(cp.State)} {
		for p := range m {
			ex.noteLocked(p)
		}
	}
	ex.savedOverlays = maps.Clone(cp.Overlays)
	ex.resultAt = maps.Clone(cp.ResultMarks)
	ex.succeeded, ex.failed, ex.timedOut = cp.Succeeded, cp.Failed, cp.TimedOut
	ex.waiting = cp.Waiting
	ex.elapsedBefore = time.Duration(cp.ElapsedMs) * time.Millisecond
	if p := cp.Parked; p != nil {
		// A park counts as running time up to its wake-up: a Wait is
		// counted against the budget whether or not a worker held it.
		ex.elapsedBefore += min(max(ex.runStart.Sub(p.Since), 0), max(p.Until.Sub(p.Since), 0))
	}
	ex.budget = time.Duration(cp.BudgetMs) * time.Millisecond
	if ex.budget <= 0 {
		ex.budget = ex.e.limits.MaxExecutionTime
	}
	ex.startedAt = cp.StartedAt
	if ex.startedAt.IsZero() {
		ex.startedAt = ex.runStart
	}
}

// refuse ends an execution that cannot start; nothing is checkpointed.
func (ex *execution) refuse(fe *fault.Error) *Result {
	ex.logger.Error("execution refused", "error", fe)
	ex.errs = append(ex.errs, fe.Object())
	r := ex.result(StatusFailed)
	r.CompletedAt = ex.e.clock.Now()
	return r
}

func (ex *execution) run(resumed bool) *Result {
	early, stop := context.WithCancelCause(ex.userCtx)
	defer stop(nil)
	ctx, cancel := context.WithTimeout(early, max(ex.remaining(), 0))
	defer cancel()
	ex.ctx, ex.stop = ctx, stop
	ex.waiting = nil
	ex.parked = nil
	ex.emit(Event{Kind: EventExecutionStarted, Resumed: resumed})
	f := &frame{v: ex.root, ctx: ctx, iter: -1, concIter: -1}
	_, h := ex.runSteps(f, "", ex.plan.Order)
	return ex.finish(h)
}

// finish decides the status, saves the last checkpoint and builds the result.
func (ex *execution) finish(h halt) *Result {
	var status Status
	ex.mu.Lock()
	switch {
	case ex.unstorable != nil:
		status = StatusFailed
	case h == haltWaiting:
		status = StatusWaiting
	case h == haltParked:
		status = StatusRunning
	case h == haltCancelled:
		status = StatusCancelled
	case len(ex.errs) == 0:
		status = StatusSuccess
	case ex.data.Over():
		// Its data is gone: nothing of it can be a partial success.
		status = StatusFailed
	case (ex.plan.onError() == Continue || h == haltNone) && ex.succeeded > 0:
		// Failures went on (the plan's policy, or a step's own) and something
		// succeeded.
		status = StatusPartial
	default:
		status = StatusFailed
	}
	ex.mu.Unlock()
	if err := ex.save(status); tooLarge(err) != nil {
		// The last step made the state too large: it fails, saved without
		// its data (a second save, of the slim checkpoint).
		status = StatusFailed
		_ = ex.save(status)
	}
	r := ex.result(status)
	if h == haltParked && status == StatusRunning {
		return r // not finished: it goes on at r.ParkedUntil
	}
	if status != StatusWaiting {
		r.CompletedAt = ex.e.clock.Now()
	}
	ex.emit(Event{Kind: EventExecutionFinished, Status: status, Duration: r.DurationMs})
	return r
}

func (ex *execution) result(status Status) *Result {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	results := maps.Clone(ex.results)
	if ex.unstorable != nil {
		results = map[string]any{} // over the stored limit: not kept
	}
	r := &Result{
		ExecutionID: ex.id,
		Status:      status,
		Results:     results,
		Errors:      slices.Clone(ex.errs),
		DurationMs:  ex.elapsed().Milliseconds(),
		StartedAt:   ex.startedAt,
		DataBytes:   ex.data.Used(),
	}
	if status == StatusWaiting && ex.waiting != nil {
		r.Waiting = &Waiting{OperationID: ex.waiting.OperationID, Reason: ex.waiting.Reason, Request: ex.waiting.Request}
	}
	if ex.parked != nil {
		r.ParkedUntil = ex.parked.Until
	}
	return r
}

// elapsed is the running time over every run of the execution.
func (ex *execution) elapsed() time.Duration {
	return ex.elapsedBefore + ex.e.clock.Now().Sub(ex.runStart)
}

// remaining is the budget left.
func (ex *execution) remaining() time.Duration { return ex.budget - ex.elapsed() }

// save writes a checkpoint when the engine has a checkpointer. A failed save is
// logged and the execution goes on: it then survives a restart only from its
// previous checkpoint. A checkpoint over the stored limit fails the execution
// instead (unstorable.go): it is not tried again, and the final one is saved
// without its data.
func (ex *execution) save(status Status) error {
	if ex.e.cp == nil {
		return nil
	}
	ex.saveMu.Lock()
	defer ex.saveMu.Unlock()
	over := ex.unstorableErr()
	if over != nil && !status.Terminal() {
		return over
	}
	cp := ex.checkpoint(status)
	if over != nil {
		cp.slim()
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ex.userCtx), ex.e.limits.SaveTimeout)
	defer cancel()
	if err := ex.e.cp.Save(ctx, cp); err != nil {
		if fe := tooLarge(err); fe != nil && over == nil {
			ex.markUnstorable(fe)
			return err
		}
		ex.logger.Warn("checkpoint not saved", "error", fault.From(err))
		return err
	}
	return nil
}

// checkpoint builds a consistent snapshot of the execution.
func (ex *execution) checkpoint(status Status) *Checkpoint {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	cp := &Checkpoint{
		Version:     CheckpointVersion,
		ExecutionID: ex.id,
		PlanDigest:  ex.plan.Digest,
		Account:     ex.account,
		SessionID:   ex.session,
		Status:      status,
		Results:     maps.Clone(ex.results),
		Errors:      slices.Clone(ex.errs),
		Finished:    slices.Sorted(maps.Keys(ex.finished)),
		Succeeded:   ex.succeeded,
		Failed:      ex.failed,
		TimedOut:    ex.timedOut,
		ElapsedMs:   ex.elapsed().Milliseconds(),
		BudgetMs:    ex.budget.Milliseconds(),
		StartedAt:   ex.startedAt,
		SavedAt:     ex.e.clock.Now(),
		Waiting:     ex.waiting,
		Parked:      ex.parked,
		DataBytes:   ex.data.Used(),
	}
	if cp.Errors == nil {
		cp.Errors = []fault.Object{}
	}
	if len(ex.outputs) > 0 {
		cp.Outputs = maps.Clone(ex.outputs)
	}
	if len(ex.decisions) > 0 {
		cp.Decisions = maps.Clone(ex.decisions)
	}
	if len(ex.states) > 0 {
		cp.State = maps.Clone(ex.states)
	}
	if len(ex.resultAt) > 0 {
		cp.ResultMarks = maps.Clone(ex.resultAt)
	}
	cp.Workflow, cp.Input = ex.root.copyTree()
	if len(ex.overlays) > 0 {
		cp.Overlays = make(map[string]map[string]any, len(ex.overlays))
		for pos, v := range ex.overlays {
			cp.Overlays[pos], _ = v.copyTree()
		}
	}
	return cp
}

// isFinished reports whether pos is done, with its output when nested.
func (ex *execution) isFinished(pos string) (any, bool) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if !ex.finished[pos] {
		return nil, false
	}
	return ex.outputs[pos], true
}

func (ex *execution) decision(pos string) *Decision {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.decisions[pos]
}

// setDecision records a control step's choice before its body runs, so a
// replay follows the same branch or items even if the body changed the data
// the choice was made from.
func (ex *execution) setDecision(pos string, d *Decision) {
	ex.mu.Lock()
	setKey(&ex.decisions, pos, d)
	ex.noteLocked(pos)
	ex.mu.Unlock()
	ex.save(StatusRunning)
}

// markDoneLocked records pos as finished with its output. With children, the entries
// below pos are dropped: they are never consulted again.
func (ex *execution) markDoneLocked(pos string, out any, children bool) {
	ex.finished[pos] = true
	ex.noteLocked(pos)
	if strings.IndexByte(pos, '/') >= 0 {
		setKey(&ex.outputs, pos, out)
	}
	delete(ex.decisions, pos)
	delete(ex.states, pos)
	delete(ex.overlays, pos)
	if children {
		ex.dropBelowLocked(pos)
	}
}

// noteLocked records pos and its ancestors in the position tree.
func (ex *execution) noteLocked(pos string) {
	for !ex.noted[pos] {
		ex.noted[pos] = true
		i := strings.LastIndexByte(pos, '/')
		if i < 0 {
			return
		}
		parent := pos[:i]
		setKey(&ex.kids, parent, append(ex.kids[parent], pos))
		pos = parent
	}
}

// dropBelowLocked forgets every entry below pos: they are never consulted again.
func (ex *execution) dropBelowLocked(pos string) {
	for _, k := range ex.kids[pos] {
		ex.dropBelowLocked(k)
		delete(ex.finished, k)
		delete(ex.outputs, k)
		delete(ex.decisions, k)
		delete(ex.states, k)
		delete(ex.overlays, k)
		delete(ex.noted, k)
	}
	delete(ex.kids, pos)
}

// setKey sets m[k], making the map first when it is nil.
func setKey[K comparable, V any](m *map[K]V, k K, v V) {
	if *m == nil {
		*m = make(map[K]V)
	}
	(*m)[k] = v
}

func keySet[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// setResultLocked stores a step's result; inside concurrent loops the highest
// iteration wins, so results[id] is the last iteration's whatever the timing.
func (ex *execution) setResultLocked(f *frame, id string, result any) {
	if f.concurrent {
		mark := ResultMark{Loop: f.concLoop, Iteration: f.concIter}
		if at, ok := ex.resultAt[id]; ok && at.Loop == mark.Loop && at.Iteration > mark.Iteration {
			return
		}
		setKey(&ex.resultAt, id, mark)
	} else {
		delete(ex.resultAt, id)
	}
	ex.results[id] = result
}

func (ex *execution) emit(ev Event) {
	if ex.onEvent == nil {
		return
	}
	ev.ExecutionID = ex.id
	ev.Time = ex.e.clock.Now()
	if telemetry.Enabled() {
		ev.Trace = trace.SpanContextFromContext(ex.ctx)
	}
	ex.evMu.Lock()
	defer ex.evMu.Unlock()
	ex.onEvent(ev)
}

// stepEvent fills the step fields of an event.
func stepEvent(kind EventKind, f *frame, pos string, st *Step) Event {
	ev := Event{Kind: kind, Position: pos}
	if st != nil {
		ev.OperationID, ev.Operation = st.ID, st.Name
	}
	if f.iter >= 0 {
		i := f.iter
		ev.Iteration = &i
	}
	return ev
}
