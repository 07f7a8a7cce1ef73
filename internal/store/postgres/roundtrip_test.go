package postgres_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/postgres"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
)

// syncCounter forwards connections to PostgreSQL and counts the round
// trips clients make: the messages that end what a client sends before it
// waits for the answer, Sync (extended protocol, 'S') and Query (simple
// protocol, 'Q').
type syncCounter struct {
	target string
	n      atomic.Int64
}

func startSyncCounter(t *testing.T, target string) (*syncCounter, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	c := &syncCounter{target: target}
	go func() {
		for {
			down, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				down.Close()
				continue
			}
			t.Cleanup(func() { down.Close(); up.Close() })
			go func() { io.Copy(down, up); down.Close() }()
			go func() { c.count(down, up); up.Close() }()
		}
	}()
	return c, ln.Addr().String()
}

// count copies a client's messages to the server, counting Sync and Query.
// The first message (startup) has no type byte.
func (c *syncCounter) count(from io.Reader, to io.Writer) {
	var head [5]byte
	if _, err := io.ReadFull(from, head[:4]); err != nil {
		return
	}
	n := binary.BigEndian.Uint32(head[:4])
	if _, err := to.Write(head[:4]); err != nil || n < 4 {
		return
	}
	if _, err := io.CopyN(to, from, int64(n-4)); err != nil {
		return
	}
	for {
		if _, err := io.ReadFull(from, head[:]); err != nil {
			return
		}
		if head[0] == 'S' || head[0] == 'Q' {
			c.n.Add(1)
		}
		n := binary.BigEndian.Uint32(head[1:])
		if _, err := to.Write(head[:]); err != nil || n < 4 {
			return
		}
		if _, err := io.CopyN(to, from, int64(n-4)); err != nil {
			return
		}
	}
}

// countedDB opens a store of maxConns connections (0: the default) through
// a syncCounter.
func countedDB(t *testing.T, maxConns int) (*postgres.DB, *syncCounter) {
	t.Helper()
	dsn := pgtest.NewDatabase(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	counter, addr := startSyncCounter(t, fmt.Sprintf("%s:%d", cfg.Host, cfg.Port))
	u, err := url.Parse(dsn)
	if err != nil {
		t.Skip("the test DSN is not a URL")
	}
	u.Host = addr
	q := u.Query()
	q.Set("sslmode", "disable") // the counter reads the protocol in the clear
	u.RawQuery = q.Encode()
	db, err := postgres.Open(ctx, postgres.Options{DSN: u.String(), MaxConns: maxConns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, counter
}

// roundTrips runs f twice and returns how many round trips the second run
// made: the first prepares f's statements (pgx caches them per connection),
// a cost paid once a connection.
func (c *syncCounter) roundTrips(t *testing.T, what string, f func(run int) error) int64 {
	t.Helper()
	if err := f(0); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	before := c.n.Load()
	if err := f(1); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return c.n.Load() - before
}

// A write sends BEGIN with its first statement: one statement costs two
// round trips (with COMMIT), nothing costs none, and a lone statement
// (WriteOne: the executions' insert and status change) costs one.
func TestWriteRoundTrips(t *testing.T) {
	db, counter := countedDB(t, 1)
	if _, err := db.CreateAccount(ctx, store.Account{ID: "alice"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool().Exec(ctx, `CREATE TABLE rt (k TEXT PRIMARY KEY, v INT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	insert := func(q interface {
		Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
	}, k string, run int) error {
		_, err := q.Exec(ctx, `INSERT INTO rt VALUES ($1, $2)`, fmt.Sprint(k, run), 1)
		return err
	}
	cases := []struct {
		name string
		want int64
		rows int
		f    func(run int) error
	}{
		{"a write that sends nothing", 0, 0, func(int) error {
			return db.Write(ctx, func(postgres.Tx) error { return nil })
		}},
		{"a write of one statement", 2, 1, func(run int) error {
			return db.Write(ctx, func(tx postgres.Tx) error { return insert(tx, "one", run) })
		}},
		{"a write that reads a row first, then writes", 3, 1, func(run int) error {
			return db.Write(ctx, func(tx postgres.Tx) error {
				var n int
				if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM rt`).Scan(&n); err != nil {
					return err
				}
				return insert(tx, "read", run)
			})
		}},
		{"a write that sends a batch first", 2, 2, func(run int) error {
			return db.Write(ctx, func(tx postgres.Tx) error {
				b := &pgx.Batch{}
				b.Queue(`INSERT INTO rt VALUES ($1, 1)`, fmt.Sprint("batch", run))
				b.Queue(`INSERT INTO rt VALUES ($1, 1)`, fmt.Sprint("batch2-", run))
				return tx.SendBatch(ctx, b).Close()
			})
		}},
		{"WriteOne", 1, 1, func(run int) error {
			_, err := db.WriteOne(ctx, `INSERT INTO rt VALUES ($1, 1)`, fmt.Sprint("one", run+10))
			return err
		}},
		{"creating an execution", 1, 0, func(run int) error {
			_, _, err := db.CreateExecution(ctx, mkExec(fmt.Sprint("x", run)))
			return err
		}},
		{"changing its status", 1, 0, func(run int) error {
			return db.UpdateExecution(ctx, "alice", fmt.Sprint("x", run), store.ExecutionUpdate{Status: store.StatusSuccess})
		}},
	}
	rows := 0
	for _, c := range cases {
		if got := counter.roundTrips(t, c.name, c.f); got != c.want {
			t.Errorf("%s: %d round trips, want %d", c.name, got, c.want)
		}
		rows += 2 * c.rows
	}
	var n int
	if err := db.Pool().QueryRow(ctx, `SELECT COUNT(*) FROM rt`).Scan(&n); err != nil || n != rows {
		t.Fatalf("what the writes stored: %d rows, %v; want %d", n, err, rows)
	}
	for _, id := range []string{"x0", "x1"} {
		if e, err := db.GetExecution(ctx, "alice", id); err != nil || e.Status != store.StatusSuccess {
			t.Fatalf("execution %s: %+v, %v", id, e, err)
		}
	}
}

