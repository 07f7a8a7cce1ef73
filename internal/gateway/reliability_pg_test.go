package gateway_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
	"github.com/sluicehq/sluice/internal/vault"
)

// TestKill9OneOfTwoGateways runs two server processes on one PostgreSQL (each
// with a data directory of its own holding copies of the same key files, as
// two machines would), submits 300 asynchronous executions spread over both,
// kills one with SIGKILL midway, and checks that every execution ends exactly
// once with the right result: the survivor takes over the leases of the dead
// one when they run out.
func TestKill9OneOfTwoGateways(t *testing.T) {
	if os.Getenv("SLUICE_TEST_HEAVY") == "" {
		t.Skip("heavy: set SLUICE_TEST_HEAVY=1 (.ci/run runs it in its own step)")
	}
	dsn := pgtest.NewDatabase(t)
	t.Setenv("SLUICE_STORE", dsn) // the children read it as store.dsn
	dirA, dirB := t.TempDir(), t.TempDir()
	admin := "admin-" + strings.Repeat("k", 40)
	cmdA, urlA := startChild(t, dirA, admin)
	defer func() { _ = cmdA.Process.Kill(); _ = cmdA.Wait() }()
	for _, name := range []string{vault.MasterKeyFile, policy.KeyPepperFile} {
		b, err := os.ReadFile(filepath.Join(dirA, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dirB, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmdB, urlB := startChild(t, dirB, admin)
	defer func() { _ = cmdB.Process.Kill(); _ = cmdB.Wait() }()

	ctx := context.Background()
	name := "reliability-pg"
	_, key, err := client.New(urlA, admin, nil).CreateAccount(ctx, client.AccountSpec{Name: &name,
		Permissions: &client.Permissions{Operations: []string{"*"}},
		Limits:      map[string]int{"max_concurrent_executions": 400, "requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1}})
	if err != nil {
		t.Fatal(err)
	}
	ca, cb := client.New(urlA, key.APIKey, nil), client.New(urlB, key.APIKey, nil)

	const n = 300
	type want struct{ id, doubled, via string }
	accepted := make([]want, 0, n)
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c, via := ca, "a"
			if i%2 == 1 {
				c, via = cb, "b"
			}
			doc := fmt.Sprintf(`{"type":"operationUpdate","operationId":"first","operation":{"Wait":{"duration":%d}}}
{"type":"operationUpdate","operationId":"double","operation":{"TransformData":{"inputPath":"/input/nums","transform":"map","config":{"expression":"item * 2"},"outputPath":"/workflow/doubled"}}}
{"type":"operationUpdate","operationId":"second","operation":{"Wait":{"duration":%d}}}
{"type":"beginExecution","executionId":"relpg-%d","operationOrder":["first","double","second"]}`, 300+rand.IntN(1200), 300+rand.IntN(1200), i)
			e, err := c.Execute(ctx, doc, client.ExecuteOptions{Async: true, Input: map[string]any{"nums": []any{i, i + 1}}})
			if err != nil {
				t.Errorf("execution %d not accepted by %s: %v", i, via, err)
				return
			}
			mu.Lock()
			accepted = append(accepted, want{e.ExecutionID, fmt.Sprint([]any{float64(2 * i), float64(2*i + 2)}), via})
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(accepted) != n {
		t.Fatalf("%d of %d executions accepted", len(accepted), n)
	}
	// Kill A once some have ended and many have not.
	var done int
	waitFor(t, time.Minute, "some executions to end", func() bool {
		done = 0
		for _, w := range accepted[:60] {
			if e, err := cb.Execution(ctx, w.id); err == nil && e.Final() {
				done++
			}
		}
		return done >= 5
	})
	_ = cmdA.Process.Signal(syscall.SIGKILL)
	_, _ = cmdA.Process.Wait()
	killedAt := time.Now()
	open := 0
	for _, w := range accepted {
		if e, err := cb.Execution(ctx, w.id); err != nil || !e.Final() {
			open++
		}
	}

	pending := map[string]string{}
	for _, w := range accepted {
		pending[w.id] = w.doubled
	}
	deadline := time.Now().Add(3 * time.Minute)
	for len(pending) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d executions never ended on the survivor", len(pending))
		}
		for id, doubled := range pending {
			e, err := cb.Execution(ctx, id)
			if err != nil {
				t.Fatalf("accepted execution %s: %v", id, err)
			}
			if !e.Final() {
				continue
			}
			if e.Status != "success" || fmt.Sprint(e.Results["double"]) != doubled {
				t.Fatalf("execution %s ended %s with %v, want success with %s", id, e.Status, e.Results, doubled)
			}
			checkOneFinalFrame(t, urlB, key.APIKey, id)
			delete(pending, id)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("%d executions accepted (half through each gateway); one gateway killed with %d unfinished; all ended exactly once with the right result on the survivor, the last %v after the kill",
		len(accepted), open, time.Since(killedAt).Round(time.Second))
}
