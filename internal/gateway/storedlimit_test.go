package gateway_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/postgres"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

// The stored limit the tests below set (store.max_execution_bytes), and an
// upstream answer well over it.
const testStoredLimit = 4096

var bigAnswer = `{"blob":"` + strings.Repeat("x", 3*testStoredLimit) + `"}`

// hitCounter is a loopback upstream answering bigAnswer, counting the
// requests of each path.
type hitCounter struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func countingUpstream(t *testing.T) *hitCounter {
	h := &hitCounter{hits: map[string]int{}}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h.mu.Lock()
		h.hits[r.URL.Path]++
		h.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, bigAnswer)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hitCounter) count(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hits[path]
}

// eachStore runs test on a server with the small stored limit, on SQLite
// and, when SLUICE_TEST_POSTGRES is set, on PostgreSQL.
func eachStore(t *testing.T, test func(t *testing.T, s *testServer), opts ...any) {
	small := func(c *config.Config) { c.Store.MaxExecutionBytes = testStoredLimit }
	t.Run("sqlite", func(t *testing.T) {
		test(t, newServer(t, append([]any{small}, opts...)...))
	})
	t.Run("postgres", func(t *testing.T) {
		if os.Getenv(pgtest.Env) == "" {
			t.Skip(pgtest.Env + " is not set")
		}
		dsn := pgtest.NewDatabase(t)
		onPG := func(c *config.Config) { c.Store.DSN = dsn }
		test(t, newServer(t, append([]any{small, onPG}, opts...)...))
	})
}

// overLimitError finds the DataError naming the stored limit among errs.
func overLimitError(errs any) map[string]any {
	list, _ := errs.([]any)
	for _, e := range list {
		m, _ := e.(map[string]any)
		if m["type"] == "DataError" && strings.Contains(m["message"].(string), "over the stored limit of 4096 bytes") {
			return m
		}
	}
	return nil
}

// A synchronous execution whose result is over the stored limit is a
// stored failure naming the limit: its answer says so, GET shows it, and
// its executionId sent again answers with it and runs nothing. (Before, the
// answer was 400 ValidationError, nothing was stored, and the same
// executionId ran its POST again.)
func TestSyncResultOverTheStoredLimit(t *testing.T) {
	eachStore(t, func(t *testing.T, s *testServer) {
		up := countingUpstream(t)
		_, key := s.anyAccount()
		doc := jsonl(`{"type":"operationUpdate","operationId":"post","operation":{"ApiCall":{"method":"POST","url":"`+up.srv.URL+`/orders","body":{"n":1},"outputPath":"/workflow/order"}}}`,
			`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["post"]}`)
		first := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doc}).want(t, http.StatusOK)
		id := first.str("execution_id")
		if first.str("status") != "failed" || id == "" || overLimitError(first.get("errors")) == nil {
			t.Fatalf("answer: %.600s", first.raw)
		}
		if res, _ := first.get("results").(map[string]any); len(res) != 0 {
			t.Fatalf("results kept over the limit: %.300s", first.raw)
		}
		g := s.call("GET", "/api/v1/executions/"+id, key, nil).want(t, http.StatusOK)
		if g.str("status") != "failed" || overLimitError(g.get("errors")) == nil {
			t.Fatalf("stored: %.600s", g.raw)
		}
		again := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doc}).want(t, http.StatusOK)
		if again.str("execution_id") != id || again.str("status") != "failed" {
			t.Fatalf("resubmission: %.600s", again.raw)
		}
		if n := up.count("/orders"); n != 1 {
			t.Fatalf("the POST ran %d times, want once", n)
		}
	})
}

