package gateway_test

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/sluicehq/sluice/internal/agent/acptest"
	"github.com/sluicehq/sluice/internal/config"
)

// withACPTester allowlists the test binary as the ACP agent command
// "tester" (acptest), working in dir, with SLUICE_ACP_PASSED passed on.
func withACPTester(dir string) func(*config.Config) {
	return func(c *config.Config) {
		c.Agents.ACP.Commands = map[string]config.ACPCommand{"tester": {
			Command: os.Args[0], Args: []string{"-test.run=^$"}, Env: []string{acptest.EnvServe + "=1", "SLUICE_ACP_PASSED"}, Dir: dir}}
	}
}

// An agent registered with protocol acp is a process sluice runs and
// speaks ACP to, reached through every entry point of agents: agent.invoke,
// the A2E InvokeAgent operation (through the agent queue and its workers)
// and an agent workflow's steps. Its environment is only what the
// allowlist names.
func TestACPAgentBehindSluice(t *testing.T) {
	t.Setenv("SLUICE_ACP_PASSED", "ok")
	t.Setenv("SLUICE_ACP_SERVER_SECRET", "server-only-secret")
	s := newServer(t, withACPTester(t.TempDir()))
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "coder", "protocol": "acp",
		"acp": map[string]any{"command": "tester"}, "retry_config": map[string]any{"max_retries": 0}}).want(t, http.StatusCreated)
	if l := s.call("GET", "/api/v1/admin/agents", s.admin, nil).want(t, http.StatusOK); !strings.Contains(string(l.raw), `"protocol":"acp"`) {
		t.Fatalf("the registry does not keep the protocol: %s", l.raw)
	}
	_, key := s.account(map[string]any{"operations": []string{"*"}, "agents": []string{"coder"}}, nil)

	status, frames := postEnvelope(t, s, key, map[string]any{"request_id": "acp-1", "method": "agent.invoke",
		"params": map[string]any{"agent": "coder", "input": map[string]any{"text": "hello"}}})
	if status != http.StatusOK || len(frames) == 0 || !strings.Contains(mustJSON(t, frames[len(frames)-1].Body), `"text":"Hello"`) {
		t.Fatalf("agent.invoke: %d %v", status, frames)
	}
	for name, want := range map[string]string{"SLUICE_ACP_PASSED": "ok", "SLUICE_ACP_SERVER_SECRET": "(unset)"} {
		_, frames := postEnvelope(t, s, key, map[string]any{"request_id": "acp-env", "method": "agent.invoke",
			"params": map[string]any{"agent": "coder", "input": map[string]any{"text": "env " + name}}})
		if len(frames) == 0 || !strings.Contains(mustJSON(t, frames[len(frames)-1].Body), `"text":"`+want+`"`) {
			t.Fatalf("env %s: %v, want %q", name, frames, want)
		}
	}

	r := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{
		"workflow": invokeDoc("coder", `{"text":"{/input/goal}"}`), "input": map[string]any{"goal": "ship"}}).want(t, http.StatusOK)
	if r.str("status") != "success" || r.str("results.ask.text") != "echo: ship" {
		t.Fatalf("InvokeAgent: %s", r.raw)
	}
	f := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": invokeDoc("coder", `{"text":"crash"}`)}).want(t, http.StatusOK)
	if f.str("status") != "failed" || !strings.Contains(string(f.raw), "its process ended") {
		t.Fatalf("a crashing ACP agent: %s", f.raw)
	}

	run := runTwoSteps(t, s, key, "coder", map[string]any{"text": "${a.output.text}"})
	if run.str("status") != "success" || !strings.HasPrefix(run.str("output.text"), "echo: ") {
		t.Fatalf("agent workflow: %s", run.raw)
	}

	// As a session tool.
	rs := openRaw(t, s)
	rs.handshake(key)
	rs.send("tool/call/req", map[string]any{"tool_name": "agent.coder", "arguments": map[string]any{"text": "hello"}})
	m := rs.recv()
	if data, _ := m["data"].(map[string]any); data["success"] != true || !strings.Contains(fmtAny(data["data"]), "text:Hello") {
		t.Fatalf("session tool: %v", m)
	}
	// Through sluice's A2A server.
	task, err := newA2ACaller(t, s, "coder", key, false).send(dataMessage("m-acp", map[string]any{"text": "hello"}), false)
	if err != nil || task.Status.State != a2a.TaskStateCompleted || !strings.Contains(outputOf(t, task), `"text":"Hello"`) {
		t.Fatalf("A2A server: %v %+v", err, task)
	}

	// A command not on the allowlist is refused, naming it.
	bad := s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "shell", "protocol": "acp",
		"acp": map[string]any{"command": "bash"}}).want(t, http.StatusForbidden)
	if !strings.Contains(string(bad.raw), `\"bash\"`) || !strings.Contains(string(bad.raw), "agents.acp.commands") {
		t.Fatalf("refusal: %s", bad.raw)
	}
}

// runTwoSteps runs twoStepWorkflow with agent in both steps, the second's
// input mapped by second, on input {"text": "x"}, and returns the finished
// run.
func runTwoSteps(t *testing.T, s *testServer, key, agent string, second map[string]any) response {
	t.Helper()
	wf := twoStepWorkflow(agent)
	wf["steps"].(map[string]any)["a"].(map[string]any)["agent_name"] = agent
	wf["steps"].(map[string]any)["b"].(map[string]any)["input_mapping"] = second
	id := s.call("POST", "/api/v1/agent-workflows/runs", key, map[string]any{"workflow": wf, "input": map[string]any{"text": "x"}}).
		want(t, http.StatusAccepted).str("run_id")
	var run response
	waitFor(t, 30*time.Second, "the agent workflow to finish", func() bool {
		run = s.call("GET", "/api/v1/agent-workflows/runs/"+id, key, nil)
		return run.str("status") == "success" || run.str("status") == "failed"
	})
	return run
}
