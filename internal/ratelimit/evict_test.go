package ratelimit

import (
	"context"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
)

func TestFlushForgetsIdleAccounts(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 11, 23, 23, 0, 0, 0, time.UTC))
	lim, err := Open(context.Background(), Options{Clock: clk, FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	lim.Allow("a", Limits{})
	release, _ := lim.Acquire("b", Limits{})
	_ = lim.Flush(context.Background())
	_ = lim.Flush(context.Background())
	if lim.Accounts() != 2 {
		t.Fatalf("active accounts were forgotten: %d", lim.Accounts())
	}
	clk.Advance(2 * time.Hour) // the next day: a's windows have all rolled
	_ = lim.Flush(context.Background())
	if lim.Accounts() != 1 {
		t.Fatalf("a should be forgotten, b (running) kept: %d", lim.Accounts())
	}
	release()
	_ = lim.Flush(context.Background())
	if lim.Accounts() != 0 {
		t.Fatalf("b should be forgotten once idle: %d", lim.Accounts())
	}
	// A forgotten account starts afresh.
	if d := lim.Allow("a", Limits{}); !d.Allowed || d.Remaining != 59 {
		t.Fatalf("%+v", d)
	}
}
