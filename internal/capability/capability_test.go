package capability_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sluicehq/sluice/internal/capability"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/vault"
	"github.com/sluicehq/sluice/protocol/a2s"
)

// apis are local stand-ins for api.weather.com (GET /weather/{city}, bearer
// token), api.twitter.com (POST /tweets, OAuth2 token from /token).
type apis struct {
	srv      *httptest.Server
	mu       sync.Mutex
	tweets   []string
	auth     []string
	tokens   atomic.Int32
	weather  map[string]map[string]any
	failPost bool
}

func newAPIs(t *testing.T) *apis {
	a := &apis{weather: map[string]map[string]any{
		"San Francisco": {"temperature": 28.0, "conditions": "Sunny"},
		"Seattle":       {"temperature": 18.0, "conditions": "Cloudy"},
	}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /weather/{city}", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.auth = append(a.auth, r.Header.Get("Authorization"))
		a.mu.Unlock()
		wx, ok := a.weather[r.PathValue("city")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(wx)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		id, secret, ok := r.BasicAuth()
		if !ok || id != "tw-client" || secret != "tw-secret" || r.FormValue("grant_type") != "client_credentials" {
			http.Error(w, "bad client", http.StatusUnauthorized)
			return
		}
		a.tokens.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token":"tw-token-123","token_type":"bearer","expires_in":3600}`))
	})
	mux.HandleFunc("POST /tweets", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tw-token-123" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		if a.failPost {
			http.Error(w, "down", http.StatusBadRequest)
			return
		}
		var body struct {
			Message string `json:"message"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		a.mu.Lock()
		a.tweets = append(a.tweets, body.Message)
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"post_id":"tw-1"}`))
	})
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	return a
}

func readFixture() (string, error) {
	b, err := os.ReadFile("testdata/weather.yaml")
	return string(b), err
}

func stripChecksum(s string) string {
	return regexp.MustCompile(`(?m)^checksum: .*\n`).ReplaceAllString(s, "")
}

// weatherDoc is the corrected spec example with its two APIs on the local
// servers and an OAuth2 token endpoint for the social service.
func weatherDoc(t *testing.T, a *apis) *a2s.Document {
	t.Helper()
	src, err := os.ReadFile("testdata/weather.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	if a != nil {
		s = strings.ReplaceAll(s, "https://api.weather.com", a.srv.URL)
		s = strings.ReplaceAll(s, "https://api.twitter.com", a.srv.URL)
		s = strings.Replace(s, "    type: social-media\n    oauth2:\n", "    type: social-media\n    oauth2:\n      token_url: "+a.srv.URL+"/token\n", 1)
		// The edited document is another document: its checksum goes.
		s = regexp.MustCompile(`(?m)^checksum: .*\n`).ReplaceAllString(s, "")
	}
	doc, ds := a2s.LintBytes([]byte(s), a2s.Options{File: "weather.yaml"})
	if a2s.HasErrors(ds) {
		t.Fatalf("lint: %v", ds)
	}
	return doc
}

var secrets = map[string]op.Secret{
	"wx-token":  {Type: "bearer-token", Value: "wx-secret-token"},
	"tw-id":     {Type: "api-key", Value: "tw-client"},
	"tw-secret": {Type: "api-key", Value: "tw-secret"},
}

func environment(grants ...string) *op.Environment {
	return op.NewEnvironment(&op.Deps{
		Client:      egress.NewClient(egress.Policy{AllowPrivate: []string{"127.0.0.1"}}),
		Permissions: policy.Permissions{Hosts: []string{"127.0.0.1"}, Credentials: grants},
		Vault:       vault.NewMemory(secrets),
		Limits:      op.DefaultLimits(),
	}, op.Builtins()...)
}

var creds = map[string]map[string]string{
	"api.weather.com": {"access_token": "wx-token"},
	"api.twitter.com": {"client_id": "tw-id", "client_secret": "tw-secret"},
}

