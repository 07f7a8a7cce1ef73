package ratelimit_test

import (
	"testing"

	"github.com/sluicehq/sluice/internal/ratelimit"
	"github.com/sluicehq/sluice/internal/ratelimit/ratelimittest"
)

func TestMemoryPersister(t *testing.T) {
	ratelimittest.TestPersister(t, func(*testing.T) ratelimit.Persister { return ratelimit.NewMemoryPersister() })
}
