package gateway_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
)

// verdict is what a wire says of how a call ended.
type verdict struct {
	httpStatus int    // the HTTP wires' status (0 on sessions)
	errType    string // error.type of a JSON error body ("" when the body has none)
	final      string // what ended it: json, e2a.error, e2a.complete, error, tool/call/resp, stream end
	code       string // the E2A frame's code, the session error's code or the tool result's error_code
	success    bool   // the tool result's success
	// exec is the execution response the call answered with, when it ran.
	exec map[string]any
}

func (v verdict) String() string {
	var parts []string
	if v.httpStatus != 0 {
		parts = append(parts, fmt.Sprintf("HTTP %d", v.httpStatus))
	}
	if v.errType != "" {
		parts = append(parts, "error.type "+v.errType)
	}
	parts = append(parts, v.final)
	if v.code != "" {
		parts = append(parts, "code "+v.code)
	}
	if v.exec != nil {
		parts = append(parts, strings.TrimSpace(fmt.Sprintf("execution %v %s", v.exec["status"], firstErrorType(v.exec))))
	}
	return strings.Join(parts, ", ")
}

// matches says whether v is what the fault table gives o on wire: for a
// refusal, the row's HTTP status and error type (REST, SSE before its
// stream), its code and status (E2A), its session code (a session's error)
// or tool code (a tool/call/resp that failed); for a call that ran, the
// execution's status and first error type, and the row's tool code as the
// tool result's error_code. A session's handshake is refused by the session
// protocol's own answer, handshake/resp with reason auth_failed: it has no
// error code, and only an unauthenticated key gets it.
func (v verdict) matches(wire string, o outcome) error {
	r := o.row()
	switch wire {
	case "rest", "sse":
		if o.ok || o.ran {
			if v.httpStatus != 200 {
				return fmt.Errorf("HTTP %d, want 200", v.httpStatus)
			}
			return execMatches(v.exec, o)
		}
		if v.httpStatus != r.HTTPStatus {
			return fmt.Errorf("HTTP %d, want %d", v.httpStatus, r.HTTPStatus)
		}
		// Two bodies carry no error object, as their specs say: the A2E
		// spec's 429 body, and the validate report of a workflow that is
		// not valid (RESOLUTIONS). Their status is their code.
		if v.errType != "" && v.errType != r.SpecType {
			return fmt.Errorf("error.type %s, want %s", v.errType, r.SpecType)
		}
	case "e2a":
		if o.ok || o.ran {
			if v.httpStatus != 200 || v.final != "e2a.complete" {
				return fmt.Errorf("HTTP %d %s, want 200 e2a.complete", v.httpStatus, v.final)
			}
			return execMatches(v.exec, o)
		}
		if v.httpStatus != r.HTTPStatus || v.final != "e2a.error" || v.code != r.Code {
			return fmt.Errorf("HTTP %d %s code %q, want %d e2a.error code %q", v.httpStatus, v.final, v.code, r.HTTPStatus, r.Code)
		}
	case "session":
		switch {
		case o.ok:
			if v.final != "tool/call/resp" || !v.success {
				return fmt.Errorf("%s success %v, want a successful tool/call/resp", v.final, v.success)
			}
			return execMatches(v.exec, o)
		case v.final == "handshake/resp":
			if o.code != fault.Unauthenticated.String() || v.code != "auth_failed" {
				return fmt.Errorf("handshake/resp reason %q for %s: only an unauthenticated key is refused at the handshake, with auth_failed", v.code, o.code)
			}
		case v.final == "tool/call/resp":
			if v.success || v.code != r.ToolCode {
				return fmt.Errorf("tool/call/resp success %v error_code %q, want a failed one with %q", v.success, v.code, r.ToolCode)
			}
			if o.ran {
				return execMatches(v.exec, o)
			}
		default:
			if o.ran {
				return fmt.Errorf("%s, want a failed tool/call/resp: the call ran", v.final)
			}
			if v.code != r.SessionCode {
				return fmt.Errorf("code %q, want %q", v.code, r.SessionCode)
			}
		}
	case "mcp":
		return v.matchesMCP(o)
	default:
		return fmt.Errorf("no codes known for wire %q", wire)
	}
	return nil
}

