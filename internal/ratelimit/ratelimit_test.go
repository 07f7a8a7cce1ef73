package ratelimit_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ratelimit"
)

// t0 is 15 s into a minute, hour and day.
var t0 = time.Date(2026, 11, 23, 0, 0, 15, 0, time.UTC)

func open(t *testing.T, clk clock.Clock, opts ratelimit.Options) *ratelimit.Limiter {
	t.Helper()
	opts.Clock = clk
	if opts.FlushInterval == 0 {
		opts.FlushInterval = -1 // tests flush by hand
	}
	lim, err := ratelimit.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lim.Close(context.Background()) })
	return lim
}

// spend makes n requests and fails unless all pass.
func spend(t *testing.T, lim *ratelimit.Limiter, account string, l ratelimit.Limits, n int) ratelimit.Decision {
	t.Helper()
	var d ratelimit.Decision
	for i := range n {
		if d = lim.Allow(account, l); !d.Allowed {
			t.Fatalf("request %d of %d refused: %s", i+1, n, d.Message())
		}
	}
	return d
}

func TestDefaultsMinuteWindow(t *testing.T) {
	clk := clock.NewFake(t0)
	lim := open(t, clk, ratelimit.Options{})
	d := spend(t, lim, "acct", ratelimit.Limits{}, 60)
	if d.Window != ratelimit.RequestsPerMinute || d.Limit != 60 || d.Remaining != 0 || d.Reset.Unix() != t0.Truncate(time.Minute).Add(time.Minute).Unix() {
		t.Fatalf("60th request: %+v", d)
	}
	d = lim.Allow("acct", ratelimit.Limits{})
	if d.Allowed || d.RetryAfter != 45*time.Second || d.RetryAfterSeconds() != 45 {
		t.Fatalf("61st request: %+v", d)
	}
	if d.Message() != "Rate limit exceeded: 60 requests per minute" {
		t.Fatalf("message %q", d.Message())
	}
	h := http.Header{}
	d.SetHeaders(h)
	want := http.Header{"X-Ratelimit-Limit": {"60"}, "X-Ratelimit-Remaining": {"0"},
		"X-Ratelimit-Reset": {"1795392060"}, "Retry-After": {"45"}}
	for k, v := range want {
		if h.Get(k) != v[0] {
			t.Errorf("header %s = %q, want %q", k, h.Get(k), v[0])
		}
	}
	body, _ := json.Marshal(d.Body())
	if string(body) != `{"error":"Rate limit exceeded","message":"Rate limit exceeded: 60 requests per minute","retry_after":45}` {
		t.Fatalf("body %s", body)
	}
	fe, ok := fault.As(d.Err())
	if !ok || fe.Kind != fault.RateLimited || !fe.Retryable || fe.RetryAfter != 45*time.Second || fe.Details["window"] != "requests_per_minute" {
		t.Fatalf("Err %+v", fe)
	}
	if lim.Allow("other", ratelimit.Limits{}).Allowed != true {
		t.Fatal("limits are per account")
	}
	if lim.AllowAPICall("acct", ratelimit.Limits{}).Allowed != true {
		t.Fatal("API calls count apart from requests")
	}
}

func TestMinuteEdgeIsSmoothed(t *testing.T) {
	clk := clock.NewFake(t0.Truncate(time.Minute).Add(59 * time.Second))
	lim := open(t, clk, ratelimit.Options{})
	spend(t, lim, "acct", ratelimit.Limits{}, 60) // the whole minute at :59
	clk.Advance(time.Second)                      // a new fixed window at :00
	d := lim.Allow("acct", ratelimit.Limits{})
	if !d.Allowed || d.Remaining != 0 {
		t.Fatalf("one token has refilled: %+v", d)
	}
	d = lim.Allow("acct", ratelimit.Limits{})
	if d.Allowed || d.RetryAfter != time.Second || d.Window != ratelimit.RequestsPerMinute {
		t.Fatalf("no second burst at the window edge: %+v", d)
	}
	if d.Message() != "Rate limit exceeded: 60 requests per minute" {
		t.Fatal(d.Message())
	}
	clk.Advance(30 * time.Second)
	spend(t, lim, "acct", ratelimit.Limits{}, 30) // 1 per second refilled
	if lim.Allow("acct", ratelimit.Limits{}).Allowed {
		t.Fatal("only 30 tokens refill in 30 s")
	}
}

