package agent

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// Health is the outcome of an agent's health check (GET {url}/health).
type Health struct {
	Agent      string        `json:"agent"`
	Healthy    bool          `json:"healthy"`
	StatusCode int           `json:"status_code,omitempty"`
	Error      string        `json:"error,omitempty"`
	LatencyMs  int64         `json:"latency_ms"`
	CheckedAt  time.Time     `json:"checked_at"`
	Breaker    BreakerStatus `json:"breaker"`
}

// Bounds of the background health checks' interval.
const (
	MinHealthInterval     = time.Second
	MaxHealthInterval     = time.Hour
	DefaultHealthInterval = 30 * time.Second
	// healthConcurrency bounds the checks in flight at once.
	healthConcurrency = 4
)

// HealthInterval is d within [MinHealthInterval, MaxHealthInterval]
// (0: DefaultHealthInterval).
func HealthInterval(d time.Duration) time.Duration {
	if d == 0 {
		return DefaultHealthInterval
	}
	return min(max(d, MinHealthInterval), MaxHealthInterval)
}

// CheckHealth checks agent name now: healthy when GET {url}/health answers
// 2xx within the health timeout. The result is kept (see Health). An
// unknown agent is NotFound; an unhealthy agent is a Health, not an error.
func (inv *Invoker) CheckHealth(ctx context.Context, name string) (Health, error) {
	e, err := inv.o.Registry.Get(ctx, name)
	if err != nil {
		return Health{}, err
	}
	h := inv.check(ctx, e)
	inv.mu.Lock()
	inv.health[e.Name] = h
	inv.mu.Unlock()
	return h, nil
}

// check runs one health check of e.
func (inv *Invoker) check(ctx context.Context, e agenthttp.Entry) (h Health) {
	h = Health{Agent: e.Name, CheckedAt: inv.o.Clock.Now().UTC()}
	defer func() { h.Breaker = inv.Breaker(e.Name) }()
	if e.Protocol == agenthttp.ProtocolACP {
		inv.acpCheck(e, &h)
		return h
	}
	if err := inv.o.Registry.CheckURL(e.URL); err != nil {
		h.Error = fault.From(err).Message
		return h
	}
	hurl, err := agenthttp.HealthURL(e.URL)
	if e.Protocol == agenthttp.ProtocolA2A {
		hurl, err = CardURL(e.URL), nil // an A2A agent is healthy when its card answers
	}
	if err != nil {
		h.Error = "the agent's URL has no health URL"
		return h
	}
	header, sensitive, scrub, err := inv.authHeaders(ctx, e)
	if err != nil {
		h.Error = fault.From(err).Message
		return h
	}
	cctx, cancel := context.WithTimeout(ctx, min(inv.o.HealthTimeout, e.Timeout))
	defer cancel()
	cctx = egress.WithSensitive(cctx, egress.Sensitive{Headers: sensitive})
	req, err := http.NewRequestWithContext(cctx, http.MethodGet, hurl, nil)
	if err != nil {
		h.Error = "the health URL cannot be requested"
		return h
	}
	req.Header = header
	req.Header.Set("Accept", "application/json")
	start := time.Now()
	resp, err := inv.client.Do(req)
	h.LatencyMs = time.Since(start).Milliseconds()
	if err != nil {
		r := inv.transportFailure(ctx, cctx, &call{name: e.Name, entry: e, scrub: scrub}, err)
		h.Error = r.err.Message
		if cctx.Err() != nil && ctx.Err() == nil {
			h.Error = "no answer within " + min(inv.o.HealthTimeout, e.Timeout).String()
		}
		return h
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	h.StatusCode = resp.StatusCode
	h.Healthy = resp.StatusCode >= 200 && resp.StatusCode <= 299
	if !h.Healthy {
		h.Error = "answered " + statusText(resp.StatusCode) + suffix(scrub.ScrubText(agenthttp.ErrorMessage(scrub.ScrubJSON(body), 256)))
	}
	return h
}

// Health returns the last health check of agent name, if any, with its
// breaker as it is now.
func (inv *Invoker) Health(name string) (Health, bool) {
	inv.mu.Lock()
	h, ok := inv.health[name]
	inv.mu.Unlock()
	if ok {
		h.Breaker = inv.Breaker(name)
	}
	return h, ok
}

// CheckAll checks every registered agent now (a few at a time) and keeps
// the results; agents no longer registered are forgotten.
func (inv *Invoker) CheckAll(ctx context.Context) ([]Health, error) {
	entries, err := inv.o.Registry.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Health, len(entries))
	sem := make(chan struct{}, healthConcurrency)
	var wg sync.WaitGroup
	for i, e := range entries {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i] = inv.check(ctx, e)
		}()
	}
	wg.Wait()
	inv.mu.Lock()
	inv.health = make(map[string]Health, len(out))
	for _, h := range out {
		inv.health[h.Agent] = h
	}
	inv.mu.Unlock()
	return out, nil
}

// RunHealthChecks checks every agent at once and then every interval
// (HealthInterval bounds it) until ctx is done. Failures are logged; the
// loop goes on.
func (inv *Invoker) RunHealthChecks(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(HealthInterval(interval))
	defer t.Stop()
	for {
		hs, err := inv.CheckAll(ctx)
		if err != nil && ctx.Err() == nil {
			inv.o.Logger.Warn("agent health checks: the registry cannot be read", "err", err)
		}
		for _, h := range hs {
			if !h.Healthy && ctx.Err() == nil {
				inv.o.Logger.Warn("agent unhealthy", "agent", h.Agent, "statusCode", h.StatusCode, "reason", h.Error)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
