package gateway_test

import (
	"context"
	"fmt"
	"github.com/sluicehq/sluice/internal/mcp/mcptest"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
)

// childEnv makes the test binary a sluice server (see TestMain) on the data
// directory it names; the server writes its address to DIR/addr.
const childEnv = "SLUICE_TEST_CHILD_DIR"

func TestMain(m *testing.M) {
	mcptest.ServeIfAsked() // the test binary as an MCP server command (session_mcp_test.go)
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

// TestKill9LosesNothing submits 200 asynchronous executions with Waits, kills
// the server with SIGKILL midway, restarts it on the same data directory and
// checks that every accepted execution ends, once, with the right result.
func TestKill9LosesNothing(t *testing.T) {
	if os.Getenv("SLUICE_TEST_HEAVY") == "" {
		t.Skip("heavy: set SLUICE_TEST_HEAVY=1 (.ci/run runs it in its own step)")
	}
	dir := t.TempDir()
	admin := "admin-" + strings.Repeat("k", 40)
	cmd, url := startChild(t, dir, admin)
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	ctx := context.Background()
	ac := client.New(url, admin, nil)
	name := "reliability"
	_, key, err := ac.CreateAccount(ctx, client.AccountSpec{Name: &name,
		Permissions: &client.Permissions{Operations: []string{"*"}},
		Limits:      map[string]int{"max_concurrent_executions": 200, "requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1}})
	if err != nil {
		t.Fatal(err)
	}

	const n = 200
	type want struct{ id, doubled string }
	accepted := make([]want, 0, n)
	var mu sync.Mutex
	killed := make(chan struct{})
	var once sync.Once
	kill := func() {
		once.Do(func() {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_, _ = cmd.Process.Wait()
			close(killed)
		})
	}
	c := client.New(url, key.APIKey, nil)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			doc := fmt.Sprintf(`{"type":"operationUpdate","operationId":"first","operation":{"Wait":{"duration":%d}}}
{"type":"operationUpdate","operationId":"double","operation":{"TransformData":{"inputPath":"/input/nums","transform":"map","config":{"expression":"item * 2"},"outputPath":"/workflow/doubled"}}}
{"type":"operationUpdate","operationId":"second","operation":{"Wait":{"duration":%d}}}
{"type":"beginExecution","executionId":"rel-%d","operationOrder":["first","double","second"]}`, 100+rand.IntN(900), 100+rand.IntN(900), i)
			e, err := c.Execute(ctx, doc, client.ExecuteOptions{Async: true, Input: map[string]any{"nums": []any{i, i + 1}}})
			if err != nil {
				return // the server was killed under this call: never accepted
			}
			mu.Lock()
			accepted = append(accepted, want{e.ExecutionID, fmt.Sprint([]any{float64(2 * i), float64(2*i + 2)})})
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(accepted) != n {
		t.Fatalf("%d of %d executions accepted", len(accepted), n)
	}
	// Kill once some have ended and many have not.
	var done int
	waitFor(t, time.Minute, "some executions to end", func() bool {
		done = 0
		for _, w := range accepted[:50] {
			if e, err := c.Execution(ctx, w.id); err == nil && e.Final() {
				done++
			}
		}
		return done >= 5
	})
	kill()
	<-killed

	cmd2, url2 := startChild(t, dir, admin)
	defer func() { _ = cmd2.Process.Kill(); _ = cmd2.Wait() }()
	c2 := client.New(url2, key.APIKey, nil)
	pending := map[string]string{}
	for _, w := range accepted {
		pending[w.id] = w.doubled
	}
	deadline := time.Now().Add(3 * time.Minute)
	for len(pending) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d executions never ended after the restart", len(pending))
		}
		for id, doubled := range pending {
			e, err := c2.Execution(ctx, id)
			if err != nil {
				t.Fatalf("accepted execution %s: %v", id, err)
			}
			if !e.Final() {
				continue
			}
			if e.Status != "success" || fmt.Sprint(e.Results["double"]) != doubled {
				t.Fatalf("execution %s ended %s with %v, want success with %s", id, e.Status, e.Results, doubled)
			}
			checkOneFinalFrame(t, url2, key.APIKey, id)
			delete(pending, id)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("%d executions accepted; killed with %d of the first 50 ended; all ended once with the right result after the restart", len(accepted), done)
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
