package gateway_test

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// echoExecutor is an A2A agent built with a2a-go's server that answers
// each message with its parts.
type echoExecutor struct{}

func (echoExecutor) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewMessage(a2a.MessageRoleAgent, ec.Message.Parts...), nil)
	}
}

func (echoExecutor) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// SendMessage (blocking) through sluice to the HTTP task echo agent, a
// durable run each, against the same client calling an echo agent built
// with a2a-go's server directly: the latency sluice adds (p50, p99) and the
// throughput ratio, in one run. A measurement, not a check: set
// SLUICE_A2A_PERF=1 to run it; nothing is asserted of the times.
func TestA2APerformance(t *testing.T) {
	if os.Getenv("SLUICE_A2A_PERF") == "" {
		t.Skip("set SLUICE_A2A_PERF=1 to measure")
	}
	s := newServer(t)
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "echo", "url": mockAgent(t, "echo")}).want(t, http.StatusCreated)
	_, key := s.account(map[string]any{"agents": []string{"echo"}}, map[string]any{"requests_per_minute": 1000000, "requests_per_hour": 1000000, "requests_per_day": 1000000})
	mux := http.NewServeMux()
	direct := httptest.NewServer(mux)
	t.Cleanup(direct.Close)
	mux.Handle("/", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(echoExecutor{})))
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(&a2a.AgentCard{Name: "a2aecho", Version: "1.0.0",
		SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(direct.URL+"/", a2a.TransportProtocolJSONRPC)},
		DefaultInputModes:   []string{"application/json"}, DefaultOutputModes: []string{"application/json"}}))
	// The same A2A echo agent behind sluice: sluice's A2A server in front,
	// its A2A client behind.
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "a2aecho", "url": direct.URL, "protocol": "a2a"}).want(t, http.StatusCreated)
	_, key = s.account(map[string]any{"agents": []string{"echo", "a2aecho"}}, map[string]any{"requests_per_minute": 1000000, "requests_per_hour": 1000000, "requests_per_day": 1000000})
	through := newA2ACaller(t, s, "echo", key, false)
	throughA2A := newA2ACaller(t, s, "a2aecho", key, false)
	callers := map[string]func(id string) error{
		"direct": func(id string) error {
			_, err := a2aclient.NewJSONRPCTransport(direct.URL, direct.Client()).SendMessage(context.Background(), nil,
				&a2a.SendMessageRequest{Message: dataMessage(id, map[string]any{"n": 1})})
			return err
		},
		"sluice": func(id string) error {
			_, err := through.tr.SendMessage(context.Background(), through.params, &a2a.SendMessageRequest{Message: dataMessage(id, map[string]any{"n": 1})})
			return err
		},
		"sluice-a2a": func(id string) error {
			res, err := throughA2A.tr.SendMessage(context.Background(), throughA2A.params, &a2a.SendMessageRequest{Message: dataMessage(id, map[string]any{"n": 1})})
			if task, ok := res.(*a2a.Task); err == nil && ok && task.Status.State != a2a.TaskStateCompleted {
				return fmt.Errorf("task %s", task.Status.State)
			}
			return err
		},
	}
	const sequential, workers, perWorker = 300, 8, 50
	p := map[string][2]time.Duration{}
	rate := map[string]float64{}
	for _, name := range []string{"direct", "sluice", "sluice-a2a"} {
		call := callers[name]
		for i := range 20 { // warm up
			_ = call(fmt.Sprintf("%s-warm-%d", name, i))
		}
		lat := make([]time.Duration, 0, sequential)
		for i := range sequential {
			start := time.Now()
			if err := call(fmt.Sprintf("%s-seq-%d", name, i)); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			lat = append(lat, time.Since(start))
		}
		slices.Sort(lat)
		p[name] = [2]time.Duration{lat[len(lat)/2], lat[len(lat)*99/100]}
		var wg sync.WaitGroup
		start := time.Now()
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range perWorker {
					if err := call(fmt.Sprintf("%s-par-%d-%d", name, w, i)); err != nil {
						t.Errorf("%s: %v", name, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		rate[name] = float64(workers*perWorker) / time.Since(start).Seconds()
	}
	t.Logf("direct: p50 %v p99 %v, %.0f/s with %d callers", p["direct"][0], p["direct"][1], rate["direct"], workers)
	t.Logf("sluice: p50 %v p99 %v, %.0f/s with %d callers", p["sluice"][0], p["sluice"][1], rate["sluice"], workers)
	t.Logf("sluice to the same A2A echo agent: p50 %v p99 %v, %.0f/s with %d callers", p["sluice-a2a"][0], p["sluice-a2a"][1], rate["sluice-a2a"], workers)
	t.Logf("added (HTTP task echo): p50 %v p99 %v; throughput ratio sluice/direct %.3f",
		p["sluice"][0]-p["direct"][0], p["sluice"][1]-p["direct"][1], rate["sluice"]/rate["direct"])
	t.Logf("added (the same A2A echo agent): p50 %v p99 %v; throughput ratio %.3f",
		p["sluice-a2a"][0]-p["direct"][0], p["sluice-a2a"][1]-p["direct"][1], rate["sluice-a2a"]/rate["direct"])
}
