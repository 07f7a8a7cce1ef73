package wire_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/queue/wire"
)

func seed(f *testing.F, dir string) {
	f.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
	for _, file := range files {
		if strings.HasSuffix(file, ".golden.json") {
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// fuzzDecoder: arbitrary bytes never panic; a failure is a *wire.Error; a
// success encodes, decodes again and encodes to the same bytes.
func fuzzDecoder(f *testing.F, dir string) {
	seed(f, dir)
	decode := decoders[dir]
	f.Fuzz(func(t *testing.T, data []byte) {
		msg, err := decode(data)
		if err != nil {
			var we *wire.Error
			if !errors.As(err, &we) || we.Problem == "" {
				t.Fatalf("bad error %#v", err)
			}
			return
		}
		b1, err := json.Marshal(msg)
		if err != nil {
			t.Fatalf("accepted %q but cannot encode it: %v", data, err)
		}
		again, err := decode(b1)
		if err != nil {
			t.Fatalf("encoded %s does not decode: %v", b1, err)
		}
		b2, _ := json.Marshal(again)
		if string(b1) != string(b2) {
			t.Fatalf("round trip changed %s into %s", b1, b2)
		}
	})
}

func FuzzDecodeTask(f *testing.F)       { fuzzDecoder(f, "task") }
func FuzzDecodeResult(f *testing.F)     { fuzzDecoder(f, "result") }
func FuzzDecodeMonitoring(f *testing.F) { fuzzDecoder(f, "monitoring") }
