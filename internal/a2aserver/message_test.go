package a2aserver

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// What a message becomes: a data part's object as it is, else the text
// parts as {"text": ...}; anything else is refused, naming the part.
func TestInputOf(t *testing.T) {
	for _, c := range []struct {
		name  string
		parts []*a2a.Part
		want  string // JSON; "" when refused
		err   error
	}{
		{"data", []*a2a.Part{a2a.NewTextPart("ignored"), a2a.NewDataPart(map[string]any{"a": 1})}, `{"a":1}`, nil},
		{"texts", []*a2a.Part{a2a.NewTextPart("one"), a2a.NewTextPart("two")}, `{"text":"one\ntwo"}`, nil},
		{"data not an object", []*a2a.Part{a2a.NewDataPart([]any{1})}, "", a2a.ErrInvalidParams},
		{"a file", []*a2a.Part{a2a.NewFileURLPart("https://example.com/f", "text/plain")}, "", a2a.ErrUnsupportedContentType},
		{"nothing", nil, "", a2a.ErrInvalidParams},
		{"a null part", []*a2a.Part{nil}, "", a2a.ErrInvalidParams},
	} {
		got, err := inputOf(&a2a.Message{ID: "m", Parts: c.parts})
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("%s: %v, want %v", c.name, err, c.err)
			}
			continue
		}
		b, _ := json.Marshal(got)
		if err != nil || string(b) != c.want {
			t.Errorf("%s: %s %v, want %s", c.name, b, err, c.want)
		}
	}
}

// A message's workflow passes each key of its input to the agent; a key the
// reference syntax cannot name is refused.
func TestOneStep(t *testing.T) {
	wf, err := oneStep("echo", "ctx-1", map[string]any{"text": "x", "n-1": 2})
	if err != nil {
		t.Fatal(err)
	}
	if wf.WorkflowID != "ctx-1" || wf.Name != "a2a:echo" || len(wf.Steps) != 1 {
		t.Fatalf("workflow: %+v", wf)
	}
	in, err := wf.Steps[stepID].RenderInput(json.RawMessage(`{"text":"x","n-1":2}`), nil)
	if err != nil || string(in) != `{"n-1":2,"text":"x"}` {
		t.Fatalf("rendered input: %s %v", in, err)
	}
	if _, err := oneStep("echo", "ctx-1", map[string]any{"a.b": 1}); !errors.Is(err, a2a.ErrInvalidParams) || !strings.Contains(err.Error(), `"a.b"`) {
		t.Fatalf("a dotted key: %v", err)
	}
}

// The same message without a contextId gets the same one; a long one is
// refused.
func TestContextOf(t *testing.T) {
	a, _ := contextOf(&a2a.Message{ID: "m-1"})
	b, _ := contextOf(&a2a.Message{ID: "m-1"})
	c, _ := contextOf(&a2a.Message{ID: "m-2"})
	if a != b || a == c || !strings.HasPrefix(a, "ctx-") {
		t.Fatalf("derived contexts: %q %q %q", a, b, c)
	}
	if _, err := contextOf(&a2a.Message{ID: "m", ContextID: strings.Repeat("x", maxContextID+1)}); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Fatalf("a long context id: %v", err)
	}
}

// Every run status has a state, and statusesOf inverts stateOf.
func TestStates(t *testing.T) {
	for _, st := range store.Statuses {
		s := stateOf(st)
		if s == a2a.TaskStateUnspecified {
			t.Fatalf("%s has no state", st)
		}
		found := false
		for _, back := range statusesOf(s) {
			found = found || back == st
		}
		if !found {
			t.Fatalf("statusesOf(%s) lacks %s", s, st)
		}
	}
	if stateOf(store.StatusWaiting) != a2a.TaskStateInputRequired || stateOf(store.StatusCancelled) != a2a.TaskStateCanceled {
		t.Fatal("waiting or cancelled")
	}
	denied := []fault.Object{{Type: fault.PermissionError, Message: "no"}}
	if taskState(store.StatusFailed, denied) != a2a.TaskStateRejected || taskState(store.StatusSuccess, denied) != a2a.TaskStateCompleted ||
		taskState(store.StatusFailed, []fault.Object{{Type: fault.ExecutionError}}) != a2a.TaskStateFailed {
		t.Fatal("a refused run is rejected, a failed one failed")
	}
	if len(statusesOf(a2a.TaskStateRejected)) == 0 {
		t.Fatal("rejected tasks are failed runs")
	}
}
