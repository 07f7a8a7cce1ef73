package vault_test

import (
	"testing"

	"github.com/sluicehq/sluice/internal/vault"
	"github.com/sluicehq/sluice/internal/vault/vaulttest"
)

func TestMemoryRecords(t *testing.T) {
	vaulttest.TestRecords(t, func(*testing.T) vault.Records { return vault.NewMemoryRecords() })
}
