package debugserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/debugserver"
)

func TestCheckAddr(t *testing.T) {
	for _, c := range []struct {
		debug, main string
		refused     string // a part of the message; "" when accepted
	}{
		{"127.0.0.1:6060", "127.0.0.1:8080", ""},
		{"[::1]:6060", "127.0.0.1:8080", ""},
		{"localhost:6060", ":8080", ""},
		{"127.0.0.1:0", "127.0.0.1:0", ""},
		{"127.0.0.1:8080", "127.0.0.1:8080", "public address"},
		{"127.0.0.1:8080", ":8080", "public address"},
		{"127.0.0.1:8080", "0.0.0.0:8080", "public address"},
		{"0.0.0.0:6060", "127.0.0.1:8080", "not a loopback"},
		{":6060", "127.0.0.1:8080", "not a loopback"},
		{"10.0.0.5:6060", "127.0.0.1:8080", "not a loopback"},
		{"6060", "127.0.0.1:8080", "host:port"},
		{"127.0.0.1:http", "127.0.0.1:8080", "not a number"},
	} {
		err := debugserver.CheckAddr(c.debug, c.main)
		if c.refused == "" && err != nil || c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused)) {
			t.Errorf("CheckAddr(%q, %q) = %v, want %q", c.debug, c.main, err, c.refused)
		}
	}
}

// The handler serves profiles and the runtime's metrics, and nothing else.
func TestHandler(t *testing.T) {
	srv := httptest.NewServer(debugserver.Handler())
	defer srv.Close()
	get := func(path string) (int, string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/debug/pprof/"); code != 200 || !strings.Contains(body, "goroutine") {
		t.Fatalf("pprof index: %d %.200s", code, body)
	}
	if code, body := get("/debug/pprof/heap?debug=1"); code != 200 || !strings.Contains(body, "heap profile") {
		t.Fatalf("heap profile: %d %.200s", code, body)
	}
	code, body := get("/debug/vars")
	var vars struct {
		Runtime map[string]float64 `json:"runtime"`
	}
	if code != 200 || json.Unmarshal([]byte(body), &vars) != nil {
		t.Fatalf("vars: %d %.300s", code, body)
	}
	if vars.Runtime["/gc/heap/allocs:bytes"] <= 0 || vars.Runtime["/sched/goroutines:goroutines"] < 1 {
		t.Fatalf("runtime metrics: %v", vars.Runtime)
	}
	if code, _ := get("/api/v1/workflows/execute"); code != 404 {
		t.Fatalf("another path: %d", code)
	}
	// A second handler (a second server in one process) publishes nothing twice.
	_ = debugserver.Handler()
}
