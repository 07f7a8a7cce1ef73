package account_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

// A key stops working at its expires_at, even while its principal is cached
// (the cache used to trust it for up to 5 s more).
func TestExpiredKeyIsRefusedOnACachedHit(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	clk := clock.NewFake(start)
	db, err := sqlite.Open(ctx, sqlite.Options{Dir: t.TempDir(), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	pepper, err := policy.NewPepper(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	svc := account.New(account.Config{Store: db, Pepper: pepper, Clock: clk})
	name := "expiring"
	v, _, err := svc.Create(ctx, account.Spec{Name: &name})
	if err != nil {
		t.Fatal(err)
	}
	expires := start.Add(2 * time.Second)
	k, err := svc.AddKey(ctx, v.AgentID, &expires)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, k.APIKey); err != nil {
		t.Fatalf("a fresh key: %v", err)
	}
	clk.Advance(time.Second) // within the cache's time and the key's
	if _, err := svc.Authenticate(ctx, k.APIKey); err != nil {
		t.Fatalf("before expires_at: %v", err)
	}
	clk.Advance(time.Second) // at expires_at: the cache still holds the principal
	_, err = svc.Authenticate(ctx, k.APIKey)
	if fe, ok := fault.As(err); !ok || fe.Kind != fault.Unauthenticated || fe.Message != "API key has expired" {
		t.Fatalf("at expires_at: %v", err)
	}
	clk.Advance(time.Second)
	if _, err := svc.Authenticate(ctx, k.APIKey); err == nil {
		t.Fatal("after expires_at the key works")
	}
}
