package gateway_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// postEnvelope sends an envelope to /api/v1/e2a and reads the NDJSON frames.
func postEnvelope(t *testing.T, s *testServer, key string, env map[string]any) (int, []*e2a.Response) {
	status, frames, _ := postEnvelopeRaw(t, s, key, env)
	return status, frames
}

func postEnvelopeRaw(t *testing.T, s *testServer, key string, env map[string]any) (int, []*e2a.Response, []byte) {
	t.Helper()
	b, _ := json.Marshal(env)
	req, _ := http.NewRequest("POST", s.http.URL+"/api/v1/e2a", strings.NewReader(string(b)))
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var frames []*e2a.Response
	raw, _ := io.ReadAll(resp.Body)
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		f, err := e2a.DecodeResponse(sc.Bytes(), e2a.Limits{})
		if err != nil {
			t.Fatalf("frame %q: %v", sc.Text(), err)
		}
		frames = append(frames, f)
	}
	return resp.StatusCode, frames, raw
}

func TestE2AEndpoint(t *testing.T) {
	s := newServer(t)
	id, key := s.anyAccount()
	doc := jsonl(
		`{"type":"operationUpdate","operationId":"a","operation":{"Wait":{"duration":1}}}`,
		`{"type":"operationUpdate","operationId":"b","operation":{"Wait":{"duration":1}}}`,
		`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["a","b"]}`)
	status, frames, raw := postEnvelopeRaw(t, s, key, map[string]any{
		"request_id": "req-1", "method": "workflow.execute", "user_id": "someone-else", "identity_origin": "system",
		"params": map[string]any{"workflow": doc},
		"auth":   map[string]any{"bearer_token": "should-be-dropped"},
	})
	if status != 200 || len(frames) < 3 {
		t.Fatalf("status %d, %d frames", status, len(frames))
	}
	if rep, err := e2a.Check(bytes.NewReader(raw), e2a.CheckOptions{}); err != nil || !rep.OK {
		t.Fatalf("stream breaks §12.3: %v %+v", err, rep)
	}
	last := frames[len(frames)-1]
	result, _ := last.Body["result"].(map[string]any)
	if last.Kind != e2a.KindComplete || result["status"] != "success" {
		t.Fatalf("final frame: %+v", last)
	}
	for _, f := range frames {
		if f.RequestID != "req-1" || f.UserID != id {
			t.Fatalf("frame identity: request %q user %q (want the account %q)", f.RequestID, f.UserID, id)
		}
	}

	// Refusals are a single error frame with the HTTP status of the error.
	status, frames = postEnvelope(t, s, "", map[string]any{"request_id": "r2", "method": "workflow.validate", "params": map[string]any{"workflow": doc}})
	if status != 401 || len(frames) != 1 || frames[0].Kind != e2a.KindError || frames[0].Body["code"] != "unauthenticated" {
		t.Fatalf("no key: %d %+v", status, frames)
	}
	status, frames = postEnvelope(t, s, key, map[string]any{"request_id": "r3", "method": "workflow.exekute", "params": map[string]any{}})
	if status != 404 || frames[0].Body["code"] != "not_found" {
		t.Fatalf("unknown method: %d %+v", status, frames[0].Body)
	}
	status, frames = postEnvelope(t, s, key, map[string]any{"request_id": "r4", "identity_origin": "robot", "method": "workflow.validate"})
	if status != 400 || !strings.Contains(frames[0].Body["message"].(string), "identity_origin") {
		t.Fatalf("bad envelope: %d %+v", status, frames[0].Body)
	}
	status, frames = postEnvelope(t, s, key, map[string]any{"request_id": "r5", "method": "admin.accounts.list"})
	if status != 403 || frames[0].Body["code"] != "permission_denied" {
		t.Fatalf("admin method as an account: %d %+v", status, frames[0].Body)
	}
}
