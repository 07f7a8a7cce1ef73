package cli

// An internal test: `cap publish` is not registered under `sluice cap` by
// this file's owner (cap.go adds it), so the command is run on its own.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/internal/capreg"
	"github.com/sluicehq/sluice/protocol/a2s"
)

const publishDoc = `a2s: 1.0.0
id: Hello
description: Says hello
version: 1.2.0
type: atomic
audit: {status: audited}
permissions: {level: basic}
inputs:
  name: {type: string}
outputs:
  greeting: {type: string, lifecycle: task}
tasks:
  - id: greet
    type: agent_decision
    inputs:
      name: {mapping: inputs.name}
    outputs:
      greeting: {type: string, lifecycle: task}
    definition:
      logic: |
        greeting = "hello " + name
`

func sealDoc(t *testing.T, text string) string {
	t.Helper()
	tree, err := a2s.ParseTree([]byte(text), a2s.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := a2s.ComputeChecksum(tree)
	if err != nil {
		t.Fatal(err)
	}
	return text + "checksum: \"" + sum + "\"\n"
}

func runPublish(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	io := Stdio{In: strings.NewReader(""), Out: &out, Err: &errb}
	root := &cobra.Command{Use: "sluice", SilenceUsage: true, SilenceErrors: true}
	capCmd := &cobra.Command{Use: "cap"}
	capCmd.AddCommand(newCapPublishCmd(io))
	root.AddCommand(capCmd)
	root.SetArgs(append([]string{"cap", "publish"}, args...))
	root.SetOut(&out)
	root.SetErr(&errb)
	err := root.ExecuteContext(context.Background())
	var ee *exitError
	switch {
	case err == nil:
		return ExitOK, out.String(), errb.String()
	case errors.As(err, &ee):
		if ee.msg != "" {
			fmt.Fprintln(&errb, "sluice:", ee.msg)
		}
		return ee.code, out.String(), errb.String()
	}
	fmt.Fprintln(&errb, "sluice:", err)
	return ExitInvalid, out.String(), errb.String()
}

// fakeRegistry checks the shape of publish requests and answers with
// answer (status, body); it counts the requests.
type fakeRegistry struct {
	t       *testing.T
	key     string
	status  int
	answer  func(req capreg.PublishRequest) any
	calls   atomic.Int32
	mu      sync.Mutex
	lastReq capreg.PublishRequest
}

func (f *fakeRegistry) last() capreg.PublishRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastReq
}

func (f *fakeRegistry) setAnswer(a func(capreg.PublishRequest) any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answer = a
}

func (f *fakeRegistry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	switch {
	case r.Method != http.MethodPost || r.URL.Path != "/api/v1/a2s/registry":
		f.t.Errorf("request %s %s", r.Method, r.URL.Path)
	case r.Header.Get("Authorization") != "Bearer "+f.key:
		f.t.Errorf("authorization %q", r.Header.Get("Authorization"))
	case !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json"):
		f.t.Errorf("content type %q", r.Header.Get("Content-Type"))
	}
	var raw map[string]any
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(&raw); err != nil {
		f.t.Errorf("body: %v", err)
	}
	for k := range raw {
		if k != "namespace" && k != "document" && k != "file" {
			f.t.Errorf("unexpected body field %q", k)
		}
	}
	b, _ := json.Marshal(raw)
	var req capreg.PublishRequest
	_ = json.Unmarshal(b, &req)
	f.mu.Lock()
	f.lastReq = req
	answer := f.answer
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.status)
	json.NewEncoder(w).Encode(answer(req))
}

func startFake(t *testing.T, status int, answer func(capreg.PublishRequest) any) (*fakeRegistry, *httptest.Server) {
	t.Helper()
	f := &fakeRegistry{t: t, key: "adm_test_key_1234", status: status, answer: answer}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	t.Setenv("SLUICE_URL", srv.URL)
	t.Setenv("SLUICE_ADMIN_KEY", f.key)
	return f, srv
}

func entryAnswer(req capreg.PublishRequest) any {
	return capreg.Entry{Namespace: req.Namespace, ID: "Hello", Version: "1.2.0", Checksum: "sha256:" + strings.Repeat("ab", 32),
		Type: "atomic", Level: "basic", AuditStatus: "audited", Format: "yaml", PublishedBy: "admin", Document: []byte(req.Document)}
}

