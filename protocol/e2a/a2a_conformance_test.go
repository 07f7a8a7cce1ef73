package e2a_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// strictProtoJSON is how a2a-go v2 reads A2A 1.0 JSON at its strictest:
// unknown fields (0.3's "kind", "final") and unknown enum names ("completed")
// are errors.
var strictProtoJSON = protojson.UnmarshalOptions{DiscardUnknown: false}

// TestA2AOutputIsA2A1 holds every piece of A2A JSON sluice writes to A2A 1.0 as
// github.com/a2aproject/a2a-go/v2 reads it: each StreamResponse (ResponseToA2A)
// decodes strictly into a2apb.StreamResponse and through a2a-go's own JSON
// reader, each SendMessage result (ResultToA2A) into a2apb.SendMessageResponse
// as a Task or a Message, and no id A2A 1.0 requires is empty. The frames are
// every golden input of response_to_a2a and result_to_a2a, every A2A payload of
// a2a_to_frame (0.3 ones among them) as the frame it becomes, and sluice's own
// frames as a StreamWriter sends them.
func TestA2AOutputIsA2A1(t *testing.T) {
	frames := map[string]*e2a.Response{}
	for _, dir := range []string{"response_to_a2a", "result_to_a2a"} {
		for path, data := range goldenInputs(t, dir) {
			r, err := e2a.DecodeResponse(data, e2a.Limits{})
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			frames[path] = r
		}
	}
	for path, data := range goldenInputs(t, "a2a_to_frame") {
		if strings.Contains(filepath.Base(path), "err_") {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		conv := a2aFrameConverter(path)
		frames[path] = sent(t, func() (*e2a.Response, error) { return conv(v) })
	}
	frames["own complete"] = sent(t, func() (*e2a.Response, error) { return e2a.CompleteFrame(map[string]any{"n": 1.0}), nil })
	frames["own complete null"] = sent(t, func() (*e2a.Response, error) { return e2a.CompleteFrame(nil), nil })
	frames["own error"] = sent(t, func() (*e2a.Response, error) { return e2a.ErrorFrame("not_found", "no such tool", nil), nil })
	frames["own chunk"] = sent(t, func() (*e2a.Response, error) { return e2a.ChunkFrame("text", "he"), nil })
	frames["built without ids"] = e2a.CompleteFrame("x")

	results := 0
	for name, r := range frames {
		if out := e2a.ResponseToA2A(r); out != nil {
			var sr a2apb.StreamResponse
			decodeA2A(t, name+" (stream)", out, &sr)
			switch p := sr.Payload.(type) {
			case *a2apb.StreamResponse_Task:
				checkTask(t, name, p.Task)
			case *a2apb.StreamResponse_Message:
				checkMessage(t, name, p.Message)
			case *a2apb.StreamResponse_StatusUpdate:
				checkIDs(t, name, p.StatusUpdate.TaskId, p.StatusUpdate.ContextId)
				checkStatus(t, name, p.StatusUpdate.Status)
			case *a2apb.StreamResponse_ArtifactUpdate:
				checkIDs(t, name, p.ArtifactUpdate.TaskId, p.ArtifactUpdate.ContextId)
				checkArtifact(t, name, p.ArtifactUpdate.Artifact)
			default:
				t.Errorf("%s: StreamResponse without a payload: %v", name, out)
			}
		}
		if out := e2a.ResultToA2A(r); out != nil {
			results++
			var res a2apb.SendMessageResponse
			decodeA2A(t, name+" (result)", out, &res)
			switch p := res.Payload.(type) {
			case *a2apb.SendMessageResponse_Task:
				checkTask(t, name, p.Task)
			case *a2apb.SendMessageResponse_Message:
				checkMessage(t, name, p.Message)
			default:
				t.Errorf("%s: a SendMessage result must be a Task or a Message: %v", name, out)
			}
			// a2aclient's JSON-RPC SendMessage reads the result this way.
			b, _ := json.Marshal(out)
			var sr a2a.StreamResponse
			if err := json.Unmarshal(b, &sr); err != nil {
				t.Errorf("%s: a2a-go reads the result: %v", name, err)
			} else if _, isTask := sr.Event.(*a2a.Task); !isTask {
				if _, isMsg := sr.Event.(*a2a.Message); !isMsg {
					t.Errorf("%s: a2a-go: expected Task or Message, got %T", name, sr.Event)
				}
			}
		}
	}
	if len(frames) < 30 || results < 15 {
		t.Fatalf("only %d frames and %d results checked", len(frames), results)
	}
}

// sent sends the frame conv makes through a StreamWriter, which fills in the
// ids a frame on the wire has.
func sent(t *testing.T, conv func() (*e2a.Response, error)) *e2a.Response {
	t.Helper()
	out, err := writeOne(t, conv)
	if err != nil {
		t.Fatal(err)
	}
	return out.(*e2a.Response)
}

func decodeA2A(t *testing.T, name string, out map[string]any, into proto.Message) {
	t.Helper()
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := strictProtoJSON.Unmarshal(b, into); err != nil {
		t.Errorf("%s: not A2A 1.0 (strict protojson): %v\n%s", name, err, b)
	}
	var sr a2a.StreamResponse
	if err := json.Unmarshal(b, &sr); err != nil {
		t.Errorf("%s: a2a-go's JSON reader refuses it: %v\n%s", name, err, b)
	}
}

func checkIDs(t *testing.T, name, taskID, contextID string) {
	t.Helper()
	if taskID == "" || contextID == "" {
		t.Errorf("%s: empty taskId %q or contextId %q", name, taskID, contextID)
	}
}

func checkTask(t *testing.T, name string, task *a2apb.Task) {
	t.Helper()
	checkIDs(t, name, task.Id, task.ContextId)
	checkStatus(t, name, task.Status)
	for _, a := range task.Artifacts {
		checkArtifact(t, name, a)
	}
	seen := map[string]bool{}
	for _, m := range task.History {
		checkMessage(t, name, m)
		if seen[m.MessageId] {
			t.Errorf("%s: message id %q twice in history", name, m.MessageId)
		}
		seen[m.MessageId] = true
	}
}

func checkStatus(t *testing.T, name string, st *a2apb.TaskStatus) {
	t.Helper()
	if st == nil {
		t.Errorf("%s: no status", name)
		return
	}
	if st.Message != nil {
		checkMessage(t, name, st.Message)
	}
}

func checkMessage(t *testing.T, name string, m *a2apb.Message) {
	t.Helper()
	if m.MessageId == "" || m.ContextId == "" {
		t.Errorf("%s: message with empty messageId %q or contextId %q", name, m.MessageId, m.ContextId)
	}
}

func checkArtifact(t *testing.T, name string, a *a2apb.Artifact) {
	t.Helper()
	if a == nil || a.ArtifactId == "" {
		t.Errorf("%s: artifact without an artifactId", name)
	}
}
