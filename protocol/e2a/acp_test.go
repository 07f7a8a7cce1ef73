package e2a_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/sluicehq/sluice/protocol/e2a"
)

func TestEnvelopeFromACP(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	params := map[string]any{"session_id": "from-params", "prompt": []any{}}
	cases := []struct {
		name    string
		opt     e2a.ACPOptions
		params  map[string]any
		session string
		details map[string]any
	}{
		{"option session wins", e2a.ACPOptions{SessionID: "opt", JSONRPCID: e2a.IntID(3)}, params, "opt",
			map[string]any{"kind": "jsonrpc_request", "jsonrpc_method": "session/prompt", "jsonrpc_id": 3.0}},
		{"params session_id", e2a.ACPOptions{}, params, "from-params",
			map[string]any{"kind": "jsonrpc_request", "jsonrpc_method": "session/prompt"}},
		{"params sessionId (ACP spelling)", e2a.ACPOptions{JSONRPCID: e2a.StringID("a")}, map[string]any{"sessionId": "camel"}, "camel",
			map[string]any{"kind": "jsonrpc_request", "jsonrpc_method": "session/prompt", "jsonrpc_id": "a"}},
		{"non-string session ignored", e2a.ACPOptions{ExtraDetails: map[string]any{"route": "r1", "kind": "overridden"}}, map[string]any{"session_id": 5.0}, "",
			map[string]any{"kind": "overridden", "jsonrpc_method": "session/prompt", "route": "r1"}},
		{"nil params", e2a.ACPOptions{}, nil, "", map[string]any{"kind": "jsonrpc_request", "jsonrpc_method": "session/prompt"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opt.Now = now
			e := e2a.EnvelopeFromACP("session/prompt", c.params, c.opt)
			if e.SessionID != c.session || e.Method != "session/prompt" || e.Provenance.SourceProtocol != e2a.SourceACP ||
				e.Provenance.Converter != e2a.ConverterACP || !e.Provenance.ConvertedAt.Equal(now) || e.Provenance.ConvertedAt.Location() != time.UTC ||
				!reflect.DeepEqual(e.Provenance.Details, c.details) || e.IdentityOrigin != e2a.OriginUser || e.JSONRPCID != c.opt.JSONRPCID {
				t.Fatalf("got %+v", e)
			}
			if c.params != nil && !reflect.DeepEqual(e.Params, c.params) {
				t.Fatalf("params %v", e.Params)
			}
			assertEnvelopeRoundTrip(t, e)
		})
	}
	e := e2a.EnvelopeFromACP("initialize", nil, e2a.ACPOptions{Channel: "acp", IdentityOrigin: e2a.OriginService, Converter: "mine"})
	if e.Channel != "acp" || e.IdentityOrigin != e2a.OriginService || e.Provenance.Converter != "mine" || e.Provenance.ConvertedAt.IsZero() {
		t.Fatalf("options not applied: %+v", e)
	}
}

func TestToACPCallMethods(t *testing.T) {
	cases := []struct {
		method, ext, want string
	}{
		{"ext", "vendor/x", "vendor/x"},
		{"ext", "", "ext"},
		{"session/prompt", "ignored", "session/prompt"},
		{"", "", ""},
	}
	for _, c := range cases {
		e := e2a.NewEnvelope()
		e.Method, e.ExtMethod, e.Params = c.method, c.ext, map[string]any{"text": "x"}
		call, err := e2a.ToACPCall(e)
		if err != nil || call.Method != c.want {
			t.Errorf("%q/%q: got %q, %v", c.method, c.ext, call.Method, err)
		}
	}
	e := e2a.NewEnvelope()
	e.Method = "session/prompt"
	b, _ := json.Marshal(e2a.ACPCall{Method: "m"})
	if string(b) != `{"jsonrpc":"2.0","id":null,"method":"m","params":{}}` {
		t.Fatalf("call encodes as %s", b)
	}
}

func TestResponseToACPCodes(t *testing.T) {
	cases := []struct {
		code any
		want any
		data map[string]any
	}{
		{"invalid", -32603.0, map[string]any{"e2a_code": "invalid"}},
		{-32001.0, -32001.0, nil},
		{1.5, -32603.0, map[string]any{"e2a_code": 1.5}},
		{nil, -32603.0, nil},
		{true, -32603.0, map[string]any{"e2a_code": true}},
	}
	for _, c := range cases {
		r := e2a.ErrorFrame("x", "m", nil)
		r.Body["code"] = c.code
		out := e2a.ResponseToACP(r)
		b, _ := json.Marshal(out)
		var back struct {
			Error struct {
				Code float64
				Data map[string]any
			}
		}
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back.Error.Code != c.want || !reflect.DeepEqual(back.Error.Data, c.data) {
			t.Errorf("code %v: got %s", c.code, b)
		}
	}
	if e2a.SessionUpdateNotification(e2a.CompleteFrame(1)) != nil {
		t.Fatal("only acp.session_update frames are notifications")
	}
	n := e2a.SessionUpdateNotification(&e2a.Response{Kind: e2a.KindACPSessionUpdate, Body: map[string]any{"sessionId": "s"}})
	if b, _ := json.Marshal(n); string(b) != `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}}` {
		t.Fatalf("a notification has no id member (the ACP SDK takes \"id\":null for a request): %s", b)
	}
	// The frame's session fills a body that has none (ACP requires sessionId).
	n = e2a.SessionUpdateNotification(&e2a.Response{Kind: e2a.KindACPSessionUpdate, SessionID: "f", Body: map[string]any{"update": map[string]any{}}})
	if n.Params["sessionId"] != "f" {
		t.Fatalf("sessionId not filled from the frame: %v", n.Params)
	}
	// A request keeps "id": null; only notifications drop it.
	if b, _ := json.Marshal(e2a.ACPCall{Method: "session/prompt"}); string(b) != `{"jsonrpc":"2.0","id":null,"method":"session/prompt","params":{}}` {
		t.Fatalf("request %s", b)
	}
}
