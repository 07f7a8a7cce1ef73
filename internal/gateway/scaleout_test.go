package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
)

// Gateways on one PostgreSQL share what one process used to keep: rate-limit
// counts and concurrent-execution slots, sessionStorage and file storage,
// idempotency keys and audit. (localStorage, accounts and executions are
// covered by TestTwoGatewaysOnPostgres.) Runs when SLUICE_TEST_POSTGRES is
// set.
func TestScaleOutSharesState(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	dir := t.TempDir()
	onPG := func(c *config.Config) { c.Store.DSN = dsn }
	a := startServer(t, dir, onPG)
	b := startServer(t, dir, onPG)
	b.admin = a.admin
	gws := []*testServer{a, b}

	t.Run("one rate limit", func(t *testing.T) {
		_, key := a.account(map[string]any{"operations": []string{"*"}}, map[string]any{"requests_per_minute": 10})
		ok, limited := 0, 0
		for i := range 20 {
			r := gws[i%2].call("GET", "/api/v1/executions", key, nil)
			switch r.status {
			case http.StatusOK:
				ok++
			case http.StatusTooManyRequests:
				limited++
				if r.header.Get("Retry-After") == "" {
					t.Fatalf("429 without Retry-After: %v", r.header)
				}
			default:
				t.Fatalf("status %d: %s", r.status, r.raw)
			}
		}
		if ok != 10 || limited != 10 {
			t.Fatalf("%d passed and %d were limited; want one limit of 10 across both gateways", ok, limited)
		}
		st := b.call("GET", "/api/v1/rate-limit/status", key, nil)
		if st.status != http.StatusTooManyRequests && st.get("usage.requests_last_minute") != float64(10) {
			t.Fatalf("status through b: %s", st.raw)
		}
	})

	t.Run("one concurrency limit", func(t *testing.T) {
		_, key := a.account(map[string]any{"operations": []string{"*"}}, map[string]any{"max_concurrent_executions": 1,
			"requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1})
		// A synchronous Wait holds its slot while it runs (an asynchronous
		// Wait of over a second parks and gives its slot back, as a queued
		// execution holds none); its record shows it running meanwhile.
		slow := jsonl(`{"type":"operationUpdate","operationId":"w","operation":{"Wait":{"duration":3000}}}`,
			`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["w"]}`)
		done := make(chan response, 1)
		go func() { done <- a.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": slow}) }()
		waitFor(t, 20*time.Second, "the slow execution to run", func() bool {
			list, _ := a.call("GET", "/api/v1/executions?status=running", key, nil).get("executions").([]any)
			return len(list) == 1
		})
		quick := jsonl(`{"type":"operationUpdate","operationId":"w","operation":{"Wait":{"duration":1}}}`,
			`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["w"]}`)
		r := b.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": quick})
		if r.status != http.StatusTooManyRequests {
			t.Fatalf("a second execution at once through the other gateway: %d %s", r.status, r.raw)
		}
		if r := <-done; r.status != http.StatusOK || r.str("status") != "success" {
			t.Fatalf("the slow execution: %d %s", r.status, r.raw)
		}
		b.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": quick}).want(t, http.StatusOK)
	})

	_, key := a.account(map[string]any{"operations": []string{"*"}}, nil)
	run := func(gw *testServer, session string, lines ...string) response {
		t.Helper()
		doc := jsonl(append(lines, `{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["op"]}`)...)
		body, _ := json.Marshal(map[string]any{"workflow": doc, "input": map[string]any{"v": "from " + gw.http.URL}})
		req, _ := http.NewRequest("POST", gw.http.URL+"/api/v1/workflows/execute", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		if session != "" {
			req.Header.Set("X-Sluice-Session", session)
		}
		r := gw.do(req).want(t, http.StatusOK)
		if r.str("status") != "success" {
			t.Fatalf("workflow: %s", r.raw)
		}
		return r
	}
	for _, storage := range []string{"sessionStorage", "file"} {
		t.Run(storage, func(t *testing.T) {
			run(a, "sess-42", `{"type":"operationUpdate","operationId":"op","operation":{"StoreData":{"inputPath":"/input/v","storage":"`+storage+`","key":"shared/k"}}}`)
			r := run(b, "sess-42", `{"type":"operationUpdate","operationId":"op","operation":{"LoadData":{"storage":"`+storage+`","key":"shared/k","outputPath":"/workflow/v"}}}`)
			if got := r.get("results.op"); got != "from "+a.http.URL {
				t.Fatalf("%s read through b: %v (%s)", storage, got, r.raw)
			}
		})
	}
	t.Run("sessions apart", func(t *testing.T) {
		r := run(b, "sess-other", `{"type":"operationUpdate","operationId":"op","operation":{"LoadData":{"storage":"sessionStorage","key":"shared/k","default":"none","outputPath":"/workflow/v"}}}`)
		if got := r.get("results.op"); got != "none" {
			t.Fatalf("another session reads %v", got)
		}
	})

	t.Run("idempotency keys", func(t *testing.T) {
		client := uniqueID()
		doc := jsonl(`{"type":"operationUpdate","operationId":"w","operation":{"Wait":{"duration":1}}}`,
			`{"type":"beginExecution","executionId":"`+client+`","operationOrder":["w"]}`)
		first := a.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doc}).want(t, http.StatusOK)
		again := b.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doc}).want(t, http.StatusOK)
		if first.str("execution_id") == "" || again.str("execution_id") != first.str("execution_id") {
			t.Fatalf("the same executionId on two gateways: %s then %s", first.raw, again.raw)
		}
		other := strings.Replace(doc, `"duration":1`, `"duration":2`, 1)
		b.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": other}).want(t, http.StatusConflict)
	})

	t.Run("audit", func(t *testing.T) {
		_, own := a.account(map[string]any{"operations": []string{"*"}}, nil)
		a.call("GET", "/api/v1/executions", own, nil).want(t, http.StatusOK)
		waitFor(t, 10*time.Second, "a's audit record through b", func() bool {
			r := b.call("GET", "/api/v1/admin/audit?limit=1000", b.admin, nil)
			return r.status == http.StatusOK && strings.Contains(string(r.raw), "execution.list")
		})
	})
}

