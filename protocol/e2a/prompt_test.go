package e2a_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/sluicehq/sluice/protocol/e2a"
)

func TestMergeParamsToACPPrompt(t *testing.T) {
	text := func(s string) []any { return []any{map[string]any{"type": "text", "text": s}} }
	blocks := []any{map[string]any{"type": "image", "data": "x"}}
	cases := []struct {
		name      string
		method    string
		session   string
		acpMeta   map[string]any
		params    map[string]any
		want      map[string]any
		wantError string
	}{
		{name: "other method: copy only", method: "chat.send", session: "s", acpMeta: map[string]any{"m": 1},
			params: map[string]any{"text": "hi"}, want: map[string]any{"text": "hi"}},
		{name: "no method: copy only", params: map[string]any{"text": "hi"}, want: map[string]any{"text": "hi"}},
		{name: "prompt present: kept, no _meta, but sessionId (ACP requires it)", method: "session/prompt", session: "s", acpMeta: map[string]any{"m": 1},
			params: map[string]any{"prompt": "anything", "text": "ignored"}, want: map[string]any{"prompt": "anything", "text": "ignored", "sessionId": "s"}},
		{name: "prompt null still counts as present", method: "session/prompt", session: "s",
			params: map[string]any{"prompt": nil}, want: map[string]any{"prompt": nil, "sessionId": "s"}},
		{name: "prompt present, no session: nothing added", method: "session/prompt",
			params: map[string]any{"prompt": []any{}}, want: map[string]any{"prompt": []any{}}},
		{name: "content_blocks: mime_type becomes mimeType, in resources too", method: "session/prompt",
			params: map[string]any{"content_blocks": []any{
				map[string]any{"type": "image", "data": "x", "mime_type": "image/png"},
				map[string]any{"type": "resource", "resource": map[string]any{"uri": "f", "text": "t", "mime_type": "text/plain"}},
				map[string]any{"type": "image", "data": "x", "mime_type": "a", "mimeType": "b"}, "not an object"}},
			want: map[string]any{"content_blocks": []any{
				map[string]any{"type": "image", "data": "x", "mime_type": "image/png"},
				map[string]any{"type": "resource", "resource": map[string]any{"uri": "f", "text": "t", "mime_type": "text/plain"}},
				map[string]any{"type": "image", "data": "x", "mime_type": "a", "mimeType": "b"}, "not an object"},
				"prompt": []any{
					map[string]any{"type": "image", "data": "x", "mimeType": "image/png"},
					map[string]any{"type": "resource", "resource": map[string]any{"uri": "f", "text": "t", "mimeType": "text/plain"}},
					map[string]any{"type": "image", "data": "x", "mime_type": "a", "mimeType": "b"}, "not an object"}}},
		{name: "content_blocks become prompt", method: "session/prompt",
			params: map[string]any{"content_blocks": blocks, "text": "not used"}, want: map[string]any{"content_blocks": blocks, "text": "not used", "prompt": blocks}},
		{name: "empty content_blocks fall through to text", method: "session/prompt",
			params: map[string]any{"content_blocks": []any{}, "text": "hi"}, want: map[string]any{"content_blocks": []any{}, "text": "hi", "prompt": text("hi")}},
		{name: "content_blocks not an array fall through", method: "session/prompt",
			params: map[string]any{"content_blocks": "x", "query": "q"}, want: map[string]any{"content_blocks": "x", "query": "q", "prompt": text("q")}},
		{name: "text first", method: "session/prompt",
			params: map[string]any{"text": "t", "content": "c", "query": "q"}, want: map[string]any{"text": "t", "content": "c", "query": "q", "prompt": text("t")}},
		{name: "empty text skipped for content", method: "session/prompt",
			params: map[string]any{"text": "", "content": "c"}, want: map[string]any{"text": "", "content": "c", "prompt": text("c")}},
		{name: "non-string text skipped for query (RESOLUTIONS: first non-empty string)", method: "session/prompt",
			params: map[string]any{"text": 5.0, "query": "q"}, want: map[string]any{"text": 5.0, "query": "q", "prompt": text("q")}},
		{name: "nothing usable: no prompt, session and meta still added", method: "session/prompt", session: "s", acpMeta: map[string]any{"m": 1.0},
			params: map[string]any{"mode": "plan"}, want: map[string]any{"mode": "plan", "sessionId": "s", "_meta": map[string]any{"m": 1.0}}},
		{name: "params session_id wins and becomes sessionId", method: "session/prompt", session: "env",
			params: map[string]any{"text": "t", "session_id": "mine"}, want: map[string]any{"text": "t", "sessionId": "mine", "prompt": text("t")}},
		{name: "params sessionId wins over both", method: "session/prompt", session: "env",
			params: map[string]any{"text": "t", "sessionId": "acp", "session_id": "mine"}, want: map[string]any{"text": "t", "sessionId": "acp", "session_id": "mine", "prompt": text("t")}},
		{name: "non-string session_id stays, envelope session used", method: "session/prompt", session: "env",
			params: map[string]any{"text": "t", "session_id": 5.0}, want: map[string]any{"text": "t", "session_id": 5.0, "sessionId": "env", "prompt": text("t")}},
		{name: "empty session not added", method: "session/prompt",
			params: map[string]any{"text": "t"}, want: map[string]any{"text": "t", "prompt": text("t")}},
		{name: "acp_meta merged over _meta", method: "session/prompt", acpMeta: map[string]any{"k": "new", "n": 1.0},
			params: map[string]any{"text": "t", "_meta": map[string]any{"k": "old", "keep": true}},
			want:   map[string]any{"text": "t", "prompt": text("t"), "_meta": map[string]any{"k": "new", "keep": true, "n": 1.0}}},
		{name: "_meta not an object", method: "session/prompt", acpMeta: map[string]any{"k": 1},
			params: map[string]any{"text": "t", "_meta": "x"}, wantError: "params._meta"},
		{name: "nil params", method: "session/prompt", session: "s", want: map[string]any{"sessionId": "s"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := e2a.NewEnvelope()
			e.Method, e.SessionID, e.ACPMeta, e.Params = c.method, c.session, c.acpMeta, c.params
			before, _ := json.Marshal(c.params)
			got, err := e2a.MergeParamsToACPPrompt(e)
			if c.wantError != "" {
				var ee *e2a.Error
				if !asError(err, &ee) || ee.Path != c.wantError {
					t.Fatalf("want an error at %s, got %v", c.wantError, err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %#v, %v\nwant %#v", got, err, c.want)
			}
			if after, _ := json.Marshal(e.Params); string(after) != string(before) {
				t.Fatalf("the envelope's params changed: %s -> %s", before, after)
			}
		})
	}
}
