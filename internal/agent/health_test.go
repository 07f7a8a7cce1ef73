package agent_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/agent"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

func healthServer(t *testing.T, code int, seen *http.Header) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/base/health" || r.Method != http.MethodGet {
			w.WriteHeader(404)
			return
		}
		if seen != nil {
			*seen = r.Header.Clone()
		}
		w.WriteHeader(code)
		w.Write([]byte(`{"status":"healthy"}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestCheckHealth(t *testing.T) {
	e := newEnv(t)
	var seen http.Header
	up := healthServer(t, 200, &seen)
	down := healthServer(t, 500, nil)
	if _, _, err := e.reg.Register(ctx, bearerEntry("up", up.URL+"/base", token)); err != nil {
		t.Fatal(err)
	}
	e.register(t, "down", down.URL+"/base/", nil)

	h, err := e.inv.CheckHealth(ctx, "up")
	if err != nil || !h.Healthy || h.StatusCode != 200 || h.Agent != "up" || h.CheckedAt.IsZero() || h.Breaker.State != agent.BreakerClosed {
		t.Fatalf("%+v %v", h, err)
	}
	if seen.Get("Authorization") != "Bearer "+token {
		t.Fatalf("the health check did not authenticate: %v", seen)
	}
	h, err = e.inv.CheckHealth(ctx, "down")
	if err != nil || h.Healthy || h.StatusCode != 500 || !strings.Contains(h.Error, "500") {
		t.Fatalf("%+v %v", h, err)
	}
	if got, ok := e.inv.Health("down"); !ok || got.Healthy {
		t.Fatalf("kept: %+v %v", got, ok)
	}
	_, err = e.inv.CheckHealth(ctx, "nobody")
	wantKind(t, err, fault.NotFound, "an unknown agent")

	// Nothing listens: unhealthy, with a reason.
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	e.register(t, "gone", gone.URL, nil)
	if h, _ := e.inv.CheckHealth(ctx, "gone"); h.Healthy || h.Error == "" {
		t.Fatalf("%+v", h)
	}
	// A hanging health endpoint is cut at the agent's timeout.
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer hang.Close()
	e.register(t, "hang", hang.URL, func(en *agenthttp.Entry) { en.Timeout = 50 * time.Millisecond })
	if h, _ := e.inv.CheckHealth(ctx, "hang"); h.Healthy || !strings.Contains(h.Error, "no answer within 50ms") {
		t.Fatalf("%+v", h)
	}
}

func TestRunHealthChecks(t *testing.T) {
	e := newEnv(t)
	up := healthServer(t, 200, nil)
	e.register(t, "up", up.URL+"/base", nil)
	e.register(t, "down", healthServer(t, 503, nil).URL+"/base", nil)
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		e.inv.RunHealthChecks(cctx, time.Hour)
		close(done)
	}()
	// The first round runs at once.
	deadline := time.Now().Add(10 * time.Second)
	for {
		u, ok1 := e.inv.Health("up")
		d, ok2 := e.inv.Health("down")
		if ok1 && ok2 {
			if !u.Healthy || d.Healthy {
				t.Fatalf("%+v %+v", u, d)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no health check ran")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	if !strings.Contains(e.logs.String(), "agent unhealthy") {
		t.Fatalf("the unhealthy agent was not logged:\n%s", e.logs)
	}
	// A removed agent is forgotten at the next round.
	if err := e.reg.Remove(ctx, "down"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.inv.CheckAll(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.inv.Health("down"); ok {
		t.Fatal("a removed agent's health is kept")
	}
}

func TestHealthInterval(t *testing.T) {
	for in, want := range map[time.Duration]time.Duration{
		0: agent.DefaultHealthInterval, time.Millisecond: time.Second, -time.Hour: time.Second,
		time.Minute: time.Minute, 48 * time.Hour: time.Hour,
	} {
		if got := agent.HealthInterval(in); got != want {
			t.Errorf("HealthInterval(%v) = %v, want %v", in, got, want)
		}
	}
}