func TestTightestWindowAndOverrides(t *testing.T) {
	clk := clock.NewFake(t0)
	lim := open(t, clk, ratelimit.Options{Defaults: ratelimit.Limits{RequestsPerHour: 10}})
	if got := lim.Defaults(); got.RequestsPerHour != 10 || got.RequestsPerMinute != 60 || got.MaxConcurrentExecutions != 10 {
		t.Fatalf("defaults %+v", got)
	}
	d := lim.Allow("acct", ratelimit.Limits{})
	hourEnd := t0.Truncate(time.Hour).Add(time.Hour)
	if d.Window != ratelimit.RequestsPerHour || d.Limit != 10 || d.Remaining != 9 || !d.Reset.Equal(hourEnd) {
		t.Fatalf("tightest is the hour: %+v", d)
	}
	spend(t, lim, "acct", ratelimit.Limits{}, 9)
	d = lim.Allow("acct", ratelimit.Limits{})
	if d.Allowed || d.Message() != "Rate limit exceeded: 10 requests per hour" || d.RetryAfter != hourEnd.Sub(t0) {
		t.Fatalf("hour refusal: %+v %s", d, d.Message())
	}
	// An account override: more per hour, no limit per minute.
	over := ratelimit.Limits{RequestsPerHour: 100, RequestsPerMinute: -1}
	d = spend(t, lim, "acct", over, 90)
	if d.Window != ratelimit.RequestsPerHour || d.Remaining != 0 {
		t.Fatalf("override: %+v", d)
	}
	// No limit at all: allowed, no headers.
	free := ratelimit.Limits{RequestsPerMinute: -1, RequestsPerHour: -1, RequestsPerDay: -1}
	d = spend(t, lim, "free", free, 200)
	h := http.Header{}
	d.SetHeaders(h)
	if d.Limit != 0 || len(h) != 0 {
		t.Fatalf("unlimited: %+v %v", d, h)
	}
}

func TestDayWindowAndRetryAfterOfLongestRefusal(t *testing.T) {
	clk := clock.NewFake(t0)
	lim := open(t, clk, ratelimit.Options{})
	l := ratelimit.Limits{RequestsPerMinute: 3, RequestsPerHour: 3, RequestsPerDay: 3}
	spend(t, lim, "acct", l, 3)
	d := lim.Allow("acct", l)
	dayEnd := t0.Truncate(24 * time.Hour).Add(24 * time.Hour)
	if d.Allowed || d.Window != ratelimit.RequestsPerDay || d.RetryAfter != dayEnd.Sub(t0) || d.Message() != "Rate limit exceeded: 3 requests per day" {
		t.Fatalf("all three windows refuse; the day's wait is the one that counts: %+v", d)
	}
}

func TestAPICalls(t *testing.T) {
	clk := clock.NewFake(t0)
	lim := open(t, clk, ratelimit.Options{})
	for i := range 30 {
		if d := lim.AllowAPICall("acct", ratelimit.Limits{}); !d.Allowed {
			t.Fatalf("call %d refused", i)
		}
	}
	d := lim.AllowAPICall("acct", ratelimit.Limits{})
	if d.Allowed || d.Message() != "Rate limit exceeded: 30 API calls per minute" {
		t.Fatalf("%+v %s", d, d.Message())
	}
	if !lim.Allow("acct", ratelimit.Limits{}).Allowed {
		t.Fatal("requests count apart from API calls")
	}
}

