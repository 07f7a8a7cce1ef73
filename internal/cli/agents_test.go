package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/gateway"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// fakeAdmin is the admin API's agent routes as the CLI expects them: it
// checks every request's shape and answers from its handler.
type fakeAdmin struct {
	t      *testing.T
	mu     sync.Mutex
	reqs   []seenRequest
	answer func(r seenRequest) (int, string)
}

type seenRequest struct {
	method, path, auth, contentType string
	body                            map[string]any
	raw                             []byte
}

func (f *fakeAdmin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s := seenRequest{method: r.Method, path: r.URL.Path, auth: r.Header.Get("Authorization"), contentType: r.Header.Get("Content-Type"), raw: b}
	if len(b) > 0 {
		if err := json.Unmarshal(b, &s.body); err != nil {
			f.t.Errorf("body is not a JSON object: %s", b)
		}
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, s)
	answer := f.answer
	f.mu.Unlock()
	status, body := answer(s)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

func (f *fakeAdmin) requests() []seenRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seenRequest(nil), f.reqs...)
}

func newFakeAdmin(t *testing.T, answer func(seenRequest) (int, string)) (*fakeAdmin, string) {
	f := &fakeAdmin{t: t, answer: answer}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv.URL
}

func runAgents(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runSub(context.Background(), newAgentsCmd, stdin, &out, &errb, append([]string{"agents"}, args...)...)
	return code, out.String(), errb.String()
}

const storedEntry = `{"name":"ResearchAgent","url":"http://research-agent:8080","auth_config":{"type":"bearer",` +
	`"token":{"credentialRef":{"id":"agent.ResearchAgent.token.0a1b2c3d4e5f"}}},"timeout":30000,` +
	`"retry_config":{"max_retries":3,"initial_delay_ms":1000,"max_delay_ms":30000,"backoff_multiplier":2}}`

func TestAgentsRegisterFlags(t *testing.T) {
	f, url := newFakeAdmin(t, func(seenRequest) (int, string) { return 201, storedEntry })
	t.Setenv("AGENT_TOKEN", "secret-token-123")
	code, out, errb := runAgents(t, "", "register", "ResearchAgent", "--url", url, "--admin-key", "adm-key",
		"--agent-url", "http://research-agent:8080", "--bearer-token", "env:AGENT_TOKEN", "--timeout", "45s", "--max-retries", "5")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	reqs := f.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.method != "POST" || r.path != "/api/v1/admin/agents" || r.auth != "Bearer adm-key" || !strings.HasPrefix(r.contentType, "application/json") {
		t.Fatalf("%+v", r)
	}
	want := `{"name":"ResearchAgent","url":"http://research-agent:8080","auth_config":{"type":"bearer","token":"secret-token-123"},` +
		`"timeout":45000,"retry_config":{"max_retries":5,"initial_delay_ms":1000,"max_delay_ms":30000,"backoff_multiplier":2}}`
	if string(r.raw) != want {
		t.Fatalf("body\n got %s\nwant %s", r.raw, want)
	}
	// The server's answer, with the reference, is printed.
	var printed map[string]any
	if err := json.Unmarshal([]byte(out), &printed); err != nil || !strings.Contains(out, "credentialRef") || strings.Contains(out, "secret-token-123") {
		t.Fatalf("stdout %s %v", out, err)
	}
}

func TestAgentsRegisterAuthKinds(t *testing.T) {
	f, url := newFakeAdmin(t, func(seenRequest) (int, string) { return 201, storedEntry })
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	os.WriteFile(keyFile, []byte("sk-from-file\n"), 0o600)
	cases := []struct {
		args []string
		auth string
	}{
		{[]string{"--api-key", "@" + keyFile, "--api-key-header", "X-Agent-Key"}, `{"type":"apikey","key":"sk-from-file","header":"X-Agent-Key"}`},
		{[]string{"--api-key-ref", "shared-key"}, `{"type":"apikey","key":{"credentialRef":{"id":"shared-key"}},"header":"X-API-Key"}`},
		{[]string{"--bearer-token-ref", "tok-1"}, `{"type":"bearer","token":{"credentialRef":{"id":"tok-1"}}}`},
		{[]string{"--header", "X-Tenant=acme", "--header-ref", "Authorization=auth-1"},
			`{"type":"headers","headers":{"Authorization":{"credentialRef":{"id":"auth-1"}},"X-Tenant":"acme"}}`},
	}
	for _, tc := range cases {
		code, _, errb := runAgents(t, "", append([]string{"register", "a", "--url", url, "--admin-key", "k", "--agent-url", "https://a.example.com"}, tc.args...)...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d %s", tc.args, code, errb)
		}
		reqs := f.requests()
		var body struct {
			Auth json.RawMessage `json:"auth_config"`
		}
		json.Unmarshal(reqs[len(reqs)-1].raw, &body)
		if string(body.Auth) != tc.auth {
			t.Errorf("%v: auth_config\n got %s\nwant %s", tc.args, body.Auth, tc.auth)
		}
	}
}

