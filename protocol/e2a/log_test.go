package e2a_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/protocol/e2a"
)

const secret = "sk-live-7f3a9c1e5b2d8046"

type gatewayResult struct {
	Note  string `json:"note"`
	Token string `json:"token"`
}

func TestLogWriterNeverWritesSecrets(t *testing.T) {
	var buf bytes.Buffer
	lw := e2a.NewLogWriter(&buf, e2a.LogOptions{Secrets: []string{secret, ""}})

	env := e2a.NewEnvelope()
	env.RequestID = "req_1"
	env.Auth = &e2a.Auth{MethodID: "bearer", BearerToken: secret, APIKeyRef: "vault:key-1", CredentialRef: "cred-1",
		ExtraHeaders: map[string]string{"Authorization": "Bearer " + secret, "X-Trace": "t1"}, Meta: map[string]any{"password": "hunter2"}}
	env.Params = map[string]any{
		"content":       "my key is " + secret + ", keep it safe",
		"nested":        []any{map[string]any{"api_key": "abc", "Refresh-Token": "def", "ok": "visible"}},
		"key_" + secret: 1.0,
	}
	env.UserID = secret
	if err := lw.WriteEnvelope(env); err != nil {
		t.Fatal(err)
	}

	w, err := e2a.NewStreamWriter(env, lw, e2a.StreamOptions{Now: func() time.Time { return time.Unix(1, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Chunk("text", "the model echoed "+secret); err != nil {
		t.Fatal(err)
	}
	if err := w.Complete(gatewayResult{Note: "result with " + secret, Token: "zzz"}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, leak := range []string{secret, "hunter2", `"abc"`, `"def"`, `"zzz"`} {
		if strings.Contains(out, leak) {
			t.Errorf("log holds %s:\n%s", leak, out)
		}
	}
	for _, keep := range []string{`"api_key_ref":"vault:key-1"`, `"credential_ref":"cred-1"`, `"Authorization":"[REDACTED]"`, `"visible"`,
		`"bearer_token":"[REDACTED]"`, `my key is [REDACTED], keep it safe`, `"key_[REDACTED]":1`} {
		if !strings.Contains(out, keep) {
			t.Errorf("log lacks %s:\n%s", keep, out)
		}
	}
	if env.Auth.BearerToken != secret || !strings.Contains(env.Params["content"].(string), secret) {
		t.Fatal("the log writer must not change the envelope it logs")
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines", len(lines))
	}
	// §12.7's minimum keys are on every frame line.
	for _, l := range lines[1:] {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"request_id", "response_id", "sequence", "is_final", "response_kind", "timestamp"} {
			if _, ok := m[k]; !ok {
				t.Errorf("frame line lacks %s: %s", k, l)
			}
		}
	}
	// Log lines are frames: the checker reads them.
	rep, err := e2a.Check(strings.NewReader(strings.Join(lines[1:], "\n")), e2a.CheckOptions{})
	if err != nil || !rep.OK {
		t.Fatalf("%+v %v", rep, err)
	}
}

func TestLogWriterOmitAndBoundBody(t *testing.T) {
	var buf bytes.Buffer
	lw := e2a.NewLogWriter(&buf, e2a.LogOptions{OmitBody: true})
	r := e2a.CompleteFrame("private model output")
	r.ResponseID, r.RequestID, r.Timestamp = "r", "q", e2a.Time(time.Unix(5, 0))
	r.Projections = map[string]any{"a2a": "private model output"}
	if err := lw.WriteFrame(r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "private") || !strings.Contains(buf.String(), `"response_id":"r"`) {
		t.Fatalf("OmitBody: %s", buf.String())
	}
	buf.Reset()
	lw = e2a.NewLogWriter(&buf, e2a.LogOptions{MaxBodyBytes: 32})
	r.Body = map[string]any{"result": strings.Repeat("x", 100)}
	if err := lw.WriteFrame(r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "xxxx") || !strings.Contains(buf.String(), `"_omitted":"body larger than 32 bytes"`) {
		t.Fatalf("MaxBodyBytes: %s", buf.String())
	}
}

func TestIsSecretKey(t *testing.T) {
	for k, want := range map[string]bool{
		"password": true, "api_key": true, "X-API-Key": true, "Authorization": true, "session_token": true, "client_secret": true,
		"Set-Cookie": true, "credential_ref": false, "max_tokens": false, "input_tokens": false, "content": false, "tokenizer": false,
	} {
		if e2a.IsSecretKey(k) != want {
			t.Errorf("%s: want %v", k, want)
		}
	}
}
