package op

import (
	"encoding/json"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/a2e"
)

func TestDecodeStrictPaths(t *testing.T) {
	tests := []struct{ name, raw, path string }{
		{"null", `null`, "operation.FilterData"},
		{"array", `[1]`, "operation.FilterData"},
		{"syntax", `{"inputPath": `, "operation.FilterData"},
		{"trailing data", `{"inputPath": "/workflow/a"} {}`, "operation.FilterData"},
		{"unknown top-level key", `{"inputpath2": "x"}`, "operation.FilterData.inputpath2"},
		{"case matters", `{"InputPath": "/workflow/a"}`, "operation.FilterData.InputPath"},
		{"nested unknown key", `{"conditions": [{"field": "a"}, {"feld": "b"}]}`, "operation.FilterData.conditions[1].feld"},
		{"nested wrong type", `{"conditions": [{"field": "a"}, {"field": 3}]}`, "operation.FilterData.conditions[1].field"},
		{"common field type", `{"timeout": "soon"}`, "operation.FilterData.timeout"},
		{"fraction for integer", `{"timeout": 1.5}`, "operation.FilterData.timeout"},
		{"retry unknown key", `{"retry": {"max": 1}}`, "operation.FilterData.retry.max"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cfg a2e.FilterData
			err := decodeStrict(json.RawMessage(tt.raw), &cfg, a2e.OpFilterData)
			fe, ok := fault.As(err)
			if !ok {
				t.Fatalf("want a fault, got %v", err)
			}
			if fe.Path != tt.path || fe.SpecType() != fault.ValidationError {
				t.Errorf("got %s at %q (%s), want %q", fe.SpecType(), fe.Path, fe.Message, tt.path)
			}
		})
	}
	var cfg a2e.FilterData
	if err := decodeStrict(json.RawMessage(`{"inputPath":"/workflow/a","conditions":[{"field":"x","operator":"==","value":{"any":[1]}}],"cache":true}`), &cfg, a2e.OpFilterData); err != nil {
		t.Fatalf("valid config refused: %v", err)
	}
	if cfg.InputPath != "/workflow/a" || cfg.Cache == nil || !*cfg.Cache || string(cfg.Conditions[0].Value) != `{"any":[1]}` {
		t.Errorf("decoded %+v", cfg)
	}
}
