package op_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/validate"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// TestBuiltinsCoverTheCatalog checks that every operation of the protocol has a
// registration whose Spec carries its schema, docs and a valid runnable example.
func TestBuiltinsCoverTheCatalog(t *testing.T) {
	regs := op.Builtins()
	var names []string
	for _, r := range regs {
		names = append(names, r.Spec.Name)
	}
	for _, n := range a2e.OperationNames {
		if !slices.Contains(names, n) {
			t.Errorf("operation %s has no built-in registration", n)
		}
	}
	if len(regs) != len(a2e.OperationNames) {
		t.Errorf("%d registrations for %d operations", len(regs), len(a2e.OperationNames))
	}
	env := op.NewEnvironment(&op.Deps{Limits: op.DefaultLimits()}, regs...)
	for _, r := range regs {
		s := r.Spec
		var schema map[string]any
		if err := json.Unmarshal(s.Schema, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s: Spec.Schema is not the config's JSON Schema: %v", s.Name, err)
		}
		if s.Summary == "" || s.Description == "" || s.Example == "" {
			t.Errorf("%s: Spec lacks summary, description or example", s.Name)
			continue
		}
		rep := validate.Document([]byte(s.Example), validate.Options{Env: env})
		if !rep.Valid {
			b, _ := json.Marshal(rep.Errors)
			t.Errorf("%s: its example is not a valid workflow: %s", s.Name, b)
		}
		if s.Control != (s.Name == a2e.OpConditional || s.Name == a2e.OpLoop) {
			t.Errorf("%s: Control = %v", s.Name, s.Control)
		}
	}
}

// TestEnvironmentRefusesWhatIsNotPermitted: an operation outside the account's
// environment cannot even be constructed, and an unknown one is invalid.
func TestEnvironmentRefusesWhatIsNotPermitted(t *testing.T) {
	env := op.NewEnvironment(&op.Deps{Limits: op.DefaultLimits()}, op.Builtins()...).With(a2e.OpFilterData, a2e.OpWait)
	if _, err := env.Build(a2e.OpWait, json.RawMessage(`{"duration":5}`)); err != nil {
		t.Fatalf("permitted op: %v", err)
	}
	_, err := env.Build(a2e.OpApiCall, json.RawMessage(`{"method":"GET","url":"https://x.example","outputPath":"/workflow/x"}`))
	if err == nil || err.Error() == "" {
		t.Fatal("ApiCall must be refused")
	}
	if fe, ok := err.(interface{ SpecType() string }); !ok || fe.SpecType() != "PermissionError" {
		t.Fatalf("want PermissionError, got %v", err)
	}
	if _, err := env.Without(a2e.OpWait).Build(a2e.OpWait, json.RawMessage(`{"duration":5}`)); err == nil {
		t.Fatal("Without must remove the operation")
	}
	_, err = env.Build("Eval", json.RawMessage(`{}`))
	if fe, ok := err.(interface{ SpecType() string }); !ok || fe.SpecType() != "ValidationError" {
		t.Fatalf("unknown op: want ValidationError, got %v", err)
	}
	if got := len(env.Specs()); got != 2 {
		t.Fatalf("Specs lists %d allowed operations, want 2", got)
	}
}
