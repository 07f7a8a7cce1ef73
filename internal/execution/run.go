package execution

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/telemetry"
	"github.com/sluicehq/sluice/internal/validate"
	"github.com/sluicehq/sluice/internal/workflow"
	"github.com/sluicehq/sluice/protocol/a2e"
	"github.com/sluicehq/sluice/protocol/e2a"
	"github.com/sluicehq/sluice/protocol/jsonvalue"
)

// Request is one workflow.execute call. Its workflow is one of Document,
// Messages and Workflow (workflow.Source says what each is).
type Request struct {
	Document []byte // a JSONL document
	// Messages are a JSON array's message objects, decoded once each.
	Messages []json.RawMessage
	// Workflow is built as values (a session's op.X call) and validated as
	// such, never written as text to be parsed back.
	Workflow  *a2e.Workflow
	Input     any
	Async     bool
	SessionID string
	// OnFrame receives the execution's frames as they happen (a synchronous
	// call over an ingress that streams). May be nil.
	OnFrame func(*e2a.Response)
	// StoreWhenDone stores a synchronous execution once, when it ends,
	// instead of before its first operation and again after: for a call
	// whose executionId nobody else can send (an op.<Operation> tool call
	// makes a fresh one), so nothing needs its record while it runs. A
	// crash mid-call leaves no record; its caller had no answer either.
	// The made-up executionId is not kept as the record's client id
	// either: nobody can send it again, and a client id is an index entry
	// more in every call's commit. Execute also stores once, whatever
	// this says, a run nobody follows (no OnFrame) of a replayable plan
	// (engine.Plan.Replayable).
	StoreWhenDone bool
}

// Outcome is what an execute call answers: the engine's result of a
// synchronous run, or the view of a queued (or earlier, same-id) execution.
type Outcome struct {
	Result *engine.Result // synchronous run
	// ResultJSON is Result encoded (once, for the record, the final frame
	// and the answer).
	ResultJSON json.RawMessage
	View       *View // queued, or found by the client's executionId
	// Record is the stored record View shows (a run of another kind reads
	// its own view from it).
	Record *store.Execution
	// Queued says the execution was accepted for later (202).
	Queued bool
}

// Body is the execute response body.
func (o *Outcome) Body() any {
	if o.ResultJSON != nil {
		return o.ResultJSON
	}
	if o.Result != nil {
		return o.Result
	}
	if o.Queued {
		return map[string]any{"execution_id": o.View.ExecutionID, "status": o.View.Status}
	}
	return o.View
}

// InvalidError is a document that did not validate for the account.
type InvalidError struct{ Report *validate.Report }

func (e *InvalidError) Error() string { return "the workflow is not valid" }

// Account is the workflow account of a principal.
func Account(p *account.Principal) workflow.Account {
	return workflow.Account{ID: p.ID, Permissions: p.Permissions, Limits: validate.Limits{
		MaxOperations: p.Limits.MaxOperations, MaxLoopIterations: p.Limits.MaxLoopIterations,
	}}
}

// Execute validates and runs (or queues) a workflow for p.
func (m *Manager) Execute(ctx context.Context, p *account.Principal, req Request) (*Outcome, error) {
	src := workflow.Source{Document: req.Document, Messages: req.Messages, Workflow: req.Workflow}
	c, doc, report := m.cfg.Runner.CompileSource(src, Account(p))
	if report != nil {
		return nil, &InvalidError{Report: report}
	}
	rec := store.Execution{
		ID: ids.New(ids.Execution), AccountID: p.ID, Kind: store.KindA2E, Digest: digest(doc),
		Document: doc, SessionID: req.SessionID, Async: req.Async,
	}
	if !c.Workflow().Legacy && !req.StoreWhenDone {
		// A legacy document's workflowId is reused across documents: no key.
		rec.ClientID = c.Workflow().Begin.ExecutionID
	}
	if req.Input != nil {
		// json.Marshal's bytes, without reflection over the decoded tree.
		in, err := jsonvalue.Append(nil, req.Input)
		if err != nil {
			return nil, fault.New(fault.Invalid, "params.input is not JSON").WithCause(err)
		}
		rec.Input = in
	}
	if req.Async {
		return m.submit(ctx, rec)
	}
	// A run of data operations alone that nobody follows while it runs
	// is stored once, when it ends: the record written before it ran held
	// its executionId against a resubmission, which for such a plan could
	// only run it again to no effect (a resubmission meanwhile runs too and
	// is answered with the first record stored); a crash mid-run left a
	// record of a run nobody got an answer from. One write instead of two.
	storeOnce := req.StoreWhenDone || req.OnFrame == nil && c.Plan().Replayable()
	return m.runSync(ctx, p, a2eProgram{c}, rec, req.Input, req.OnFrame, storeOnce)
}