// A statement that fails, in the round trip of BEGIN or after another,
// rolls its transaction back: nothing of it is stored, and the connection
// (the pool's only one) serves the next write outside any transaction, so
// that write is seen from another connection.
func TestFailedStatementRollsBack(t *testing.T) {
	db, _ := countedDB(t, 1)
	other, err := pgx.Connect(ctx, db.Pool().Config().ConnConfig.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	if _, err := db.Pool().Exec(ctx, `CREATE TABLE rt (k TEXT PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.WriteOne(ctx, `INSERT INTO rt VALUES ('a')`); err != nil {
		t.Fatal(err)
	}
	failing := map[string]func(tx postgres.Tx) error{
		"Exec": func(tx postgres.Tx) error { _, err := tx.Exec(ctx, `INSERT INTO rt VALUES ('a')`); return err },
		"QueryRow": func(tx postgres.Tx) error {
			var k string
			return tx.QueryRow(ctx, `INSERT INTO rt VALUES ('a') RETURNING k`).Scan(&k)
		},
		"SendBatch": func(tx postgres.Tx) error {
			b := &pgx.Batch{}
			b.Queue(`INSERT INTO rt VALUES ('b')`)
			b.Queue(`INSERT INTO rt VALUES ('a')`)
			return tx.SendBatch(ctx, b).Close()
		},
	}
	for name, fail := range failing {
		for _, after := range []bool{false, true} {
			err := db.Write(ctx, func(tx postgres.Tx) error {
				if after {
					if _, err := tx.Exec(ctx, `INSERT INTO rt VALUES ('y')`); err != nil {
						return err
					}
				}
				return fail(tx)
			})
			if err == nil {
				t.Fatalf("%s (after another: %v): a duplicate key was stored", name, after)
			}
			if _, err := db.WriteOne(ctx, `INSERT INTO rt VALUES ('z')`); err != nil {
				t.Fatalf("%s (after another: %v): the next write: %v", name, after, err)
			}
			var keys []string
			rows, _ := other.Query(ctx, `SELECT k FROM rt ORDER BY k`)
			keys, err = pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil || len(keys) != 2 || keys[0] != "a" || keys[1] != "z" {
				t.Fatalf("%s (after another: %v): another connection sees %v (%v), want [a z]", name, after, keys, err)
			}
			if _, err := other.Exec(ctx, `DELETE FROM rt WHERE k = 'z'`); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// A statement WriteOne sent on a connection that is then lost may have been
// committed: the error says so and it is not sent again.
func TestWriteOneLostConnectionIsNotRetried(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	db, err := postgres.Open(ctx, postgres.Options{DSN: dsn, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Pool().Exec(ctx, `CREATE TABLE rt (k TEXT PRIMARY KEY); CREATE SEQUENCE runs`); err != nil {
		t.Fatal(err)
	}
	// The statement ends its own connection while it runs; the sequence,
	// which no rollback takes back, counts how often it ran.
	_, err = db.WriteOne(ctx, `INSERT INTO rt SELECT 'a' FROM (SELECT nextval('runs'), pg_terminate_backend(pg_backend_pid())) t`)
	fe, ok := fault.As(err)
	if !ok || fe.Kind != fault.Unavailable {
		t.Fatalf("a statement whose connection was lost: %v, want Unavailable", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var runs, rows int
		err := db.Pool().QueryRow(ctx, `SELECT last_value, (SELECT COUNT(*) FROM rt) FROM runs`).Scan(&runs, &rows)
		if err == nil {
			if runs != 1 || rows != 0 {
				t.Fatalf("the statement ran %d times and stored %d rows, want once and none", runs, rows)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
