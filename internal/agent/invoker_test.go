package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/agent"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

func TestRetriesThenSuccess(t *testing.T) {
	e := newEnv(t)
	s := newScript(t, status(503, `{"error":"warming up"}`), status(503, `{"error":"warming up"}`), ok(`{"answer":42}`))
	e.register(t, "research", s.srv.URL, nil)
	out, err := e.inv.Invoke(ctx, "research", "task-1", json.RawMessage(`{"topic":"AI"}`), "corr-1")
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"answer":42}` || s.calls() != 3 {
		t.Fatalf("output %s after %d calls", out, s.calls())
	}
	// The spec's schedule: 1 s, then 2 s (the jitter is pinned to its middle).
	if got := e.clock.Sleeps(); len(got) != 2 || got[0] != time.Second || got[1] != 2*time.Second {
		t.Fatalf("sleeps %v", got)
	}
	// Every attempt carries the same task_id, correlation id and
	// idempotency key.
	for i, r := range s.requests() {
		h := r.header
		if r.body.TaskID != "task-1" || string(r.body.Input) != `{"topic":"AI"}` || h.Get("X-Correlation-ID") != "corr-1" ||
			h.Get("Idempotency-Key") != "task-1" || h.Get("Content-Type") != "application/json" {
			t.Fatalf("attempt %d: %+v %v", i, r.body, h)
		}
	}
	if st := e.inv.Breaker("research"); st.State != "closed" || st.ConsecutiveFailures != 0 {
		t.Fatalf("breaker after a success: %+v", st)
	}
}

func TestNonRetriableStatuses(t *testing.T) {
	for _, code := range []int{400, 401, 403, 404, 422} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			e := newEnv(t)
			msg := fmt.Sprintf("Missing required field: topic (%d)", code)
			s := newScript(t, status(code, `{"error":"`+msg+`","details":{"field":"topic"}}`), ok(`{}`))
			e.register(t, "research", s.srv.URL, nil)
			_, err := e.inv.Invoke(ctx, "research", "t", json.RawMessage(`{}`), "")
			fe := wantKind(t, err, fault.Upstream, "a "+fmt.Sprint(code))
			if s.calls() != 1 || !strings.Contains(fe.Message, msg) || !strings.Contains(fe.Message, fmt.Sprint(code)) ||
				fe.Details["statusCode"] != code || fe.Details["agent"] != "research" {
				t.Fatalf("%d calls, %q %v", s.calls(), fe.Message, fe.Details)
			}
			if len(e.clock.Sleeps()) != 0 {
				t.Fatal("slept before failing")
			}
			// An agent that answers 4xx works: the breaker does not count it.
			if st := e.inv.Breaker("research"); st.ConsecutiveFailures != 0 {
				t.Fatalf("breaker: %+v", st)
			}
		})
	}
}

func TestRateLimitHonoursRetryAfter(t *testing.T) {
	e := newEnv(t)
	s := newScript(t, answer{status: 429, body: `{"error":"slow down"}`, header: map[string]string{"Retry-After": "7"}}, ok(`"done"`))
	e.register(t, "research", s.srv.URL, nil)
	out, err := e.inv.Invoke(ctx, "research", "t", nil, "")
	if err != nil || string(out) != `"done"` || s.calls() != 2 {
		t.Fatalf("%s %v after %d calls", out, err, s.calls())
	}
	if got := e.clock.Sleeps(); len(got) != 1 || got[0] != 7*time.Second {
		t.Fatalf("sleeps %v, want [7s] (Retry-After over the 1 s backoff)", got)
	}

	// A Retry-After shorter than the backoff does not shorten it.
	e2 := newEnv(t)
	s2 := newScript(t, answer{status: 429, header: map[string]string{"Retry-After": "0"}}, ok(`1`))
	e2.register(t, "a", s2.srv.URL, nil)
	if _, err := e2.inv.Invoke(ctx, "a", "t", nil, ""); err != nil {
		t.Fatal(err)
	}
	if got := e2.clock.Sleeps(); len(got) != 1 || got[0] != time.Second {
		t.Fatalf("sleeps %v", got)
	}

	// Longer than the invoker waits: RateLimited at once, with the hint.
	e3 := newEnv(t)
	s3 := newScript(t, answer{status: 429, header: map[string]string{"Retry-After": "3600"}}, ok(`1`))
	e3.register(t, "a", s3.srv.URL, nil)
	_, err = e3.inv.Invoke(ctx, "a", "t", nil, "")
	fe := wantKind(t, err, fault.RateLimited, "a long Retry-After")
	if !fe.Retryable || fe.RetryAfter != time.Hour || s3.calls() != 1 {
		t.Fatalf("%+v after %d calls", fe, s3.calls())
	}
}

func TestTimeoutIsRetried(t *testing.T) {
	e := newEnv(t)
	s := newScript(t, answer{hang: true}, ok(`{"late":false}`))
	// The first attempt hangs for the whole timeout; the second must answer
	// within it, on a machine that may be busy: a second is ample.
	e.register(t, "slow", s.srv.URL, func(en *agenthttp.Entry) { en.Timeout = time.Second })
	out, err := e.inv.Invoke(ctx, "slow", "t", nil, "")
	if err != nil || string(out) != `{"late":false}` || s.calls() != 2 {
		t.Fatalf("%s %v after %d calls", out, err, s.calls())
	}

	// Always too slow: a Timeout after every attempt.
	e2 := newEnv(t)
	s2 := newScript(t, answer{hang: true})
	e2.register(t, "slow", s2.srv.URL, func(en *agenthttp.Entry) {
		en.Timeout = 50 * time.Millisecond
		fastRetry(1)(en)
	})
	_, err = e2.inv.Invoke(ctx, "slow", "t", nil, "")
	fe := wantKind(t, err, fault.Timeout, "an agent that never answers")
	if s2.calls() != 2 || !strings.Contains(fe.Message, "after 2 attempts") {
		t.Fatalf("%d calls: %v", s2.calls(), fe)
	}
}

func TestBadAnswersFailWithoutRetry(t *testing.T) {
	tests := []struct {
		name string
		a    answer
		want string
	}{
		{"not JSON", status(200, `<html>ok</html>`), "not a valid task response"},
		{"not an object", status(200, `["x"]`), "not a valid task response"},
		{"status error", status(200, `{"task_id":"$TASK","status":"error","output":null,"error":"depth must be basic"}`), "reported an error: depth must be basic"},
		{"status error without message", status(200, `{"task_id":"$TASK","status":"error"}`), "without a message"},
		{"wrong task_id", status(200, `{"task_id":"someone-else","status":"success","output":{}}`), `task_id "someone-else", not "t-9"`},
		{"missing task_id", status(200, `{"status":"success","output":{}}`), "field task_id is missing"},
		{"unknown status", status(200, `{"task_id":"$TASK","status":"maybe"}`), "field status"},
		{"redirect", answer{status: 302, header: map[string]string{"Location": "/elsewhere"}}, "redirect"},
		{"204", status(204, ``), "not a valid task response"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			s := newScript(t, tc.a, ok(`{}`))
			e.register(t, "a", s.srv.URL, nil)
			_, err := e.inv.Invoke(ctx, "a", "t-9", nil, "")
			fe := wantKind(t, err, fault.Upstream, tc.name)
			if s.calls() != 1 || !strings.Contains(fe.Message, tc.want) {
				t.Fatalf("%d calls: %q, want it to say %q", s.calls(), fe.Message, tc.want)
			}
		})
	}
}

func TestSuccessShapes(t *testing.T) {
	for body, want := range map[string]string{
		`{"task_id":"$TASK","output":{"a":1}}`:                           `{"a":1}`, // no status: success
		`{"task_id":"$TASK","status":"SUCCESS","output":[1,2],"x":true}`: `[1,2]`,
		`{"task_id":"$TASK","status":"success"}`:                         `null`,
	} {
		e := newEnv(t)
		s := newScript(t, status(200, body))
		e.register(t, "a", s.srv.URL, nil)
		out, err := e.inv.Invoke(ctx, "a", "t", json.RawMessage(`{}`), "")
		if err != nil || string(out) != want {
			t.Errorf("%s: %s %v, want %s", body, out, err, want)
		}
	}
}

func TestRetriesExhausted(t *testing.T) {
	e := newEnv(t)
	s := newScript(t, status(502, `{"error":"bad gateway upstream"}`))
	e.register(t, "a", s.srv.URL, fastRetry(2))
	_, err := e.inv.Invoke(ctx, "a", "t", nil, "")
	fe := wantKind(t, err, fault.Upstream, "always 502")
	if s.calls() != 3 || !strings.Contains(fe.Message, "502 Bad Gateway: bad gateway upstream (after 3 attempts)") || fe.Details["attempts"] != 3 {
		t.Fatalf("%d calls: %q %v", s.calls(), fe.Message, fe.Details)
	}
	// max_retries 0: one attempt.
	e2 := newEnv(t)
	s2 := newScript(t, status(500, `{}`))
	e2.register(t, "a", s2.srv.URL, fastRetry(0))
	_, err = e2.inv.Invoke(ctx, "a", "t", nil, "")
	wantKind(t, err, fault.Upstream, "max_retries 0")
	if s2.calls() != 1 {
		t.Fatalf("%d calls with max_retries 0", s2.calls())
	}
	// The default (3 retries) makes 4 attempts, waiting 1, 2 and 4 s.
	e3 := newEnv(t)
	s3 := newScript(t, status(503, `{}`))
	e3.register(t, "a", s3.srv.URL, nil)
	_, _ = e3.inv.Invoke(ctx, "a", "t", nil, "")
	if got := e3.clock.Sleeps(); s3.calls() != 4 || fmt.Sprint(got) != "[1s 2s 4s]" {
		t.Fatalf("%d calls, sleeps %v", s3.calls(), got)
	}
}

func TestBackoffCapAndJitter(t *testing.T) {
	e := newEnv(t, func(_ *agent.RegistryOptions, io *agent.InvokerOptions) { io.Jitter = func() float64 { return 0.999 } })
	s := newScript(t, status(503, `{}`))
	e.register(t, "a", s.srv.URL, func(en *agenthttp.Entry) {
		en.Retry = agenthttp.RetryConfig{MaxRetries: 4, InitialDelay: time.Second, MaxDelay: 3 * time.Second, BackoffMultiplier: 3}
	})
	_, _ = e.inv.Invoke(ctx, "a", "t", nil, "")
	got := e.clock.Sleeps()
	if len(got) != 4 || got[0] <= time.Second || got[0] > 1200*time.Millisecond || got[1] != 3*time.Second || got[3] != 3*time.Second {
		t.Fatalf("sleeps %v: want the first jittered up by <20%%, the rest capped at 3 s", got)
	}
}

func TestDeadlineStopsRetries(t *testing.T) {
	e := newEnv(t)
	s := newScript(t, status(503, `{}`))
	e.register(t, "a", s.srv.URL, func(en *agenthttp.Entry) { en.Retry.InitialDelay = 10 * time.Second })
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := e.inv.Invoke(dctx, "a", "t", nil, "")
	fe := wantKind(t, err, fault.Upstream, "a deadline shorter than the backoff")
	if s.calls() != 1 || !strings.Contains(fe.Message, "no time is left") || len(e.clock.Sleeps()) != 0 {
		t.Fatalf("%d calls: %v", s.calls(), fe)
	}
	// A caller that is gone: no attempt succeeds, the error says why.
	cctx, cancel2 := context.WithCancel(ctx)
	cancel2()
	_, err = e.inv.Invoke(cctx, "a", "t", nil, "")
	if err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

func TestAuthHeaders(t *testing.T) {
	e := newEnv(t)
	s := newScript(t, ok(`{}`))
	e.register(t, "bearer", s.srv.URL, func(en *agenthttp.Entry) {
		en.Auth = &agenthttp.AuthConfig{Type: agenthttp.AuthBearer, Token: agenthttp.PlainSecret("tok-123456")}
	})
	e.register(t, "apikey", s.srv.URL, func(en *agenthttp.Entry) {
		en.Auth = &agenthttp.AuthConfig{Type: agenthttp.AuthAPIKey, Key: agenthttp.PlainSecret("sk-abcdef"), Header: "x-agent-key"}
	})
	e.register(t, "apikey-default", s.srv.URL, func(en *agenthttp.Entry) {
		en.Auth = &agenthttp.AuthConfig{Type: agenthttp.AuthAPIKey, Key: agenthttp.PlainSecret("sk-default")}
	})
	e.register(t, "headers", s.srv.URL, func(en *agenthttp.Entry) {
		en.Auth = &agenthttp.AuthConfig{Type: agenthttp.AuthHeaders, Headers: map[string]agenthttp.Secret{
			"X-Tenant": agenthttp.PlainSecret("acme"), "authorization": agenthttp.PlainSecret("Basic dXNlcjpwYXNz")}}
	})
	for _, name := range []string{"bearer", "apikey", "apikey-default", "headers"} {
		if _, err := e.inv.Invoke(ctx, name, "t-"+name, nil, ""); err != nil {
			t.Fatal(name, err)
		}
	}
	r := s.requests()
	if r[0].header.Get("Authorization") != "Bearer tok-123456" || r[1].header.Get("X-Agent-Key") != "sk-abcdef" ||
		r[2].header.Get("X-API-Key") != "sk-default" || r[3].header.Get("X-Tenant") != "acme" ||
		r[3].header.Get("Authorization") != "Basic dXNlcjpwYXNz" || r[1].header.Get("Authorization") != "" {
		t.Fatalf("headers: %v / %v / %v / %v", r[0].header, r[1].header, r[2].header, r[3].header)
	}
	// Without a correlation id, the task id stands in.
	if r[0].header.Get("X-Correlation-ID") != "t-bearer" {
		t.Fatalf("correlation: %v", r[0].header)
	}
}

func TestInvokeInputAndNames(t *testing.T) {
	e := newEnv(t)
	s := newScript(t, ok(`{}`))
	e.register(t, "a", s.srv.URL, nil)
	_, err := e.inv.Invoke(ctx, "nobody", "t", nil, "")
	wantKind(t, err, fault.NotFound, "an unknown agent")
	_, err = e.inv.Invoke(ctx, "a.b", "t", nil, "")
	wantKind(t, err, fault.Invalid, "a bad name")
	_, err = e.inv.Invoke(ctx, "a", "t", json.RawMessage(`"text"`), "")
	wantKind(t, err, fault.Invalid, "an input that is not an object")
	_, err = e.inv.Invoke(ctx, "a", "t\n", nil, "")
	wantKind(t, err, fault.Invalid, "a task id with a newline")
	_, err = e.inv.Invoke(ctx, "a", "t", nil, "c\r\nX-Evil: 1")
	wantKind(t, err, fault.Invalid, "a correlation id with a newline")
	if s.calls() != 0 {
		t.Fatalf("%d calls for refused invocations", s.calls())
	}
	// Without a task id, one is made up and sent; a null input is {}.
	if _, err := e.inv.Invoke(ctx, "a", "", json.RawMessage(`null`), ""); err != nil {
		t.Fatal(err)
	}
	if r := s.requests()[0].body; !strings.HasPrefix(r.TaskID, "task-") || len(r.TaskID) < 20 || string(r.Input) != `{}` {
		t.Fatalf("made-up task id %q, input %s", r.TaskID, r.Input)
	}
}

func TestConnectionRefusedIsRetried(t *testing.T) {
	e := newEnv(t)
	s := newScript(t, ok(`{}`))
	url := s.srv.URL
	s.srv.Close() // nothing listens there now
	e.register(t, "gone", url, fastRetry(2))
	_, err := e.inv.Invoke(ctx, "gone", "t", nil, "")
	fe := wantKind(t, err, fault.Unavailable, "a closed port")
	if len(e.clock.Sleeps()) != 2 || !strings.Contains(fe.Message, "cannot be reached") || strings.Contains(fe.Message, url) {
		t.Fatalf("%v (sleeps %v)", fe, e.clock.Sleeps())
	}
	_ = http.StatusOK
}
