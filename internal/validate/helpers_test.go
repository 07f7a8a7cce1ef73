package validate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/validate"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// stubOp is what the stub factories build.
type stubOp struct{}

func (stubOp) Run(context.Context, *op.RunContext) (any, error) { return nil, nil }

// stubEnv is a catalog of every spec operation whose factories accept anything,
// except Wait, whose factory checks duration so tests can see factory errors:
// -1 an error at a full path, -2 at a relative path, -3 two joined errors, -4 a
// foreign error whose text must not reach the report, -5 the codec's ErrorList.
func stubEnv() *op.Environment {
	var regs []op.Registration
	for _, name := range a2e.OperationNames {
		regs = append(regs, op.Registration{
			Spec: op.Spec{Name: name},
			New:  func(json.RawMessage, *op.Deps) (op.Operation, error) { return stubOp{}, nil },
		})
	}
	regs = append(regs, op.Registration{Spec: op.Spec{Name: a2e.OpWait}, New: waitFactory})
	return op.NewEnvironment(&op.Deps{}, regs...)
}

func waitFactory(raw json.RawMessage, _ *op.Deps) (op.Operation, error) {
	var cfg a2e.Wait
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fault.Typed(fault.Invalid, fault.ValidationError, "Wait configuration is not an object").At(0, "operation.Wait")
	}
	bad := func(path string) *fault.Error {
		return fault.Typed(fault.Invalid, fault.ValidationError, "duration must be between 0 and 600000").At(0, path)
	}
	switch cfg.Duration {
	case -1:
		return nil, bad("operation.Wait.duration")
	case -2:
		return nil, bad("duration")
	case -3:
		return nil, errors.Join(bad("operation.Wait.duration"),
			fault.Typed(fault.Invalid, fault.ValidationError, "timeout must be positive").At(0, "operation.Wait.timeout"))
	case -4:
		return nil, errors.New("secret internal detail")
	case -5:
		_, err := a2e.DecodeConfig(a2e.Operation{Name: a2e.OpWait, Config: json.RawMessage(`{"duration":"x","extra":1}`)})
		return nil, err
	}
	return stubOp{}, nil
}

// grants are the permissions most tests run with.
func grants() *policy.Permissions {
	return &policy.Permissions{
		Operations:  []string{"*"},
		Hosts:       []string{"api.example.com", "10.0.0.5"},
		Credentials: []string{"api-key-123"},
	}
}

func opts() validate.Options {
	return validate.Options{Env: stubEnv(), Permissions: grants()}
}

// upd is an operationUpdate line.
func upd(id, operation string) string {
	return fmt.Sprintf(`{"type":"operationUpdate","operationId":%q,"operation":%s}`, id, operation)
}

// begin is a beginExecution line.
func begin(ids ...string) string {
	order, _ := json.Marshal(ids)
	if ids == nil {
		order = []byte("[]")
	}
	return fmt.Sprintf(`{"type":"beginExecution","executionId":"exec-1","operationOrder":%s}`, order)
}

func doc(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// parseDoc makes a workflow from JSONL the simple way, line by line, so these
// tests check validation and not the decoder.
func parseDoc(t testing.TB, text string) *a2e.Workflow {
	t.Helper()
	wf := &a2e.Workflow{Operations: map[string]*a2e.Definition{}}
	for i, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(line), &head); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		switch head.Type {
		case a2e.TypeOperationUpdate:
			var u a2e.OperationUpdate
			if err := json.Unmarshal([]byte(line), &u); err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			if wf.Operations[u.OperationID] == nil {
				wf.Defined = append(wf.Defined, u.OperationID)
			}
			wf.Operations[u.OperationID] = &a2e.Definition{ID: u.OperationID, Operation: u.Operation, Line: i + 1}
		case a2e.TypeBeginExecution:
			if err := json.Unmarshal([]byte(line), &wf.Begin); err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			wf.BeginLine = i + 1
		default:
			t.Fatalf("line %d: unknown type %q", i+1, head.Type)
		}
	}
	return wf
}

// want is one expected problem: every field given must match; msg and sugg are
// fragments of the message and of one suggestion.
type want struct {
	typ  string
	line int
	path string
	op   string
	msg  string
	sugg string
}

func (w want) String() string {
	return fmt.Sprintf("{%s line %d path %q op %q msg~%q sugg~%q}", w.typ, w.line, w.path, w.op, w.msg, w.sugg)
}

func checkProblems(t *testing.T, kind string, got []fault.Object, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Errorf("%s: got %d, want %d:\n%s", kind, len(got), len(wants), dump(got))
		return
	}
	for i, w := range wants {
		g := got[i]
		var bad []string
		if g.Type != w.typ {
			bad = append(bad, fmt.Sprintf("type %q", g.Type))
		}
		if g.Line != w.line {
			bad = append(bad, fmt.Sprintf("line %d", g.Line))
		}
		if g.Path != w.path {
			bad = append(bad, fmt.Sprintf("path %q", g.Path))
		}
		if g.OperationID != w.op {
			bad = append(bad, fmt.Sprintf("operationId %q", g.OperationID))
		}
		if !strings.Contains(g.Message, w.msg) {
			bad = append(bad, fmt.Sprintf("message %q", g.Message))
		}
		if w.sugg != "" && !containsAny(g.Suggestions, w.sugg) {
			bad = append(bad, fmt.Sprintf("suggestions %q", g.Suggestions))
		}
		if len(bad) > 0 {
			t.Errorf("%s[%d]: want %v, got %s", kind, i, w, strings.Join(bad, ", "))
		}
	}
}

func containsAny(list []string, frag string) bool {
	for _, s := range list {
		if strings.Contains(s, frag) {
			return true
		}
	}
	return false
}

func dump(objs []fault.Object) string {
	var b strings.Builder
	for _, o := range objs {
		j, _ := json.Marshal(o)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}
