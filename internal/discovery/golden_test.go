package discovery_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/discovery"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// Each testdata/openapi/NAME.yaml imports to the entries of NAME.golden.json
// (the API entry, then the operations, with their permission keys).
func TestOpenAPIGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "openapi", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no input: %v", err)
	}
	for _, in := range files {
		name := strings.TrimSuffix(filepath.Base(in), ".yaml")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			api, ops, err := discovery.ImportOpenAPI(name, data)
			if err != nil {
				t.Fatal(err)
			}
			type withPermission struct {
				discovery.Entry
				Permission string `json:"permission"`
			}
			out := []withPermission{{api, api.Permission}}
			for _, e := range ops {
				out = append(out, withPermission{e, e.Permission})
			}
			got, err := json.MarshalIndent(out, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := strings.TrimSuffix(in, ".yaml") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s differs from %s (rerun with -update after checking):\n%s", in, golden, got)
			}
		})
	}
}
