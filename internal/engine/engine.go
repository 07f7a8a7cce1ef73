package engine

import (
	"cmp"
	"encoding/json"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/op"
)

// RetryPolicy is how failed attempts of retryable errors are repeated.
type RetryPolicy struct {
	MaxRetries   int           // retries after the first attempt
	InitialDelay time.Duration // ceiling of the first delay
	Multiplier   float64       // growth of the ceiling per retry
	MaxDelay     time.Duration // cap of the ceiling
}

// DefaultRetry is RESOLUTIONS' policy: 3 retries (4 attempts), 1 s, base 2, 60 s cap.
func DefaultRetry() RetryPolicy {
	return RetryPolicy{MaxRetries: 3, InitialDelay: time.Second, Multiplier: 2, MaxDelay: 60 * time.Second}
}

// Limits bound what one execution may do. Zero fields take the defaults.
type Limits struct {
	// MaxExecutionTime is the budget of a run whose RunOptions give none (30 s).
	MaxExecutionTime time.Duration
	// DefaultTimeout bounds one attempt of a step without its own timeout (30 s).
	DefaultTimeout time.Duration
	// MaxDepth bounds the nesting of branches and loops (32), so a cycle that
	// slipped past validation cannot recurse forever.
	MaxDepth int
	// MaxSteps bounds the step runs of one execution, nested ones included (100000).
	MaxSteps int
	// MaxLoopIterations bounds the items of one loop (1000).
	MaxLoopIterations int
	// MaxConcurrency caps a loop's concurrency (64).
	MaxConcurrency int
	// MaxStateBytes bounds the state one step may save (64 KiB).
	MaxStateBytes int
	// AbandonGrace is how long an attempt whose context has ended may take to
	// return before the engine stops waiting for it (100 ms). An operation that
	// ignores its context is abandoned, never waited on forever.
	AbandonGrace time.Duration
	// SaveTimeout bounds one checkpoint save (5 s).
	SaveTimeout time.Duration
	// MaxDataBytes is the data budget of a run whose options give none
	// (64 MiB, datamodel.DefaultDataBytes); -1 counts without a limit.
	MaxDataBytes int64
}

