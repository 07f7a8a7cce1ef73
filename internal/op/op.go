// Package op is the catalog of whitelisted operations: the Operation interface, a
// Spec per operation, and an Environment that builds only the operations an
// account is permitted. Each built-in lives in its own file.
//
// Operations never change values they read from the data model (values are shared
// and immutable); they return new values, and the engine writes them to outputPath.
package op

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// Operation is one configured, permitted step.
type Operation interface {
	// Run does the work once (the engine retries). The value returned is the
	// operation's output; it is written to outputPath and stored in results.
	Run(ctx context.Context, rc *RunContext) (any, error)
}

// SafeOperation is implemented by an operation whose kind has side effects
// (Spec.SideEffects) but whose configured instance may have none: an ApiCall
// GET. Safe reports whether this instance changes nothing outside the
// execution, so that running it twice does no harm.
type SafeOperation interface {
	Safe() bool
}

// Data is read access to an execution's data model.
type Data interface {
	Get(p a2e.Path) (any, error)
}

// RunContext is what an operation sees of the execution running it.
type RunContext struct {
	Data        Data
	Account     string // the account the execution runs for (scopes cache and storage)
	SessionID   string // "" when the caller named no session: session storage lives as long as the execution
	ExecutionID string
	OperationID string
	Attempt     int // 1-based
	Clock       clock.Clock
	Logger      *slog.Logger

	// State is what this step saved with Save in an earlier run of the same
	// execution (after a restart); nil the first time.
	State json.RawMessage
	// Save records step state durably (for example a Wait's wake-up time) before
	// the operation blocks. Never nil.
	Save func(state json.RawMessage) error
	// Answer is the answer given to a suspended step when it is resumed.
	Answer json.RawMessage
	// Progress reports progress of the step while it runs (an agent's
	// updates): deltaKind is an E2A delta kind, delta a string for text and
	// an object otherwise, safe to show. The engine emits each as an
	// EventChunk, bounded per execution. nil: nobody listens.
	Progress func(deltaKind string, delta any)
	// ParkAfter, when above zero, lets an operation that would wait longer
	// than it return *Park instead of blocking: the execution is
	// checkpointed and its worker released until the wake-up time. Zero (a
	// synchronous run, a concurrent iteration): never park.
	ParkAfter time.Duration
	// Budget is the execution's data budget. An operation whose Spec has
	// MetersData charges its output to it, before allocating when it can
	// know the size; the engine charges the output of the others. nil: no
	// budget (an operation run outside the engine).
	Budget *datamodel.Budget
}

// Outputs of control operations: the engine, not the operation, runs the nested ops.

// Branch is the output of a Conditional's Run: the engine runs Ops next.
type Branch struct {
	Name string   // "ifTrue", "ifFalse" or "none"
	Ops  []string // operation ids of the branch (empty for "none")
}

// Iteration is the output of a Loop's Run: the engine runs Body once per item.
type Iteration struct {
	Items       []any
	Body        []string
	Concurrency int // >= 1
}

// Fork is the output of a parallel flow's Run: the engine runs each branch
// (a list of steps run in order) at the same time, on the execution's one
// data model, and goes on when all have finished. Branches must write
// disjoint paths (each step its own outputPath).
type Fork struct {
	Branches [][]string
}

// Suspend is returned (as an error) by an operation that must wait for an answer
// from outside; the engine checkpoints the execution as waiting and resumes the
// step later with RunContext.Answer set.
type Suspend struct {
	Reason  string // short, safe to show
	Request any    // what the caller must answer (prompt, schema, ...)
}

func (s *Suspend) Error() string { return "suspended: " + s.Reason }

// Park is returned (as an error) by an operation that has nothing to do until
// Until (a Wait): the engine checkpoints the execution and stops, its caller
// runs it again at Until, and the operation runs again with its saved
// RunContext.State. Only returned when RunContext.ParkAfter allows it.
type Park struct {
	Until time.Time
}

func (p *Park) Error() string { return "parked until " + p.Until.UTC().Format(time.RFC3339Nano) }

// Spec describes an operation for docs, discovery, validation and caching.
type Spec struct {
	Name        string
	Summary     string
	Description string
	// Pure operations depend only on their config and the values they read; the
	// engine caches them when the operation sets cache: true.
	Pure bool
	// CacheTTL is the default time a cached result lives (0: never cached).
	CacheTTL time.Duration
	// SideEffects marks operations that change the world outside the execution.
	SideEffects bool
	// Remote marks operations that reach beyond the machine (an HTTP API, an
	// agent): the tool hosts see them as open-world.
	Remote bool
	// DefaultTimeout bounds one attempt when the operation sets no timeout; zero
	// takes the engine's default (30 s). Wait sets its own maximum so a long wait
	// is bounded by the execution's budget, not by the default attempt timeout.
	DefaultTimeout time.Duration
	// Control marks operations whose output is a Branch or an Iteration.
	Control bool
	// MetersData marks operations that charge their output to
	// RunContext.Budget themselves (knowing its size before they allocate
	// it); the engine charges the output of the others once they return.
	MetersData bool
	// Schema is the JSON Schema of the config, from protocol/a2e.
	Schema json.RawMessage
	// Example is a runnable workflow (JSONL) that uses the operation.
	Example string
}

// Factory builds an operation from its raw config, validating it. Config errors
// are *fault.Error values of type ValidationError naming the JSON path.
type Factory func(raw json.RawMessage, d *Deps) (Operation, error)

// Registration joins a Spec to its Factory.
type Registration struct {
	Spec Spec
	New  Factory
}

// Reader is implemented by operations that read data-model paths; the validator
// and the cache key use it.
type Reader interface {
	Reads() []a2e.Path
}

// Writer is implemented by operations that write an outputPath.
type Writer interface {
	Writes() (a2e.Path, bool)
}
