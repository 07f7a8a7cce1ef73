package gateway_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/agent/acptest"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
	"github.com/sluicehq/sluice/internal/mcp/mcptest"
)

// What the kill -9 tests (reliability_test.go on SQLite,
// reliability_pg_test.go on PostgreSQL) share: the test binary as a server
// process, and the executions they submit, kill under and check.

// childEnv makes the test binary a sluice server (see TestMain) on the data
// directory it names; the server writes its address to DIR/addr.
const childEnv = "SLUICE_TEST_CHILD_DIR"

func TestMain(m *testing.M) {
	mcptest.ServeIfAsked() // the test binary as an MCP server command (session_mcp_test.go)
	acptest.ServeIfAsked() // the test binary as an ACP agent command (acp_agents_test.go)
	if dir := os.Getenv(childEnv); dir != "" {
		os.Exit(runChild(dir))
	}
	if dir := os.Getenv(workerEnv); dir != "" {
		os.Exit(runWorkerChild(dir))
	}
	os.Exit(m.Run())
}

func runChild(dir string) int {
	cfg, err := config.Load(config.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	cfg.DataDir = dir
	cfg.Workers = 32
	// The test's agents listen on loopback.
	cfg.Egress.AllowPrivate = []string{"127.0.0.1"}
	app, err := gateway.Open(context.Background(), cfg, gateway.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 1
	}
	tmp := filepath.Join(dir, "addr.tmp")
	_ = os.WriteFile(tmp, []byte(ln.Addr().String()), 0o600)
	_ = os.Rename(tmp, filepath.Join(dir, "addr"))
	_ = app.Serve(context.Background(), ln) // until killed
	return 0
}

// startChild runs a server process on dir and returns it with its URL.
func startChild(t *testing.T, dir, adminKey string) (*exec.Cmd, string) {
	t.Helper()
	_ = os.Remove(filepath.Join(dir, "addr"))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir, "SLUICE_ADMIN_KEY="+adminKey, "SLUICE_LOG_LEVEL=warn")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var addr []byte
	waitFor(t, 30*time.Second, "the server to listen", func() bool {
		addr, _ = os.ReadFile(filepath.Join(dir, "addr"))
		return len(addr) > 0
	})
	return cmd, "http://" + string(addr)
}

// skipUnlessHeavy skips a kill -9 test unless SLUICE_TEST_HEAVY is set.
func skipUnlessHeavy(t *testing.T) {
	t.Helper()
	if os.Getenv("SLUICE_TEST_HEAVY") == "" {
		t.Skip("heavy: set SLUICE_TEST_HEAVY=1 (.ci/run runs it in its own step)")
	}
}

// killTestAccount creates an account allowed every operation, with no
// request limits and room for maxConcurrent executions, and returns its API
// key.
func killTestAccount(t *testing.T, url, adminKey, name string, maxConcurrent int) string {
	t.Helper()
	_, key, err := client.New(url, adminKey, nil).CreateAccount(context.Background(), client.AccountSpec{Name: &name,
		Permissions: &client.Permissions{Operations: []string{"*"}},
		Limits:      map[string]int{"max_concurrent_executions": maxConcurrent, "requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1}})
	if err != nil {
		t.Fatal(err)
	}
	return key.APIKey
}

// killTestRun is one submitted execution: its id and the result its
// "double" operation must end with.
type killTestRun struct{ id, doubled string }

// submitKillTestRuns submits n asynchronous executions, 8 at a time, the
// i-th through clients[i%len(clients)]: each waits a random minWait ms to
// minWait+span ms, doubles [i, i+1], and waits again, so a kill finds them at
// every stage. Every one must be accepted.
func submitKillTestRuns(t *testing.T, clients []*client.Client, n int, idPrefix string, minWait, span int) []killTestRun {
	t.Helper()
	ctx := context.Background()
	accepted := make([]killTestRun, 0, n)
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			via := i % len(clients)
			doc := fmt.Sprintf(`{"type":"operationUpdate","operationId":"first","operation":{"Wait":{"duration":%d}}}
{"type":"operationUpdate","operationId":"double","operation":{"TransformData":{"inputPath":"/input/nums","transform":"map","config":{"expression":"item * 2"},"outputPath":"/workflow/doubled"}}}
{"type":"operationUpdate","operationId":"second","operation":{"Wait":{"duration":%d}}}
{"type":"beginExecution","executionId":"%s-%d","operationOrder":["first","double","second"]}`, minWait+rand.IntN(span), minWait+rand.IntN(span), idPrefix, i)
			e, err := clients[via].Execute(ctx, doc, client.ExecuteOptions{Async: true, Input: map[string]any{"nums": []any{i, i + 1}}})
			if err != nil {
				t.Errorf("execution %d not accepted by client %d: %v", i, via, err)
				return
			}
			mu.Lock()
			accepted = append(accepted, killTestRun{e.ExecutionID, fmt.Sprint([]any{float64(2 * i), float64(2*i + 2)})})
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(accepted) != n {
		t.Fatalf("%d of %d executions accepted", len(accepted), n)
	}
	return accepted
}

// waitSomeEnded waits (up to a minute) until at least 5 of runs have ended,
// so a kill finds some ended and many not, and returns how many had.
func waitSomeEnded(t *testing.T, c *client.Client, runs []killTestRun) int {
	t.Helper()
	var done int
	waitFor(t, time.Minute, "some executions to end", func() bool {
		done = 0
		for _, r := range runs {
			if e, err := c.Execution(context.Background(), r.id); err == nil && e.Final() {
				done++
			}
		}
		return done >= 5
	})
	return done
}

// checkAllEndOnce waits (up to 3 minutes) until every run has ended on the
// server at url, and checks each: success with the right result, and one
// final frame in its stored event stream. where names the server in the
// failure ("after the restart", "on the survivor").
func checkAllEndOnce(t *testing.T, url, key string, runs []killTestRun, where string) {
	t.Helper()
	c := client.New(url, key, nil)
	pending := map[string]string{}
	for _, r := range runs {
		pending[r.id] = r.doubled
	}
	deadline := time.Now().Add(3 * time.Minute)
	for len(pending) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d executions never ended %s", len(pending), where)
		}
		for id, doubled := range pending {
			e, err := c.Execution(context.Background(), id)
			if err != nil {
				t.Fatalf("accepted execution %s: %v", id, err)
			}
			if !e.Final() {
				continue
			}
			if e.Status != "success" || fmt.Sprint(e.Results["double"]) != doubled {
				t.Fatalf("execution %s ended %s with %v, want success with %s", id, e.Status, e.Results, doubled)
			}
			checkOneFinalFrame(t, url, key, id)
			delete(pending, id)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// checkOneFinalFrame reads an execution's stored frames: sequences 0..n-1
// without a gap and exactly one final frame, the last.
func checkOneFinalFrame(t *testing.T, url, key, id string) {
	t.Helper()
	frames, end := readSSEAt(t, url, key, "/api/v1/executions/"+id+"/events")
	if end == "" {
		t.Fatalf("%s: the event stream has no end", id)
	}
	finals := 0
	for i, f := range frames {
		if f.frame["sequence"] != float64(i) {
			t.Fatalf("%s: frame %d has sequence %v", id, i, f.frame["sequence"])
		}
		if f.frame["is_final"] == true {
			finals++
		}
	}
	if finals != 1 || frames[len(frames)-1].frame["is_final"] != true {
		t.Fatalf("%s: %d final frames", id, finals)
	}
}
