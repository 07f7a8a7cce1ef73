package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

const cliWorkflow = `{"workflow_id": "wf-1", "name": "two", "version": "1.0.0", "start_step": "a",
 "steps": {"a": {"id": "a", "agent_name": "upper", "next_step": "b", "input_mapping": {"text": "${workflow.input.text}"}},
           "b": {"id": "b", "agent_name": "echo", "next_step": null, "input_mapping": {"t": "${a.output.text}"}}}}`

func writeWorkflowFile(t *testing.T, body string) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "wf.json")
	if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

func runWorkflowCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runSub(context.Background(), newAgentsRunWorkflowCmd, stdin, &out, &errb, append([]string{"run-workflow"}, args...)...)
	return code, out.String(), errb.String()
}

// fakeRuns answers POST .../runs with a queued run, then GETs with running
// polls before the final state.
func fakeRuns(t *testing.T, final string) (*fakeAdmin, string) {
	var polls atomic.Int32
	return newFakeAdmin(t, func(r seenRequest) (int, string) {
		switch {
		case r.method == http.MethodPost && r.path == "/api/v1/agent-workflows/runs":
			return http.StatusAccepted, `{"run_id": "awf-1", "status": "queued"}`
		case r.method == http.MethodGet && r.path == "/api/v1/agent-workflows/runs/awf-1":
			if polls.Add(1) < 3 {
				return http.StatusOK, `{"run_id": "awf-1", "status": "running"}`
			}
			return http.StatusOK, final
		}
		return http.StatusNotFound, `{"error": {"type": "ExecutionError", "message": "no route"}}`
	})
}

func TestAgentsRunWorkflow(t *testing.T) {
	final := `{"run_id": "awf-1", "status": "success", "outputs": {"a": {"text": "HI"}, "b": {"t": "HI"}}, "output": {"t": "HI"}}`
	f, srv := fakeRuns(t, final)
	file := writeWorkflowFile(t, cliWorkflow)
	code, out, errs := runWorkflowCmd(t, "", file, "--input", `{"text": "hi"}`, "--url", srv, "--key", "sk_test", "--poll-interval", "1ms")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil || got["status"] != "success" || got["output"].(map[string]any)["t"] != "HI" {
		t.Fatalf("printed %s (%v)", out, err)
	}
	reqs := f.requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	post := reqs[0]
	if post.method != http.MethodPost || post.auth != "Bearer sk_test" || post.contentType != "application/json" {
		t.Fatalf("post %+v", post)
	}
	wf, _ := post.body["workflow"].(map[string]any)
	if wf["workflow_id"] != "wf-1" || wf["start_step"] != "a" || len(wf["steps"].(map[string]any)) != 2 {
		t.Fatalf("workflow sent %s", post.raw)
	}
	if in, _ := post.body["input"].(map[string]any); in["text"] != "hi" || len(post.body) != 2 {
		t.Fatalf("body %s", post.raw)
	}
	for _, g := range reqs[1:] {
		if g.method != http.MethodGet || g.path != "/api/v1/agent-workflows/runs/awf-1" || g.auth != "Bearer sk_test" || len(g.raw) != 0 {
			t.Fatalf("poll %+v", g)
		}
	}
}

func TestAgentsRunWorkflowFails(t *testing.T) {
	final := `{"run_id": "awf-1", "status": "failed", "outputs": {"a": {"text": "HI"}}, "output": null,
	  "errors": [{"type": "ExecutionError", "message": "step \"b\" (agent \"echo\"): agent answered 400"}]}`
	_, srv := fakeRuns(t, final)
	file := writeWorkflowFile(t, cliWorkflow)
	code, out, errs := runWorkflowCmd(t, "", file, "--url", srv, "--key", "sk_test", "--poll-interval", "1ms")
	if code != ExitFailed || !strings.Contains(out, `"failed"`) || !strings.Contains(errs, `run awf-1 failed: step "b" (agent "echo"): agent answered 400`) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

func TestAgentsRunWorkflowRefused(t *testing.T) {
	f, srv := newFakeAdmin(t, func(seenRequest) (int, string) {
		return http.StatusBadRequest, `{"error": {"type": "ValidationError", "message": "workflow: field steps.b.agent_name: agent \"echo\" is not registered"}}`
	})
	file := writeWorkflowFile(t, cliWorkflow)
	code, _, errs := runWorkflowCmd(t, "", file, "--url", srv, "--key", "sk_test")
	if code != ExitFailed || !strings.Contains(errs, `HTTP 400: workflow: field steps.b.agent_name: agent "echo" is not registered`) || len(f.requests()) != 1 {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

// Bad workflows and inputs are refused before any request, exit 2.
func TestAgentsRunWorkflowInvalid(t *testing.T) {
	f, srv := newFakeAdmin(t, func(seenRequest) (int, string) { return http.StatusOK, `{}` })
	cycle := strings.Replace(cliWorkflow, `"next_step": null`, `"next_step": "a"`, 1)
	cases := []struct {
		name, doc, input, stdin, want string
	}{
		{name: "cycle", doc: cycle, input: `{}`, want: "steps.b.next_step: step \"b\" goes back to step \"a\""},
		{name: "syntax", doc: "{\n  \"workflow_id\": \"w\",\n  \"steps\": [\n", input: `{}`, want: ":3:"},
		{name: "nested reference", doc: strings.Replace(cliWorkflow, `{"t": "${a.output.text}"}`, `{"t": {"x": "${a.output.text}"}}`, 1), input: `{}`,
			want: `:3:`},
		{name: "nested reference message", doc: strings.Replace(cliWorkflow, `{"t": "${a.output.text}"}`, `{"t": {"x": "${a.output.text}"}}`, 1), input: `{}`,
			want: `steps.b.input_mapping.t: step "b": ${a.output.text} at input_mapping.t.x is not rendered`},
		{name: "input not object", doc: cliWorkflow, input: `[1]`, want: "--input is not a JSON object"},
		{name: "stdin", doc: "-", stdin: `{"workflow_id": "w"}`, input: `{}`, want: "field start_step: is missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := c.doc
			if file != "-" {
				file = writeWorkflowFile(t, c.doc)
			}
			code, _, errs := runWorkflowCmd(t, c.stdin, file, "--input", c.input, "--url", srv, "--key", "sk_test")
			if code != ExitInvalid || !strings.Contains(errs, c.want) {
				t.Fatalf("exit %d: %s", code, errs)
			}
		})
	}
	if n := len(f.requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}
