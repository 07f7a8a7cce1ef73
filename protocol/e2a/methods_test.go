package e2a_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/sluicehq/sluice/protocol/e2a"
)

func TestIsGatewayMethod(t *testing.T) {
	for m, want := range map[string]bool{
		"workflow.execute": true, "agent.invoke": true, "execution.cancel": true, "capability.decide": true,
		"admin.keys.create": true, "admin.keys": false, "admin..x": false, "admin.a.b.c": false,
		"session/prompt": false, "chat.send": false, "": false,
	} {
		if got := e2a.IsGatewayMethod(m); got != want {
			t.Errorf("%q: %v", m, got)
		}
	}
	if len(e2a.PublicMethods) != 8 {
		t.Fatalf("%d public methods", len(e2a.PublicMethods))
	}
}

func TestToAgentInvoke(t *testing.T) {
	acp := e2a.EnvelopeFromACP("session/prompt", map[string]any{"sessionId": "s1", "text": "hello"}, e2a.ACPOptions{JSONRPCID: e2a.IntID(9)})
	acp.RequestID = "req"
	got, err := e2a.ToAgentInvoke(acp, "helper")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"agent": "helper", "input": map[string]any{"sessionId": "s1", "text": "hello",
		"prompt": []any{map[string]any{"type": "text", "text": "hello"}}}}
	if got.Method != e2a.MethodAgentInvoke || !reflect.DeepEqual(got.Params, want) || got.RequestID != "req" || got.JSONRPCID != acp.JSONRPCID ||
		got.Provenance.Details["mapped_from_method"] != "session/prompt" || acp.Provenance.Details["mapped_from_method"] != nil {
		t.Fatalf("ACP mapping: %+v", got)
	}

	msg := map[string]any{"messageId": "m", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hi"}}, "taskId": "t7"}
	a2a, err := e2a.EnvelopeFromA2A(map[string]any{"message": msg}, e2a.A2AOptions{Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	got, err = e2a.ToAgentInvoke(a2a, "helper")
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]any{"agent": "helper", "task_id": "t7", "input": map[string]any{"message": msg, "configuration": map[string]any{}}}
	if !reflect.DeepEqual(got.Params, want) || got.Provenance.SourceProtocol != e2a.SourceA2A {
		t.Fatalf("A2A mapping: %#v", got.Params)
	}

	for name, c := range map[string]struct {
		e     *e2a.Envelope
		agent string
		path  string
	}{
		"no agent":     {acp, "", "params.agent"},
		"other method": {&e2a.Envelope{Method: "chat.send"}, "a", "method"},
		"no prompt":    {e2a.EnvelopeFromACP("session/prompt", map[string]any{"mode": "x"}, e2a.ACPOptions{}), "a", "params.prompt"},
	} {
		_, err := e2a.ToAgentInvoke(c.e, c.agent)
		var e *e2a.Error
		if !asError(err, &e) || e.Path != c.path {
			t.Errorf("%s: want an error at %s, got %v", name, c.path, err)
		}
	}
}

func TestEnvelopeFromA2AOptions(t *testing.T) {
	msg := map[string]any{"messageId": "m", "role": "ROLE_USER", "parts": []any{}, "taskId": "from-msg", "contextId": "ctx-msg"}
	e, err := e2a.EnvelopeFromA2A(map[string]any{"message": msg, "metadata": map[string]any{"k": "v"}, "tenant": "t"},
		e2a.A2AOptions{TaskID: "opt-task", Channel: "a2a", IdentityOrigin: e2a.OriginAgent, ExtraDetails: map[string]any{"route": "/a2a"}})
	if err != nil {
		t.Fatal(err)
	}
	if e.TaskID != "opt-task" || e.ContextID != "ctx-msg" || e.MessageID != "m" || e.Channel != "a2a" || e.IdentityOrigin != e2a.OriginAgent ||
		e.A2AMetadata["k"] != "v" || e.Provenance.Details["route"] != "/a2a" || e.Provenance.Details["abstract_operation"] != "SendMessage" ||
		e.ChannelContext != nil || e.Method != "session/prompt" {
		t.Fatalf("%+v", e)
	}
	msg["role"] = "changed"
	if e.Params["message"].(map[string]any)["role"] != "ROLE_USER" {
		t.Fatal("the envelope must not share the caller's message")
	}
	if _, err := e2a.EnvelopeFromA2A(map[string]any{"message": msg, "metadata": "x"}, e2a.A2AOptions{}); err == nil {
		t.Fatal("metadata must be an object")
	}
}