func TestWeatherCapabilityRunsForReal(t *testing.T) {
	a := newAPIs(t)
	doc := weatherDoc(t, a)
	tokens := capability.NewTokenCache()
	c, err := capability.Compile(doc, capability.Options{Env: environment("wx-token", "tw-id", "tw-secret"), Account: "acct",
		Credentials: creds, Tokens: tokens})
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(engine.Options{})
	for _, tc := range []struct {
		city      string
		threshold float64
		postID    any
		temp      float64
	}{
		{"San Francisco", 25, "tw-1", 28},
		{"Seattle", 25, nil, 18},
		{"San Francisco", 30, nil, 28},
	} {
		in := map[string]any{"city": tc.city, "threshold": tc.threshold}
		if err := c.CheckInputs(in); err != nil {
			t.Fatal(err)
		}
		r := capability.Run(context.Background(), eng, c, capability.RunOptions{Account: "acct", Inputs: in})
		if r.Status != engine.StatusSuccess {
			t.Fatalf("%s/%v: status %s %v", tc.city, tc.threshold, r.Status, r.Errors)
		}
		weather, _ := r.Outputs["weather"].(map[string]any)
		if r.Outputs["post_id"] != tc.postID || weather["temperature"] != tc.temp {
			t.Fatalf("%s/%v: outputs %v", tc.city, tc.threshold, r.Outputs)
		}
		if _, posted := r.Tasks["postSocialMedia"]; posted != (tc.postID != nil) {
			t.Fatalf("%s/%v: tasks %v", tc.city, tc.threshold, r.Tasks)
		}
	}
	if len(a.tweets) != 1 || a.tweets[0] != "Current weather in San Francisco: Sunny, 28°C" {
		t.Fatalf("tweets %q", a.tweets)
	}
	for _, h := range a.auth {
		if h != "Bearer wx-secret-token" {
			t.Fatalf("weather API got Authorization %q", h)
		}
	}
	if a.tokens.Load() != 1 {
		t.Fatalf("the OAuth2 token was fetched %d times, want once (cached)", a.tokens.Load())
	}
	// No secret in any result.
	r := capability.Run(context.Background(), eng, c, capability.RunOptions{Account: "acct", Inputs: map[string]any{"city": "San Francisco", "threshold": 1.0}})
	b, _ := json.Marshal(r)
	for _, s := range []string{"wx-secret-token", "tw-secret", "tw-token-123"} {
		if strings.Contains(string(b), s) {
			t.Fatalf("a secret in the result: %s", b)
		}
	}
}

func TestSecretsAndUnknownInputsRefused(t *testing.T) {
	doc := weatherDoc(t, nil)
	c, err := capability.Compile(doc, capability.Options{Env: environment()})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []map[string]any{
		{"services": map[string]any{"api.weather.com": map[string]any{"oauth2": map[string]any{"client_secret": "x"}}}},
		{"client_secret": "x"},
		{"city": "Oslo", "nope": 1},
		{"city": 42},
	} {
		err := c.CheckInputs(in)
		if fe := fault.From(err); err == nil || fe.Kind != fault.Invalid || fe.Details["field"] == nil {
			t.Fatalf("inputs %v: %v", in, err)
		}
		if strings.Contains(err.Error(), `"x"`) {
			t.Fatalf("the error shows the value: %v", err)
		}
	}
}

func TestCredentialsMustBeGranted(t *testing.T) {
	a := newAPIs(t)
	c, err := capability.Compile(weatherDoc(t, a), capability.Options{Env: environment("wx-token"), Account: "acct", Credentials: creds})
	if err != nil {
		t.Fatal(err)
	}
	r := capability.Run(context.Background(), engine.New(engine.Options{}), c, capability.RunOptions{Inputs: map[string]any{"city": "San Francisco", "threshold": 1.0}})
	if r.Status == engine.StatusSuccess || len(r.Errors) == 0 || !strings.Contains(r.Errors[0].Message, "tw-id") {
		t.Fatalf("status %s errors %v", r.Status, r.Errors)
	}
	if len(a.tweets) != 0 {
		t.Fatal("posted without the credential grant")
	}
	// A host the account may not reach: refused before anything is sent.
	env := op.NewEnvironment(&op.Deps{Client: egress.NewClient(egress.Policy{}), Permissions: policy.Permissions{Hosts: []string{"example.com"}, Credentials: []string{"wx-token"}},
		Vault: vault.NewMemory(secrets), Limits: op.DefaultLimits()}, op.Builtins()...)
	c, _ = capability.Compile(weatherDoc(t, a), capability.Options{Env: env, Credentials: creds})
	a.auth = nil
	r = capability.Run(context.Background(), engine.New(engine.Options{}), c, capability.RunOptions{Inputs: map[string]any{"city": "Seattle", "threshold": 1.0}})
	if len(a.auth) != 0 || len(r.Errors) == 0 || r.Errors[0].Type != fault.PermissionError {
		t.Fatalf("unreachable host: %v, %d calls", r.Errors, len(a.auth))
	}
}
