package sqlite

import (
	"context"
	"database/sql"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/sluicehq/sluice/internal/fault"
)

// writer owns the single write connection. Callers hand it a function; it
// runs the functions of every caller waiting at that moment in one
// transaction, commits once, and then answers them all. SQLite allows one
// writer at a time anyway; batching turns N commits (each writing the pages
// it touched to the WAL, the shared ones of the indexes again every time)
// into one while every caller still hears back only after its write is
// committed.
//
// A batch first runs its functions one after the other with nothing between
// them. Should one fail, the transaction is rolled back and the batch run
// again with each function inside its own savepoint, so that one caller's
// failure undoes only its own changes. Failures are rare, and a savepoint
// per write copies every page the write touches into the statement
// journal, so the common case does without.
//
// No timed wait gathers a batch. Having taken a write, the writer yields
// its core once (runtime.Gosched) before it takes the others waiting: when
// the cores are busy with requests, those about to write get to, and the
// batch grows; when they are idle the yield returns at once and a lone
// write pays nothing. A commit writes every page it touched to the WAL,
// two syscalls a page, and the rightmost pages of the executions' indexes
// are touched by every execution, so the size of a batch is most of the
// cost of a write: at 3k data workflows/s, 1.5 writes a commit and 21
// pwrites a request without the yield, 7.2 and 15 with it. (A timed wait
// of 0.5 ms while writes kept coming gathered as many, but also made the
// median ApiCall workflow at 500/s wait: 1.7 → 4.3 ms.)
type writer struct {
	db       *sql.DB
	conn     *sql.Conn // the one write connection, held for the writer's life
	log      *slog.Logger
	maxBatch int
	// stmts are prepared on conn. Only the writer goroutine touches them, so
	// they need no lock; transactions are plain BEGIN/COMMIT statements on
	// conn, which keeps prepared statements alive across transactions
	// (database/sql's Tx would close them at every commit).
	stmts map[string]*sql.Stmt

	// commits and writes count transactions committed and the writes
	// they carried (a test reads them).
	commits, writes atomic.Int64

	mu      sync.RWMutex // guards closed against sends on reqs
	closed  bool
	reqs    chan *writeReq
	stopped chan struct{}
	started bool
}

type writeReq struct {
	ctx  context.Context
	fn   func(*Tx) error
	err  error
	done chan struct{}
}

var reqPool = sync.Pool{New: func() any { return &writeReq{done: make(chan struct{}, 1)} }}

func newWriter(db *sql.DB, maxBatch int, log *slog.Logger) *writer {
	return &writer{
		db:       db,
		log:      log,
		maxBatch: maxBatch,
		stmts:    map[string]*sql.Stmt{},
		reqs:     make(chan *writeReq, maxBatch),
		stopped:  make(chan struct{}),
	}
}

// start takes the write connection and starts the writer goroutine.
func (w *writer) start(ctx context.Context) error {
	conn, err := w.db.Conn(ctx)
	if err != nil {
		return err
	}
	w.conn = conn
	w.started = true
	go w.run()
	return nil
}

// Write runs fn in a write transaction, together with other callers' writes,
// and returns once that transaction is committed (nil) or failed. fn must use
// only the Tx it is given and must not block on anything but the database: it
// runs on the one writer goroutine. When ctx ends while the write waits its
// turn, it is dropped; once it has run, its outcome is awaited regardless of
// ctx, so a nil error always means committed. fn may run more than once
// (see writer): it must do nothing but its statements, or nothing that
// running it again undoes wrong (PostgreSQL's Write runs it again too, after
// a transient failure).
func (db *DB) Write(ctx context.Context, fn func(*Tx) error) error {
	return db.w.submit(ctx, fn)
}

