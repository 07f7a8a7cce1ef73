package agent_test

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// An agent that echoes its credentials back in every way it can must not
// get them into an error, a log line or the output.
func TestSecretsNeverLeak(t *testing.T) {
	const tok = "tok-SUPERSECRET-0042"
	modes := []string{"401", "503", "status-error", "wrong-task", "output", "output-encoded", "not-json", "task-in-body"}
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got := r.Header.Get("Authorization")
				b, _ := io.ReadAll(r.Body)
				var req agenthttp.Request
				_ = json.Unmarshal(b, &req)
				w.Header().Set("Content-Type", "application/json")
				switch mode {
				case "401":
					w.WriteHeader(401)
					fmt.Fprintf(w, `{"error":"token %s is not valid"}`, got)
				case "503":
					w.WriteHeader(503)
					fmt.Fprintf(w, "upstream refused %s", got)
				case "status-error":
					fmt.Fprintf(w, `{"task_id":%q,"status":"error","error":"you sent %s"}`, req.TaskID, got)
				case "wrong-task":
					fmt.Fprintf(w, `{"task_id":%q,"status":"success"}`, got)
				case "output":
					fmt.Fprintf(w, `{"task_id":%q,"status":"success","output":{"seen":%q,"raw":%q}}`, req.TaskID, got, tok)
				case "output-encoded":
					// The header in the encodings an upstream may echo it in,
					// and the token spelled with JSON \u escapes.
					fmt.Fprintf(w, `{"task_id":%q,"status":"success","output":{"b64":%q,"hex":%q,"url":%q,"u":"%s"}}`, req.TaskID,
						base64.StdEncoding.EncodeToString([]byte(got)), hex.EncodeToString([]byte(got)), url.QueryEscape(got), escapeAll(tok))
				case "not-json":
					fmt.Fprintf(w, `%s is what you sent`, got)
				case "task-in-body":
					fmt.Fprintf(w, `{"task_id":%q,"status":"bad %s"}`, req.TaskID, tok)
				}
			}))
			defer srv.Close()
			en := bearerEntry("echoer", srv.URL, tok)
			en.Retry.MaxRetries = 1
			if _, _, err := e.reg.Register(ctx, en); err != nil {
				t.Fatal(err)
			}
			out, err := e.inv.Invoke(ctx, "echoer", "task-1", nil, "")
			if strings.HasPrefix(mode, "output") {
				if err != nil {
					t.Fatal(err)
				}
				var decoded any
				if err := json.Unmarshal(out, &decoded); err != nil {
					t.Fatalf("output %s: %v", out, err)
				}
				d, _ := json.Marshal(decoded)
				for _, f := range []string{"SUPERSECRET", base64.StdEncoding.EncodeToString([]byte(tok))[4:20], hex.EncodeToString([]byte(tok)), url.QueryEscape(tok)} {
					if strings.Contains(string(out), f) || strings.Contains(string(d), f) {
						t.Fatalf("output holds %q: %s", f, out)
					}
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			fe := fault.From(err)
			var logged strings.Builder
			slog.New(slog.NewTextHandler(&logged, nil)).Error("x", "err", fe)
			for what, s := range map[string]string{
				"error":   err.Error(),
				"object":  fmt.Sprintf("%+v", fe.Object()),
				"logged":  logged.String(),
				"logs":    e.logs.String(),
				"details": fmt.Sprint(fe.Details),
			} {
				if strings.Contains(s, "SUPERSECRET") {
					t.Fatalf("the token is in the %s: %s", what, s)
				}
			}
		})
	}
}

// escapeAll writes every character of s as a JSON \u escape.
func escapeAll(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}
