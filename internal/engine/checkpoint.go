package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
)

// CheckpointVersion is the format of Checkpoint written by this engine.
const CheckpointVersion = 1

// Checkpoint is everything needed to resume an execution after its last
// finished step. It is plain JSON: the store persists it as a document.
//
// Positions name a step and its place in nested branches and loop iterations:
// "3" is the fourth top-level step, "3/1" the second step of the branch it
// chose, "3/it5/0" the first body step of its sixth iteration. When a branch,
// loop or iteration finishes, the entries below it are dropped, so a
// checkpoint stays small however many iterations ran.
type Checkpoint struct {
	Version     int    `json:"version"`
	ExecutionID string `json:"executionId"`
	PlanDigest  string `json:"planDigest,omitempty"`
	Account     string `json:"account,omitempty"`
	SessionID   string `json:"sessionId,omitempty"`
	Status      Status `json:"status"`

	// Workflow and Input are the data model (datamodel.FromSnapshot).
	Workflow map[string]any `json:"workflow"`
	Input    any            `json:"input,omitempty"`

	Results map[string]any `json:"results"`
	Errors  []fault.Object `json:"errors"`

	// Finished lists the positions that are done (failed steps under onError
	// continue included); they are skipped when the execution is replayed.
	Finished []string `json:"finished"`
	// Outputs holds the outputs of finished nested positions and iterations,
	// which a loop needs to assemble its output.
	Outputs map[string]any `json:"outputs,omitempty"`
	// Decisions are the branches and loops chosen by control steps that have
	// not finished: a replay follows them instead of deciding again.
	Decisions map[string]*Decision `json:"decisions,omitempty"`
	// State is what unfinished steps saved (RunContext.Save), by position.
	State map[string]json.RawMessage `json:"state,omitempty"`
	// Overlays are the data models of unfinished concurrent iterations, by
	// iteration position.
	Overlays map[string]map[string]any `json:"overlays,omitempty"`

	// ResultMarks say which concurrent iteration wrote results[id], so that
	// the highest iteration's result wins whatever order they finish in.
	ResultMarks map[string]ResultMark `json:"resultMarks,omitempty"`

	Succeeded int  `json:"succeeded"` // steps that finished without error
	Failed    int  `json:"failed"`    // steps that failed
	TimedOut  bool `json:"timedOut,omitempty"`

	// ElapsedMs is the running time so far; time while no process ran the
	// execution does not count.
	ElapsedMs int64     `json:"elapsedMs"`
	BudgetMs  int64     `json:"budgetMs"`
	StartedAt time.Time `json:"startedAt"`
	SavedAt   time.Time `json:"savedAt"`

	Waiting *WaitingStep `json:"waiting,omitempty"`
	// Parked is set when the run stopped at a step with nothing to do until
	// a time (a Wait): the execution goes on then, from this checkpoint.
	Parked *Parked `json:"parked,omitempty"`

	// DataBytes is what the execution's data budget had charged (the
	// estimated heap of its data), for the encoder to size a large
	// checkpoint before encoding it. Not encoded.
	DataBytes int64 `json:"-"`
}

// CheckpointResults reads the results of a stored checkpoint as raw JSON,
// by operation, for a reader that needs no more of it. The store's form
// (internal/checkpoint) keeps a result that is a top-level workflow value
// once, under "workflow", and names it in "resultRefs": those are read from
// there.
func CheckpointResults(raw []byte) (map[string]json.RawMessage, error) {
	var cp struct {
		Workflow   map[string]json.RawMessage `json:"workflow"`
		Results    map[string]json.RawMessage `json:"results"`
		ResultRefs map[string]string          `json:"resultRefs"`
	}
	if err := json.Unmarshal(raw, &cp); err != nil {
		return nil, err
	}
	if cp.Results == nil {
		cp.Results = map[string]json.RawMessage{}
	}
	for op, k := range cp.ResultRefs {
		v, ok := cp.Workflow[k]
		if !ok {
			return nil, fmt.Errorf("the result of %q refers to workflow value %q, which the checkpoint does not hold", op, k)
		}
		cp.Results[op] = v
	}
	return cp.Results, nil
}

