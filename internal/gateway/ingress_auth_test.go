package gateway_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// A request presenting two keys is refused on every HTTP ingress, even when
// both are the same valid key (the first one used to win).
func TestTwoKeyHeadersAreRefusedEverywhere(t *testing.T) {
	s := newServer(t)
	_, key := s.anyAccount()
	envelope := `{"method":"account.capabilities","request_id":"r1"}`
	ingresses := []struct{ method, path, body string }{
		{"GET", "/api/v1/capabilities", ""},
		{"POST", "/api/v1/workflows/validate", `{"workflow":"x"}`},
		{"GET", "/api/v1/executions/nope/events", ""},
		{"POST", "/api/v1/e2a", envelope},
	}
	headers := map[string]http.Header{
		"two X-API-Key":                      {"X-Api-Key": {key, key}},
		"two Authorization":                  {"Authorization": {"Bearer " + key, "Bearer " + key}},
		"X-API-Key and a Bearer that differ": {"X-Api-Key": {key}, "Authorization": {"Bearer " + strings.ToUpper(key)}},
	}
	for _, in := range ingresses {
		for name, h := range headers {
			var body io.Reader
			if in.body != "" {
				body = strings.NewReader(in.body)
			}
			req, _ := http.NewRequest(in.method, s.http.URL+in.path, body)
			for k, vs := range h {
				req.Header[k] = vs
			}
			r := s.do(req)
			if r.status != http.StatusUnauthorized || !strings.Contains(string(r.raw), "send one") && !strings.Contains(string(r.raw), "different keys") {
				t.Errorf("%s %s with %s: %d %s", in.method, in.path, name, r.status, r.raw)
			}
			if strings.Contains(string(r.raw), key[20:]) {
				t.Errorf("%s %s with %s: the answer quotes the key", in.method, in.path, name)
			}
		}
	}
	// One key, in either header, still works on the same ingresses.
	req, _ := http.NewRequest("GET", s.http.URL+"/api/v1/capabilities", nil)
	req.Header.Set("X-API-Key", key)
	s.do(req).want(t, http.StatusOK)
	req, _ = http.NewRequest("POST", s.http.URL+"/api/v1/e2a", strings.NewReader(envelope))
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Authorization", "Bearer "+key)
	s.do(req).want(t, http.StatusOK)
}

// Duplicate keys in a JSON body are refused, at any depth, naming where:
// the REST body used to keep the last one.
func TestDuplicateBodyKeysAreRefused(t *testing.T) {
	s := newServer(t)
	_, key := s.anyAccount()
	cases := []struct{ path, body, where string }{
		{"/api/v1/workflows/validate", `{"workflow":"a","workflow":"b"}`, "workflow"},
		{"/api/v1/workflows/execute", `{"workflow":"a",` + "\n" + `"input":{"x":1,"x":2}}`, "input.x"},
		{"/api/v1/e2a", `{"method":"workflow.validate","params":{"workflow":"a","workflow":"b"}}`, "params.workflow"},
	}
	for _, c := range cases {
		r := s.call("POST", c.path, key, c.body).want(t, http.StatusBadRequest)
		msg := string(r.raw)
		if !strings.Contains(msg, "ValidationError") || !strings.Contains(msg, "duplicate key") || !strings.Contains(msg, c.where) {
			t.Errorf("%s %s: %s", c.path, c.body, msg)
		}
	}
	r := s.call("POST", "/api/v1/workflows/execute", key, `{"workflow":"a",`+"\n"+`"input":{"x":1,"x":2}}`)
	if r.get("error.details.path") != "input.x" || r.get("error.details.line") != float64(2) {
		t.Errorf("the duplicate is not located: %s", r.raw)
	}
}

// countingBody counts the bytes the server reads of a request body.
type countingBody struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func (c *countingBody) Close() error { return nil }

// A caller without a valid key never has more than 64 KiB of its body read,
// whatever max_body_bytes allows an account.
func TestBodyOfAStrangerIsNotRead(t *testing.T) {
	s := newServer(t)
	_, key := s.anyAccount()
	wrong := key[:len(key)-1] + "a"
	if wrong == key {
		wrong = key[:len(key)-1] + "b"
	}
	big := `{"workflow":"` + strings.Repeat("x", 1<<20) + `"}`
	for _, path := range []string{"/api/v1/workflows/validate", "/api/v1/e2a"} {
		for _, k := range []string{"", "slk_not_a_key", wrong} {
			body := &countingBody{r: strings.NewReader(big)}
			req := httptest.NewRequest("POST", path, body)
			req.ContentLength = -1 // the server cannot refuse it by its length
			if k != "" {
				req.Header.Set("Authorization", "Bearer "+k)
			}
			rec := httptest.NewRecorder()
			s.app.Server.Handler().ServeHTTP(rec, req)
			if rec.Code != http.StatusUnauthorized {
				t.Errorf("%s key %q: %d %s", path, k, rec.Code, rec.Body)
			}
			if n := body.n.Load(); n > 64<<10+1 {
				t.Errorf("%s key %q: %d bytes of the body were read before authentication", path, k, n)
			}
		}
	}
	// An authenticated caller still sends up to max_body_bytes.
	body := &countingBody{r: bytes.NewReader([]byte(`{"workflow":"` + strings.Repeat("x", 512<<10) + `"}`))}
	req := httptest.NewRequest("POST", "/api/v1/workflows/validate", body)
	req.ContentLength = -1
	req.Header.Set("Authorization", "Bearer "+key)
	rec := httptest.NewRecorder()
	s.app.Server.Handler().ServeHTTP(rec, req)
	if rec.Code == http.StatusRequestEntityTooLarge || rec.Code == http.StatusUnauthorized {
		t.Fatalf("an authenticated 512 KiB body: %d %s", rec.Code, rec.Body)
	}
}
