package capreg_test

import (
	"fmt"
	"testing"

	"github.com/sluicehq/sluice/internal/capreg"
)

// BenchmarkGetConstraint resolves ^1.0.0 over 100 published versions (1.0.0
// to 1.9.9 and 2.x): list the versions, pick by constraint, read the one.
func BenchmarkGetConstraint(b *testing.B) {
	r := newRegistry(b, capreg.Options{})
	for i := range 100 {
		major := 1 + i/90
		publish(b, r, "core/weather", doc(b, "Weather", fmt.Sprintf("%d.%d.%d", major, (i%90)/10, i%10)))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		e, err := r.Get(ctx, "core/weather", "Weather", "^1.0.0")
		if err != nil || e.Version != "1.8.9" {
			b.Fatal(e.Version, err)
		}
	}
}

// BenchmarkResolveCached is Get plus the verified document, which the cache
// answers after the first parse.
func BenchmarkResolveCached(b *testing.B) {
	r := newRegistry(b, capreg.Options{})
	for i := range 100 {
		publish(b, r, "core/weather", doc(b, "Weather", fmt.Sprintf("1.%d.%d", i/10, i%10)))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := r.Resolve(ctx, "core/weather", "Weather", "~1.5"); err != nil {
			b.Fatal(err)
		}
	}
}