// An asynchronous execution whose state goes over the stored limit fails at
// once: it reaches failed with the limit named, the oversized checkpoint is
// tried once (no save after every step, no retry loop), the steps after it
// never run, its frames end with the final one, and its account's only slot
// and the only worker are free for the next execution. (Before, it stayed
// running for ever, "checkpoint not saved" after every step and its final
// write refused every second.)
func TestAsyncStateOverTheStoredLimit(t *testing.T) {
	oneWorker := func(c *config.Config) { c.Workers = 1 }
	eachStore(t, func(t *testing.T, s *testServer) {
		up := countingUpstream(t)
		_, key := s.account(map[string]any{"operations": []string{"*"}, "hosts": []string{"*"}},
			map[string]any{"max_concurrent_executions": 1, "requests_per_minute": 100000, "requests_per_hour": 100000, "requests_per_day": 100000})
		doc := jsonl(`{"type":"operationUpdate","operationId":"get","operation":{"ApiCall":{"method":"GET","url":"`+up.srv.URL+`/big","outputPath":"/workflow/big"}}}`,
			`{"type":"operationUpdate","operationId":"after","operation":{"ApiCall":{"method":"GET","url":"`+up.srv.URL+`/after","outputPath":"/workflow/after"}}}`,
			`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["get","after"]}`)
		id := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doc, "async": true}).want(t, http.StatusAccepted).str("execution_id")
		var g response
		waitFor(t, 20*time.Second, "the execution to end", func() bool {
			g = s.call("GET", "/api/v1/executions/"+id, key, nil).want(t, http.StatusOK)
			return store.Status(g.str("status")).Final()
		})
		if g.str("status") != "failed" || overLimitError(g.get("errors")) == nil {
			t.Fatalf("stored: %.600s", g.raw)
		}
		// The frames end with the final one, which says failed.
		frames, end := readSSE(t, s, key, "/api/v1/executions/"+id+"/events", "")
		if end == "" || len(frames) == 0 {
			t.Fatalf("events: %d frames, end %q", len(frames), end)
		}
		last := frames[len(frames)-1].frame
		body, _ := last["body"].(map[string]any)
		result, _ := body["result"].(map[string]any)
		if last["is_final"] != true || result["status"] != "failed" || overLimitError(result["errors"]) == nil {
			t.Fatalf("final frame: %v", last)
		}
		// The next execution of the account runs on the one worker, in the
		// account's one slot.
		next := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": waitDoc(1), "async": true}).want(t, http.StatusAccepted).str("execution_id")
		waitFor(t, 20*time.Second, "the next execution to succeed", func() bool {
			return s.call("GET", "/api/v1/executions/"+next, key, nil).want(t, http.StatusOK).str("status") == "success"
		})
		if n, m := up.count("/big"), up.count("/after"); n != 1 || m != 0 {
			t.Fatalf("upstream: /big %d times (want 1), /after %d times (want 0)", n, m)
		}
		logs := s.logs.String()
		if n := strings.Count(logs, "checkpoint over the stored limit"); n != 1 {
			t.Fatalf("the oversized checkpoint was refused %d times, want once", n)
		}
		for _, line := range []string{"checkpoint not saved", "execution result not stored", "execution could not resume"} {
			if strings.Contains(logs, line) {
				t.Fatalf("log holds %q", line)
			}
		}
	}, oneWorker)
}

// A synchronous execution a crash stopped (its record running, nobody
// running it) ends failed when the server starts again, and its executionId
// answers with that failure and runs nothing. On SQLite the server is alone
// with its store and ends it at once; gateways sharing PostgreSQL end it
// only once its budget and a minute are over (another gateway may still be
// running it), so there a fresh one stays running. Asynchronous executions
// still resume (TestKill9LosesNothing).
func TestSyncExecutionStoppedByACrash(t *testing.T) {
	up := countingUpstream(t)
	doc := func(client string) string {
		return jsonl(`{"type":"operationUpdate","operationId":"post","operation":{"ApiCall":{"method":"POST","url":"`+up.srv.URL+`/orders","body":{"n":1},"outputPath":"/workflow/order"}}}`,
			`{"type":"beginExecution","executionId":"`+client+`","operationOrder":["post"]}`)
	}
	// crashed stores what a synchronous run leaves when its process dies
	// under it, started at the clock's time.
	crashed := func(t *testing.T, st store.Store, acct, id, client, document string) {
		sum := sha256.Sum256([]byte(document))
		_, _, err := st.CreateExecution(context.Background(), store.Execution{ID: id, AccountID: acct, Kind: store.KindA2E,
			ClientID: client, Digest: "sha256:" + hex.EncodeToString(sum[:]), Document: []byte(document), Status: store.StatusRunning, BudgetMs: 30000})
		if err != nil {
			t.Fatal(err)
		}
	}
	longAgo := clock.NewFake(time.Now().Add(-2 * time.Hour))
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			dir := t.TempDir()
			var opts []any
			var open func(clock.Clock) (store.Store, func() error)
			if backend == "sqlite" {
				open = func(c clock.Clock) (store.Store, func() error) {
					db, err := sqlite.Open(context.Background(), sqlite.Options{Dir: dir, Clock: c})
					if err != nil {
						t.Fatal(err)
					}
					return db, db.Close
				}
			} else {
				if os.Getenv(pgtest.Env) == "" {
					t.Skip(pgtest.Env + " is not set")
				}
				dsn := pgtest.NewDatabase(t)
				opts = append(opts, func(c *config.Config) { c.Store.DSN = dsn })
				open = func(c clock.Clock) (store.Store, func() error) {
					db, err := postgres.Open(context.Background(), postgres.Options{DSN: dsn, Clock: c})
					if err != nil {
						t.Fatal(err)
					}
					return db, func() error { db.Close(); return nil }
				}
			}
			first := startServer(t, dir, opts...)
			acct, key := first.anyAccount()
			first.close()
			oldClient, freshClient := uniqueID(), uniqueID()
			old := doc(oldClient)
			st, closeStore := open(longAgo)
			crashed(t, st, acct, "ex-old", oldClient, old)
			_ = closeStore()
			st, closeStore = open(clock.Real{})
			crashed(t, st, acct, "ex-new", freshClient, doc(freshClient))
			_ = closeStore()

			s := startServer(t, dir, opts...)
			var g response
			waitFor(t, 20*time.Second, "the old one to end", func() bool {
				g = s.call("GET", "/api/v1/executions/ex-old", key, nil).want(t, http.StatusOK)
				return g.str("status") != "running"
			})
			if g.str("status") != "failed" || !strings.Contains(string(g.raw), "synchronous executions are not resumed") {
				t.Fatalf("after the restart: %s", g.raw)
			}
			again := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": old}).want(t, http.StatusOK)
			if again.str("execution_id") != "ex-old" || again.str("status") != "failed" {
				t.Fatalf("resubmission: %.400s", again.raw)
			}
			want := "failed"
			if backend == "postgres" {
				want = "running" // its budget runs until 90 s from now
			}
			if g := s.call("GET", "/api/v1/executions/ex-new", key, nil).want(t, http.StatusOK); g.str("status") != want {
				t.Fatalf("the fresh one: %s, want %s", g.raw, want)
			}
			if n := up.count("/orders"); n != 0 {
				t.Fatalf("the POST ran %d times", n)
			}
		})
	}
}

