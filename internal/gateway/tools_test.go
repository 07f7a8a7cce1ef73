package gateway_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/e2a"
)

func toolNames(t *testing.T, f *e2a.Response) []string {
	t.Helper()
	res, _ := f.Body["result"].(map[string]any)
	list, _ := res["tools"].([]any)
	var names []string
	for _, x := range list {
		names = append(names, x.(map[string]any)["name"].(string))
	}
	return names
}

func TestToolListAndCall(t *testing.T) {
	s := newServer(t)
	_, key := s.account(map[string]any{"operations": []string{"FilterData", "Wait", "Loop"}}, nil)
	status, frames := postEnvelope(t, s, key, map[string]any{"request_id": "l1", "method": "tool.list", "params": map[string]any{}})
	names := toolNames(t, frames[len(frames)-1])
	if status != 200 || fmt.Sprint(names) != "[op.FilterData op.Wait workflow.execute workflow.validate]" {
		t.Fatalf("tools: %d %v", status, names)
	}
	_, frames = postEnvelope(t, s, key, map[string]any{"request_id": "l2", "method": "tool.list", "params": map[string]any{"query": "filter"}})
	if names := toolNames(t, frames[len(frames)-1]); fmt.Sprint(names) != "[op.FilterData]" {
		t.Fatalf("query filter: %v", names)
	}

	// An operation as a tool: its config as arguments, "input" as /input.
	_, frames = postEnvelope(t, s, key, map[string]any{"request_id": "c1", "method": "tool.call", "params": map[string]any{
		"tool_name": "op.FilterData",
		"arguments": map[string]any{"inputPath": "/input/xs", "conditions": []any{map[string]any{"field": "v", "operator": ">", "value": 1}},
			"input": map[string]any{"xs": []any{map[string]any{"v": 1}, map[string]any{"v": 3}}}},
	}})
	res := frames[len(frames)-1].Body["result"].(map[string]any)
	if res["success"] != true || fmt.Sprint(res["data"]) != "[map[v:3]]" || res["tool_name"] != "op.FilterData" {
		t.Fatalf("op.FilterData: %v", res)
	}
	// A bad config ran and failed validation: success false, not an error.
	_, frames = postEnvelope(t, s, key, map[string]any{"request_id": "c2", "method": "tool.call", "params": map[string]any{
		"tool_name": "op.FilterData", "arguments": map[string]any{"inputPath": "/input/xs", "conditions": []any{map[string]any{"field": "v", "operator": "~"}}},
	}})
	res = frames[len(frames)-1].Body["result"].(map[string]any)
	if res["success"] != false || res["error_code"] != "invalid_workflow" || !strings.Contains(res["error"].(string), "operator") {
		t.Fatalf("bad config: %v", res)
	}
	// Forbidden and unknown tools are refused.
	status, frames = postEnvelope(t, s, key, map[string]any{"request_id": "c3", "method": "tool.call", "params": map[string]any{"tool_name": "op.ApiCall", "arguments": map[string]any{}}})
	if status != 403 || frames[0].Body["code"] != "permission_denied" {
		t.Fatalf("forbidden tool: %d %v", status, frames[0].Body)
	}
	for _, name := range []string{"op.Nope", "op.Loop", "nothing"} {
		status, frames = postEnvelope(t, s, key, map[string]any{"request_id": "c4", "method": "tool.call", "params": map[string]any{"tool_name": name}})
		if status != 404 || frames[0].Body["code"] != "not_found" {
			t.Fatalf("%s: %d %v", name, status, frames[0].Body)
		}
	}
	// workflow.execute streams progress when asked.
	doc := jsonl(`{"type":"operationUpdate","operationId":"w","operation":{"Wait":{"duration":1}}}`,
		`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["w"]}`)
	_, frames = postEnvelope(t, s, key, map[string]any{"request_id": "c5", "method": "tool.call", "params": map[string]any{
		"tool_name": "workflow.execute", "arguments": map[string]any{"workflow": doc}, "streaming": true}})
	res = frames[len(frames)-1].Body["result"].(map[string]any)
	if len(frames) < 4 || res["success"] != true || frames[0].Kind != e2a.KindChunk {
		t.Fatalf("streamed execute: %d frames, %v", len(frames), res)
	}
}
