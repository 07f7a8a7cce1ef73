package agenthttp_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// TestWorkflowGolden decodes each testdata/workflow/NAME.json and compares
// the outcome with NAME.golden.json: the encoded workflow and its run order,
// or the error. Run with -update to rewrite the goldens (shared flag of
// golden_test.go).
func TestWorkflowGolden(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "workflow", "*.json"))
	n := 0
	for _, in := range inputs {
		if strings.HasSuffix(in, ".golden.json") {
			continue
		}
		n++
		name := strings.TrimSuffix(in, ".json")
		t.Run(filepath.Base(name), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			var got any
			w, err := agenthttp.DecodeWorkflow(data, agenthttp.Limits{})
			if err != nil {
				var ae *agenthttp.Error
				if !errors.As(err, &ae) {
					t.Fatalf("error %T %v is not an *agenthttp.Error", err, err)
				}
				if ae.Offset < 0 || ae.Offset > len(data) {
					t.Fatalf("offset %d outside the input of %d bytes", ae.Offset, len(data))
				}
				got = map[string]any{"error": ae, "text": ae.Error()}
			} else {
				enc, err := agenthttp.EncodeWorkflow(w)
				if err != nil {
					t.Fatalf("a decoded workflow does not encode: %v", err)
				}
				again, err := agenthttp.DecodeWorkflow(enc, agenthttp.Limits{})
				if err != nil {
					t.Fatalf("an encoded workflow does not decode: %v\n%s", err, enc)
				}
				if enc2, _ := agenthttp.EncodeWorkflow(again); !bytes.Equal(enc, enc2) {
					t.Fatalf("round trip differs:\n%s\n%s", enc, enc2)
				}
				got = map[string]any{"workflow": json.RawMessage(enc), "order": w.Order(), "final": w.Final()}
			}
			checkGolden(t, name+".golden.json", got)
		})
	}
	if n == 0 {
		t.Fatal("no inputs in testdata/workflow")
	}
}