// matchesMCP is matches on MCP: a result, with isError and the code in
// _meta["sluice/code"] (a refusal's E2A code, a run's tool code) for a
// failure; a key refused before any MCP message (HTTP 401, or the stdio
// command's error); a JSON-RPC error only for a tool name no tool has, with
// MCP's Invalid params (-32602: the table's -32004 is the go-sdk's "server
// is closing").
func (v verdict) matchesMCP(o outcome) error {
	r := o.row()
	switch {
	case o.ok:
		if v.final != "tools/call result" || !v.success {
			return fmt.Errorf("%s success %v, want a successful result", v.final, v.success)
		}
		return execMatches(v.exec, o)
	case v.final == "http" || v.final == "refused":
		if o.code != fault.Unauthenticated.String() || (v.httpStatus != r.HTTPStatus && v.code != r.Code) {
			return fmt.Errorf("%s for %s: only a key is refused before any MCP message, with %d", v, o.code, r.HTTPStatus)
		}
	case v.final == "jsonrpc error":
		if o.code != fault.NotFound.String() || v.code != "-32602" {
			return fmt.Errorf("JSON-RPC error %s for %s: only an unknown tool is one (-32602)", v.code, o.code)
		}
	case v.success:
		return fmt.Errorf("a successful result, want isError with %s", o.code)
	case o.ran:
		if v.code != r.ToolCode {
			return fmt.Errorf("isError code %q, want the tool code %q", v.code, r.ToolCode)
		}
		return execMatches(v.exec, o)
	default:
		// A refusal through tool.call shows the code of the error the tool
		// returned: a forbidden document is permission_denied there, the
		// same outcome (status, spec type) as forbidden_workflow.
		if got := fault.RowOf(v.code); got.HTTPStatus != r.HTTPStatus || got.SpecType != r.SpecType {
			return fmt.Errorf("isError code %q, want %q or a code of its status and type", v.code, r.Code)
		}
	}
	return nil
}

// execMatches says whether an execution response ended as o: success, or
// cancelled, or failed with the row's error type first.
func execMatches(exec map[string]any, o outcome) error {
	if exec == nil {
		return fmt.Errorf("no execution response")
	}
	status, _ := exec["status"].(string)
	want, wantType := "failed", o.row().SpecType
	switch {
	case o.ok:
		want, wantType = "success", ""
	case o.code == fault.Cancelled.String():
		want, wantType = "cancelled", ""
	}
	if status != want {
		return fmt.Errorf("execution %s, want %s", status, want)
	}
	if got := firstErrorType(exec); wantType != "" && got != wantType {
		return fmt.Errorf("execution's first error %q, want %s", got, wantType)
	}
	return nil
}

func firstErrorType(exec map[string]any) string {
	errs, _ := exec["errors"].([]any)
	if len(errs) == 0 {
		return ""
	}
	first, _ := errs[0].(map[string]any)
	t, _ := first["type"].(string)
	return t
}

// Volatile values: by key, and by pattern inside any string.
var (
	volatileKeys = map[string]string{
		"ts": "<ts>", "id": "<id>", "session_id": "<id>",
		"duration_ms": "<ms>", "durationMs": "<ms>", "uptime_seconds": "<s>", "retry_after": "<s>",
	}
	volatilePatterns = []struct {
		re   *regexp.Regexp
		with string
	}{
		{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`), "<time>"},
		{regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`), "<uuid>"},
		{regexp.MustCompile(`exec-[0-9a-f]{24}`), "exec-<id>"},
		{regexp.MustCompile(`acct-[0-9a-f]{20}`), "acct-<id>"},
		{regexp.MustCompile(`req-[0-9a-f]{24}`), "req-<id>"},
		{regexp.MustCompile(`127\.0\.0\.1:\d+`), "127.0.0.1:<port>"},
	}
)

func normaliseString(s string) string {
	for _, p := range volatilePatterns {
		s = p.re.ReplaceAllString(s, p.with)
	}
	return s
}

// normaliseJSON replaces the volatile values of a decoded JSON value.
func normaliseJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			if with, ok := volatileKeys[k]; ok && val != nil && val != "" {
				out[k] = with
				continue
			}
			out[k] = normaliseJSON(val)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = normaliseJSON(val)
		}
		return out
	case string:
		return normaliseString(x)
	}
	return v
}

func normaliseHeader(name, v string) string {
	switch name {
	case "Retry-After":
		return "<s>"
	case "X-RateLimit-Reset":
		return "<unix>"
	}
	return v
}

// bodyOf is a body to print: decoded when it is JSON, else its text.
func bodyOf(raw []byte) any {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return strings.TrimSpace(string(raw))
	}
	return v
}

// prettyNormalised is v normalised, as indented JSON with sorted keys (a
// round trip makes structs and maps alike).
func prettyNormalised(v any) string {
	if s, isText := v.(string); isText {
		return normaliseString(s)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<not JSON: %v>", err)
	}
	var generic any
	_ = json.Unmarshal(b, &generic)
	var out strings.Builder
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // the placeholders' <> stay readable
	enc.SetIndent("", "  ")
	_ = enc.Encode(normaliseJSON(generic))
	return strings.TrimSuffix(out.String(), "\n")
}

func goldenHeader(ingress string) string {
	return "# The calls of TestIngress's table through the " + ingress + " ingress, volatile values normalised.\n" +
		"# Regenerate: go test ./internal/gateway -run TestIngress -count=1 -update\n"
}

// checkIngressGolden compares got with the golden file at path, or rewrites it
// under -update.
func checkIngressGolden(t *testing.T, path, got string) {
	t.Helper()
	if *updateIngressGoldens {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if string(want) == got {
		return
	}
	wl, gl := strings.Split(string(want), "\n"), strings.Split(got, "\n")
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			t.Errorf("%s differs from line %d:\n want %q\n  got %q\n(run with -update to rewrite it, and read the diff)", path, i+1, w, g)
			return
		}
	}
}