func writeDoc(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCapPublish(t *testing.T) {
	f, _ := startFake(t, http.StatusCreated, entryAnswer)
	text := sealDoc(t, publishDoc)
	file := writeDoc(t, "hello.yaml", text)

	code, out, errOut := runPublish(t, file, "--namespace", "core/greetings")
	if code != ExitOK {
		t.Fatalf("publish: %d %s %s", code, out, errOut)
	}
	if req := f.last(); req.Namespace != "core/greetings" || req.Document != text || req.File != "hello.yaml" {
		t.Fatalf("request: %+v", req)
	}
	var printed map[string]any
	if err := json.Unmarshal([]byte(out), &printed); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if _, ok := printed["document"]; ok || printed["namespace"] != "core/greetings" || printed["version"] != "1.2.0" || printed["id"] != "Hello" {
		t.Fatalf("printed: %s", out)
	}
	if strings.Contains(out+errOut, f.key) {
		t.Error("the admin key was printed")
	}

	// The default namespace; an answer that wraps the entry (as the gateway
	// does, with the lint warnings) loses its document too.
	f.setAnswer(func(req capreg.PublishRequest) any {
		return map[string]any{"capability": entryAnswer(req), "warnings": []string{"hello.yaml:1:1: warning: A2S014 x"}}
	})
	code, out, errOut = runPublish(t, file)
	if code != ExitOK || f.last().Namespace != "default" || strings.Contains(out, `"document"`) || !strings.Contains(out, `"warnings": [`) ||
		!strings.Contains(out, `"version": "1.2.0"`) {
		t.Fatalf("default namespace: %d %q %s %s", code, f.last().Namespace, out, errOut)
	}
}

func TestCapPublishFlagsOverrideEnvironment(t *testing.T) {
	f, srv := startFake(t, http.StatusOK, entryAnswer)
	t.Setenv("SLUICE_URL", "http://127.0.0.1:1") // nothing listens there
	t.Setenv("SLUICE_ADMIN_KEY", "wrong")
	keyFile := writeDoc(t, "key", f.key)
	file := writeDoc(t, "hello.yaml", sealDoc(t, publishDoc))
	code, out, errOut := runPublish(t, file, "--url", srv.URL, "--admin-key", "@"+keyFile)
	if code != ExitOK || f.calls.Load() != 1 {
		t.Fatalf("flags: %d %s %s", code, out, errOut)
	}
}

func TestCapPublishRefusedLocally(t *testing.T) {
	f, _ := startFake(t, http.StatusCreated, entryAnswer)
	for _, tc := range []struct {
		name, body string
		args       []string
		says       string
	}{
		{"lint error", sealDoc(t, strings.Replace(publishDoc, "type: atomic", "type: atomik", 1)), nil, "A2S013"},
		{"not YAML", "a2s: [1\n", nil, "A2S001"},
		{"no checksum", publishDoc, nil, "has no checksum"},
		{"wrong checksum", publishDoc + "checksum: \"sha256:" + strings.Repeat("0", 64) + "\"\n", nil, "A2S080"},
		{"bad namespace", sealDoc(t, publishDoc), []string{"--namespace", "Core/X"}, "--namespace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := writeDoc(t, "hello.yaml", tc.body)
			code, out, errOut := runPublish(t, append([]string{file}, tc.args...)...)
			if code != ExitInvalid || out != "" || !strings.Contains(errOut, tc.says) {
				t.Fatalf("%d out %q err %q", code, out, errOut)
			}
		})
	}
	// The missing checksum's message gives the checksum to add.
	file := writeDoc(t, "hello.yaml", publishDoc)
	tree, _ := a2s.ParseTree([]byte(publishDoc), a2s.Options{})
	sum, _ := a2s.ComputeChecksum(tree)
	if _, _, errOut := runPublish(t, file); !strings.Contains(errOut, sum) {
		t.Errorf("no checksum suggested: %s", errOut)
	}
	if _, _, errOut := runPublish(t, filepath.Join(t.TempDir(), "missing.yaml")); !strings.Contains(errOut, "cannot read") {
		t.Errorf("a missing file: %s", errOut)
	}
	if f.calls.Load() != 0 {
		t.Fatalf("the server was called %d times for documents refused locally", f.calls.Load())
	}
	t.Setenv("SLUICE_ADMIN_KEY", "")
	if code, _, errOut := runPublish(t, writeDoc(t, "hello.yaml", sealDoc(t, publishDoc))); code != ExitInvalid || !strings.Contains(errOut, "admin key") {
		t.Fatalf("no admin key: %d %s", code, errOut)
	}
}

func TestCapPublishRefusedByServer(t *testing.T) {
	diags := []a2s.Diagnostic{{Rule: "A2S080", Severity: a2s.SeverityError, File: "hello.yaml", Line: 20, Col: 11, Message: "checksum does not match"}}
	startFake(t, http.StatusConflict, func(capreg.PublishRequest) any {
		return map[string]any{"error": map[string]any{"type": "ExecutionError",
			"message": "core/Hello@1.2.0 is already published with checksum sha256:00; versions are immutable; publish a new version",
			"details": map[string]any{"diagnostics": diags}}}
	})
	file := writeDoc(t, "hello.yaml", sealDoc(t, publishDoc))
	code, out, errOut := runPublish(t, file, "--namespace", "core")
	if code != ExitFailed || out != "" || !strings.Contains(errOut, "HTTP 409") || !strings.Contains(errOut, "immutable") ||
		!strings.Contains(errOut, "hello.yaml:20:11: error: A2S080 checksum does not match") {
		t.Fatalf("refusal: %d out %q err %q", code, out, errOut)
	}
	// A server that cannot be reached.
	t.Setenv("SLUICE_URL", "http://127.0.0.1:1")
	if code, _, errOut := runPublish(t, file); code != ExitFailed || errOut == "" {
		t.Fatalf("unreachable: %d %s", code, errOut)
	}
}
