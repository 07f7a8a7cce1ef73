package gateway_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
)

// Hour and day counters survive a restart: an account at its hourly limit is
// still refused by the next process.
func TestHourlyLimitSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	_, key := s.account(map[string]any{"operations": []string{"*"}}, map[string]any{"requests_per_hour": 2})
	s.call("GET", "/api/v1/capabilities", key, nil).want(t, 200)
	s.call("GET", "/api/v1/capabilities", key, nil).want(t, 200)
	s.call("GET", "/api/v1/capabilities", key, nil).want(t, 429)
	s.close() // a clean stop saves the counters

	s2 := startServer(t, dir)
	r := s2.call("GET", "/api/v1/capabilities", key, nil).want(t, 429)
	if !strings.Contains(r.str("message"), "2 requests per hour") {
		t.Fatalf("after restart: %s", r.raw)
	}
}

// A client that never finishes its headers is cut by read_header_timeout.
func TestSlowClientIsCut(t *testing.T) {
	_, ln, cancel := serveApp(t, func(c *config.Config) { c.Server.ReadHeaderTimeout = 200 * time.Millisecond })
	defer cancel()

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, _ = io.WriteString(conn, "GET /health HTTP/1.1\r\nHost: x\r\n") // and nothing more
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	_, err = io.ReadAll(conn)
	if err != nil && time.Since(start) >= 10*time.Second {
		t.Fatalf("the slow client was not cut: %v", err)
	}
	if time.Since(start) >= 10*time.Second {
		t.Fatal("the slow client was not cut")
	}
}

// Shutdown lets a request in flight finish, then stops.
func TestGracefulShutdownDrains(t *testing.T) {
	app, ln, cancel, served := serveAppWait(t, func(c *config.Config) { c.Server.ShutdownGrace = 10 * time.Second })
	base := "http://" + ln.Addr().String()

	// An account and a 500 ms workflow, in flight when the shutdown begins.
	adminReq, _ := http.NewRequest("POST", base+"/api/v1/admin/accounts", strings.NewReader(`{"name":"x","permissions":{"operations":["*"]}}`))
	adminReq.Header.Set("Authorization", "Bearer "+app.AdminKey)
	resp, err := http.DefaultClient.Do(adminReq)
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		APIKey string `json:"api_key"`
	}
	decodeJSON(t, resp, &created)
	body := `{"workflow":` + jsonString(waitDoc(500)) + `}`
	done := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("POST", base+"/api/v1/workflows/execute", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+created.APIKey)
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- 0
			return
		}
		r.Body.Close()
		done <- r.StatusCode
	}()
	time.Sleep(150 * time.Millisecond)
	cancel()
	if code := <-done; code != 200 {
		t.Fatalf("the request in flight got %d during shutdown, want 200", code)
	}
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if _, err := http.Get(base + "/health"); err == nil {
		t.Fatal("the server still answers after shutdown")
	}
}

// serveApp serves an App changed by opt on a real listener until cancel.
func serveApp(t *testing.T, opt func(*config.Config)) (*gateway.App, net.Listener, context.CancelFunc) {
	app, ln, cancel, _ := serveAppWait(t, opt)
	return app, ln, cancel
}

// serveAppWait is serveApp with the channel Serve's result arrives on.
func serveAppWait(t *testing.T, opt func(*config.Config)) (*gateway.App, net.Listener, context.CancelFunc, chan error) {
	t.Helper()
	cfg := config.Defaults()
	cfg.DataDir = t.TempDir()
	opt(&cfg)
	app, err := openApp(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = app.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- app.Serve(ctx, ln) }()
	return app, ln, cancel, served
}