func TestAgentsRegisterFile(t *testing.T) {
	f, url := newFakeAdmin(t, func(seenRequest) (int, string) { return 201, storedEntry })
	entry := `{"name":"ResearchAgent","url":"http://research-agent:8080","auth_config":{"type":"bearer","token":"secret-token-123"},"timeout_ms":30000}`
	code, _, errb := runAgents(t, entry, "register", "--file", "-", "--url", url, "--admin-key", "k")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var sent map[string]any
	json.Unmarshal(f.requests()[0].raw, &sent)
	if sent["timeout"] != float64(30000) || sent["auth_config"].(map[string]any)["token"] != "secret-token-123" {
		t.Fatalf("%v", sent)
	}
}

func TestAgentsRegisterRefusedLocally(t *testing.T) {
	f, url := newFakeAdmin(t, func(seenRequest) (int, string) { return 201, storedEntry })
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"name":"a","url":"http://a","retries":3}`), 0o600)
	for _, args := range [][]string{
		{"register", "a"},
		{"register", "a.b", "--agent-url", "http://a"},
		{"register", "a", "--agent-url", "ftp://a"},
		{"register", "a", "--agent-url", "http://a", "--bearer-token", "x", "--api-key", "y"},
		{"register", "a", "--agent-url", "http://a", "--bearer-token", "x", "--bearer-token-ref", "y"},
		{"register", "a", "--agent-url", "http://a", "--header", "novalue"},
		{"register", "a", "--agent-url", "http://a", "--api-key-header", "X-K"},
		{"register", "a", "--agent-url", "http://a", "--max-retries", "99"},
		{"register", "a", "--agent-url", "http://a", "--bearer-token", "env:SLUICE_TEST_UNSET_VAR"},
		{"register", "--file", bad},
		{"register", "--file", bad, "--agent-url", "http://a"},
		{"rm", "a.b"},
	} {
		code, _, errb := runAgents(t, "", append(args, "--url", url, "--admin-key", "k")...)
		if code != ExitInvalid {
			t.Errorf("%v: exit %d (%s)", args, code, errb)
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Fatalf("%d requests for refused input", n)
	}
	// No admin key: exit 2 before any request.
	t.Setenv("SLUICE_ADMIN_KEY", "")
	if code, _, _ := runAgents(t, "", "list", "--url", url); code != ExitInvalid {
		t.Fatalf("no key: exit %d", code)
	}
}

func TestAgentsRegisterServerRefusal(t *testing.T) {
	_, url := newFakeAdmin(t, func(seenRequest) (int, string) {
		return 403, `{"error":{"type":"PermissionError","message":"agent url: 10.0.0.5:80 is a private address"}}`
	})
	code, _, errb := runAgents(t, "", "register", "a", "--agent-url", "http://10.0.0.5", "--url", url, "--admin-key", "k", "--bearer-token", "tok-secret-999")
	if code != ExitFailed || !strings.Contains(errb, "private address") || strings.Contains(errb, "tok-secret-999") {
		t.Fatalf("exit %d: %s", code, errb)
	}
}

func TestAgentsListAndRm(t *testing.T) {
	f, url := newFakeAdmin(t, func(r seenRequest) (int, string) {
		switch {
		case r.method == "GET" && r.path == "/api/v1/admin/agents":
			return 200, `{"agents":[` + storedEntry + `]}`
		case r.method == "DELETE" && r.path == "/api/v1/admin/agents/ResearchAgent":
			return 204, ``
		case r.method == "DELETE":
			return 404, `{"error":{"type":"ExecutionError","message":"agent \"nobody\" is not registered"}}`
		}
		return 400, `{}`
	})
	code, out, errb := runAgents(t, "", "list", "--url", url, "--admin-key", "k")
	var list []map[string]any
	if code != ExitOK || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 || list[0]["name"] != "ResearchAgent" {
		t.Fatalf("exit %d: %s %s", code, out, errb)
	}
	code, out, _ = runAgents(t, "", "rm", "ResearchAgent", "--url", url, "--admin-key", "k")
	if code != ExitOK || !strings.Contains(out, `"removed": "ResearchAgent"`) {
		t.Fatalf("exit %d: %s", code, out)
	}
	code, _, errb = runAgents(t, "", "rm", "nobody", "--url", url, "--admin-key", "k")
	if code != ExitFailed || !strings.Contains(errb, "not registered") {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, r := range f.requests() {
		if r.auth != "Bearer k" {
			t.Fatalf("%+v", r)
		}
	}
}

// frames renders NDJSON answer frames for request reqID.
func frames(t *testing.T, reqID string, fs ...*e2a.Response) string {
	var b strings.Builder
	for i, f := range fs {
		f.RequestID, f.ResponseID, f.Sequence, f.Timestamp = reqID, "resp-"+string(rune('a'+i)), int64(i), e2a.Time(time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC))
		line, err := e2a.AppendResponse(nil, f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

func TestAgentsInvoke(t *testing.T) {
	var mu sync.Mutex
	var seen []*e2a.Envelope
	var answer func(env *e2a.Envelope) (int, string)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "POST" || r.URL.Path != "/api/v1/e2a" || r.Header.Get("Authorization") != "Bearer acct-key" {
			t.Errorf("%s %s %q", r.Method, r.URL.Path, r.Header.Get("Authorization"))
		}
		b, _ := io.ReadAll(r.Body)
		env, err := e2a.DecodeEnvelope(b, e2a.Limits{})
		if err != nil {
			t.Errorf("envelope: %v", err)
			return
		}
		mu.Lock()
		seen = append(seen, env)
		a := answer
		mu.Unlock()
		status, body := a(env)
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	defer srv.Close()
	t.Setenv("SLUICE_API_KEY", "acct-key")
	t.Setenv("SLUICE_URL", srv.URL)

	answer = func(env *e2a.Envelope) (int, string) {
		return 200, frames(t, env.RequestID, e2a.ChunkFrame("text", "working"),
			e2a.CompleteFrame(map[string]any{"summary": "done", "confidence": 0.92}))
	}
	code, out, errb := runAgents(t, "", "invoke", "ResearchAgent", "--input", `{"topic":"AI"}`, "--task-id", "task-7", "--correlation-id", "corr-7")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil || got["summary"] != "done" || got["confidence"] != 0.92 {
		t.Fatalf("%s %v", out, err)
	}
	env := seen[0]
	in, _ := env.Params["input"].(map[string]any)
	if env.Method != "agent.invoke" || env.Params["agent"] != "ResearchAgent" || in["topic"] != "AI" || env.Params["task_id"] != "task-7" ||
		env.CorrelationID != "corr-7" || len(env.Params) != 3 || env.RequestID == "" {
		t.Fatalf("envelope %+v", env)
	}
	if err := gateway.CheckParams(env.Method, env.Params); err != nil {
		t.Fatalf("params the gateway would refuse: %v", err)
	}

	// A failed task: exit 1, the reason on stderr, nothing on stdout.
	answer = func(env *e2a.Envelope) (int, string) {
		return 200, frames(t, env.RequestID, e2a.ErrorFrame("upstream", "agent ResearchAgent answered 400 Bad Request: Missing required field: topic", nil))
	}
	code, out, errb = runAgents(t, "", "invoke", "ResearchAgent")
	if code != ExitFailed || out != "" || !strings.Contains(errb, "Missing required field: topic") || !strings.Contains(errb, "upstream") {
		t.Fatalf("exit %d: %q %s", code, out, errb)
	}
	if in, _ := seen[1].Params["input"].(map[string]any); in == nil || len(in) != 0 || seen[1].Params["task_id"] != nil {
		t.Fatalf("default input: %+v", seen[1].Params)
	}

	// Refused before any frame (status and one frame), or not frames at all.
	answer = func(env *e2a.Envelope) (int, string) {
		return 403, frames(t, env.RequestID, e2a.ErrorFrame("permission_denied", "agent ResearchAgent is not in this account's agents", nil))
	}
	if code, _, errb := runAgents(t, "", "invoke", "ResearchAgent"); code != ExitFailed || !strings.Contains(errb, "not in this account's agents") {
		t.Fatalf("exit %d: %s", code, errb)
	}
	answer = func(*e2a.Envelope) (int, string) {
		return 401, `{"error":{"type":"PermissionError","message":"invalid API key"}}`
	}
	if code, _, errb := runAgents(t, "", "invoke", "ResearchAgent"); code != ExitFailed || !strings.Contains(errb, "HTTP 401") {
		t.Fatalf("exit %d: %s", code, errb)
	}

	// Bad input: exit 2 before any request.
	n := len(seen)
	for _, args := range [][]string{
		{"invoke", "ResearchAgent", "--input", `[1,2]`},
		{"invoke", "ResearchAgent", "--input", `{`},
		{"invoke", "Research.Agent"},
		{"invoke", "ResearchAgent", "--task-id", "a\nb"},
		{"invoke"},
	} {
		if code, _, errb := runAgents(t, "", args...); code != ExitInvalid {
			t.Errorf("%v: exit %d %s", args, code, errb)
		}
	}
	t.Setenv("SLUICE_API_KEY", "")
	if code, _, _ := runAgents(t, "", "invoke", "ResearchAgent"); code != ExitInvalid {
		t.Fatal("no key: not exit 2")
	}
	if len(seen) != n {
		t.Fatalf("%d requests for refused input", len(seen)-n)
	}
}
