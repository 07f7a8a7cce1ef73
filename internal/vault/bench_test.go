package vault_test

import (
	"context"
	"testing"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/vault"
)

// BenchmarkResolve is the cost of resolving one credential from in-memory
// records: opened every time (no cache) and served from the cache.
func BenchmarkResolve(b *testing.B) {
	for _, bc := range []struct {
		name string
		size int
	}{{"open-every-time", -1}, {"cached", 0}} {
		b.Run(bc.name, func(b *testing.B) {
			k, _ := vault.NewMasterKey(keyBytes(1))
			ring, _ := vault.NewKeyring(k)
			v := vault.NewSealed(vault.NewMemoryRecords(), ring, vault.Options{Clock: clock.Real{}, CacheSize: bc.size})
			ctx := context.Background()
			if _, err := v.Put(ctx, vault.Entry{ID: "api", Type: "bearer-token", Value: vault.NewPlaintext(secretValue)}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Resolve(ctx, "api"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
