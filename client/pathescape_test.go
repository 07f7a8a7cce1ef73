package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sluicehq/sluice/client"
)

// An id of ".." names that id: it was sent as a dot segment, and
// GET /api/v1/executions/.. reached /api/v1/.
func TestDotIDsStayOneSegment(t *testing.T) {
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.RequestURI
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	c := client.New(srv.URL, "k", nil)
	_, _ = c.Execution(context.Background(), "..")
	if uri := <-got; uri != "/api/v1/executions/%2E%2E" {
		t.Fatalf("the server got %q", uri)
	}
}
