package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestVaultPutPromptsOnATerminal: with stdin a terminal and no --value,
// vault put asks on stderr, reads without echo, and sends what was typed;
// the value appears in no output.
func TestVaultPutPromptsOnATerminal(t *testing.T) {
	const secret = "typed-secret-8812"
	var sent map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewDecoder(r.Body).Decode(&sent)
		_, _ = io.WriteString(w, `{"id":"gh","type":"bearer-token","hosts":[]}`)
	}))
	defer srv.Close()
	oldFd, oldRead := terminalFd, readPassword
	t.Cleanup(func() { terminalFd, readPassword = oldFd, oldRead })
	terminalFd = func(io.Reader) (int, bool) { return 7, true }
	var readFd int
	readPassword = func(fd int) ([]byte, error) { readFd = fd; return []byte(secret), nil }
	t.Setenv("SLUICE_URL", srv.URL)
	t.Setenv("SLUICE_ADMIN_KEY", "admin-key-for-the-prompt-test-0123456789")

	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"vault", "put", "gh", "--type", "bearer-token"}, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code != 0 || readFd != 7 || sent["value"] != secret {
		t.Fatalf("put: %d fd %d sent %v; %s %s", code, readFd, sent, out.String(), errb.String())
	}
	if !strings.Contains(errb.String(), "Value of credential gh (not shown): ") {
		t.Errorf("no prompt: %q", errb.String())
	}
	if strings.Contains(out.String()+errb.String(), secret) {
		t.Errorf("the value is shown")
	}

	// Not a terminal: stdin is read as it is, without a prompt.
	terminalFd = func(io.Reader) (int, bool) { return 0, false }
	out.Reset()
	errb.Reset()
	code = Main(context.Background(), []string{"vault", "put", "gh", "--type", "bearer-token"}, Stdio{In: strings.NewReader("piped-value\n"), Out: &out, Err: &errb})
	if code != 0 || sent["value"] != "piped-value" || strings.Contains(errb.String(), "Value of credential") {
		t.Fatalf("piped: %d %v %q", code, sent, errb.String())
	}
}
