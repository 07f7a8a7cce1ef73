package workflow_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/workflow"
)

func optionsNone() workflow.Options { return workflow.Options{} }

// TestSecretNeverLeaks runs success and failure paths with a known secret and
// checks that it appears in no result, error, event or log line, even when the
// upstream echoes it back.
func TestSecretNeverLeaks(t *testing.T) {
	const secret = "sk-live-7f3a9c1e5b2d4a68"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		if auth != "Bearer "+secret {
			t.Errorf("upstream got Authorization %q", auth)
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/ok":
			fmt.Fprintf(w, `{"echo":%q,"token":%q}`, auth, r.Header.Get("X-Token"))
		case "/denied":
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":"bad token %s"}`, auth)
		default:
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, "down, you sent %s", auth)
		}
	}))
	defer srv.Close()

	doc := fmt.Sprintf(`{"type":"operationUpdate","operationId":"ok","operation":{"ApiCall":{"method":"GET","url":"%[1]s/ok","headers":{"Authorization":{"credentialRef":{"id":"api"}},"X-Token":{"credentialRef":{"id":"api"}}},"outputPath":"/workflow/ok"}}}
{"type":"operationUpdate","operationId":"denied","operation":{"ApiCall":{"method":"POST","url":"%[1]s/denied","headers":{"Authorization":{"credentialRef":{"id":"api"}}},"body":{"key":{"credentialRef":{"id":"api"}}},"outputPath":"/workflow/denied"}}}
{"type":"operationUpdate","operationId":"down","operation":{"ApiCall":{"method":"GET","url":"%[1]s/down","headers":{"Authorization":{"credentialRef":{"id":"api"}}},"retry":{"maxRetries":1},"outputPath":"/workflow/down"}}}
{"type":"beginExecution","executionId":"secret-run","operationOrder":["ok","denied","down"],"onError":"continue"}
`, srv.URL)

	h := newHarness(t, srv, map[string]op.Secret{"api": {Type: "bearer-token", Value: secret}})
	var events strings.Builder
	res, report := h.runner.Execute(context.Background(), []byte(doc), account("api"), workflow.Options{
		OnEvent: func(e engine.Event) { events.WriteString(toJSON(t, e)) },
	})
	if report != nil {
		t.Fatalf("refused: %s", toJSON(t, report))
	}
	if res.Status != engine.StatusPartial || len(res.Errors) != 2 {
		t.Fatalf("want partial with two errors, got %s", toJSON(t, res))
	}
	out := toJSON(t, res)
	for name, text := range map[string]string{"result": out, "events": events.String(), "logs": h.logs.String()} {
		if strings.Contains(text, secret) || strings.Contains(text, secret[8:]) {
			t.Errorf("the secret leaked into the %s: %s", name, text)
		}
	}
	if !strings.Contains(out, "401") || !strings.Contains(out, "503") {
		t.Errorf("errors must still say what failed: %s", out)
	}
	if h.logs.String() == "" {
		t.Error("expected the run to log something (the leak check would be vacuous)")
	}

	// A credential the account is not granted is refused before anything is sent.
	_, report = h.runner.Execute(context.Background(), []byte(doc), account(), optionsNone())
	if report == nil || !report.Forbidden() {
		t.Fatalf("an ungranted credential must be a PermissionError, got %v", report)
	}
}

// TestRetries runs ApiCall through the engine against upstreams that fail a
// given number of times: 503, 429 (with Retry-After), 408 and a slow answer
// (attempt timeout) are retried; 400 is not.
func TestRetries(t *testing.T) {
	cases := []struct {
		name      string
		status    int
		header    string
		slow      bool
		failTimes int
		wantCalls int32
		wantOK    bool
	}{
		{"503 then ok", 503, "", false, 2, 3, true},
		{"429 with Retry-After", 429, "7", false, 1, 2, true},
		{"408 then ok", 408, "", false, 1, 2, true},
		{"timeout then ok", 0, "", true, 1, 2, true},
		{"400 is final", 400, "", false, 5, 1, false},
		{"503 four times exhausts 3 retries", 503, "", false, 4, 4, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := calls.Add(1)
				if int(n) <= c.failTimes {
					if c.slow {
						select {
						case <-r.Context().Done():
						case <-time.After(2 * time.Second):
						}
						return
					}
					if c.header != "" {
						w.Header().Set("Retry-After", c.header)
					}
					w.WriteHeader(c.status)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"ok":true}`))
			}))
			defer srv.Close()
			// Only the timeout case wants attempts to time out: elsewhere a
			// generous timeout keeps a loaded machine from turning a slow
			// answer into a timeout (or an attempt that never reached the
			// server, which would not be counted).
			timeout := 5000
			if c.slow {
				timeout = 200
			}
			doc := fmt.Sprintf(`{"type":"operationUpdate","operationId":"call","operation":{"ApiCall":{"method":"GET","url":"%s/x","timeout":%d,"cache":false,"outputPath":"/workflow/x"}}}
{"type":"beginExecution","executionId":"r","operationOrder":["call"]}`, srv.URL, timeout)
			h := newHarness(t, srv, nil)
			res := execute(t, h, []byte(doc))
			if got := calls.Load(); got != c.wantCalls {
				t.Errorf("upstream called %d times, want %d", got, c.wantCalls)
			}
			if (res.Status == engine.StatusSuccess) != c.wantOK {
				t.Errorf("status %s: %s", res.Status, toJSON(t, res.Errors))
			}
			if c.header == "7" {
				slept := h.clock.Sleeps()
				if len(slept) == 0 || slept[0] < 7*time.Second {
					t.Errorf("Retry-After 7 must be honoured, slept %v", slept)
				}
			}
		})
	}
}

func optionsIn(in any) workflow.Options { return workflow.Options{Input: in} }