// A gateway whose keys are not the others' is refused at start, saying what
// to copy.
func TestScaleOutRefusesOtherKeys(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	startServer(t, t.TempDir(), func(c *config.Config) { c.Store.DSN = dsn })
	cfg := config.Defaults()
	cfg.DataDir = t.TempDir() // fresh keys
	cfg.Store.DSN = dsn
	app, err := gateway.Open(context.Background(), &cfg, gateway.Options{})
	if err == nil {
		app.Close()
		t.Fatal("a gateway with other keys started")
	}
	if !strings.Contains(err.Error(), "pepper") {
		t.Fatalf("error: %v", err)
	}
}

// While the database is away, calls fail with 503 and Retry-After, nothing
// is acknowledged that was not stored, and the gateway recovers by itself
// when the database is back.
func TestDatabaseAwayAnswers503(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	px := newPGProxy(t, dsn)
	gw := startServer(t, t.TempDir(), func(c *config.Config) { c.Store.DSN = px.dsn })
	_, key := gw.account(map[string]any{"operations": []string{"*"}}, map[string]any{"requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1})
	submit := func() response {
		doc := jsonl(`{"type":"operationUpdate","operationId":"w","operation":{"Wait":{"duration":1}}}`,
			`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["w"]}`)
		return gw.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doc, "async": true})
	}
	acked := map[string]bool{}
	for range 3 {
		acked[submit().want(t, http.StatusAccepted).str("execution_id")] = true
	}

	px.cut()
	for i := range 6 {
		var r response
		if i%2 == 0 {
			r = submit()
		} else {
			r = gw.call("GET", "/api/v1/executions", key, nil)
		}
		if r.status == http.StatusAccepted || r.status == http.StatusOK {
			if id := r.str("execution_id"); id != "" {
				acked[id] = true
			}
			continue // answered from what the process holds
		}
		if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
			t.Fatalf("with the database away: %d %v %s", r.status, r.header, r.raw)
		}
	}

	px.restore()
	back := time.Now()
	defer func() { t.Logf("recovered in %v", time.Since(back)) }()
	waitFor(t, 30*time.Second, "the gateway to use the database again", func() bool {
		return gw.call("GET", "/api/v1/executions", key, nil).status == http.StatusOK
	})
	listed := map[string]string{}
	r := gw.call("GET", "/api/v1/executions?limit=100", key, nil).want(t, http.StatusOK)
	var body struct {
		Executions []struct {
			ID     string `json:"execution_id"`
			Status string `json:"status"`
		} `json:"executions"`
	}
	if err := json.Unmarshal(r.raw, &body); err != nil {
		t.Fatal(err)
	}
	for _, e := range body.Executions {
		listed[e.ID] = e.Status
	}
	for id := range acked {
		if _, ok := listed[id]; !ok {
			t.Fatalf("acknowledged execution %s is not stored (%s)", id, r.raw)
		}
	}
	if len(listed) != len(acked) {
		t.Fatalf("%d stored, %d acknowledged: %s", len(listed), len(acked), r.raw)
	}
	t.Logf("answering again after %v", time.Since(back))
	// An execution a worker had leased when the database went away is taken
	// again when its lease (30 s) runs out: allow for that, and for a loaded
	// machine.
	last := map[string]string{}
	defer func() {
		if t.Failed() {
			t.Logf("the acknowledged executions' statuses when the wait ended: %v", last)
		}
	}()
	waitFor(t, 90*time.Second, "the queued executions to finish after the outage", func() bool {
		done := true
		for id := range acked {
			last[id] = gw.call("GET", "/api/v1/executions/"+id, key, nil).str("status")
			done = done && last[id] == "success"
		}
		return done
	})
	submit().want(t, http.StatusAccepted)
}

// pgProxy stands between the gateway and PostgreSQL; cut drops every
// connection and refuses new ones until restore.
type pgProxy struct {
	t      *testing.T
	ln     net.Listener
	target string
	dsn    string

	mu    sync.Mutex
	down  bool
	conns map[net.Conn]bool
}

func newPGProxy(t *testing.T, dsn string) *pgProxy {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &pgProxy{t: t, ln: ln, target: u.Host, conns: map[net.Conn]bool{}}
	u.Host = ln.Addr().String()
	q := u.Query()
	q.Set("connect_timeout", "2")
	u.RawQuery = q.Encode()
	p.dsn = u.String()
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.cut() })
	return p
}

func (p *pgProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		if !down {
			p.conns[c] = true
		}
		p.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		go p.pipe(c)
	}
}

func (p *pgProxy) pipe(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns[up] = true
	p.mu.Unlock()
	go func() { _, _ = io.Copy(up, c); up.Close() }()
	_, _ = io.Copy(c, up)
	c.Close()
}

func (p *pgProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

func (p *pgProxy) restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}
