package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func cancelRunCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runSub(context.Background(), newAgentsCancelRunCmd, "", &out, &errb, append([]string{"cancel-run"}, args...)...)
	return code, out.String(), errb.String()
}

// runsServer answers cancels as the server does for a run awf-1 of the key
// sk_owner: 200 the first time, 409 after; every other run is 404.
type runsServer struct {
	mu        sync.Mutex
	cancelled bool
	seen      []string // method path?query auth
}

func (s *runsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("Authorization"))
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/api/v1/agent-workflows/runs/awf-1/cancel" && !s.cancelled:
		s.cancelled = true
		_, _ = w.Write([]byte(`{"run_id": "awf-1", "status": "cancelled", "steps": [{"step_id": "a", "agent_name": "x", "status": "completed"}], "outputs": {"a": 1}, "output": null}`))
	case r.Method == http.MethodPost && r.URL.Path == "/api/v1/agent-workflows/runs/awf-1/cancel":
		w.WriteHeader(http.StatusConflict)
		_, _ = w.Write([]byte(`{"error": {"type": "ExecutionError", "message": "agent workflow run awf-1 is already cancelled"}}`))
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error": {"type": "ExecutionError", "message": "agent workflow run not found"}}`))
	}
}

func TestAgentsCancelRun(t *testing.T) {
	s := &runsServer{}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)

	code, out, errs := cancelRunCmd(t, "awf-1", "--url", srv.URL, "--key", "sk_owner")
	if code != ExitOK || !strings.Contains(out, `"status": "cancelled"`) || !strings.Contains(out, `"outputs"`) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if s.seen[0] != "POST /api/v1/agent-workflows/runs/awf-1/cancel Bearer sk_owner" {
		t.Fatalf("request %q", s.seen[0])
	}
	// Twice: the server's 409 and its reason, exit 1.
	code, out, errs = cancelRunCmd(t, "awf-1", "--url", srv.URL, "--key", "sk_owner")
	if code != ExitFailed || out != "" || !strings.Contains(errs, "run awf-1 not cancelled: HTTP 409: agent workflow run awf-1 is already cancelled") {
		t.Fatalf("twice: exit %d\n%s\n%s", code, out, errs)
	}
	// Unknown (or another account's) run.
	code, _, errs = cancelRunCmd(t, "awf-2", "--url", srv.URL, "--key", "sk_owner")
	if code != ExitFailed || !strings.Contains(errs, "HTTP 404: agent workflow run not found") {
		t.Fatalf("unknown: exit %d: %s", code, errs)
	}
	// An admin naming the account; an id that needs escaping stays one
	// path segment.
	cancelRunCmd(t, "a/b c", "--url", srv.URL, "--key", "sk_admin", "--account", "acct 1")
	if got := s.seen[len(s.seen)-1]; got != "POST /api/v1/agent-workflows/runs/a%2Fb%20c/cancel?account_id=acct+1 Bearer sk_admin" {
		t.Fatalf("request %q", got)
	}
}

func TestAgentsCancelRunRefusedLocally(t *testing.T) {
	s := &runsServer{}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Setenv("SLUICE_API_KEY", "")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{name: "empty id", args: []string{"", "--url", srv.URL, "--key", "k"}, want: "the run ID is empty"},
		{name: "no key", args: []string{"awf-1", "--url", srv.URL}, want: "no API key"},
		{name: "no id", args: []string{"--url", srv.URL, "--key", "k"}, want: "accepts 1 arg"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := cancelRunCmd(t, c.args...)
			if code != ExitInvalid || !strings.Contains(errs, c.want) {
				t.Fatalf("exit %d: %s", code, errs)
			}
		})
	}
	if len(s.seen) != 0 {
		t.Fatalf("requests sent: %v", s.seen)
	}
	// The server cannot be reached: exit 1.
	srv.Close()
	if code, _, errs := cancelRunCmd(t, "awf-1", "--url", srv.URL, "--key", "k"); code != ExitFailed || !strings.Contains(errs, "cannot reach") {
		t.Fatalf("unreachable: exit %d: %s", code, errs)
	}
}
