package e2a_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// TestReferenceToDictReencodes holds sluice to the reference's writer: each
// testdata/reference/to_dict_*.json is an envelope as the reference's
// E2AEnvelope.to_dict writes it (written from reading its models.py and
// adapters), and sluice must decode it without ignoring anything and write
// back the same JSON: the same fields in the same order, the same values,
// numbers with the same digits. Only the deliberate differences of
// docs/protocols/e2a.md are allowed: keys inside free-form objects come out
// sorted (compared as JSON, not as text) and timestamps in sluice's one form.
func TestReferenceToDictReencodes(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "reference", "to_dict_*.json"))
	if len(files) == 0 {
		t.Fatal("no testdata/reference/to_dict_*.json")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			e, ignored, err := e2a.DecodeEnvelopeIgnoring(in, e2a.Limits{})
			if err != nil {
				t.Fatalf("the reference's own output does not decode: %v", err)
			}
			if len(ignored) > 0 {
				t.Fatalf("fields of the reference's output were ignored: %v", ignored)
			}
			out, err := e2a.AppendEnvelope(nil, e)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := topLevelKeys(t, out), topLevelKeys(t, in); !reflect.DeepEqual(got, want) {
				t.Fatalf("fields differ from the reference's:\n got %v\nwant %v", got, want)
			}
			if got, want := comparable(t, out), comparable(t, in); !reflect.DeepEqual(got, want) {
				t.Fatalf("values differ from the reference's:\n got %s\nwant %s", out, in)
			}
		})
	}
}

// topLevelKeys lists an object's keys in the order they are written.
func topLevelKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	var keys []string
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// comparable reads JSON with numbers as their text and every timestamp in
// sluice's form, so that two documents compare equal when they say the same.
func comparable(t *testing.T, b []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	norm := func(m map[string]any, key string) {
		if s, ok := m[key].(string); ok {
			ts, err := e2a.ParseTimestamp(s)
			if err != nil {
				t.Fatalf("%s: %v", key, err)
			}
			m[key] = e2a.FormatTimestamp(ts)
		}
	}
	norm(m, "timestamp")
	if p, ok := m["provenance"].(map[string]any); ok {
		norm(p, "converted_at")
	}
	return m
}

// TestReferenceGoldensCoverEveryNewField: the reference's new fields and
// read aliases each appear in some testdata/reference input, so the goldens
// keep the two in step as the reference changes.
func TestReferenceGoldensCoverEveryNewField(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "reference", "*.json"))
	var all strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, ".golden.json") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	for _, key := range []string{"agent_id", "service_id", "workspace_key", "app_id", "workspace_dir", "source_agent_id"} {
		if !strings.Contains(all.String(), `"`+key+`"`) {
			t.Errorf("no reference input has %q", key)
		}
	}
}
