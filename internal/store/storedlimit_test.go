package store_test

import (
	"testing"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/store"
)

// The configuration's ceiling of store.max_execution_bytes is the store's.
func TestConfiguredCeilingIsTheStores(t *testing.T) {
	if config.MaxStoredExecutionBytes != store.MaxExecutionBytes {
		t.Fatalf("config allows %d, the store %d", config.MaxStoredExecutionBytes, store.MaxExecutionBytes)
	}
	for limit, want := range map[int]int{0: store.MaxExecutionBytes, -1: store.MaxExecutionBytes, 4096: 4096,
		store.MaxExecutionBytes + 1: store.MaxExecutionBytes} {
		if got := store.ExecutionLimit(limit); got != want {
			t.Errorf("ExecutionLimit(%d) = %d, want %d", limit, got, want)
		}
	}
}

// config bounds retention.batch by the store's MaxPruneBatch.
func TestRetentionBatchIsTheStoreBound(t *testing.T) {
	if config.MaxRetentionBatch != store.MaxPruneBatch {
		t.Fatalf("config allows batches of %d, the store %d", config.MaxRetentionBatch, store.MaxPruneBatch)
	}
}