func digest(doc []byte) string {
	sum := sha256.Sum256(doc)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Submit stores rec, a run of a kind this Manager was given, queued, and
// queues it; a record with the same client id (ClientID) answers instead,
// and nothing more is queued.
func (m *Manager) Submit(ctx context.Context, rec store.Execution) (*Outcome, error) {
	if _, err := m.kind(rec.Kind); err != nil {
		return nil, err
	}
	rec.Async = true
	return m.submit(ctx, rec)
}

// RunNow runs rec, a run of a kind this Manager was given compiled as prog
// for p, while the caller waits; input is its input (rec.Input decoded).
// onFrame, when set, receives its frames as they happen.
func (m *Manager) RunNow(ctx context.Context, p *account.Principal, prog Program, rec store.Execution, input any, onFrame func(*e2a.Response)) (*Outcome, error) {
	rec.Async = false
	return m.runSync(ctx, p, prog, rec, input, onFrame, false)
}

// submit stores a queued execution and queues it. Its id is answered only
// when both are done, so an accepted execution is never lost; a crash between
// the two leaves a queued record that Start queues again.
func (m *Manager) submit(ctx context.Context, rec store.Execution) (*Outcome, error) {
	rec.Status = store.StatusQueued
	rec.BudgetMs = m.cfg.AsyncBudget.Milliseconds()
	stored, created, err := m.cfg.Store.CreateExecution(ctx, rec)
	if err != nil {
		return nil, err
	}
	v := viewOf(stored)
	if !created {
		return &Outcome{View: &v, Record: &stored}, nil
	}
	if err := m.enqueue(context.WithoutCancel(ctx), stored); err != nil {
		return nil, err
	}
	return &Outcome{View: &v, Record: &stored, Queued: true}, nil
}

// runSync runs an execution while the caller waits. Its record is stored
// (running) before its first operation runs, so the client's executionId is
// taken from the start: a resubmission, even while this run goes on, answers
// with this execution and runs nothing, and a run whatever its outcome ends
// stored. A kind whose synchronous runs resume (Kind.SyncResumes) is
// checkpointed as it goes. With storeWhenDone (Request.StoreWhenDone) the
// record is stored once, final, when the run has ended: one write instead
// of two.
func (m *Manager) runSync(ctx context.Context, p *account.Principal, prog Program, rec store.Execution, input any, onFrame func(*e2a.Response), storeWhenDone bool) (*Outcome, error) {
	k, err := m.kind(rec.Kind)
	if err != nil {
		return nil, err
	}
	release, err := m.acquire(p)
	if err != nil {
		return nil, err
	}
	defer release()
	budget := time.Duration(p.Limits.MaxExecutionTimeMs) * time.Millisecond
	if rec.BudgetMs > 0 && (budget <= 0 || rec.BudgetMs < budget.Milliseconds()) {
		budget = time.Duration(rec.BudgetMs) * time.Millisecond
	}
	rec.BudgetMs = budget.Milliseconds()
	if !storeWhenDone {
		rec.Status = store.StatusRunning
		start := telemetry.WriteStart()
		stored, created, err := m.cfg.Store.CreateExecution(ctx, rec)
		telemetry.SlowWrite(ctx, "execution.create", start, len(rec.Document)+len(rec.Input))
		if err != nil {
			return nil, err
		}
		if !created {
			// The same executionId, an earlier (or running) execution: its state now.
			v := viewOf(stored)
			return &Outcome{View: &v, Record: &stored}, nil
		}
		rec = stored
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	m.track(rec.ID, cancel)
	defer m.untrack(rec.ID)

	r := m.newRecorder(rec.ID, p.ID, k.Method, 0, false, onFrame)
	eng := m.sync
	if k.SyncResumes {
		eng = m.durable
	}
	spanCtx, span := startRun(runCtx, rec)
	res := eng.Run(spanCtx, prog.Plan(), engine.RunOptions{
		ExecutionID: rec.ID, Account: p.ID, SessionID: rec.SessionID, Input: input,
		MaxExecutionTime: budget, MaxDataBytes: p.Limits.MaxDataBytes, OnEvent: r.event,
	})
	endRun(span, res.Status)
	if storeWhenDone {
		return m.completeOnce(ctx, prog, rec, res, r)
	}
	return m.complete(ctx, prog, rec, res, r)
}

// complete settles and stores the result of a run the caller waited for,
// and answers it.
func (m *Manager) complete(ctx context.Context, prog Program, rec store.Execution, res *engine.Result, r *recorder) (*Outcome, error) {
	s, err := m.settle(prog, res)
	if err != nil {
		return nil, err
	}
	r.complete(s.result)
	err = m.finish(context.WithoutCancel(ctx), prog, rec, s)
	m.hub.cut(rec.ID) // followers of the running record read the final one
	if err != nil {
		return nil, err
	}
	return &Outcome{Result: s.res, ResultJSON: s.result}, nil
}

// completeOnce settles the result of a run the caller waited for, stores
// its record for the first time, final, and answers it.
func (m *Manager) completeOnce(ctx context.Context, prog Program, rec store.Execution, res *engine.Result, r *recorder) (*Outcome, error) {
	s, err := m.settle(prog, res)
	if err != nil {
		return nil, err
	}
	r.complete(s.result)
	rec.Status, rec.Result, rec.Errors = store.Status(s.res.Status), s.result, s.errs
	start := telemetry.WriteStart()
	stored, created, err := m.cfg.Store.CreateExecution(context.WithoutCancel(ctx), rec)
	if err != nil {
		return nil, err
	}
	telemetry.SlowWrite(ctx, "execution.create", start, len(rec.Document)+len(rec.Input)+len(s.result)+len(s.errs))
	if !created {
		// The same executionId and document, stored by a run that ended
		// first: that execution is the answer, as when it is found before.
		v := viewOf(stored)
		return &Outcome{View: &v, Record: &stored}, nil
	}
	m.finished(rec.Status)
	return &Outcome{Result: s.res, ResultJSON: s.result}, nil
}

// storedInput is a record's input, decoded (nil when it has none).
func storedInput(e store.Execution) (any, error) {
	if len(e.Input) == 0 {
		return nil, nil
	}
	var input any
	if err := json.Unmarshal(e.Input, &input); err != nil {
		return nil, fault.New(fault.Internal, "stored input of %s is unreadable", e.ID).WithCause(err)
	}
	return input, nil
}

// finish stores the final state of an execution whose record exists. A
// record that became final meanwhile (cancelled by the caller) keeps its state.
func (m *Manager) finish(ctx context.Context, prog Program, rec store.Execution, s settled) error {
	status := store.Status(s.res.Status)
	start := telemetry.WriteStart()
	err := m.cfg.Store.UpdateExecution(ctx, rec.AccountID, rec.ID, store.ExecutionUpdate{Status: status, Result: s.result, Errors: s.errs})
	telemetry.SlowWrite(ctx, "execution.update", start, len(s.result)+len(s.errs))
	if fe, ok := fault.As(err); ok && fe.Kind == fault.Conflict {
		return nil
	}
	if err == nil {
		m.finished(status)
		if f, ok := prog.(Finisher); ok && status.Final() {
			f.Finished(ctx, rec, s.res)
		}
	}
	return err
}

// finishResult settles res and stores it (small results: cancels, refusals).
func (m *Manager) finishResult(ctx context.Context, prog Program, rec store.Execution, res *engine.Result) error {
	s, err := m.settle(prog, res)
	if err != nil {
		return err
	}
	return m.finish(ctx, prog, rec, s)
}

func (m *Manager) finished(status store.Status) {
	if m.cfg.Finished != nil && status.Final() {
		m.cfg.Finished(string(status))
	}
}

// errShutdown is the cause of the context of executions stopped because the
// process shuts down: they are not cancelled, they resume after the restart.
var errShutdown = errors.New("the server is shutting down")

// track remembers how to cancel a running execution.
func (m *Manager) track(id string, cancel context.CancelCauseFunc) {
	m.mu.Lock()
	m.running[id] = cancel
	m.mu.Unlock()
}

func (m *Manager) untrack(id string) {
	m.mu.Lock()
	delete(m.running, id)
	m.mu.Unlock()
}

// acquire takes one of p's concurrent-execution slots.
func (m *Manager) acquire(p *account.Principal) (func(), error) {
	if m.cfg.Slots != nil {
		return m.cfg.Slots(p)
	}
	limit := p.Limits.MaxConcurrentExecutions
	m.mu.Lock()
	defer m.mu.Unlock()
	if limit > 0 && m.active[p.ID] >= limit {
		return nil, fault.New(fault.RateLimited, "too many executions at once: the limit is %d", limit).
			WithDetail("max_concurrent_executions", limit).Retry(time.Second).
			WithSuggestions("Wait for running executions to finish, or run this one with async=true")
	}
	m.active[p.ID]++
	return func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.active[p.ID]--; m.active[p.ID] <= 0 {
			delete(m.active, p.ID)
		}
	}, nil
}

// enqueue puts an execution on the queue; one already there is left as it is.
func (m *Manager) enqueue(ctx context.Context, e store.Execution) error {
	// The account is the item's group: workers take accounts round-robin.
	_, err := m.cfg.Queue.Enqueue(ctx, queue.Message{Topic: Topic, ID: e.ID, Payload: queuePayload(ctx, e.AccountID), Group: e.AccountID})
	return err
}