func TestWaitAPICall(t *testing.T) {
	ctx := context.Background()
	clk := clock.NewFake(t0)
	lim := open(t, clk, ratelimit.Options{})
	l := ratelimit.Limits{APICallsPerMinute: 60}
	for range 60 {
		if err := lim.WaitAPICall(ctx, "acct", l, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if len(clk.Sleeps()) != 0 {
		t.Fatalf("no waiting within the allowance: %v", clk.Sleeps())
	}
	// The minute is spent: the next call waits for the window to roll (45 s).
	if err := lim.WaitAPICall(ctx, "acct", l, time.Minute); err != nil {
		t.Fatal(err)
	}
	if s := clk.Sleeps(); len(s) == 0 || s[0] != 45*time.Second {
		t.Fatalf("sleeps %v", s)
	}
	// A wait longer than maxWait fails at once with the refusal.
	l2 := ratelimit.Limits{APICallsPerHour: 1}
	_ = lim.WaitAPICall(ctx, "b", l2, time.Minute)
	err := lim.WaitAPICall(ctx, "b", l2, time.Minute)
	if fault.KindOf(err) != fault.RateLimited || !strings.Contains(err.Error(), "1 API calls per hour") {
		t.Fatalf("want a RateLimited error, got %v", err)
	}
	// And so does one past the context's deadline.
	dctx, cancel := context.WithDeadline(ctx, clk.Now().Add(10*time.Second))
	defer cancel()
	l3 := ratelimit.Limits{APICallsPerMinute: 1}
	_ = lim.WaitAPICall(dctx, "c", l3, time.Hour)
	if err := lim.WaitAPICall(dctx, "c", l3, time.Hour); fault.KindOf(err) != fault.RateLimited {
		t.Fatalf("past the deadline: %v", err)
	}
}

func TestAcquire(t *testing.T) {
	lim := open(t, clock.NewFake(t0), ratelimit.Options{})
	l := ratelimit.Limits{MaxConcurrentExecutions: 2}
	r1, d1 := lim.Acquire("acct", l)
	r2, d2 := lim.Acquire("acct", l)
	if !d1.Allowed || !d2.Allowed || d1.Remaining != 1 || d2.Remaining != 0 {
		t.Fatalf("%+v %+v", d1, d2)
	}
	r3, d3 := lim.Acquire("acct", l)
	if d3.Allowed || d3.Message() != "Rate limit exceeded: 2 concurrent executions" || d3.RetryAfterSeconds() != 1 {
		t.Fatalf("third: %+v %s", d3, d3.Message())
	}
	r3() // a refused slot's release does nothing
	if st := lim.Status("acct", l); st.Running != 2 || st.MaxConcurrent != 2 {
		t.Fatalf("status %+v", st)
	}
	r1()
	r1() // twice: no effect
	if _, d := lim.Acquire("acct", l); !d.Allowed {
		t.Fatal("a released slot is free again")
	}
	if _, d := lim.Acquire("acct", l); d.Allowed {
		t.Fatal("a double release must not free two slots")
	}
	r2()
	if _, d := lim.Acquire("other", l); !d.Allowed {
		t.Fatal("slots are per account")
	}
}

func TestConcurrentAllowCountsExactly(t *testing.T) {
	lim := open(t, clock.NewFake(t0), ratelimit.Options{})
	l := ratelimit.Limits{RequestsPerMinute: 500, RequestsPerHour: 700}
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				if lim.Allow("acct", l).Allowed {
					allowed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if allowed.Load() != 500 {
		t.Fatalf("%d allowed, want exactly 500", allowed.Load())
	}
}

func TestStatus(t *testing.T) {
	clk := clock.NewFake(t0)
	lim := open(t, clk, ratelimit.Options{})
	spend(t, lim, "acct", ratelimit.Limits{}, 15)
	lim.AllowAPICall("acct", ratelimit.Limits{})
	release, _ := lim.Acquire("acct", ratelimit.Limits{})
	defer release()
	st := lim.Status("acct", ratelimit.Limits{APICallsPerHour: -1})
	if len(st.Windows) != 5 || st.Windows[0].Used != 15 || st.Windows[0].Remaining != 45 || st.Windows[4].Limit != -1 {
		t.Fatalf("status %+v", st)
	}
	b, _ := json.Marshal(st.Body("acct"))
	want := `{"agent_id":"acct",` +
		`"limits":{"api_calls_per_minute":30,"requests_per_day":10000,"requests_per_hour":1000,"requests_per_minute":60},` +
		`"usage":{"api_calls_last_minute":1,"requests_last_day":15,"requests_last_hour":15,"requests_last_minute":15},` +
		`"remaining":{"api_calls_per_minute":29,"requests_per_day":9985,"requests_per_hour":985,"requests_per_minute":45},` +
		`"reset":{"api_calls_per_minute":1795392060,"requests_per_day":1795478400,"requests_per_hour":1795395600,"requests_per_minute":1795392060},` +
		`"concurrent_executions":{"limit":10,"running":1}}`
	if string(b) != want {
		t.Fatalf("body\n got %s\nwant %s", b, want)
	}
	// Status counts nothing and makes no state for an unknown account.
	if again := lim.Status("acct", ratelimit.Limits{}); again.Windows[0].Used != 15 {
		t.Fatal("Status must not count")
	}
	fresh := lim.Status("nobody", ratelimit.Limits{})
	if fresh.Windows[0].Used != 0 || fresh.Windows[0].Remaining != 60 {
		t.Fatalf("fresh %+v", fresh)
	}
	// After the minute rolls, the minute shows zero used.
	clk.Advance(time.Minute)
	if st := lim.Status("acct", ratelimit.Limits{}); st.Windows[0].Used != 0 || st.Windows[1].Used != 15 {
		t.Fatalf("after a minute %+v", st.Windows[:2])
	}
}

func TestWindowNames(t *testing.T) {
	for w := ratelimit.RequestsPerMinute; w <= ratelimit.ConcurrentExecutions; w++ {
		back, ok := ratelimit.ParseWindow(w.String())
		if !ok || back != w {
			t.Fatalf("%v round trip", w)
		}
	}
	if _, ok := ratelimit.ParseWindow("requests_per_week"); ok {
		t.Fatal("unknown window parsed")
	}
}

type flakyPersister struct {
	*ratelimit.MemoryPersister
	fail atomic.Bool
}

func (f *flakyPersister) SaveCounters(ctx context.Context, cs []ratelimit.Counter) error {
	if f.fail.Load() {
		return errors.New("disk full")
	}
	return f.MemoryPersister.SaveCounters(ctx, cs)
}

func TestCountersSurviveRestart(t *testing.T) {
	ctx := context.Background()
	clk := clock.NewFake(t0)
	p := &flakyPersister{MemoryPersister: ratelimit.NewMemoryPersister()}
	lim1 := open(t, clk, ratelimit.Options{Persister: p})
	spend(t, lim1, "acct", ratelimit.Limits{}, 7)
	lim1.AllowAPICall("acct", ratelimit.Limits{})
	p.fail.Store(true)
	if err := lim1.Flush(ctx); fault.KindOf(err) != fault.Unavailable {
		t.Fatalf("failed flush: %v", err)
	}
	p.fail.Store(false)
	if err := lim1.Close(ctx); err != nil { // the failed batch is saved now
		t.Fatal(err)
	}
	cs, _ := p.LoadCounters(ctx)
	if len(cs) != 3 {
		t.Fatalf("saved %+v", cs)
	}

	lim2 := open(t, clk, ratelimit.Options{Persister: p})
	st := lim2.Status("acct", ratelimit.Limits{})
	used := map[ratelimit.Window]int{}
	for _, w := range st.Windows {
		used[w.Window] = w.Used
	}
	if used[ratelimit.RequestsPerMinute] != 0 || used[ratelimit.RequestsPerHour] != 7 || used[ratelimit.RequestsPerDay] != 7 || used[ratelimit.APICallsPerHour] != 1 {
		t.Fatalf("after restart: %v", used)
	}
	_ = lim2.Close(ctx)

	// A restart in the next hour keeps the day only.
	clk.Advance(time.Hour)
	lim3 := open(t, clk, ratelimit.Options{Persister: p})
	st = lim3.Status("acct", ratelimit.Limits{})
	if st.Windows[1].Used != 0 || st.Windows[2].Used != 7 {
		t.Fatalf("next hour: %+v", st.Windows)
	}
	// Nothing changed: a flush saves nothing.
	before := p.Saves()
	if err := lim3.Flush(ctx); err != nil || p.Saves() != before {
		t.Fatalf("an idle flush saved: %v", err)
	}
}

type failingLoad struct{ *ratelimit.MemoryPersister }

func (failingLoad) LoadCounters(context.Context) ([]ratelimit.Counter, error) {
	return nil, errors.New("no such table")
}

func TestOpenFailsWhenCountersCannotLoad(t *testing.T) {
	_, err := ratelimit.Open(context.Background(), ratelimit.Options{Persister: failingLoad{ratelimit.NewMemoryPersister()}, FlushInterval: -1})
	if fault.KindOf(err) != fault.Unavailable || strings.Contains(err.Error(), "no such table") {
		t.Fatalf("Open: %v", err)
	}
}

func TestPeriodicFlush(t *testing.T) {
	p := ratelimit.NewMemoryPersister()
	lim, err := ratelimit.Open(context.Background(), ratelimit.Options{Persister: p, FlushInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer lim.Close(context.Background())
	lim.Allow("acct", ratelimit.Limits{})
	deadline := time.Now().Add(10 * time.Second)
	for p.Saves() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the background flush never ran")
		}
		time.Sleep(time.Millisecond)
	}
}