// The executionId of a synchronous execution is taken before it runs: sent
// again while the first call still runs, it answers with that execution,
// running, and runs nothing; the execution's event stream, followed while
// it runs, ends with its final frame.
func TestSyncExecutionIDTakenWhileRunning(t *testing.T) {
	s := newServer(t)
	release := make(chan struct{})
	var hits sync.WaitGroup
	hits.Add(1)
	var calls int
	var mu sync.Mutex
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		first := calls == 1
		mu.Unlock()
		if first {
			hits.Done()
		}
		<-release
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(up.Close)
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // before up.Close, which waits for the held request
	_, key := s.anyAccount()
	doc := jsonl(`{"type":"operationUpdate","operationId":"post","operation":{"ApiCall":{"method":"POST","url":"`+up.URL+`/orders","body":{"n":1},"outputPath":"/workflow/order"}}}`,
		`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["post"]}`)
	type answer struct {
		status int
		body   string
		err    error
	}
	done := make(chan answer, 1)
	go func() { // no t.Fatal off the test's goroutine: the answer is sent back
		body, _ := json.Marshal(map[string]any{"workflow": doc})
		req, _ := http.NewRequest("POST", s.http.URL+"/api/v1/workflows/execute", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		done <- answer{resp.StatusCode, string(raw), err}
	}()
	hits.Wait() // the first call is in its POST
	// Bounded: the code before waited for the first call here, which waits
	// for this test to free its upstream.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	body, _ := json.Marshal(map[string]any{"workflow": doc})
	req, _ := http.NewRequestWithContext(ctx, "POST", s.http.URL+"/api/v1/workflows/execute", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	again := s.do(req).want(t, http.StatusOK)
	id := again.str("execution_id")
	if again.str("status") != "running" || id == "" {
		t.Fatalf("resubmission while running: %s", again.raw)
	}
	// The upstream answers while (or before) the stream is followed: either
	// way the stream ends with the final frame.
	go func() {
		time.Sleep(50 * time.Millisecond)
		free()
	}()
	frames, end := readSSE(t, s, key, "/api/v1/executions/"+id+"/events", "")
	if end == "" || len(frames) == 0 || frames[len(frames)-1].frame["is_final"] != true {
		t.Fatalf("events of the running execution: %d frames, end %q", len(frames), end)
	}
	first := <-done
	if first.err != nil || first.status != http.StatusOK || !strings.Contains(first.body, `"execution_id":"`+id+`"`) ||
		!strings.Contains(first.body, `"status":"success"`) {
		t.Fatalf("first call: %d %s %v", first.status, first.body, first.err)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 1 {
		t.Fatalf("the POST ran %d times", calls)
	}
}
