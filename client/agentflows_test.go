package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/protocol/e2a"
)

const frame = `{"protocol_version":"1.0","response_id":"r1","request_id":"q","sequence":SEQ,"is_final":FINAL,"status":"STATUS","response_kind":"KIND","timestamp":"2026-03-29T12:00:00+00:00","provenance":{"source_protocol":"e2a"},"body":BODY}`

func frameLine(seq string, final bool) string {
	r := strings.NewReplacer("SEQ", seq, "FINAL", "false", "STATUS", "in_progress", "KIND", "e2a.chunk", "BODY", `{"delta_kind":"text","delta":"x"}`)
	if final {
		r = strings.NewReplacer("SEQ", seq, "FINAL", "true", "STATUS", "succeeded", "KIND", "e2a.complete", "BODY", `{"result":{}}`)
	}
	return r.Replace(frame) + "\n"
}

// PostE2A sends the envelope with the key and hands over the frames in
// order, up to and with the final one (a line after it is not read); a
// body that is not frames is its first line; an unreachable server is a
// status of 0 and a *url.Error.
func TestPostE2A(t *testing.T) {
	var auth, accept, method string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth, accept = r.Header.Get("Authorization"), r.Header.Get("Accept")
		b, _ := io.ReadAll(r.Body)
		env, err := e2a.DecodeEnvelope(b, e2a.Limits{})
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		method = env.Method
		if env.Channel == "proxy" {
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, "{\"error\":\"upstream gone\"}\n")
			return
		}
		_, _ = io.WriteString(w, frameLine("0", false)+"\n"+frameLine("1", true)+frameLine("2", false))
	}))
	defer srv.Close()
	c := client.New(srv.URL, "sk_test", nil)
	env := e2a.NewEnvelope()
	env.RequestID = e2a.NewUUID()
	env.Method = e2a.MethodAgentInvoke
	env.Channel = "cli"
	env.Params = map[string]any{"agent": "a", "input": map[string]any{}}
	var seqs []int64
	a, err := c.PostE2A(context.Background(), env, func(f *e2a.Response) error { seqs = append(seqs, f.Sequence); return nil })
	if err != nil || a.Status != 200 || !a.Final || len(seqs) != 2 || seqs[0] != 0 || seqs[1] != 1 {
		t.Fatalf("PostE2A = %+v, %v; frames %v", a, err, seqs)
	}
	if auth != "Bearer sk_test" || accept != "application/x-ndjson" || method != e2a.MethodAgentInvoke {
		t.Fatalf("the request had Authorization %q, Accept %q, method %q", auth, accept, method)
	}
	stop := errors.New("stop")
	if _, err := c.PostE2A(context.Background(), env, func(*e2a.Response) error { return stop }); err != stop {
		t.Fatalf("an error of each: got %v", err)
	}
	env.Channel = "proxy"
	a, err = c.PostE2A(context.Background(), env, func(*e2a.Response) error { t.Fatal("a frame from an error body"); return nil })
	if err != nil || a.Status != http.StatusBadGateway || a.Final || string(a.First) != `{"error":"upstream gone"}` {
		t.Fatalf("a body that is not frames: %+v (%q), %v", a, a.First, err)
	}
	srv.Close()
	a, err = c.PostE2A(context.Background(), env, func(*e2a.Response) error { return nil })
	var ue *url.Error
	if a.Status != 0 || !errors.As(err, &ue) || strings.Contains(err.Error(), "sk_test") {
		t.Fatalf("an unreachable server: %+v, %v", a, err)
	}
}

// The agent workflow run calls use their routes, pass the account on a
// cancel, return the answer as it came, and a refusal is an *Error with
// the status and the body.
func TestAgentWorkflowRuns(t *testing.T) {
	var seen []string
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Method+" "+r.URL.RequestURI())
		if r.Method == http.MethodPost && r.URL.Path == "/api/v1/agent-workflows/runs" {
			b, _ := io.ReadAll(r.Body)
			body = string(b)
		}
		if strings.Contains(r.URL.Path, "gone") {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"error":{"type":"NotFoundError","message":"run gone not found"}}`)
			return
		}
		_, _ = io.WriteString(w, `{"run_id":"awf-1","status":"running"}`)
	}))
	defer srv.Close()
	c := client.New(srv.URL, "k", nil)
	ctx := context.Background()
	raw, err := c.StartAgentWorkflowRun(ctx, []byte(`{"workflow_id":"w"}`), []byte(`{"x":1}`))
	if err != nil || string(raw) != `{"run_id":"awf-1","status":"running"}` || body != `{"input":{"x":1},"workflow":{"workflow_id":"w"}}` {
		t.Fatalf("start: %s, %v; sent %s", raw, err, body)
	}
	if _, err := c.AgentWorkflowRun(ctx, "a/b"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CancelAgentWorkflowRun(ctx, "awf-1", "acct 1"); err != nil {
		t.Fatal(err)
	}
	_, err = c.CancelAgentWorkflowRun(ctx, "gone", "")
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Status != http.StatusNotFound || ce.Message != "run gone not found" || !strings.Contains(string(ce.Body), "NotFoundError") {
		t.Fatalf("a refusal: %v", err)
	}
	want := []string{
		"POST /api/v1/agent-workflows/runs",
		"GET /api/v1/agent-workflows/runs/a%2Fb",
		"POST /api/v1/agent-workflows/runs/awf-1/cancel?account_id=acct+1",
		"POST /api/v1/agent-workflows/runs/gone/cancel",
	}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Fatalf("requests:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}
