package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestA2AJSClient drives sluice's A2A server with the @a2a-js/sdk 1.3.0
// client (its JSON-RPC transport, the card read from the agent's URL):
// a blocking send, a read, a streamed send, a cancel and an unknown task.
// SLUICE_TEST_A2A_JS names the folder where .ci/run installed the SDK
// (outside the repository); without it, or without node, the test skips.
func TestA2AJSClient(t *testing.T) {
	dir := os.Getenv("SLUICE_TEST_A2A_JS")
	if dir == "" {
		t.Skip("SLUICE_TEST_A2A_JS is not set (.ci/run installs @a2a-js/sdk 1.3.0 when npm answers)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node")
	}
	script, err := os.ReadFile(filepath.Join("testdata", "a2ajs", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	// The script sits beside the SDK's node_modules so that its imports
	// resolve there.
	path := filepath.Join(dir, "sluice-a2a-client-test.mjs")
	if err := os.WriteFile(path, script, 0o600); err != nil {
		t.Fatal(err)
	}
	s := newServer(t)
	key, _, _ := registerA2AAgents(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, path, s.http.URL, key, "echo", "stall")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the @a2a-js/sdk client: %v\n%s", err, stderr.String())
	}
	var out struct {
		Send struct {
			State  string         `json:"state"`
			Output map[string]any `json:"output"`
			ID     string         `json:"id"`
		} `json:"send"`
		Get struct {
			State string `json:"state"`
			ID    string `json:"id"`
		} `json:"get"`
		Stream []string `json:"stream"`
		Cancel struct {
			State string `json:"state"`
		} `json:"cancel"`
		Missing string `json:"missing"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("%v: %s\n%s", err, stdout.String(), stderr.String())
	}
	t.Logf("the @a2a-js/sdk client saw: %s", strings.TrimSpace(stdout.String()))
	echo, _ := out.Send.Output["echo"].(map[string]any)
	if out.Send.State != "TASK_STATE_COMPLETED" || echo["text"] != "hello" || out.Get.ID != out.Send.ID || out.Get.State != "TASK_STATE_COMPLETED" {
		t.Fatalf("send and get: %s", stdout.String())
	}
	joined := strings.Join(out.Stream, " ")
	if len(out.Stream) < 2 || !strings.HasPrefix(out.Stream[0], "task:") || !strings.Contains(joined, `"text":"streamed"`) ||
		out.Stream[len(out.Stream)-1] != "status:TASK_STATE_COMPLETED" {
		t.Fatalf("stream: %v", out.Stream)
	}
	if out.Cancel.State != "TASK_STATE_CANCELED" {
		t.Fatalf("cancel: %s", stdout.String())
	}
	if !strings.Contains(strings.ToLower(out.Missing), "not found") {
		t.Fatalf("an unknown task: %q", out.Missing)
	}
}
