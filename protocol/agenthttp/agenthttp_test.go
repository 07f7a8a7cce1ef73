package agenthttp_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/protocol/agenthttp"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		code int
		want agenthttp.Outcome
	}{
		{200, agenthttp.Parse}, {201, agenthttp.Parse}, {299, agenthttp.Parse},
		{400, agenthttp.Fail}, {401, agenthttp.Fail}, {403, agenthttp.Fail}, {404, agenthttp.Fail},
		{408, agenthttp.Fail}, {422, agenthttp.Fail}, {301, agenthttp.Fail}, {100, agenthttp.Fail},
		{429, agenthttp.Retry}, {500, agenthttp.Retry}, {501, agenthttp.Retry}, {502, agenthttp.Retry},
		{503, agenthttp.Retry}, {504, agenthttp.Retry}, {599, agenthttp.Retry}, {600, agenthttp.Fail},
	}
	for _, tc := range tests {
		if got := agenthttp.Classify(tc.code); got != tc.want {
			t.Errorf("Classify(%d) = %v, want %v", tc.code, got, tc.want)
		}
	}
	// The table and Classify agree on every row.
	for _, r := range agenthttp.StatusTable {
		if got := agenthttp.Classify(r.Code); got != r.Outcome {
			t.Errorf("table row %d says %v, Classify says %v", r.Code, r.Outcome, got)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{" 7 ", 7 * time.Second, true},
		{"120", 2 * time.Minute, true},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{"99999999999999999999", agenthttp.MaxRetryAfter, true},
		{"Sat, 28 Mar 2026 12:00:30 GMT", 30 * time.Second, true},
		{"Sat, 28 Mar 2026 11:00:00 GMT", 0, true},
		{"Sun, 28 Mar 2027 12:00:00 GMT", agenthttp.MaxRetryAfter, true},
	}
	for _, tc := range tests {
		got, ok := agenthttp.ParseRetryAfter(tc.in, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseRetryAfter(%q) = %v %v, want %v %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestRetryDelay(t *testing.T) {
	c := agenthttp.DefaultRetryConfig()
	// The spec's schedule: 1 s, 2 s, 4 s, ... capped at 30 s.
	for n, want := range map[int]time.Duration{0: time.Second, 1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second,
		5: 16 * time.Second, 6: 30 * time.Second, 60: 30 * time.Second, 5000: 30 * time.Second} {
		if got := c.Delay(n); got != want {
			t.Errorf("Delay(%d) = %v, want %v", n, got, want)
		}
	}
	flat := agenthttp.RetryConfig{InitialDelay: 10 * time.Millisecond, MaxDelay: time.Second, BackoffMultiplier: 1}
	if got := flat.Delay(9); got != 10*time.Millisecond {
		t.Errorf("multiplier 1: %v", got)
	}
}

func TestSecretNeverPrints(t *testing.T) {
	const value = "sk-very-secret-value"
	e := agenthttp.NewEntry("a", "https://a.example.com")
	e.Auth = &agenthttp.AuthConfig{Type: agenthttp.AuthBearer, Token: agenthttp.PlainSecret(value)}
	var logs strings.Builder
	slog.New(slog.NewTextHandler(&logs, nil)).Info("entry", "token", e.Auth.Token, "auth", e.Auth)
	for _, s := range []string{fmt.Sprint(e), fmt.Sprintf("%+v", e), fmt.Sprintf("%#v", e), fmt.Sprintf("%v", *e.Auth),
		fmt.Sprintf("%#v", *e.Auth), logs.String()} {
		if strings.Contains(s, value) {
			t.Fatalf("a secret printed: %s", s)
		}
	}
	if _, err := json.Marshal(e); !errors.Is(err, agenthttp.ErrPlainSecret) {
		t.Fatalf("marshalling a plain secret: %v", err)
	}
	if !e.HasPlainSecrets() {
		t.Fatal("HasPlainSecrets missed the token")
	}
	// Once replaced by a reference it marshals, without the value.
	e.SetSecret("auth_config.token", agenthttp.SecretRef("agent.a.token.1"))
	b, err := json.Marshal(e)
	if err != nil || strings.Contains(string(b), value) || !strings.Contains(string(b), `{"credentialRef":{"id":"agent.a.token.1"}}`) {
		t.Fatalf("%s %v", b, err)
	}
}

func TestEntryErrorsNeverShowSecrets(t *testing.T) {
	const secret = "tok\x01en-abcdefgh"
	bodies := []string{
		`{"name":"a","url":"http://a","auth_config":{"type":"bearer","token":%q}}`,
		`{"name":"a","url":"http://a","auth_config":{"type":"apikey","key":%q,"token":"x"}}`,
		`{"name":"a","url":"http://a","auth_config":{"type":"headers","headers":{"X-A":%q,"Host":"x"}}}`,
		`{"name":"a b","url":"http://a","auth_config":{"type":"bearer","token":%q}}`,
	}
	for _, b := range bodies {
		_, err := agenthttp.DecodeEntry([]byte(fmt.Sprintf(b, secret)), agenthttp.Limits{})
		if err == nil {
			t.Fatalf("no error for %s", b)
		}
		if strings.Contains(err.Error(), "en-abcdefgh") {
			t.Fatalf("error shows the secret: %v", err)
		}
	}
}

func TestEntrySecretsWalk(t *testing.T) {
	e, err := agenthttp.DecodeEntry([]byte(`{"name":"h","url":"https://h.example.com","auth_config":{"type":"headers",
		"headers":{"x-tenant":"acme","Authorization":{"credentialRef":{"id":"ref1"}}}}}`), agenthttp.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	fs := e.Secrets()
	if len(fs) != 2 || fs[0].Header != "Authorization" || !fs[0].Secret.IsRef() || fs[1].Header != "X-Tenant" ||
		fs[1].Secret.Reveal() != "acme" || fs[1].Path != "auth_config.headers.x-tenant" {
		t.Fatalf("%+v", fs)
	}
	c := e.Clone()
	c.SetSecret(fs[1].Path, agenthttp.SecretRef("ref2"))
	if !e.HasPlainSecrets() || c.HasPlainSecrets() {
		t.Fatal("Clone shares the headers map, or SetSecret missed")
	}
}

func TestEncodeRequest(t *testing.T) {
	b, err := agenthttp.EncodeRequest(agenthttp.Request{TaskID: "t-1", Input: json.RawMessage(` { "a" : [1, 2] } `)})
	if err != nil || string(b) != `{"task_id":"t-1","input":{"a":[1,2]}}` {
		t.Fatalf("%s %v", b, err)
	}
	for _, r := range []agenthttp.Request{
		{TaskID: "", Input: json.RawMessage(`{}`)},
		{TaskID: "t", Input: json.RawMessage(`[1]`)},
		{TaskID: "t", Input: json.RawMessage(`{`)},
		{TaskID: "t", Input: nil},
		{TaskID: strings.Repeat("x", agenthttp.MaxTaskIDBytes+1), Input: json.RawMessage(`{}`)},
	} {
		if _, err := agenthttp.EncodeRequest(r); err == nil {
			t.Errorf("no error for %+v", r)
		}
	}
}

func TestHealthURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://a:8080":              "http://a:8080/health",
		"http://a:8080/":             "http://a:8080/health",
		"https://a.example.com/v1/x": "https://a.example.com/v1/x/health",
		"http://a/invoke?key=1":      "http://a/invoke/health",
	} {
		if got, err := agenthttp.HealthURL(in); err != nil || got != want {
			t.Errorf("HealthURL(%q) = %q %v, want %q", in, got, err, want)
		}
	}
}

func TestValidateBuiltEntries(t *testing.T) {
	ok := agenthttp.NewEntry("Research_Agent-2", "https://r.example.com:8443/invoke?v=1")
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := map[string]func(e *agenthttp.Entry){
		"timeout 0":             func(e *agenthttp.Entry) { e.Timeout = 0 },
		"timeout fraction":      func(e *agenthttp.Entry) { e.Timeout = 1500 * time.Microsecond },
		"zero retry config":     func(e *agenthttp.Entry) { e.Retry = agenthttp.RetryConfig{} },
		"negative retries":      func(e *agenthttp.Entry) { e.Retry.MaxRetries = -1 },
		"name starting with -":  func(e *agenthttp.Entry) { e.Name = "-a" },
		"long name":             func(e *agenthttp.Entry) { e.Name = strings.Repeat("a", 65) },
		"port 0":                func(e *agenthttp.Entry) { e.URL = "http://a:0" },
		"fragment":              func(e *agenthttp.Entry) { e.URL = "http://a/#x" },
		"no host":               func(e *agenthttp.Entry) { e.URL = "http:///x" },
		"headers none":          func(e *agenthttp.Entry) { e.Auth = &agenthttp.AuthConfig{Type: agenthttp.AuthHeaders} },
		"apikey reserved":       func(e *agenthttp.Entry) { e.Auth = apikey("Idempotency-Key") },
		"apikey bad header":     func(e *agenthttp.Entry) { e.Auth = apikey("X Key") },
		"unknown type":          func(e *agenthttp.Entry) { e.Auth = &agenthttp.AuthConfig{Type: "oauth"} },
		"headers same twice":    func(e *agenthttp.Entry) { e.Auth = headers("x-a", "X-A") },
		"secret over the bound": func(e *agenthttp.Entry) { e.Auth = bearer(strings.Repeat("s", agenthttp.MaxSecretBytes+1)) },
	}
	for name, change := range bad {
		e := ok.Clone()
		change(&e)
		var ae *agenthttp.Error
		if err := e.Validate(); !errors.As(err, &ae) || ae.Path == "" && name != "x" {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func apikey(header string) *agenthttp.AuthConfig {
	return &agenthttp.AuthConfig{Type: agenthttp.AuthAPIKey, Key: agenthttp.PlainSecret("k-123456"), Header: header}
}

func bearer(v string) *agenthttp.AuthConfig {
	return &agenthttp.AuthConfig{Type: agenthttp.AuthBearer, Token: agenthttp.PlainSecret(v)}
}

func headers(names ...string) *agenthttp.AuthConfig {
	a := &agenthttp.AuthConfig{Type: agenthttp.AuthHeaders, Headers: map[string]agenthttp.Secret{}}
	for _, n := range names {
		a.Headers[n] = agenthttp.PlainSecret("v-" + n)
	}
	return a
}

func TestTimestamps(t *testing.T) {
	for in, want := range map[string]string{
		"2026-03-28T12:00:00Z":             "2026-03-28T12:00:00+00:00",
		"2026-03-28T14:00:00.5+02:00":      "2026-03-28T12:00:00.500000+00:00",
		"2026-03-28T12:00:00.123456":       "2026-03-28T12:00:00.123456+00:00",
		"2026-03-28T12:00:00.123456789Z":   "2026-03-28T12:00:00.123456+00:00",
		"2026-03-28T12:00:00.000000+00:00": "2026-03-28T12:00:00+00:00",
	} {
		ts, ok := agenthttp.ParseTimestamp(in)
		if !ok || agenthttp.FormatTimestamp(ts) != want {
			t.Errorf("%s -> %v %v, want %s", in, agenthttp.FormatTimestamp(ts), ok, want)
		}
	}
	for _, bad := range []string{"", "2026-03-28", "12:00", "2026-13-01T00:00:00Z", strings.Repeat("1", 100)} {
		if _, ok := agenthttp.ParseTimestamp(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestLimits(t *testing.T) {
	big := `{"task_id":"t","output":"` + strings.Repeat("x", 100) + `"}`
	if _, err := agenthttp.DecodeResponse([]byte(big), agenthttp.Limits{MaxBytes: 50}); err == nil ||
		!strings.Contains(err.Error(), "over the limit of 50") {
		t.Fatalf("size bound: %v", err)
	}
	deep := `{"task_id":"t","output":` + strings.Repeat("[", 5) + strings.Repeat("]", 5) + `}`
	if _, err := agenthttp.DecodeResponse([]byte(deep), agenthttp.Limits{MaxDepth: 4}); err == nil {
		t.Fatal("depth bound not applied")
	}
	if _, err := agenthttp.DecodeResponse([]byte(deep), agenthttp.Limits{MaxDepth: 6}); err != nil {
		t.Fatal(err)
	}
	// Brackets inside strings do not count.
	strs := `{"task_id":"t","output":"` + strings.Repeat("[", 100) + `"}`
	if _, err := agenthttp.DecodeResponse([]byte(strs), agenthttp.Limits{MaxDepth: 2}); err != nil {
		t.Fatal(err)
	}
}

func TestResponseMarshal(t *testing.T) {
	msg := "boom"
	for _, tc := range []struct {
		r    agenthttp.Response
		want string
	}{
		{agenthttp.Response{TaskID: "t"}, `{"task_id":"t","status":"success","output":null,"error":null}`},
		{agenthttp.Response{TaskID: "t", Status: agenthttp.StatusError, Error: &msg}, `{"task_id":"t","status":"error","output":null,"error":"boom"}`},
	} {
		b, err := json.Marshal(tc.r)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s %v, want %s", b, err, tc.want)
		}
	}
}
