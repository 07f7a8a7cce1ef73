package gateway_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/agent"
)

// The run service's agent paths, measured end to end through HTTP so that
// the same file measures the code before the run service (it uses only the
// routes, which did not change): an A2E InvokeAgent workflow run while the
// caller waits (its call goes through the local agent queue), and agent
// workflow runs of three steps started and followed to their end. Each
// reports runs/s and the p50 and p99 of one run, start to end.

func benchAgent(b *testing.B, name string) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = agent.ServeMock(ctx, ln, agent.MockOptions{Name: name}) }()
	b.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String()
}

// benchRuns runs b.N runs through one, 16 at a time, and reports the
// figures; one returns the time its run took.
func benchRuns(b *testing.B, one func(i int) time.Duration) {
	var (
		mu    sync.Mutex
		times = make([]time.Duration, 0, b.N)
		next  atomic.Int64
		wg    sync.WaitGroup
	)
	b.ResetTimer()
	start := time.Now()
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= b.N {
					return
				}
				d := one(i)
				mu.Lock()
				times = append(times, d)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "runs/s")
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
}

func BenchmarkRunServiceInvokeAgent(b *testing.B) {
	s := newServer(b)
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "echo", "url": benchAgent(b, "echo")}).want(b, http.StatusCreated)
	_, key := s.account(map[string]any{"operations": []string{"InvokeAgent"}, "agents": []string{"echo"}},
		map[string]any{"max_concurrent_executions": 64, "requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1})
	benchRuns(b, func(i int) time.Duration {
		doc := jsonl(`{"type":"operationUpdate","operationId":"ask","operation":{"InvokeAgent":{"agent":"echo","input":{"n":"{/input/n}"},"outputPath":"/workflow/answer"}}}`,
			fmt.Sprintf(`{"type":"beginExecution","executionId":"bench-%d","operationOrder":["ask"]}`, i))
		t0 := time.Now()
		r := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doc, "input": map[string]any{"n": i}})
		if r.status != http.StatusOK || r.str("status") != "success" {
			b.Errorf("run %d: %d %s", i, r.status, r.raw)
		}
		return time.Since(t0)
	})
}

func BenchmarkRunServiceAgentWorkflow(b *testing.B) {
	s := newServer(b)
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "echo", "url": benchAgent(b, "echo")}).want(b, http.StatusCreated)
	_, key := s.account(map[string]any{"operations": []string{"*"}, "agents": []string{"echo"}},
		map[string]any{"max_concurrent_executions": 64, "requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1})
	wf := map[string]any{"workflow_id": "bench", "name": "bench", "version": "1.0.0", "start_step": "a",
		"steps": map[string]any{
			"a": map[string]any{"id": "a", "agent_name": "echo", "next_step": "b", "input_mapping": map[string]any{"n": "${workflow.input.n}"}},
			"b": map[string]any{"id": "b", "agent_name": "echo", "next_step": "c", "input_mapping": map[string]any{"n": "${a.output.echo.n}"}},
			"c": map[string]any{"id": "c", "agent_name": "echo", "next_step": nil, "input_mapping": map[string]any{"n": "${b.output.echo.n}"}},
		}}
	benchRuns(b, func(i int) time.Duration {
		t0 := time.Now()
		id := s.call("POST", "/api/v1/agent-workflows/runs", key, map[string]any{"workflow": wf, "input": map[string]any{"n": i}}).str("run_id")
		for {
			st := s.call("GET", "/api/v1/agent-workflows/runs/"+id, key, nil).str("status")
			if st == "success" {
				return time.Since(t0)
			}
			if st != "queued" && st != "running" {
				b.Errorf("run %s: %s", id, st)
				return time.Since(t0)
			}
			time.Sleep(time.Millisecond)
		}
	})
}
