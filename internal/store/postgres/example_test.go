package postgres_test

import (
	"context"
	"log/slog"
	"os"

	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/queue/pgqueue"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/postgres"
)

// How a server wires the PostgreSQL store and queue: one Open per process
// (it migrates the schema, safely when several processes start at once), the
// queue on the same database, both closed on shutdown (the queue first).
func ExampleOpen() {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	db, err := postgres.Open(ctx, postgres.Options{
		DSN:    os.Getenv("SLUICE_POSTGRES_DSN"), // e.g. postgres://sluice:PASSWORD@db:5432/sluice
		Logger: log,
	})
	if err != nil {
		log.Error("store", "error", err) // says what is wrong: unreachable, credentials, missing database
		return
	}
	defer db.Close()
	var s store.Store = db
	var q queue.Queue = pgqueue.New(db, pgqueue.Options{Logger: log})
	defer q.Close()
	_, _ = s, q
}
