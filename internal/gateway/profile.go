package gateway

import (
	"context"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/queue/local"
	"github.com/sluicehq/sluice/internal/queue/pgqueue"
	"github.com/sluicehq/sluice/internal/ratelimit"
	"github.com/sluicehq/sluice/internal/storage"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/postgres"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

// profile is everything that differs between the two ways sluice runs,
// chosen once by openProfile: one process alone with its data directory
// (SQLite and its local queue), or gateways sharing PostgreSQL
// (docs/scale-out.md). Open reads the profile's fields and never asks which
// backend it has.
type profile struct {
	db    store.Store
	queue queue.Queue
	// shared: other gateways use the same store, so the keys must agree
	// with theirs (openKeys), and every limit is counted in the store.
	shared bool
	// sharedPoll is how often a running execution looks at its record for a
	// cancel made through another gateway, and a stream looks for frames
	// written elsewhere (0: never; one process sees its own at once).
	sharedPoll time.Duration
	// rateLimits completes the rate limiter's options: counts persisted by
	// this process, or kept in the shared store.
	rateLimits func(*ratelimit.Options)
	// sessionStorage and fileStorage are where the session and file
	// storages of workflows keep their values (memory and the data
	// directory, or the shared store, so every gateway sees them).
	sessionStorage, fileStorage func(session *storage.Memory) op.Storage
	// alone: agents' answers come back on the one results topic (this
	// process is the only caller on its queue).
	alone bool
	// startUp runs once the services are made, before work starts.
	startUp func(ctx context.Context, owner string) error
}

// openProfile opens the store the configuration names, with its queue, and
// the profile that goes with it.
func openProfile(ctx context.Context, cfg *config.Config, clk clock.Clock, log *slog.Logger) (profile, error) {
	if cfg.Store.Postgres() {
		pg, err := postgres.Open(ctx, postgres.Options{DSN: cfg.Store.DSN, Logger: log, Clock: clk})
		if err != nil {
			return profile{}, err
		}
		return sharedProfile(pg, pgqueue.New(pg, pgqueue.Options{Clock: clk, Logger: log}), clk, log), nil
	}
	lite, err := sqlite.Open(ctx, sqlite.Options{Dir: cfg.DataDir, Logger: log, Clock: clk})
	if err != nil {
		return profile{}, err
	}
	return singleProfile(lite, local.New(lite, clk), cfg.DataDir, clk, log), nil
}

// singleProfile is one process alone with its data directory.
func singleProfile(db store.Store, q *local.Queue, dataDir string, clk clock.Clock, log *slog.Logger) profile {
	return profile{
		db: db, queue: q, alone: true,
		rateLimits:     func(o *ratelimit.Options) { o.Persister = ratePersister{st: db, clock: clk} },
		sessionStorage: func(session *storage.Memory) op.Storage { return session },
		fileStorage:    func(*storage.Memory) op.Storage { return &storage.Files{Dir: filepath.Join(dataDir, "files")} },
		// The data directory is this process's alone (the store's lock):
		// leases held by another owner belong to a process that died. Free
		// them now instead of when they run out, so its executions resume
		// at once.
		startUp: func(ctx context.Context, owner string) error {
			n, err := q.ReleaseOthers(ctx, owner)
			if err == nil && n > 0 {
				log.Info("resuming executions of a previous process", "leases", n)
			}
			return err
		},
	}
}

// sharedProfile is one of the gateways sharing PostgreSQL.
func sharedProfile(db store.Store, q queue.Queue, clk clock.Clock, log *slog.Logger) profile {
	stored := func(session *storage.Memory) op.Storage {
		return &storage.Stored{Values: db, SessionTTL: session.SessionTTL, Clock: clk, Logger: log}
	}
	return profile{
		db: db, queue: q, shared: true, sharedPoll: time.Second,
		rateLimits:     func(o *ratelimit.Options) { o.Shared = sharedRateLimits{limits: db} },
		sessionStorage: stored, fileStorage: stored,
		// Other gateways hold leases: theirs run out.
		startUp: func(context.Context, string) error { return nil },
	}
}
