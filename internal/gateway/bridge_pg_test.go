package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
	"github.com/sluicehq/sluice/internal/vault"
)

// workerEnv makes the test binary a `sluice worker` (see TestMain) on the
// key files of the directory it names; the store and queue come from
// SLUICE_STORE and SLUICE_QUEUE.
const workerEnv = "SLUICE_TEST_WORKER_DIR"

func runWorkerChild(dir string) int {
	cfg, err := config.Load(config.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	cfg.DataDir = dir
	cfg.Egress.AllowPrivate = []string{"127.0.0.1"}
	w, err := gateway.OpenWorker(context.Background(), cfg, gateway.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_ = os.WriteFile(filepath.Join(dir, "worker.ready"), nil, 0o600)
	_ = w.Run(context.Background()) // until killed
	return 0
}

func startWorkerChild(t *testing.T, keysFrom string) *exec.Cmd {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{vault.MasterKeyFile, policy.KeyPepperFile} {
		b, err := os.ReadFile(filepath.Join(keysFrom, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), workerEnv+"="+dir, "SLUICE_LOG_LEVEL=warn")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	waitFor(t, 30*time.Second, "the worker to start", func() bool {
		_, err := os.Stat(filepath.Join(dir, "worker.ready"))
		return err == nil
	})
	return cmd
}

// holdingAgent answers each task_id's first call only once released (or
// never, when its caller dies first), later calls at once; it counts the
// calls of every task.
type holdingAgent struct {
	mu      sync.Mutex
	calls   map[string]int
	held    int
	release chan struct{}
}

func (h *holdingAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		TaskID string          `json:"task_id"`
		Input  json.RawMessage `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.calls[req.TaskID]++
	first := h.calls[req.TaskID] == 1
	if first {
		h.held++
	}
	h.mu.Unlock()
	if first {
		select {
		case <-h.release:
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"task_id": req.TaskID, "status": "success", "output": map[string]any{"echo": req.Input}})
}

func (h *holdingAgent) snapshot() (held int, calls map[string]int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	calls = map[string]int{}
	for k, v := range h.calls {
		calls[k] = v
	}
	return h.held, calls
}

// TestKill9AgentWorker: a gateway (no workers of its own) enqueues agent
// tasks on JetStream; worker A, another process, takes them all and is
// killed with SIGKILL while the agent works on them; worker B takes them
// once their leases run out. Every caller gets exactly one answer, the
// right one, and the agent saw each task twice, with the same task_id.
func TestKill9AgentWorker(t *testing.T) {
	if os.Getenv("SLUICE_TEST_HEAVY") == "" {
		t.Skip("heavy: set SLUICE_TEST_HEAVY=1 (.ci/run runs it in its own step)")
	}
	dsn := pgtest.NewDatabase(t)
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	defer ns.Shutdown()
	t.Setenv("SLUICE_STORE", dsn)            // the workers read them
	t.Setenv("SLUICE_QUEUE", ns.ClientURL()) // as store.dsn and agents.queue
	gwDir := t.TempDir()
	s := startServer(t, gwDir, func(c *config.Config) {
		c.Store.DSN, c.Agents.Queue, c.Agents.Workers = dsn, ns.ClientURL(), 0
	})
	ag := &holdingAgent{calls: map[string]int{}, release: make(chan struct{})}
	agentSrv := httptest.NewServer(ag)
	defer agentSrv.Close()
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "slow", "url": agentSrv.URL,
		"retry_config": map[string]any{"max_retries": 0}}).want(t, http.StatusCreated)
	_, key := s.account(map[string]any{"agents": []string{"slow"}}, nil)

	workerA := startWorkerChild(t, gwDir)
	const n = 6
	type answer struct {
		i   int
		raw string
	}
	answers := make(chan answer, n)
	for i := range n {
		go func() {
			env := map[string]any{"request_id": fmt.Sprintf("r-%d", i), "method": "agent.invoke",
				"params": map[string]any{"agent": "slow", "task_id": fmt.Sprintf("task-%d", i), "input": map[string]any{"i": i}}}
			r := s.call("POST", "/api/v1/e2a", key, env)
			answers <- answer{i, fmt.Sprintf("%d %s", r.status, r.raw)}
		}()
	}
	waitFor(t, time.Minute, "worker A to hold every task", func() bool { held, _ := ag.snapshot(); return held == n })
	startWorkerChild(t, gwDir) // B
	_ = workerA.Process.Signal(syscall.SIGKILL)
	_, _ = workerA.Process.Wait()
	close(ag.release)

	got := map[int]string{}
	timeout := time.After(3 * time.Minute)
	for len(got) < n {
		select {
		case a := <-answers:
			if _, dup := got[a.i]; dup {
				t.Fatalf("call %d answered twice", a.i)
			}
			got[a.i] = a.raw
		case <-timeout:
			t.Fatalf("%d of %d calls answered within 3 minutes: %v", len(got), n, got)
		}
	}
	for i, raw := range got {
		if !strings.HasPrefix(raw, "200 ") || !strings.Contains(raw, fmt.Sprintf(`"echo":{"i":%d}`, i)) {
			t.Errorf("call %d: %s", i, raw)
		}
	}
	_, calls := ag.snapshot()
	for i := range n {
		if c := calls[fmt.Sprintf("task-%d", i)]; c != 2 {
			t.Errorf("task-%d reached the agent %d times, want 2 (A's call, then B's)", i, c)
		}
	}
}
