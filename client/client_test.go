package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sluicehq/sluice/client"
)

// The server's three error bodies become one *client.Error.
func TestErrors(t *testing.T) {
	bodies := map[string]struct {
		status int
		body   string
	}{
		"/spec":    {403, `{"error":{"type":"PermissionError","message":"host x is not permitted","operationId":"a","suggestions":["grant it"]}}`},
		"/limited": {429, `{"error":"Rate limit exceeded","message":"Rate limit exceeded: 60 requests per minute","retry_after":12}`},
		"/invalid": {400, `{"valid":false,"errors":[{"type":"ValidationError","message":"line 2: unknown operation","line":2}],"warnings":[]}`},
		"/text":    {502, `bad gateway`},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer k" {
			w.WriteHeader(401)
			return
		}
		b := bodies[r.URL.Path]
		w.WriteHeader(b.status)
		_, _ = io.WriteString(w, b.body)
	}))
	defer srv.Close()
	c := client.New(srv.URL, "k", nil)
	get := func(path string) *client.Error {
		err := c.Do(context.Background(), "GET", path, nil, nil)
		var ce *client.Error
		if !errors.As(err, &ce) {
			t.Fatalf("%s: %v is not a *client.Error", path, err)
		}
		return ce
	}
	if e := get("/spec"); e.Status != 403 || e.Type != "PermissionError" || e.OperationID != "a" || len(e.Suggestions) != 1 {
		t.Errorf("spec error: %+v", e)
	}
	if e := get("/limited"); e.Status != 429 || e.RetryAfter != 12 || e.Message != "Rate limit exceeded: 60 requests per minute" {
		t.Errorf("429: %+v", e)
	}
	if e := get("/invalid"); e.Report == nil || e.Report.Valid || e.Report.Errors[0].Line != 2 || e.Message != "line 2: unknown operation" {
		t.Errorf("invalid workflow: %+v", e)
	}
	if e := get("/text"); e.Status != 502 || e.Message != "bad gateway" {
		t.Errorf("plain text: %+v", e)
	}
}
