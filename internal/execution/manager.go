// Package execution is the one run service: behind workflow.execute and
// execution.* for A2E executions, and behind capability runs and agent
// workflow runs, which are kinds of run it is given (Kind). It runs them for
// accounts synchronously or through the durable queue,
// keeps each execution's record, checkpoints and event frames in the store,
// streams frames to live subscribers, enforces each account's limit of
// concurrent executions, and after a restart resumes what was accepted but not
// finished.
//
// Durability (RESOLUTIONS "Durability and throughput"): an asynchronous
// execution is stored and queued before its id is returned, and checkpointed
// after every finished step, so a kill -9 loses no accepted execution; it
// resumes after its last checkpoint. A synchronous execution is stored
// (running) before its first operation runs and updated once it has run; it
// is not checkpointed while it runs, and not resumed: after a crash its
// record ends failed (recover). Either way the client's executionId is taken
// when the record is created, in one atomic step of the store: the same id
// answers with that execution, finished or still running, and runs nothing
// (another document with it is a Conflict). Whatever its outcome, an
// execution that started ends stored: a result or checkpoint over the stored
// limit fails it (stored.go).
package execution

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/checkpoint"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/workflow"
)

// DefaultParkAfter is Config.ParkAfter's default: a shorter wait is slept
// on the worker, since parking costs a checkpoint and a queue round trip.
const DefaultParkAfter = time.Second

// Topic is the queue topic of asynchronous executions; an item's id is the
// execution id, its payload and its group (queue.Message.Group) the account
// id, so that workers lease accounts round-robin on the queues that meet it.
const Topic = "executions"

// Accounts gives the account an execution runs as, as it is now: an
// asynchronous execution runs with the grants its account has when it runs.
type Accounts interface {
	Principal(ctx context.Context, accountID string) (*account.Principal, error)
}

// OperationAudit receives one record per finished or failed operation.
type OperationAudit func(accountID, executionID string, ev engine.Event)

// Config are the Manager's services and settings.
type Config struct {
	Store    store.Store
	Queue    queue.Queue
	Runner   *workflow.Runner // A2E executions
	Accounts Accounts
	// Cache is the result cache operations share (engine caching of pure steps).
	Cache  op.Cache
	Engine engine.Limits
	Clock  clock.Clock
	Logger *slog.Logger
	Audit  OperationAudit // may be nil
	// Slots takes one of an account's concurrent-execution slots (the rate
	// limiter's); nil: the Manager counts them itself.
	Slots func(p *account.Principal) (release func(), err error)
	// Finished is told each execution's final status (metrics); may be nil.
	Finished func(status string)
	// CancelledWaiting is told what a waiting run that was cancelled asked
	// (its waiting step's request, as the checkpoint keeps it), once the
	// record is final: an agent step's remote A2A task is cancelled with
	// it (the gateway's wiring). It must not block for long; may be nil.
	CancelledWaiting func(ctx context.Context, accountID string, request any)

	// Workers bound the asynchronous executions running at once in this
	// process (default 32); Lease is their queue lease (default 30 s), renewed
	// while they run.
	Workers int
	Lease   time.Duration
	// SharedPoll is for gateways sharing the store (0: one process alone,
	// which sees its own cancels and frames at once). It is how often a
	// running asynchronous execution looks at its record, so that a cancel
	// made through another gateway stops it here too, and how often a stream
	// of an execution running in another process looks for new frames.
	SharedPoll time.Duration
	// AsyncBudget is the default budget of an asynchronous execution (1 h).
	AsyncBudget time.Duration
	// ParkAfter: an asynchronous execution whose step would wait longer
	// than this (a Wait) gives its worker back and is checkpointed; its
	// queue item, visible again at the wake-up time, resumes it (default
	// DefaultParkAfter; below zero: never park).
	ParkAfter time.Duration
	// MaxStoredBytes is the stored limit of an execution's result and
	// checkpoint (store.ExecutionLimit: 0 is the store's ceiling, 64 MiB).
	MaxStoredBytes int
	// Owner names this process in queue leases (default host and pid).
	Owner string
}

// Manager runs executions. It is safe for concurrent use.
type Manager struct {
	cfg     Config
	sync    *engine.Engine // no checkpoints: see the package doc
	durable *engine.Engine // checkpoints every step to the store
	hub     *hub
	kinds   map[string]Kind // by store kind, A2E's included
	log     *slog.Logger
	limit   int // stored limit of a result or checkpoint

	mu      sync.Mutex
	running map[string]context.CancelCauseFunc // execution id -> cancel, in this process
	active  map[string]int                     // account id -> executions running now

	busy    atomic.Int64 // workers running an execution now
	backlog backlog      // see giveway.go

	stop    context.CancelFunc
	workers sync.WaitGroup
}

// New makes a Manager; Start begins its asynchronous work.
func New(cfg Config) *Manager {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 32
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 30 * time.Second
	}
	if cfg.AsyncBudget <= 0 {
		cfg.AsyncBudget = time.Hour
	}
	switch {
	case cfg.ParkAfter == 0:
		cfg.ParkAfter = DefaultParkAfter
	case cfg.ParkAfter < 0:
		cfg.ParkAfter = 0 // the engine's "never"
	}
	m := &Manager{
		cfg:     cfg,
		hub:     newHub(),
		log:     cfg.Logger,
		limit:   store.ExecutionLimit(cfg.MaxStoredBytes),
		running: map[string]context.CancelCauseFunc{},
		active:  map[string]int{},
		kinds:   map[string]Kind{},
	}
	m.kinds[store.KindA2E] = m.a2eKind()
	m.sync = engine.New(engine.Options{Clock: cfg.Clock, Cache: cfg.Cache, Limits: cfg.Engine, Logger: cfg.Logger})
	m.durable = engine.New(engine.Options{Clock: cfg.Clock, Cache: cfg.Cache, Limits: cfg.Engine, Logger: cfg.Logger,
		Checkpointer: checkpoint.Stored{Store: cfg.Store, MaxBytes: m.limit}})
	return m
}

// Workers is how many asynchronous runs this process runs at once.
func (m *Manager) Workers() int { return m.cfg.Workers }

// Register adds a kind of run (capability runs, agent workflow runs) before
// Start: its records are then recovered, run, cancelled and streamed as A2E
// executions are.
func (m *Manager) Register(k Kind) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.kinds[k.Name] = k
}
