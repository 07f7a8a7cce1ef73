// Package ratelimittest is the contract every ratelimit.Persister must meet.
// A backend's tests call TestPersister with a constructor of empty instances.
package ratelimittest

import (
	"context"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/ratelimit"
)

// TestPersister runs the contract against fresh instances made by open.
func TestPersister(t *testing.T, open func(t *testing.T) ratelimit.Persister) {
	ctx := context.Background()
	hour := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	day := hour.Truncate(24 * time.Hour)
	p := open(t)
	if cs, err := p.LoadCounters(ctx); err != nil || len(cs) != 0 {
		t.Fatalf("a new persister holds %+v %v", cs, err)
	}
	first := []ratelimit.Counter{
		{Account: "a", Window: ratelimit.RequestsPerHour, Start: hour, Count: 5},
		{Account: "a", Window: ratelimit.RequestsPerDay, Start: day, Count: 50},
		{Account: "b", Window: ratelimit.APICallsPerHour, Start: hour, Count: 1},
	}
	if err := p.SaveCounters(ctx, first); err != nil {
		t.Fatal(err)
	}
	// A second save replaces by (account, window).
	if err := p.SaveCounters(ctx, []ratelimit.Counter{{Account: "a", Window: ratelimit.RequestsPerHour, Start: hour.Add(time.Hour), Count: 2}}); err != nil {
		t.Fatal(err)
	}
	cs, err := p.LoadCounters(ctx)
	if err != nil || len(cs) != 3 {
		t.Fatalf("loaded %+v %v", cs, err)
	}
	want := map[string]ratelimit.Counter{
		"a/requests_per_hour":  {Account: "a", Window: ratelimit.RequestsPerHour, Start: hour.Add(time.Hour), Count: 2},
		"a/requests_per_day":   first[1],
		"b/api_calls_per_hour": first[2],
	}
	for _, c := range cs {
		w, ok := want[c.Account+"/"+c.Window.String()]
		if !ok || !c.Start.Equal(w.Start) || c.Count != w.Count {
			t.Fatalf("counter %+v, want %+v", c, w)
		}
	}
}
