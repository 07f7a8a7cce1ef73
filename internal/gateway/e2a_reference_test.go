package gateway_test

import (
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// An envelope as the reference (jiuwenswarm) writes it now carries agent_id,
// service_id and workspace_key, and a newer peer may send fields sluice does
// not know: /api/v1/e2a serves it, logging the unknown names (never their
// values) at debug. Before issue 19 every such envelope was refused with 400.
func TestE2AEndpointReadsTheReferencesEnvelope(t *testing.T) {
	s := newServer(t)
	_, key := s.anyAccount()
	doc := jsonl(
		`{"type":"operationUpdate","operationId":"a","operation":{"Wait":{"duration":1}}}`,
		`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["a"]}`)
	const unknownValue = "value-that-must-not-be-logged"
	status, frames := postEnvelope(t, s, key, map[string]any{
		"protocol_version": "1.0", "request_id": "req-ref", "method": "workflow.validate",
		"agent_id": "ag_42", "service_id": "svc_office", "workspace_key": "5d41402abc4b2a76b9719d911017c592",
		"app_id": "cli_a1", "x_new_field": unknownValue,
		"provenance": map[string]any{"source_protocol": "e2a", "hint": unknownValue},
		"params":     map[string]any{"workflow": doc},
	})
	if status != 200 || len(frames) == 0 || frames[len(frames)-1].Kind != e2a.KindComplete {
		t.Fatalf("status %d, frames %+v", status, frames)
	}
	logs := s.logs.String()
	if !strings.Contains(logs, "e2a envelope fields ignored") || !strings.Contains(logs, "x_new_field") || !strings.Contains(logs, "provenance.hint") {
		t.Fatalf("ignored fields not logged at debug:\n%s", logs)
	}
	if strings.Contains(logs, unknownValue) {
		t.Fatal("the value of an ignored field was logged")
	}

	// Known fields stay strict: identity_origin "" is outside the list.
	status, frames = postEnvelope(t, s, key, map[string]any{"request_id": "req-bad", "method": "workflow.validate", "identity_origin": "", "params": map[string]any{"workflow": doc}})
	if status != 400 || len(frames) != 1 || frames[0].Body["code"] != "invalid" || !strings.Contains(frames[0].Body["message"].(string), "identity_origin") {
		t.Fatalf("identity_origin \"\": %d %+v", status, frames)
	}
}
