package a2s_test

import (
	"os"
	"testing"

	"github.com/sluicehq/sluice/protocol/a2s"
)

func benchFile(b *testing.B, name string) []byte {
	b.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkParseLint: the spec's example read, normalized and linted, as
// `sluice cap lint` does it. Reports docs/s and MB/s.
func BenchmarkParseLint(b *testing.B) {
	for _, name := range []string{"testdata/weather.yaml", "testdata/weather.json"} {
		data := benchFile(b, name)
		opt := a2s.Options{File: name, Format: a2s.FormatOf(name)}
		b.Run(a2s.FormatOf(name).String(), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, diags := a2s.LintBytes(data, opt); len(diags) != 1 {
					b.Fatal(diags)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}

// BenchmarkParse: reading alone (the tree), without normalizing or linting.
func BenchmarkParse(b *testing.B) {
	for _, name := range []string{"testdata/weather.yaml", "testdata/weather.json"} {
		data := benchFile(b, name)
		opt := a2s.Options{Format: a2s.FormatOf(name)}
		b.Run(a2s.FormatOf(name).String(), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := a2s.ParseTree(data, opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}

// BenchmarkChecksum: canonical JSON and SHA-256 of a parsed document.
func BenchmarkChecksum(b *testing.B) {
	data := benchFile(b, "testdata/weather.yaml")
	tree, err := a2s.ParseTree(data, a2s.Options{Format: a2s.FormatYAML})
	if err != nil {
		b.Fatal(err)
	}
	canon, _ := a2s.Canonical(tree)
	b.SetBytes(int64(len(canon)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a2s.ComputeChecksum(tree); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}
