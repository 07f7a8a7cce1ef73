package store

import (
	"context"
	"time"

	"github.com/sluicehq/sluice/internal/ratelimit"
)

// SharedRateLimits adapts SharedLimits to ratelimit.Shared, so the rate
// limiter of every gateway sharing the store counts in it (see
// internal/ratelimit's shared mode).
type SharedRateLimits struct {
	Limits SharedLimits
}

var _ ratelimit.Shared = SharedRateLimits{}

// Count implements ratelimit.Shared.
func (s SharedRateLimits) Count(ctx context.Context, c ratelimit.SharedCount) (ratelimit.SharedCounted, error) {
	t := RateTake{AccountID: c.Account, At: c.At, N: c.N, Windows: make([]RateWindow, len(c.Windows))}
	for i, w := range c.Windows {
		t.Windows[i] = RateWindow{Kind: w.Kind, Start: w.Start, End: w.End, Limit: w.Limit}
	}
	if c.BucketKind != "" {
		t.Bucket = &RateBucket{Kind: c.BucketKind, Interval: c.Interval, Burst: c.Burst}
	}
	r, err := s.Limits.TakeRate(ctx, t)
	if err != nil {
		return ratelimit.SharedCounted{}, err
	}
	return ratelimit.SharedCounted{Taken: r.Taken, Counts: r.Counts, TAT: r.TAT}, nil
}

// TakeSlot implements ratelimit.Shared.
func (s SharedRateLimits) TakeSlot(ctx context.Context, account, id string, max int, at, expires time.Time) (int, bool, error) {
	return s.Limits.TakeSlot(ctx, SlotTake{AccountID: account, SlotID: id, Max: max, At: at, Expires: expires})
}

// RenewSlots implements ratelimit.Shared.
func (s SharedRateLimits) RenewSlots(ctx context.Context, ids []string, expires time.Time) error {
	return s.Limits.RenewSlots(ctx, ids, expires)
}

// ReleaseSlot implements ratelimit.Shared.
func (s SharedRateLimits) ReleaseSlot(ctx context.Context, id string) error {
	return s.Limits.ReleaseSlot(ctx, id)
}

// CountSlots implements ratelimit.Shared.
func (s SharedRateLimits) CountSlots(ctx context.Context, account string, at time.Time) (int, error) {
	return s.Limits.CountSlots(ctx, account, at)
}
