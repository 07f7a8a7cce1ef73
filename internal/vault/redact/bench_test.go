package redact_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/vault/redact"
)

var benchSecrets = []string{"sk-live-0123456789abcdef0123", "another-secret-value-999", "user:password-1234"}

// BenchmarkRedactor is the cost of scrubbing a 4 KiB upstream body for three
// secrets (building the redactor included, as an ApiCall does per request,
// and without), and of a 1 MiB body made by a hostile upstream of near
// misses of a secret at every position (linear, as for any text).
func BenchmarkRedactor(b *testing.B) {
	body := strings.Repeat("upstream said something unhelpful about the request; ", 80)[:4096]
	b.Run("scrub-4KiB", func(b *testing.B) {
		r := redact.New(benchSecrets...)
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			_ = r.Scrub(body)
		}
	})
	b.Run("build+scrub-4KiB", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			_ = redact.New(benchSecrets...).Scrub(body)
		}
	})
	long := strings.Repeat("a", 4096)
	hostile := strings.Repeat(long[:4095]+"b", 256) // 1 MiB
	b.Run("near-misses-1MiB-4KiB-secret", func(b *testing.B) {
		r := redact.New(long)
		b.SetBytes(int64(len(hostile)))
		for b.Loop() {
			_ = r.Scrub(hostile)
		}
	})
	var doc []any
	for i := range 2000 {
		doc = append(doc, map[string]any{"id": float64(i), "name": "user name", "email": "someone@example.com"})
	}
	b.Run("value-2000-objects", func(b *testing.B) {
		r := redact.New(benchSecrets...)
		raw, _ := json.Marshal(doc)
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		for b.Loop() {
			_ = r.ScrubValue(doc)
		}
	})
}