func (w *writer) submit(ctx context.Context, fn func(*Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r := reqPool.Get().(*writeReq)
	r.ctx, r.fn, r.err = ctx, fn, nil
	w.mu.RLock()
	if w.closed || !w.started {
		w.mu.RUnlock()
		reqPool.Put(r)
		return errClosed()
	}
	select {
	case w.reqs <- r:
		w.mu.RUnlock()
	case <-ctx.Done():
		w.mu.RUnlock()
		reqPool.Put(r)
		return ctx.Err()
	}
	<-r.done
	err := r.err
	r.ctx, r.fn, r.err = nil, nil, nil
	reqPool.Put(r)
	return err
}

func errClosed() error {
	return fault.New(fault.Unavailable, "the store is closed").Retry(0)
}

func (w *writer) run() {
	defer close(w.stopped)
	batch := make([]*writeReq, 0, w.maxBatch)
	for r := range w.reqs {
		batch = append(batch[:0], r)
		runtime.Gosched()
	fill:
		for len(batch) < w.maxBatch {
			select {
			case r, ok := <-w.reqs:
				if !ok {
					break fill
				}
				batch = append(batch, r)
			default:
				break fill
			}
		}
		w.commit(batch)
		for _, r := range batch {
			r.done <- struct{}{}
		}
		clear(batch)
	}
}

// commit runs one batch. Statements run under context.Background: a caller
// that gives up must not interrupt SQLite mid-statement, which would roll back
// the whole shared transaction; a caller whose context has ended before its
// turn is skipped instead.
func (w *writer) commit(batch []*writeReq) {
	if err := w.exec("BEGIN IMMEDIATE"); err != nil {
		w.failAll(batch, unavailable("the database cannot be written", err))
		return
	}
	if len(batch) > 1 && w.runTogether(batch) {
		return
	}
	t := &Tx{w: w}
	single := len(batch) == 1
	ran := 0
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.err = err
			continue
		}
		if single {
			if r.err = runFn(r.fn, t); r.err != nil {
				w.rollback()
				return
			}
			ran++
			continue
		}
		if err := w.exec("SAVEPOINT w"); err != nil {
			w.abort(batch, err)
			return
		}
		r.err = runFn(r.fn, t)
		if r.err != nil {
			if err := w.exec("ROLLBACK TO w"); err != nil {
				w.abort(batch, err)
				return
			}
		} else {
			ran++
		}
		if err := w.exec("RELEASE w"); err != nil {
			w.abort(batch, err)
			return
		}
	}
	if ran == 0 {
		w.rollback()
		return
	}
	w.finish(batch, ran)
}

// runTogether runs the batch's functions in the open transaction with no
// savepoints and commits them, reporting true; when one fails it rolls
// back, opens a new transaction and reports false, for the batch to run
// again one savepoint a write. A batch that cannot go on (BEGIN failed
// again, COMMIT failed) is answered here and reported true.
func (w *writer) runTogether(batch []*writeReq) bool {
	t := &Tx{w: w}
	ran := 0
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.err = err
			continue
		}
		if err := runFn(r.fn, t); err != nil {
			w.rollback()
			for _, r := range batch {
				r.err = nil
			}
			if err := w.exec("BEGIN IMMEDIATE"); err != nil {
				w.failAll(batch, unavailable("the database cannot be written", err))
				return true
			}
			return false
		}
		ran++
	}
	if ran == 0 {
		w.rollback()
		return true
	}
	w.finish(batch, ran)
	return true
}

// finish commits the open transaction, in which ran of batch's writes ran.
func (w *writer) finish(batch []*writeReq, ran int) {
	if err := w.exec("COMMIT"); err != nil {
		w.log.Error("commit failed", "writes", ran, "error", err)
		w.abort(batch, err)
		return
	}
	w.commits.Add(1)
	w.writes.Add(int64(ran))
}

// exec runs a transaction-control statement on the write connection,
// prepared once like the callers' statements: a batch of n writes runs
// 2n+2 of them (BEGIN, SAVEPOINT and RELEASE per write, COMMIT), and
// parsing each anew was a share of the writer's time.
func (w *writer) exec(stmt string) error {
	s, err := (&Tx{w: w}).stmt(stmt)
	if err != nil {
		_, err = w.conn.ExecContext(context.Background(), stmt)
		return err
	}
	_, err = s.Exec()
	return err
}

// rollback ends the open transaction, if SQLite has not already.
func (w *writer) rollback() {
	if err := w.exec("ROLLBACK"); err != nil {
		w.log.Debug("rollback", "error", err)
	}
}

// abort rolls back and fails every caller of the batch that has not failed
// on its own.
func (w *writer) abort(batch []*writeReq, err error) {
	w.rollback()
	w.failAll(batch, unavailable("the database cannot be written", err))
}

// runFn runs one caller's function; a panic in it fails that caller only.
func runFn(fn func(*Tx) error, t *Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fault.New(fault.Internal, "internal error").WithCause(panicError{p})
		}
	}()
	return fn(t)
}

func (w *writer) failAll(batch []*writeReq, err error) {
	for _, r := range batch {
		if r.err == nil {
			r.err = err
		}
	}
}

// close stops taking writes, answers those already queued and closes the
// write connection.
func (w *writer) close() error {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.reqs)
	}
	w.mu.Unlock()
	if w.started {
		<-w.stopped
	}
	for _, st := range w.stmts {
		st.Close()
	}
	if w.conn != nil {
		w.conn.Close()
	}
	return w.db.Close()
}
