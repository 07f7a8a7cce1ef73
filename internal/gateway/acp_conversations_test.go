package gateway_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// An ACP agent's calls of one conversation share its session, whichever
// way the conversation is named: agent.invoke's context_id, the call's
// session, an A2A task's contextId, the session tool on an A2E session.
// A conversation is the account's own, and a call without one is a fresh
// session.
func TestACPAgentConversations(t *testing.T) {
	s := newServer(t, withACPTester(t.TempDir()))
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "coder", "protocol": "acp",
		"acp": map[string]any{"command": "tester"}, "retry_config": map[string]any{"max_retries": 0}}).want(t, http.StatusCreated)
	_, key := s.account(map[string]any{"operations": []string{"*"}, "agents": []string{"coder"}}, nil)
	_, other := s.account(map[string]any{"operations": []string{"*"}, "agents": []string{"coder"}}, nil)

	invoke := func(key, text string, extra map[string]any, want string) {
		t.Helper()
		env := map[string]any{"request_id": "c", "method": "agent.invoke",
			"params": map[string]any{"agent": "coder", "input": map[string]any{"text": text}}}
		for k, v := range extra {
			if k == "session_id" {
				env[k] = v
			} else {
				env["params"].(map[string]any)[k] = v
			}
		}
		status, frames := postEnvelope(t, s, key, env)
		if status != http.StatusOK || len(frames) == 0 || !strings.Contains(mustJSON(t, frames[len(frames)-1].Body), want) {
			t.Fatalf("%s %v: %d %s, want %q", text, extra, status, mustJSON(t, frames[len(frames)-1].Body), want)
		}
	}
	ticket := map[string]any{"context_id": "ticket-481"}
	invoke(key, "remember blue", ticket, "echo: remember blue")
	invoke(key, "recall", ticket, "prompt 2, before: remember blue")
	invoke(other, "recall", ticket, "prompt 1, before: -") // another account's conversation
	invoke(key, "recall", nil, "prompt 1, before: -")
	invoke(key, "recall", nil, "prompt 1, before: -")
	sess := map[string]any{"session_id": "sess-e2a-1"}
	invoke(key, "remember green", sess, "echo: remember green")
	invoke(key, "recall", sess, "prompt 2, before: remember green")
	invoke(key, "recall", map[string]any{"session_id": "sess-e2a-1", "context_id": "ticket-481"}, "prompt 3, before: recall")

	// Through sluice's A2A server: a task's contextId is the conversation.
	a2aCaller := newA2ACaller(t, s, "coder", key, false)
	for i, want := range []string{"echo: remember red", "prompt 2, before: remember red"} {
		text := []string{"remember red", "recall"}[i]
		msg := dataMessage("m-conv-"+text, map[string]any{"text": text})
		msg.ContextID = "ctx-a2a-1"
		task, err := a2aCaller.send(msg, false)
		if err != nil || task.Status.State != a2a.TaskStateCompleted || !strings.Contains(outputOf(t, task), want) {
			t.Fatalf("A2A %s: %v %+v", text, err, task)
		}
	}

	// The session tool agent.coder on an A2E session: the session's.
	rs := openRaw(t, s)
	rs.handshake(key)
	for _, step := range [][2]string{{"remember gold", "echo: remember gold"}, {"recall", "prompt 2, before: remember gold"}} {
		rs.send("tool/call/req", map[string]any{"tool_name": "agent.coder", "arguments": map[string]any{"text": step[0]}})
		m := rs.recv()
		if data, _ := m["data"].(map[string]any); data["success"] != true || !strings.Contains(fmtAny(data["data"]), step[1]) {
			t.Fatalf("session tool %s: %v", step[0], m)
		}
	}
}
