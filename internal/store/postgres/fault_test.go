package postgres_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/postgres"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
)

// terminate ends every connection to the database of dsn but the admin's
// own, and waits until they are gone (pg_terminate_backend with a timeout).
func terminate(t *testing.T, dsn string) int {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.Connect(ctx, pgtest.AdminDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var n int
	if err := admin.QueryRow(ctx, `SELECT COUNT(*) FROM (SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity
		WHERE datname = $1 AND pid <> pg_backend_pid()) t`, cfg.Database).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func wantUnavailable(t *testing.T, err error, what string) {
	t.Helper()
	fe, ok := fault.As(err)
	if !ok || fe.Kind != fault.Unavailable || !fe.Retryable {
		t.Fatalf("%s: %v (%T), want a retryable Unavailable fault", what, err, err)
	}
}

// Connections ended by the server (pg_terminate_backend, as in a restart or
// failover) are replaced without the caller noticing: the dead ones are found
// before COMMIT, so the call runs again on a fresh connection. Twice in a row
// (the second time within the pool reset's rate limit, so only the pings of
// suspect connections keep the retry off the other dead ones).
func TestTerminatedConnectionsAreReplaced(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	db, err := postgres.Open(ctx, postgres.Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.CreateAccount(ctx, store.Account{ID: "alice"}); err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		fillPool(t, db)
		if n := terminate(t, dsn); n < postgres.DefaultMaxConns {
			t.Fatalf("round %d: %d connections terminated, want the pool's %d", round, n, postgres.DefaultMaxConns)
		}
		id := fmt.Sprintf("after-%d", round)
		if _, _, err := db.CreateExecution(ctx, mkExec(id)); err != nil {
			t.Fatalf("round %d: write after the connections were ended: %v", round, err)
		}
		if _, err := db.GetExecution(ctx, "alice", id); err != nil {
			t.Fatalf("round %d: read after the connections were ended: %v", round, err)
		}
	}
	fillPool(t, db)
	terminate(t, dsn)
	if _, err := db.GetAccount(ctx, "alice"); err != nil {
		t.Fatalf("read as the first call after the connections were ended: %v", err)
	}
}

// fillPool opens every connection the pool may hold and leaves them idle.
func fillPool(t *testing.T, db *postgres.DB) {
	t.Helper()
	var conns []interface{ Release() }
	for range postgres.DefaultMaxConns {
		c, err := db.Pool().Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.Release()
	}
}

func mkExec(id string) store.Execution {
	return store.Execution{ID: id, AccountID: "alice", Digest: "sha256:" + id, Document: []byte(`{}`), Status: store.StatusRunning}
}

// Writers race connections being ended again and again: a call either
// fails with Unavailable or its write is stored. Nothing acknowledged is
// missing afterwards.
func TestNoAcknowledgedWriteLostWhileConnectionsDie(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	db, err := postgres.Open(ctx, postgres.Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.CreateAccount(ctx, store.Account{ID: "alice"}); err != nil {
		t.Fatal(err)
	}
	acked := writeWhile(t, db, func() {
		for range 5 {
			terminate(t, dsn)
			time.Sleep(20 * time.Millisecond)
		}
	})
	checkStored(t, db, acked)
}

// writeWhile runs 8 writers until disrupt returns and returns the ids of
// the executions whose creation was acknowledged. Every failure must be a
// retryable Unavailable.
func writeWhile(t *testing.T, db *postgres.DB, disrupt func()) []string {
	t.Helper()
	var (
		stop  atomic.Bool
		wg    sync.WaitGroup
		mu    sync.Mutex
		acked []string
		seq   atomic.Int64
		fails atomic.Int64
	)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				id := fmt.Sprintf("w%d-%d", w, seq.Add(1))
				_, _, err := db.CreateExecution(ctx, mkExec(id))
				if err != nil {
					if fe, ok := fault.As(err); !ok || fe.Kind != fault.Unavailable || !fe.Retryable {
						t.Errorf("%s: %v (%T), want a retryable Unavailable fault", id, err, err)
						return
					}
					fails.Add(1)
					time.Sleep(5 * time.Millisecond)
					continue
				}
				mu.Lock()
				acked = append(acked, id)
				mu.Unlock()
			}
		}()
	}
	// Disrupt only once writes are landing: on a loaded machine the first
	// ones can take longer than the disruption's own delay.
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 3 {
			break
		}
	}
	disrupt()
	stop.Store(true)
	wg.Wait()
	t.Logf("%d calls failed with Unavailable", fails.Load())
	return acked
}

// checkStored finds every acknowledged execution, once the database answers.
func checkStored(t *testing.T, db *postgres.DB, acked []string) {
	t.Helper()
	if len(acked) == 0 {
		t.Fatal("no write was acknowledged at all")
	}
	var n int
	if err := db.Pool().QueryRow(ctx, `SELECT COUNT(*) FROM executions WHERE id = ANY($1)`, acked).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != len(acked) {
		t.Fatalf("%d of %d acknowledged executions are stored", n, len(acked))
	}
	t.Logf("%d acknowledged writes, all stored", len(acked))
}

// proxy forwards TCP connections to PostgreSQL; stopping it is the database
// going away (connections cut, new ones refused), starting it again is the
// database coming back on the same address.
type proxy struct {
	target, addr string
	mu           sync.Mutex
	ln           net.Listener
	conns        map[net.Conn]bool
}

func startProxy(t *testing.T, target string) *proxy {
	p := &proxy{target: target, addr: "127.0.0.1:0", conns: map[net.Conn]bool{}}
	p.start(t)
	t.Cleanup(p.stop)
	return p
}

func (p *proxy) start(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns[c], p.conns[up] = true, true
			p.mu.Unlock()
			go func() { io.Copy(up, c); up.Close() }()
			go func() { io.Copy(c, up); c.Close() }()
		}
	}()
}

func (p *proxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// The database goes away while the store runs: calls fail with a retryable
// Unavailable (the gateway's 503 with Retry-After), nothing acknowledged is
// lost, and the store works again by itself once the database is back.
func TestDatabaseGoesAwayAndComesBack(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, fmt.Sprintf("%s:%d", cfg.Host, cfg.Port))
	u, err := url.Parse(dsn)
	if err != nil {
		t.Skip("the test DSN is not a URL")
	}
	u.Host = p.addr
	db, err := postgres.Open(ctx, postgres.Options{DSN: u.String(), ConnectTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.CreateAccount(ctx, store.Account{ID: "alice"}); err != nil {
		t.Fatal(err)
	}

	// Cut while writers run.
	acked := writeWhile(t, db, func() {
		time.Sleep(50 * time.Millisecond)
		p.stop()
		time.Sleep(50 * time.Millisecond)
	})

	// Away: every kind of call fails with Unavailable.
	_, err = db.CreateAccount(ctx, store.Account{ID: "bob"})
	wantUnavailable(t, err, "write while the database is away")
	_, err = db.GetAccount(ctx, "alice")
	wantUnavailable(t, err, "read while the database is away")
	_, _, err = db.ListExecutions(ctx, "alice", store.ExecutionQuery{})
	wantUnavailable(t, err, "list while the database is away")

	// Back: the store recovers by itself.
	p.start(t)
	deadline, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for {
		_, err := db.CreateAccount(deadline, store.Account{ID: "bob"})
		if err == nil {
			break
		}
		if deadline.Err() != nil {
			t.Fatalf("the store did not recover: %v", err)
		}
		wantUnavailable(t, err, "write while the database comes back")
		time.Sleep(50 * time.Millisecond)
	}
	checkStored(t, db, acked)
}
