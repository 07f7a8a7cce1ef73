package op_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/cache"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/vault"
	"github.com/sluicehq/sluice/protocol/a2e"
)

const secret = "s3cr3t-Value_987"

// upstream is a test API on 127.0.0.1 that records what it received.
type upstream struct {
	*httptest.Server
	hits atomic.Int32
	mu   sync.Mutex
	last *http.Request
	body []byte
}

func newUpstream(t *testing.T, h http.HandlerFunc) *upstream {
	t.Helper()
	u := &upstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.hits.Add(1)
		b, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.last, u.body = r, b
		u.mu.Unlock()
		if h != nil {
			h(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) request() (*http.Request, []byte) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.last, u.body
}

// env is one account's services for a test.
type env struct {
	deps  *op.Deps
	cache *cache.Cache
	clock *clock.Fake
	logs  *bytes.Buffer
}

func newEnv(t *testing.T, allowPrivate ...string) *env {
	t.Helper()
	if allowPrivate == nil {
		allowPrivate = []string{"127.0.0.1/32"}
	}
	clk := clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	c := cache.New(cache.Config{Clock: clk})
	return &env{
		deps: &op.Deps{
			Client: egress.NewClient(egress.Policy{AllowPrivate: allowPrivate}),
			Permissions: policy.Permissions{
				Hosts:       []string{"127.0.0.1"},
				Credentials: []string{"api-token", "raw-key"},
			},
			Vault: vault.NewMemory(map[string]op.Secret{
				"api-token": {Type: "bearer-token", Value: secret},
				"raw-key":   {Type: "api-key", Value: "rawkey-" + secret},
			}),
			Cache:  c,
			Clock:  clk,
			Limits: op.DefaultLimits(),
		},
		cache: c,
		clock: clk,
		logs:  &bytes.Buffer{},
	}
}

func (e *env) build(t *testing.T, cfg string) op.Operation {
	t.Helper()
	o, err := op.ApiCallOp.New(json.RawMessage(cfg), e.deps)
	if err != nil {
		t.Fatalf("build %s: %v", cfg, err)
	}
	return o
}

func (e *env) rc(account string, data *datamodel.Model) *op.RunContext {
	if data == nil {
		data = datamodel.New(nil)
	}
	return &op.RunContext{
		Data: data, Account: account, ExecutionID: "exec-1", OperationID: "call", Attempt: 1,
		Clock: e.clock, Logger: slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Save: func(json.RawMessage) error { return nil },
	}
}

func (e *env) run(t *testing.T, cfg string, data *datamodel.Model) (any, error) {
	t.Helper()
	return e.build(t, cfg).Run(context.Background(), e.rc("acct-a", data))
}

func model(t *testing.T, kv map[string]any) *datamodel.Model {
	t.Helper()
	m := datamodel.New(map[string]any{"id": "in/put"})
	for k, v := range kv {
		p, err := a2e.ParsePath("/workflow/" + k)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Set(p, v); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func asFault(t *testing.T, err error) *fault.Error {
	t.Helper()
	fe, ok := fault.As(err)
	if !ok {
		t.Fatalf("expected a *fault.Error, got %T %v", err, err)
	}
	return fe
}

func TestApiCallMethods(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"method":%q}`, r.Method)
	})
	e := newEnv(t)
	for _, m := range []string{"GET", "POST", "PUT", "DELETE", "PATCH"} {
		t.Run(m, func(t *testing.T) {
			cfg := fmt.Sprintf(`{"method":%q,"url":%q,"body":{"n":1},"outputPath":"/workflow/r","cache":false}`, m, up.URL+"/things")
			got, err := e.run(t, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.(map[string]any)["method"] != m {
				t.Fatalf("got %v", got)
			}
			r, body := up.request()
			if r.Method != m || string(body) != `{"n":1}` || r.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("server saw %s %q %q", r.Method, body, r.Header.Get("Content-Type"))
			}
		})
	}
}

func TestApiCallURLEscaping(t *testing.T) {
	up := newUpstream(t, nil)
	e := newEnv(t)
	data := model(t, map[string]any{"v": "a b/c?d&e=f#g", "n": 42.0, "ok": true})
	cfg := fmt.Sprintf(`{"method":"GET","url":%q,"outputPath":"/workflow/r","cache":false}`,
		up.URL+"/items/{/workflow/v}/{/workflow/n}?q={/workflow/v}&flag={/workflow/ok}&in={/input/id}")
	if _, err := e.run(t, cfg, data); err != nil {
		t.Fatal(err)
	}
	r, _ := up.request()
	if got, want := r.URL.EscapedPath(), "/items/a%20b%2Fc%3Fd&e=f%23g/42"; got != want {
		t.Errorf("path %q, want %q", got, want)
	}
	q := r.URL.Query()
	if q.Get("q") != "a b/c?d&e=f#g" || q.Get("flag") != "true" || q.Get("in") != "in/put" || len(q) != 3 {
		t.Errorf("query %q decoded as %v", r.URL.RawQuery, q)
	}
}

func TestApiCallURLTemplatesRefusedInSchemeOrHost(t *testing.T) {
	e := newEnv(t)
	for _, u := range []string{
		"{/workflow/url}",
		"http://{/workflow/host}/x",
		"https://{/workflow/h}.example.com/",
		"http://127.0.0.1:{/workflow/port}/x",
		"http://127.0.0.1{/workflow/rest}",
		"{/workflow/scheme}://127.0.0.1/",
	} {
		_, err := op.ApiCallOp.New(json.RawMessage(fmt.Sprintf(`{"method":"GET","url":%q,"outputPath":"/workflow/r"}`, u)), e.deps)
		fe := asFault(t, err)
		if fe.SpecType() != fault.ValidationError || fe.Path != "operation.ApiCall.url" {
			t.Errorf("%s: got %s at %q: %s", u, fe.SpecType(), fe.Path, fe.Message)
		}
	}
}

func TestApiCallBuildValidation(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		cfg, path string
	}{
		{`{"method":"GET","url":"http://127.0.0.1/","outputPath":"/workflow/r","bogus":1}`, "operation.ApiCall.bogus"},
		{`{"method":"FETCH","url":"http://127.0.0.1/","outputPath":"/workflow/r"}`, "operation.ApiCall.method"},
		{`{"method":"GET","outputPath":"/workflow/r"}`, "operation.ApiCall.url"},
		{`{"method":"GET","url":"ftp://127.0.0.1/x","outputPath":"/workflow/r"}`, "operation.ApiCall.url"},
		{`{"method":"GET","url":"/relative","outputPath":"/workflow/r"}`, "operation.ApiCall.url"},
		{`{"method":"GET","url":"http://user:pw@127.0.0.1/","outputPath":"/workflow/r"}`, "operation.ApiCall.url"},
		{`{"method":"GET","url":"http://127.0.0.1/{/workflow/}","outputPath":"/workflow/r"}`, "operation.ApiCall.url"},
		{`{"method":"GET","url":"http://127.0.0.1/"}`, "operation.ApiCall.outputPath"},
		{`{"method":"GET","url":"http://127.0.0.1/","outputPath":"/input/x"}`, "operation.ApiCall.outputPath"},
		{`{"method":"GET","url":"http://127.0.0.1/","outputPath":"/workflow/r","timeout":0}`, "operation.ApiCall.timeout"},
		{`{"method":"GET","url":"http://127.0.0.1/","outputPath":"/workflow/r","headers":{"Bad Name":"x"}}`, "operation.ApiCall.headers.Bad Name"},
		{`{"method":"GET","url":"http://127.0.0.1/","outputPath":"/workflow/r","headers":{"X-N":5}}`, "operation.ApiCall.headers.X-N"},
		{`{"method":"GET","url":"http://127.0.0.1/","outputPath":"/workflow/r","headers":{"Host":"evil"}}`, "operation.ApiCall.headers.Host"},
		{`{"method":"GET","url":"http://127.0.0.1/","outputPath":"/workflow/r","headers":{"X-A":"a\r\nX-B: b"}}`, "operation.ApiCall.headers.X-A"},
		{`{"method":"GET","url":"http://127.0.0.1/","outputPath":"/workflow/r","headers":{"A":{"credentialRef":{"id":""}}}}`, "operation.ApiCall.headers.A.credentialRef"},
		{`{"method":"GET","url":"http://127.0.0.1/","outputPath":"/workflow/r","headers":{"A":{"credentialRef":{"id":"api-token","x":1}}}}`, "operation.ApiCall.headers.A.credentialRef"},
		{`{"method":"POST","url":"http://127.0.0.1/","outputPath":"/workflow/r","body":{"a":[1,{"credentialRef":{"nope":1}}]}}`, "operation.ApiCall.body.a[1].credentialRef"},
		{`{"method":"POST","url":"http://127.0.0.1/","outputPath":"/workflow/r","cache":true}`, "operation.ApiCall.cache"},
		{`{"method":"POST","url":"http://127.0.0.1/","outputPath":"/workflow/r","headers":{"idempotency-key":"k"}}`, "operation.ApiCall.headers.idempotency-key"},
	}
	for _, c := range cases {
		_, err := op.ApiCallOp.New(json.RawMessage(c.cfg), e.deps)
		if err == nil {
			t.Errorf("%s: expected an error", c.cfg)
			continue
		}
		fe := asFault(t, err)
		if fe.SpecType() != fault.ValidationError || fe.Path != c.path {
			t.Errorf("%s:\n got %s at %q (%s), want ValidationError at %q", c.cfg, fe.SpecType(), fe.Path, fe.Message, c.path)
		}
	}
}

func TestApiCallHeadersAndBodyTemplates(t *testing.T) {
	up := newUpstream(t, nil)
	e := newEnv(t)
	data := model(t, map[string]any{
		"user": map[string]any{"name": "Ann", "age": 31.0, "tags": []any{"a", "b"}},
		"n":    42.0, "flag": false,
	})
	cfg := fmt.Sprintf(`{"method":"POST","url":%q,"outputPath":"/workflow/r",
		"headers":{"X-User":"user-{/workflow/user.name}","X-N":"{/workflow/n}","X-Flag":"{/workflow/flag}","X-Obj":"{/workflow/user.tags}",
			"Authorization":{"credentialRef":{"id":"api-token"}},"X-Key":{"credentialRef":{"id":"raw-key"}}},
		"body":{"whole":"{/workflow/user}","text":"hi {/workflow/user.name}, {/workflow/n}","num":"{/workflow/n}",
			"big":12345678901234567890,"list":[1,"{/workflow/flag}",{"token":{"credentialRef":{"id":"raw-key"}}}],"plain":"no refs"}}`, up.URL+"/x")
	if _, err := e.run(t, cfg, data); err != nil {
		t.Fatal(err)
	}
	r, body := up.request()
	wantHeaders := map[string]string{
		"X-User": "user-Ann", "X-N": "42", "X-Flag": "false", "X-Obj": `["a","b"]`,
		"Authorization": "Bearer " + secret, "X-Key": "rawkey-" + secret, "User-Agent": "sluice",
	}
	for k, v := range wantHeaders {
		if got := r.Header.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	want := `{"big":12345678901234567890,"list":[1,false,{"token":"rawkey-` + secret + `"}],"num":42,"plain":"no refs","text":"hi Ann, 42","whole":{"age":31,"name":"Ann","tags":["a","b"]}}`
	if string(body) != want {
		t.Errorf("body\n got %s\nwant %s", body, want)
	}
}

func TestApiCallStringBodyWithContentType(t *testing.T) {
	up := newUpstream(t, nil)
	e := newEnv(t)
	data := model(t, map[string]any{"csv": "a,b\n1,2\n"})
	cases := []struct {
		cfg, body, ct string
	}{
		{`"headers":{"Content-Type":"text/csv"},"body":"{/workflow/csv}"`, "a,b\n1,2\n", "text/csv"},
		{`"headers":{"Content-Type":"text/plain"},"body":"hello {/workflow/csv}"`, "hello a,b\n1,2\n", "text/plain"},
		{`"headers":{"Content-Type":"application/json"},"body":"{/workflow/csv}"`, `"a,b\n1,2\n"`, "application/json"},
		{`"body":"plain"`, `"plain"`, "application/json"},
		{`"headers":{"Content-Type":"text/plain"},"body":{"a":1}`, `{"a":1}`, "text/plain"},
	}
	for _, c := range cases {
		cfg := fmt.Sprintf(`{"method":"PUT","url":%q,"outputPath":"/workflow/r",%s}`, up.URL+"/f", c.cfg)
		if _, err := e.run(t, cfg, data); err != nil {
			t.Fatal(err)
		}
		r, body := up.request()
		if string(body) != c.body || r.Header.Get("Content-Type") != c.ct {
			t.Errorf("%s: sent %q as %q", c.cfg, body, r.Header.Get("Content-Type"))
		}
	}
}

func TestApiCallResponses(t *testing.T) {
	e := newEnv(t)
	e.deps.Limits.MaxResponseBytes = 1000
	cases := []struct {
		name    string
		ct      string
		body    string
		chunked bool
		want    any
		errType string
	}{
		{"json", "application/json", `{"a":[1,2]}`, false, map[string]any{"a": []any{1.0, 2.0}}, ""},
		{"json charset", "application/json; charset=utf-8", `[true]`, false, []any{true}, ""},
		{"problem+json", "application/problem+json", `{"x":"y"}`, false, map[string]any{"x": "y"}, ""},
		{"text", "text/plain", `{"not":"decoded"}`, false, `{"not":"decoded"}`, ""},
		{"no type", "", `hello`, false, "hello", ""},
		{"empty json", "application/json", ``, false, nil, ""},
		{"bad json", "application/json", `{"a":`, false, nil, fault.ExecutionError},
		{"oversize", "text/plain", strings.Repeat("x", 1001), false, nil, fault.ExecutionError},
		{"oversize chunked", "text/plain", strings.Repeat("x", 5000), true, nil, fault.ExecutionError},
		{"at limit", "text/plain", strings.Repeat("x", 1000), false, strings.Repeat("x", 1000), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header()["Content-Type"] = []string{c.ct}
				if c.chunked {
					for i := 0; i < len(c.body); i += 100 {
						io.WriteString(w, c.body[i:min(i+100, len(c.body))])
						w.(http.Flusher).Flush()
					}
					return
				}
				io.WriteString(w, c.body)
			})
			got, err := e.run(t, fmt.Sprintf(`{"method":"GET","url":%q,"outputPath":"/workflow/r","cache":false}`, up.URL), nil)
			if c.errType != "" {
				if fe := asFault(t, err); fe.SpecType() != c.errType || fe.Retryable {
					t.Fatalf("got %s retryable=%v: %s", fe.SpecType(), fe.Retryable, fe.Message)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(c.want)
			if !bytes.Equal(gb, wb) {
				t.Fatalf("got %s, want %s", gb, wb)
			}
		})
	}
}

func TestApiCallNon2xx(t *testing.T) {
	long := strings.Repeat("é", 600) // 1200 bytes of 2-byte runes
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, long)
	})
	e := newEnv(t)
	_, err := e.run(t, fmt.Sprintf(`{"method":"GET","url":%q,"outputPath":"/workflow/r"}`, up.URL+"/missing?page=2"), nil)
	fe := asFault(t, err)
	if fe.SpecType() != fault.ExecutionError || fe.Kind != fault.Upstream || fe.Retryable {
		t.Fatalf("got %+v", fe)
	}
	if fe.Details["statusCode"] != 404 || fe.OperationID != "call" {
		t.Fatalf("details %v op %q", fe.Details, fe.OperationID)
	}
	resp := fe.Details["response"].(string)
	if len(resp) > 512 || !strings.HasPrefix(long, strings.TrimSuffix(resp, "…")) || !strings.HasSuffix(resp, "…") {
		t.Fatalf("response quote: %d bytes %q", len(resp), resp)
	}
	if strings.Contains(fe.Message, "page=2") {
		t.Fatalf("message shows the query: %s", fe.Message)
	}
}

func TestApiCallRetryClassification(t *testing.T) {
	e := newEnv(t)
	date := e.clock.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	type outcome struct {
		status     int
		retryAfter string
	}
	cases := []struct {
		name      string
		method    string
		extra     string
		out       outcome
		retryable bool
		after     time.Duration
	}{
		{"GET 503", "GET", "", outcome{503, ""}, true, 0},
		{"GET 500", "GET", "", outcome{500, ""}, true, 0},
		{"GET 408", "GET", "", outcome{408, ""}, true, 0},
		{"GET 429 Retry-After secs", "GET", "", outcome{429, "7"}, true, 7 * time.Second},
		{"GET 400", "GET", "", outcome{400, ""}, false, 0},
		{"GET 404", "GET", "", outcome{404, ""}, false, 0},
		{"PUT 502", "PUT", "", outcome{502, ""}, true, 0},
		{"DELETE 408", "DELETE", "", outcome{408, ""}, true, 0},
		{"POST 503", "POST", "", outcome{503, ""}, false, 0},
		{"POST 500", "POST", "", outcome{500, ""}, false, 0},
		{"POST 408", "POST", "", outcome{408, ""}, false, 0},
		{"POST 503 Retry-After date", "POST", "", outcome{503, date}, true, 90 * time.Second},
		{"POST 429", "POST", "", outcome{429, ""}, true, 0},
		{"PATCH 502", "PATCH", "", outcome{502, ""}, false, 0},
		{"POST 503 idempotencyKey", "POST", `,"idempotencyKey":"k-1"`, outcome{503, ""}, true, 0},
		{"PATCH 500 retry.unsafe", "PATCH", `,"retry":{"unsafe":true}`, outcome{500, ""}, true, 0},
		{"POST 400 idempotencyKey", "POST", `,"idempotencyKey":"k-1"`, outcome{400, ""}, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				if c.out.retryAfter != "" {
					w.Header().Set("Retry-After", c.out.retryAfter)
				}
				w.WriteHeader(c.out.status)
			})
			_, err := e.run(t, fmt.Sprintf(`{"method":%q,"url":%q,"outputPath":"/workflow/r"%s}`, c.method, up.URL, c.extra), nil)
			fe := asFault(t, err)
			if fe.Retryable != c.retryable || fe.RetryAfter != c.after {
				t.Fatalf("retryable=%v after=%v, want %v %v", fe.Retryable, fe.RetryAfter, c.retryable, c.after)
			}
			if fe.Details["statusCode"] != c.out.status {
				t.Fatalf("statusCode %v", fe.Details["statusCode"])
			}
			if c.name == "POST 503 idempotencyKey" {
				if r, _ := up.request(); r.Header.Get("Idempotency-Key") != "k-1" {
					t.Fatal("Idempotency-Key not sent")
				}
			}
		})
	}
}

func TestApiCallTimeout(t *testing.T) {
	release := make(chan struct{})
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		select { // hold the request until the client gives up
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	e := newEnv(t)
	for _, c := range []struct {
		method    string
		retryable bool
	}{{"GET", true}, {"POST", false}} {
		_, err := e.run(t, fmt.Sprintf(`{"method":%q,"url":%q,"outputPath":"/workflow/r","timeout":50}`, c.method, up.URL), nil)
		fe := asFault(t, err)
		if fe.Kind != fault.Timeout || fe.SpecType() != fault.TimeoutError || fe.Retryable != c.retryable {
			t.Fatalf("%s: got %v %s retryable=%v: %s", c.method, fe.Kind, fe.SpecType(), fe.Retryable, fe.Message)
		}
	}
}

func TestApiCallConnectionRefusedIsRetryableEvenForPOST(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	e := newEnv(t)
	_, err = e.run(t, fmt.Sprintf(`{"method":"POST","url":"http://%s/x","outputPath":"/workflow/r"}`, addr), nil)
	fe := asFault(t, err)
	if fe.SpecType() != fault.ExecutionError || !fe.Retryable {
		t.Fatalf("got %s retryable=%v: %s", fe.SpecType(), fe.Retryable, fe.Message)
	}
}

func TestApiCallPermissionsBeforeAnyRequest(t *testing.T) {
	up := newUpstream(t, nil)
	u, _ := url.Parse(up.URL)
	e := newEnv(t)
	build := []struct {
		name, cfg, path string
	}{
		{"forbidden literal host", `{"method":"GET","url":"http://localhost:` + u.Port() + `/x","outputPath":"/workflow/r"}`, "operation.ApiCall.url"},
		{"forbidden credential in header", `{"method":"GET","url":"` + up.URL + `/x","headers":{"Authorization":{"credentialRef":{"id":"prod-db"}}},"outputPath":"/workflow/r"}`,
			"operation.ApiCall.headers.Authorization.credentialRef.id"},
		{"forbidden credential in body", `{"method":"POST","url":"` + up.URL + `/x","body":{"k":{"credentialRef":{"id":"prod-db"}}},"outputPath":"/workflow/r"}`,
			"operation.ApiCall.body"},
	}
	for _, c := range build {
		_, err := op.ApiCallOp.New(json.RawMessage(c.cfg), e.deps)
		fe := asFault(t, err)
		if fe.SpecType() != fault.PermissionError || fe.Kind != fault.PermissionDenied || fe.Path != c.path {
			t.Errorf("%s: got %s at %q: %s", c.name, fe.SpecType(), fe.Path, fe.Message)
		}
	}

	// Permitted, but not in the vault: refused at run time, before sending.
	e.deps.Permissions.Credentials = append(e.deps.Permissions.Credentials, "ghost")
	_, err := e.run(t, `{"method":"GET","url":"`+up.URL+`/x","headers":{"X":{"credentialRef":{"id":"ghost"}}},"outputPath":"/workflow/r"}`, nil)
	if fe := asFault(t, err); fe.SpecType() != fault.PermissionError || fe.Retryable {
		t.Errorf("unknown credential: got %s: %s", fe.SpecType(), fe.Message)
	}
	if up.hits.Load() != 0 {
		t.Fatalf("%d requests reached the server", up.hits.Load())
	}
}

func TestApiCallDialTimeRefusal(t *testing.T) {
	up := newUpstream(t, nil)
	e := newEnv(t)
	e.deps.Client = egress.NewClient(egress.Policy{}) // nothing private allowed
	_, err := e.run(t, fmt.Sprintf(`{"method":"GET","url":%q,"outputPath":"/workflow/r"}`, up.URL+"/x?token=abc"), nil)
	fe := asFault(t, err)
	if fe.SpecType() != fault.PermissionError || fe.Kind != fault.PermissionDenied || fe.Retryable {
		t.Fatalf("got %s %v retryable=%v: %s", fe.SpecType(), fe.Kind, fe.Retryable, fe.Message)
	}
	if !strings.Contains(fe.Message, "loopback") || strings.Contains(fe.Message, "token=abc") {
		t.Fatalf("message: %s", fe.Message)
	}
	if up.hits.Load() != 0 {
		t.Fatal("the refused request reached the server")
	}
}

func TestApiCallRedirectToUngrantedHost(t *testing.T) {
	target := newUpstream(t, nil)
	tu, _ := url.Parse(target.URL)
	front := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://localhost:"+tu.Port()+"/", http.StatusFound)
	})
	e := newEnv(t, "127.0.0.1/32", "localhost") // the server rule allows both; the grant does not
	_, err := e.run(t, fmt.Sprintf(`{"method":"GET","url":%q,"outputPath":"/workflow/r"}`, front.URL), nil)
	fe := asFault(t, err)
	if fe.SpecType() != fault.PermissionError {
		t.Fatalf("got %s: %s", fe.SpecType(), fe.Message)
	}
	if target.hits.Load() != 0 {
		t.Fatal("redirect target reached")
	}
}

func TestApiCallRedirectDropsCredentials(t *testing.T) {
	// Both origins are granted; the second must still not receive the credential.
	other := newUpstream(t, nil)
	front := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/landed", http.StatusFound)
	})
	e := newEnv(t)
	cfg := fmt.Sprintf(`{"method":"GET","url":%q,"headers":{"X-Key":{"credentialRef":{"id":"raw-key"}},"Authorization":{"credentialRef":{"id":"api-token"}}},"outputPath":"/workflow/r"}`, front.URL)
	if _, err := e.run(t, cfg, nil); err != nil {
		t.Fatal(err)
	}
	r, _ := other.request()
	if r.Header.Get("X-Key") != "" || r.Header.Get("Authorization") != "" {
		t.Fatalf("credentials followed the redirect: %v", r.Header)
	}
	if fr, _ := front.request(); fr.Header.Get("X-Key") == "" {
		t.Fatal("the first origin should have received the credential")
	}
}

// meterFunc admits or refuses attempts.
type meterFunc func(ctx context.Context, account string) error

func (f meterFunc) AllowCall(ctx context.Context, account string) error { return f(ctx, account) }

// The account's API-call limit is asked before each attempt; a refusal sends
// nothing and carries its retry hint.
func TestApiCallMeterCountsAttempts(t *testing.T) {
	up := newUpstream(t, nil)
	e := newEnv(t)
	var asked []string
	admit := true
	e.deps.Meter = meterFunc(func(_ context.Context, account string) error {
		asked = append(asked, account)
		if admit {
			return nil
		}
		return fault.New(fault.RateLimited, "API call limit reached: 30 per minute").Retry(12 * time.Second)
	})
	cfg := `{"method":"GET","url":"` + up.URL + `/x","cache":false,"outputPath":"/workflow/r"}`
	if _, err := e.run(t, cfg, nil); err != nil {
		t.Fatal(err)
	}
	admit = false
	_, err := e.run(t, cfg, nil)
	fe := asFault(t, err)
	if fe.Kind != fault.RateLimited || !fe.Retryable || fe.RetryAfter != 12*time.Second {
		t.Fatalf("refused attempt: %+v", fe)
	}
	if up.hits.Load() != 1 || len(asked) != 2 || asked[0] == "" {
		t.Fatalf("%d requests sent, meter asked %v; want 1 sent and 2 asks with the account", up.hits.Load(), asked)
	}
}

func TestSecretNeverPrints(t *testing.T) {
	s := op.Secret{Type: "bearer-token", Value: secret}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("x", "secret", s)
	b, _ := json.Marshal(struct{ S op.Secret }{s})
	for _, out := range []string{fmt.Sprint(s), fmt.Sprintf("%+v", s), fmt.Sprintf("%#v", s), string(b), logs.String()} {
		if strings.Contains(out, secret) {
			t.Fatalf("secret printed: %s", out)
		}
	}
}

func TestApiCallSafeIsGET(t *testing.T) {
	e := newEnv(t)
	e.deps.Permissions.Hosts = []string{"api.example.com"}
	for method, want := range map[string]bool{"GET": true, "POST": false, "PUT": false, "DELETE": false, "PATCH": false} {
		o, err := op.ApiCallOp.New(json.RawMessage(`{"method":"`+method+`","url":"https://api.example.com/x","outputPath":"/workflow/r"}`), e.deps)
		if err != nil {
			t.Fatal(err)
		}
		if got := o.(op.SafeOperation).Safe(); got != want {
			t.Errorf("%s: Safe() = %v", method, got)
		}
	}
}