// PresizeAbove is the data, in estimated heap bytes, from which an encoder
// walks a tree once to size its buffer (jsonvalue.Size) before encoding it:
// below, letting the buffer grow costs less than the walk.
const PresizeAbove = 256 << 10

// Parked is the step that parked an execution, since when and until when.
type Parked struct {
	Position string    `json:"position"`
	Since    time.Time `json:"since"`
	Until    time.Time `json:"until"`
}

// WaitingStep is the suspended step of a waiting execution.
type WaitingStep struct {
	Position    string `json:"position"`
	OperationID string `json:"operationId"`
	Reason      string `json:"reason"`
	Request     any    `json:"request,omitempty"`
}

// ResultMark names the concurrent loop (by position) and the iteration that
// wrote a result.
type ResultMark struct {
	Loop      string `json:"loop"`
	Iteration int    `json:"iteration"`
}

// Decision is a control step's choice.
type Decision struct {
	Kind string   `json:"kind"`           // "branch", "loop" or "fork"
	Name string   `json:"name,omitempty"` // branch name
	Ops  []string `json:"ops,omitempty"`  // branch steps, or loop body
	// Branches are the branches of a fork.
	Branches [][]string `json:"branches,omitempty"`

	Items       []any `json:"items,omitempty"`
	Concurrency int   `json:"concurrency,omitempty"`
	// The loop variables before the loop, restored after it.
	PrevItem  any  `json:"prevItem,omitempty"`
	HasItem   bool `json:"hasItem,omitempty"`
	PrevIndex any  `json:"prevIndex,omitempty"`
	HasIndex  bool `json:"hasIndex,omitempty"`
}

// Decision kinds.
const (
	decisionBranch = "branch"
	decisionLoop   = "loop"
	decisionFork   = "fork"
)

// Checkpointer persists checkpoints. Save must not keep references into the
// checkpoint after it returns (serialise it): the engine reuses the values.
// Save returns a *fault.Error of kind TooLarge when the checkpoint can never
// be stored because of its size: the engine then fails the execution at once
// with that error, drops its results and saves a last checkpoint without its
// data. Any other error is taken as transient: the execution goes on.
type Checkpointer interface {
	Save(ctx context.Context, cp *Checkpoint) error
	// Load returns the latest checkpoint of an execution; a *fault.Error of
	// kind NotFound when there is none.
	Load(ctx context.Context, executionID string) (*Checkpoint, error)
}

// MemoryCheckpointer keeps checkpoints in memory as JSON, so what it returns
// has exactly the shape a persistent store would give back.
type MemoryCheckpointer struct {
	mu    sync.Mutex
	saved map[string][]byte
	saves int
}

// NewMemoryCheckpointer makes an empty MemoryCheckpointer.
func NewMemoryCheckpointer() *MemoryCheckpointer {
	return &MemoryCheckpointer{saved: map[string][]byte{}}
}

// Save stores cp as JSON.
func (m *MemoryCheckpointer) Save(_ context.Context, cp *Checkpoint) error {
	b, err := json.Marshal(cp)
	if err != nil {
		return fault.New(fault.Internal, "checkpoint is not serialisable").WithCause(err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.saved[cp.ExecutionID] = b
	m.saves++
	return nil
}

// Load decodes the latest checkpoint of executionID.
func (m *MemoryCheckpointer) Load(_ context.Context, executionID string) (*Checkpoint, error) {
	m.mu.Lock()
	b, ok := m.saved[executionID]
	m.mu.Unlock()
	if !ok {
		return nil, fault.New(fault.NotFound, "no checkpoint for execution %q", executionID)
	}
	var cp Checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		return nil, fault.New(fault.Internal, "checkpoint of execution %q is unreadable", executionID).WithCause(err)
	}
	return &cp, nil
}

// Saves counts the saves so far.
func (m *MemoryCheckpointer) Saves() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.saves
}
