package gateway_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// An ACP agent whose entry asks its caller (acp.permission ask, the
// default): agent.invoke ends with the question, its options and the
// pending id; an answer naming no option is refused listing them; the
// answer with remote_task_id continues the same turn and returns its
// output. An A2E workflow's InvokeAgent step waits with the question and
// run.answer completes it.
func TestACPAgentAsksPermission(t *testing.T) {
	s := newServer(t, withACPTester(t.TempDir()))
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "asker", "protocol": "acp",
		"acp": map[string]any{"command": "tester"}, "retry_config": map[string]any{"max_retries": 0}}).want(t, http.StatusCreated)
	if l := s.call("GET", "/api/v1/admin/agents", s.admin, nil).want(t, http.StatusOK); !strings.Contains(string(l.raw), `"permission":"ask"`) {
		t.Fatalf("ask is not the default: %s", l.raw)
	}
	_, key := s.account(map[string]any{"operations": []string{"*"}, "agents": []string{"asker"}}, nil)

	_, frames := postEnvelope(t, s, key, map[string]any{"request_id": "perm-1", "method": "agent.invoke",
		"params": map[string]any{"agent": "asker", "input": map[string]any{"text": "permission"}}})
	last := frames[len(frames)-1]
	details, _ := last.Body["details"].(map[string]any)
	pending, _ := details["details"].(map[string]any)["inputRequired"].(map[string]any)
	id, _ := pending["remoteTaskId"].(string)
	if last.Kind != e2a.KindError || !strings.HasPrefix(id, "acpperm-") || pending["question"].(map[string]any)["title"] != "rm -rf build" ||
		!strings.Contains(mustJSON(t, pending["options"]), `{"kind":"allow_once","name":"Allow","optionId":"yes"}`) ||
		!strings.Contains(mustJSON(t, details["suggestions"]), `\"input\":{\"optionId\":\"yes\"}`) {
		t.Fatalf("agent.invoke asked: %s", mustJSON(t, last))
	}
	_, frames = postEnvelope(t, s, key, map[string]any{"request_id": "perm-2", "method": "agent.invoke",
		"params": map[string]any{"agent": "asker", "input": map[string]any{"optionId": "perhaps"}, "remote_task_id": id}})
	if last = frames[len(frames)-1]; last.Kind != e2a.KindError || last.Body["code"] != "invalid" ||
		!strings.Contains(mustJSON(t, last.Body), `\"yes\" (Allow, allow_once), \"no\" (Reject, reject_once)`) {
		t.Fatalf("an unknown option: %s", mustJSON(t, last))
	}
	_, frames = postEnvelope(t, s, key, map[string]any{"request_id": "perm-3", "method": "agent.invoke",
		"params": map[string]any{"agent": "asker", "input": map[string]any{"optionId": "no"}, "remote_task_id": id}})
	if last = frames[len(frames)-1]; last.Kind != e2a.KindComplete || !strings.Contains(mustJSON(t, last.Body["result"]), `"text":"no"`) {
		t.Fatalf("answered: %s", mustJSON(t, frames))
	}

	run := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{
		"workflow": invokeDoc("asker", `{"text":"permission"}`), "async": true}).want(t, http.StatusAccepted).str("execution_id")
	var r response
	waitFor(t, 30*time.Second, "the workflow to wait for the permission", func() bool {
		r = s.call("GET", "/api/v1/runs/"+run, key, nil).want(t, http.StatusOK)
		return r.str("status") != "queued" && r.str("status") != "running"
	})
	if r.str("status") != "waiting" || !strings.Contains(string(r.raw), "rm -rf build") || !strings.Contains(string(r.raw), `"optionId":"yes"`) {
		t.Fatalf("the workflow: %s", r.raw)
	}
	done := s.call("POST", "/api/v1/runs/"+run+"/answer", key, map[string]any{"answer": "yes"}).want(t, http.StatusOK)
	if done.str("status") != "success" || done.str("detail.results.ask.text") != "yes" {
		t.Fatalf("run.answer: %s", done.raw)
	}
}
