package gateway_test

import (
	"context"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// remoteA2AAgent is an A2A agent built with a2a-go's server: it completes
// each task with {"echo": <its data part>} as a data artifact, or, when the
// input holds "fail", fails it with that text. It counts the tasks it was
// sent.
type remoteA2AAgent struct {
	url   string
	tasks atomic.Int64
}

func newRemoteA2AAgent(t *testing.T) *remoteA2AAgent {
	t.Helper()
	a := &remoteA2AAgent{}
	mux := http.NewServeMux()
	mux.Handle("/rpc", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(a)))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	a.url = srv.URL
	mux.Handle("/.well-known/agent-card.json", streamingCard("planner", srv.URL+"/rpc"))
	return a
}

// streamingCard serves the card of a test agent that streams, spoken to
// over JSON-RPC at rpcURL.
func streamingCard(name, rpcURL string) http.Handler {
	return a2asrv.NewStaticAgentCardHandler(&a2a.AgentCard{
		Name: name, Description: "a test agent", Version: "1.0.0",
		SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(rpcURL, a2a.TransportProtocolJSONRPC)},
		Capabilities:        a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:   []string{"application/json"}, DefaultOutputModes: []string{"application/json"}})
}

func (a *remoteA2AAgent) Execute(_ context.Context, exec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		a.tasks.Add(1)
		var input map[string]any
		for _, p := range exec.Message.Parts {
			if d, ok := p.Data().(map[string]any); ok {
				input = d
			}
		}
		if exec.StoredTask == nil && !yield(a2a.NewSubmittedTask(exec, exec.Message), nil) {
			return
		}
		if msg, ok := input["fail"].(string); ok {
			yield(a2a.NewStatusUpdateEvent(exec, a2a.TaskStateFailed, a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(msg))), nil)
			return
		}
		if !yield(a2a.NewArtifactEvent(exec, a2a.NewDataPart(map[string]any{"echo": input})), nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(exec, a2a.TaskStateCompleted, nil), nil)
	}
}

func (a *remoteA2AAgent) Cancel(_ context.Context, exec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(exec, a2a.TaskStateCanceled, nil), nil)
	}
}

// An agent registered with protocol a2a is reached through every entry
// point of agents: agent.invoke, the A2E InvokeAgent operation (through the
// agent queue and its workers) and an agent workflow's steps; its failure
// is the caller's failure with its message.
func TestA2AAgentBehindSluice(t *testing.T) {
	s := newServer(t)
	remote := newRemoteA2AAgent(t)
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "planner", "url": remote.url, "protocol": "a2a"}).want(t, http.StatusCreated)
	if l := s.call("GET", "/api/v1/admin/agents", s.admin, nil).want(t, http.StatusOK); !strings.Contains(string(l.raw), `"protocol":"a2a"`) {
		t.Fatalf("the registry does not keep the protocol: %s", l.raw)
	}
	_, key := s.account(map[string]any{"operations": []string{"*"}, "agents": []string{"planner"}}, nil)

	status, frames := postEnvelope(t, s, key, map[string]any{"request_id": "a2a-1", "method": "agent.invoke",
		"params": map[string]any{"agent": "planner", "input": map[string]any{"goal": "ship"}}})
	if status != http.StatusOK || len(frames) == 0 || !strings.Contains(mustJSON(t, frames[len(frames)-1].Body), `"echo":{"goal":"ship"}`) {
		t.Fatalf("agent.invoke: %d %v", status, frames)
	}

	r := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{
		"workflow": invokeDoc("planner", `{"goal":"{/input/goal}"}`), "input": map[string]any{"goal": "test"}}).want(t, http.StatusOK)
	if r.str("status") != "success" || r.str("results.ask.echo.goal") != "test" {
		t.Fatalf("InvokeAgent: %s", r.raw)
	}
	f := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{
		"workflow": invokeDoc("planner", `{"fail":"no budget left"}`)}).want(t, http.StatusOK)
	if f.str("status") != "failed" || !strings.Contains(string(f.raw), "no budget left") {
		t.Fatalf("a failing A2A task: %s", f.raw)
	}

	run := runTwoSteps(t, s, key, "planner", map[string]any{"from": "${a.output.echo.text}"})
	if run.str("status") != "success" || run.str("output.echo.from") != "x" {
		t.Fatalf("agent workflow: %s", run.raw)
	}
	if n := remote.tasks.Load(); n != 5 {
		t.Fatalf("the remote agent saw %d tasks, want 5", n)
	}
}