// DefaultLimits are the limits of RESOLUTIONS.
func DefaultLimits() Limits {
	return Limits{
		MaxExecutionTime:  30 * time.Second,
		DefaultTimeout:    30 * time.Second,
		MaxDepth:          32,
		MaxSteps:          100000,
		MaxLoopIterations: 1000,
		MaxConcurrency:    64,
		MaxStateBytes:     64 << 10,
		AbandonGrace:      100 * time.Millisecond,
		SaveTimeout:       5 * time.Second,
		MaxDataBytes:      datamodel.DefaultDataBytes,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	pick := func(v, def time.Duration) time.Duration {
		if v > 0 {
			return v
		}
		return def
	}
	pickInt := func(v, def int) int {
		if v > 0 {
			return v
		}
		return def
	}
	return Limits{
		MaxExecutionTime:  pick(l.MaxExecutionTime, d.MaxExecutionTime),
		DefaultTimeout:    pick(l.DefaultTimeout, d.DefaultTimeout),
		MaxDepth:          pickInt(l.MaxDepth, d.MaxDepth),
		MaxSteps:          pickInt(l.MaxSteps, d.MaxSteps),
		MaxLoopIterations: pickInt(l.MaxLoopIterations, d.MaxLoopIterations),
		MaxConcurrency:    pickInt(l.MaxConcurrency, d.MaxConcurrency),
		MaxStateBytes:     pickInt(l.MaxStateBytes, d.MaxStateBytes),
		AbandonGrace:      pick(l.AbandonGrace, d.AbandonGrace),
		SaveTimeout:       pick(l.SaveTimeout, d.SaveTimeout),
		MaxDataBytes:      cmp.Or(l.MaxDataBytes, d.MaxDataBytes),
	}
}

// Options configure an Engine. Every field is optional.
type Options struct {
	Clock clock.Clock  // default clock.Real
	Retry *RetryPolicy // default DefaultRetry()
	// Cache holds the outputs of pure steps that ask for caching; nil: no caching.
	Cache op.Cache
	// Checkpointer persists executions after every finished step; nil: none.
	Checkpointer Checkpointer
	// Rand is the source of retry jitter; default the runtime's random source.
	Rand   rand.Source
	Limits Limits
	Logger *slog.Logger // default discards
}

// Engine runs plans. It is safe for concurrent use; one Engine serves every
// execution of a process.
type Engine struct {
	clock  clock.Clock
	retry  RetryPolicy
	cache  op.Cache
	cp     Checkpointer
	limits Limits
	logger *slog.Logger

	workers *workers // goroutines that run attempts

	randMu sync.Mutex
	rand   *rand.Rand // nil: the runtime's source, which is safe for concurrent use
}

// New makes an Engine.
func New(o Options) *Engine {
	e := &Engine{
		clock:  o.Clock,
		retry:  DefaultRetry(),
		cache:  o.Cache,
		cp:     o.Checkpointer,
		limits: o.Limits.withDefaults(),
		logger: o.Logger,

		workers: newWorkers(),
	}
	if e.clock == nil {
		e.clock = clock.Real{}
	}
	if o.Retry != nil {
		e.retry = *o.Retry
		if e.retry.Multiplier < 1 {
			e.retry.Multiplier = 1
		}
		e.retry.MaxRetries = min(max(e.retry.MaxRetries, 0), maxRetries)
	}
	if e.logger == nil {
		e.logger = slog.New(slog.DiscardHandler)
	}
	if o.Rand != nil {
		e.rand = rand.New(o.Rand)
	}
	return e
}

// float64 returns a random number in [0, 1) for jitter.
func (e *Engine) float64() float64 {
	if e.rand == nil {
		return rand.Float64()
	}
	e.randMu.Lock()
	defer e.randMu.Unlock()
	return e.rand.Float64()
}

// RunOptions describe one execution.
type RunOptions struct {
	// ExecutionID names the execution (the server's id); a random one when empty.
	ExecutionID string
	Account     string // scopes cache and storage
	SessionID   string
	// Input is the /input object: a plain JSON value (map[string]any, ...), or nil.
	Input any
	// MaxExecutionTime is the execution's budget; 0 means the engine's limit.
	MaxExecutionTime time.Duration
	// ParkAfter lets a sequential step that would wait longer than it (a
	// Wait) park the execution instead: the run returns with
	// Result.ParkedUntil and the caller resumes it then. 0: never park. Only
	// for an engine with a Checkpointer.
	ParkAfter time.Duration
	// GiveWay, asked between sequential steps once a step of this run has
	// run, says whether the execution should give its worker to other work
	// waiting for one (another account's). When it says yes, the run parks
	// until now, as a Wait parks, and its caller hands it back to the queue.
	// nil: never. Only for an engine with a Checkpointer.
	GiveWay func() bool
	// MaxDataBytes is the execution's data budget (the account's
	// limits.max_data_bytes); 0 means the engine's limit, -1 none.
	MaxDataBytes int64
	// OnEvent receives progress events. Calls are serialised, never concurrent;
	// the callback must not block for long, since steps wait for it.
	OnEvent func(Event)
}

// ResumeOptions describe how a checkpointed execution continues.
type ResumeOptions struct {
	// Answer is given to the waiting step (RunContext.Answer) when it runs again.
	Answer json.RawMessage
	// MaxExecutionTime replaces the checkpoint's budget when > 0.
	MaxExecutionTime time.Duration
	// ParkAfter and GiveWay are RunOptions'.
	ParkAfter time.Duration
	GiveWay   func() bool
	// MaxDataBytes is the data budget, as RunOptions.MaxDataBytes; the
	// checkpoint's data counts against it from the start.
	MaxDataBytes int64
	OnEvent      func(Event)
}
