package gateway_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/agent"
)

func mockAgent(t *testing.T, name string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = agent.ServeMock(ctx, ln, agent.MockOptions{Name: name}) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String()
}

// Agents registered by an admin, invoked through agent.invoke and as
// session tools, under the account's agents grant.
func TestAgentsOnTheServer(t *testing.T) {
	s := newServer(t)
	url := mockAgent(t, "summarizer")
	_, plain := s.account(map[string]any{}, nil)
	s.call("POST", "/api/v1/admin/agents", plain, map[string]any{"name": "summarizer", "url": url}).want(t, http.StatusForbidden)
	r := s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "summarizer", "url": url,
		"auth_config": map[string]any{"type": "bearer", "token": "tok-s3cr3t"}}).want(t, http.StatusCreated)
	if strings.Contains(string(r.raw), "tok-s3cr3t") || !strings.Contains(string(r.raw), "credentialRef") {
		t.Fatalf("register: %s", r.raw)
	}
	if l := s.call("GET", "/api/v1/admin/agents", s.admin, nil).want(t, http.StatusOK); !strings.Contains(string(l.raw), `"name":"summarizer"`) || strings.Contains(string(l.raw), "tok-s3cr3t") {
		t.Fatalf("list: %s", l.raw)
	}
	_, key := s.account(map[string]any{"agents": []string{"summarizer"}}, nil)
	// agent.invoke over E2A.
	env := map[string]any{"request_id": "r-1", "method": "agent.invoke", "params": map[string]any{"agent": "summarizer", "input": map[string]any{"text": "hello"}}}
	e := s.call("POST", "/api/v1/e2a", key, env)
	if e.status != http.StatusOK || !strings.Contains(string(e.raw), `"echo"`) || !strings.Contains(string(e.raw), "hello") {
		t.Fatalf("agent.invoke: %d %s", e.status, e.raw)
	}
	denied := s.call("POST", "/api/v1/e2a", plain, env)
	if !strings.Contains(string(denied.raw), "permission") {
		t.Fatalf("agent.invoke without the grant: %d %s", denied.status, denied.raw)
	}
	// Discovery finds it for an account granted it, not for others.
	if k := s.call("POST", "/api/v1/knowledge/search", key, map[string]any{"query": "summarizer", "type": "agent"}).want(t, http.StatusOK); !strings.Contains(string(k.raw), `"id":"agent.summarizer"`) {
		t.Fatalf("discovery: %s", k.raw)
	}
	if k := s.call("POST", "/api/v1/knowledge/search", plain, map[string]any{"query": "summarizer"}).want(t, http.StatusOK); strings.Contains(string(k.raw), "agent.summarizer") {
		t.Fatalf("discovery without the grant: %s", k.raw)
	}
	// As a session tool.
	rs := openRaw(t, s)
	rs.handshake(key)
	rs.send("tool/list/req", nil)
	if names := fmtAny(rs.recv()["tools"]); !strings.Contains(names, "name:agent.summarizer") {
		t.Fatalf("tools: %v", names)
	}
	rs.send("tool/call/req", map[string]any{"tool_name": "agent.summarizer", "arguments": map[string]any{"text": "hi"}})
	m := rs.recv()
	data, _ := m["data"].(map[string]any)
	if data["success"] != true || !strings.Contains(fmtAny(data["data"]), "echo:map[text:hi]") {
		t.Fatalf("tool call: %v", m)
	}
	s.call("DELETE", "/api/v1/admin/agents/summarizer", s.admin, nil).want(t, http.StatusOK)
	rs.send("tool/call/req", map[string]any{"tool_name": "agent.summarizer", "arguments": map[string]any{}})
	if m := rs.recv(); m["code"] != "unknown_tool" {
		t.Fatalf("after remove: %v", m)
	}
}

// A two-step agent workflow runs on the workers; its second step takes the
// first's output.
func TestAgentWorkflowOnTheServer(t *testing.T) {
	s := newServer(t)
	for _, name := range []string{"extract", "summarize"} {
		s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": name, "url": mockAgent(t, name)}).want(t, http.StatusCreated)
	}
	_, key := s.account(map[string]any{"agents": []string{"extract", "summarize"}}, nil)
	_, other := s.account(map[string]any{"agents": []string{"extract"}}, nil)
	wf := map[string]any{"workflow_id": "wf-1", "name": "two steps", "version": "1.0.0", "start_step": "a",
		"steps": map[string]any{
			"a": map[string]any{"id": "a", "agent_name": "extract", "next_step": "b", "input_mapping": map[string]any{"text": "${workflow.input.text}"}},
			"b": map[string]any{"id": "b", "agent_name": "summarize", "next_step": nil, "input_mapping": map[string]any{"from": "${a.output.echo.text}"}},
		}}
	s.call("POST", "/api/v1/agent-workflows/runs", other, map[string]any{"workflow": wf, "input": map[string]any{"text": "x"}}).want(t, http.StatusForbidden)
	r := s.call("POST", "/api/v1/agent-workflows/runs", key, map[string]any{"workflow": wf, "input": map[string]any{"text": "hello"}}).want(t, http.StatusAccepted)
	id := r.str("run_id")
	var last response
	waitFor(t, 20e9, "the agent workflow to finish", func() bool {
		last = s.call("GET", "/api/v1/agent-workflows/runs/"+id, key, nil)
		return last.str("status") == "success" || last.str("status") == "failed"
	})
	if last.str("status") != "success" || !strings.Contains(string(last.raw), `"from":"hello"`) {
		t.Fatalf("run: %s", last.raw)
	}
	s.call("GET", "/api/v1/agent-workflows/runs/"+id, other, nil).want(t, http.StatusNotFound)
	bad := map[string]any{"workflow_id": "w", "name": "n", "version": "1", "start_step": "a",
		"steps": map[string]any{"a": map[string]any{"id": "a", "agent_name": "extract", "next_step": "a", "input_mapping": map[string]any{}}}}
	s.call("POST", "/api/v1/agent-workflows/runs", key, map[string]any{"workflow": bad}).want(t, http.StatusBadRequest)
}
