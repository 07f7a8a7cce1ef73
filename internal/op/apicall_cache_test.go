package op_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
)

func TestApiCallCache(t *testing.T) {
	var mu sync.Mutex
	n := 0
	cacheControl := ""
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		cur := n
		cc := cacheControl
		mu.Unlock()
		if cc != "" {
			w.Header().Set("Cache-Control", cc)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"n":%d}`, cur)
	})
	setCC := func(s string) { mu.Lock(); cacheControl = s; mu.Unlock() }
	get := func(e *env, account, path, extra string) float64 {
		t.Helper()
		o := e.build(t, fmt.Sprintf(`{"method":"GET","url":%q,"outputPath":"/workflow/r"%s}`, up.URL+path, extra))
		v, err := o.Run(context.Background(), e.rc(account, nil))
		if err != nil {
			t.Fatal(err)
		}
		return v.(map[string]any)["n"].(float64)
	}
	write := func(e *env, method, path string) {
		t.Helper()
		o := e.build(t, fmt.Sprintf(`{"method":%q,"url":%q,"outputPath":"/workflow/r"}`, method, up.URL+path))
		if _, err := o.Run(context.Background(), e.rc("a", nil)); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("hit, miss and TTL", func(t *testing.T) {
		e := newEnv(t)
		first := get(e, "a", "/users?page=1", "")
		if get(e, "a", "/users?page=1", "") != first {
			t.Fatal("second GET was not served from the cache")
		}
		if get(e, "a", "/users?page=2", "") == first {
			t.Fatal("another query was served the same entry")
		}
		e.clock.Advance(5*time.Minute + time.Second)
		if get(e, "a", "/users?page=1", "") == first {
			t.Fatal("entry outlived 5 minutes")
		}
	})
	t.Run("accounts are isolated", func(t *testing.T) {
		e := newEnv(t)
		a := get(e, "a", "/iso", "")
		if get(e, "b", "/iso", "") == a {
			t.Fatal("account b got account a's cached result")
		}
		if get(e, "a", "/iso", "") != a {
			t.Fatal("account a lost its entry")
		}
	})
	t.Run("cache false", func(t *testing.T) {
		e := newEnv(t)
		if get(e, "a", "/nc", `,"cache":false`) == get(e, "a", "/nc", `,"cache":false`) {
			t.Fatal("cache:false was cached")
		}
	})
	t.Run("headers are part of the key", func(t *testing.T) {
		e := newEnv(t)
		x := get(e, "a", "/h", `,"headers":{"Accept":"text/csv"}`)
		if get(e, "a", "/h", `,"headers":{"Accept":"application/json"}`) == x {
			t.Fatal("different headers shared an entry")
		}
	})
	for _, c := range []struct {
		cc     string
		cached bool
	}{{"no-store", false}, {"no-cache", false}, {"max-age=0", false}, {"private, max-age=60", true}, {"max-age=bogus", false}} {
		t.Run("Cache-Control "+c.cc, func(t *testing.T) {
			setCC(c.cc)
			defer setCC("")
			e := newEnv(t)
			if same := get(e, "a", "/cc", "") == get(e, "a", "/cc", ""); same != c.cached {
				t.Fatalf("cached=%v, want %v", same, c.cached)
			}
		})
	}
	t.Run("max-age shortens the TTL", func(t *testing.T) {
		setCC("max-age=30")
		defer setCC("")
		e := newEnv(t)
		x := get(e, "a", "/short", "")
		e.clock.Advance(29 * time.Second)
		if get(e, "a", "/short", "") != x {
			t.Fatal("expired before max-age")
		}
		e.clock.Advance(2 * time.Second)
		if get(e, "a", "/short", "") == x {
			t.Fatal("outlived max-age")
		}
	})
	t.Run("a write drops cached GETs under its URL", func(t *testing.T) {
		e := newEnv(t)
		users := get(e, "a", "/users", "")
		user1 := get(e, "a", "/users/1?full=1", "")
		orders := get(e, "a", "/orders", "")
		other := get(e, "b", "/users", "")
		write(e, "POST", "/users")
		if get(e, "a", "/users", "") == users || get(e, "a", "/users/1?full=1", "") == user1 {
			t.Fatal("POST /users left cached GETs of /users...")
		}
		if get(e, "a", "/orders", "") != orders {
			t.Fatal("POST /users dropped /orders")
		}
		if get(e, "b", "/users", "") != other {
			t.Fatal("a's write dropped b's cache")
		}
		for _, m := range []string{"PUT", "PATCH", "DELETE"} {
			before := get(e, "a", "/orders", "")
			write(e, m, "/orders")
			if get(e, "a", "/orders", "") == before {
				t.Fatalf("%s did not invalidate", m)
			}
		}
	})
	t.Run("manual invalidate", func(t *testing.T) {
		e := newEnv(t)
		x := get(e, "a", "/m", "")
		e.cache.Invalidate("a")
		if get(e, "a", "/m", "") == x {
			t.Fatal("Invalidate did not drop the entry")
		}
	})
}

// recordingCache records every key, scope and value it is given.
type recordingCache struct {
	op.Cache
	mu   sync.Mutex
	seen []string
}

func (r *recordingCache) record(parts ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, _ := json.Marshal(parts)
	r.seen = append(r.seen, string(b))
}
func (r *recordingCache) Get(account, key string) (any, bool) {
	r.record(account, key)
	return r.Cache.Get(account, key)
}
func (r *recordingCache) Put(account, key, scope string, v any, ttl time.Duration) {
	r.record(account, key, scope, v)
	r.Cache.Put(account, key, scope, v, ttl)
}
func (r *recordingCache) InvalidateScope(account, prefix string) {
	r.record(account, prefix)
	r.Cache.InvalidateScope(account, prefix)
}

func TestApiCallNeverLeaksSecrets(t *testing.T) {
	// The upstream echoes everything it was sent, in JSON and in text, on success
	// and on failure: the secret must be scrubbed from all of it.
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		echo := map[string]any{"authorization": r.Header.Get("Authorization"), "key": r.Header.Get("X-Key"),
			"body": string(body), r.Header.Get("Authorization"): "as a key"}
		switch {
		case strings.HasPrefix(r.URL.Path, "/fail"):
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, "denied: Authorization was %q, X-Key %s, body %s", r.Header.Get("Authorization"), r.Header.Get("X-Key"), body)
		case strings.HasPrefix(r.URL.Path, "/text"):
			fmt.Fprintf(w, "you sent %s and %s", r.Header.Get("Authorization"), body)
		default:
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(echo)
		}
	})
	e := newEnv(t)
	rec := &recordingCache{Cache: e.deps.Cache}
	e.deps.Cache = rec
	headers := `"headers":{"Authorization":{"credentialRef":{"id":"api-token"}},"X-Key":{"credentialRef":{"id":"raw-key"}}}`
	var shown []string
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/ok", ""},
		{"GET", "/text", ""},
		{"GET", "/fail", ""},
		{"POST", "/ok", `,"body":{"t":{"credentialRef":{"id":"api-token"}}}`},
		{"POST", "/fail", `,"body":{"t":{"credentialRef":{"id":"raw-key"}}}`},
		{"PUT", "/text", `,"headers":{"Content-Type":"text/plain","Authorization":{"credentialRef":{"id":"api-token"}}},"body":{"credentialRef":{"id":"raw-key"}}`},
	} {
		h := headers
		if strings.Contains(c.body, `"headers"`) {
			h = strings.TrimPrefix(c.body, ",")
			c.body = ""
		}
		cfg := fmt.Sprintf(`{"method":%q,"url":%q,%s,"outputPath":"/workflow/r"%s}`, c.method, up.URL+c.path, h, c.body)
		v, err := e.run(t, cfg, nil)
		r, sent := up.request()
		if !strings.Contains(r.Header.Get("Authorization")+string(sent), secret) {
			t.Fatalf("%s %s: the secret was not sent at all", c.method, c.path)
		}
		if err != nil {
			fe := asFault(t, err)
			b, _ := json.Marshal(fe.Object())
			shown = append(shown, string(b), fe.Error())
			if fe.Cause != nil {
				shown = append(shown, fe.Cause.Error())
			}
			if c.path == "/fail" && (fe.Details["statusCode"] != 401 || !strings.Contains(fe.Details["response"].(string), "[REDACTED]")) {
				t.Errorf("%s %s: details %v", c.method, c.path, fe.Details)
			}
			continue
		}
		b, _ := json.Marshal(v)
		shown = append(shown, string(b))
		if !strings.Contains(string(b), "[REDACTED]") {
			t.Errorf("%s %s: echo not scrubbed? %s", c.method, c.path, b)
		}
	}
	shown = append(shown, e.logs.String())
	shown = append(shown, rec.seen...)
	for _, s := range shown {
		if strings.Contains(s, secret) || strings.Contains(s, "s3cr3t") {
			t.Errorf("secret shown: %s", s)
		}
	}
	if len(rec.seen) == 0 {
		t.Fatal("the cache was never consulted")
	}
}

func TestApiCallReadsAndWrites(t *testing.T) {
	e := newEnv(t)
	o := e.build(t, `{"method":"POST","url":"http://127.0.0.1/u/{/workflow/id}?q={/input/q}","headers":{"X-A":"{/workflow/h}"},
		"body":{"a":"{/workflow/b}","c":["x {/workflow/d[0]}"]},"idempotencyKey":"k-{/workflow/k}","outputPath":"/workflow/out"}`)
	var got []string
	for _, p := range o.(op.Reader).Reads() {
		got = append(got, p.String())
	}
	want := "/workflow/b /workflow/d[0] /workflow/id /input/q /workflow/h /workflow/k"
	if strings.Join(got, " ") != want {
		t.Fatalf("Reads: %v, want %s", got, want)
	}
	if p, ok := o.(op.Writer).Writes(); !ok || p.String() != "/workflow/out" {
		t.Fatalf("Writes: %v %v", p, ok)
	}
	if spec := op.ApiCallOp.Spec; spec.Name != "ApiCall" || spec.CacheTTL != 5*time.Minute || !spec.SideEffects || spec.Example == "" {
		t.Fatalf("spec: %+v", spec)
	}
}

func TestApiCallMissingDataIsDataError(t *testing.T) {
	up := newUpstream(t, nil)
	e := newEnv(t)
	_, err := e.run(t, fmt.Sprintf(`{"method":"GET","url":%q,"outputPath":"/workflow/r"}`, up.URL+"/{/workflow/nope}"), nil)
	if fe := asFault(t, err); fe.SpecType() != fault.DataError {
		t.Fatalf("got %s: %s", fe.SpecType(), fe.Message)
	}
	if up.hits.Load() != 0 {
		t.Fatal("request sent without its data")
	}
}
