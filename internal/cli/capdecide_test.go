package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/cli"
	"github.com/sluicehq/sluice/protocol/a2s"
)

const promptCap = `a2s: 1.0.0
id: Greet
version: 1.0.0
type: atomic
description: asks the agent for a greeting
audit: {status: unaudited}
permissions: {level: basic}
inputs:
  name: {type: string}
outputs:
  greeting: {type: string, lifecycle: task}
tasks:
  - id: ask
    type: prompt
    inputs:
      name: {mapping: inputs.name}
    outputs:
      greeting: {type: string, lifecycle: task}
    prompt:
      template: "Greet {name}."
      format:
        greeting: string
`

// `sluice cap decide` answers a run that waits, on a server.
func TestCapDecide(t *testing.T) {
	srv := adminServer(t)
	tree, _ := a2s.ParseTree([]byte(promptCap), a2s.Options{})
	sum, _ := a2s.ComputeChecksum(tree)
	admin := client.New(srv.URL, os.Getenv("SLUICE_ADMIN_KEY"), nil)
	if err := admin.Do(context.Background(), "POST", "/api/v1/a2s/registry",
		map[string]any{"namespace": "demo", "document": "checksum: " + sum + "\n" + promptCap}, nil); err != nil {
		t.Fatal(err)
	}
	_, out, _ := sluice(t, "", "accounts", "create", "--name", "asker", "--capability-level", "basic")
	var created struct {
		APIKey string `json:"api_key"`
	}
	_ = json.Unmarshal([]byte(out), &created)
	t.Setenv("SLUICE_API_KEY", created.APIKey)
	run, err := client.New(srv.URL, created.APIKey, nil).RunCapability(context.Background(), "demo/Greet", map[string]any{"name": "Ada"}, client.RunCapabilityOptions{})
	if err != nil || run.Status != "waiting" || run.Pending == nil || run.Pending.Prompt != "Greet Ada." {
		t.Fatalf("run: %+v %v", run, err)
	}
	code, _, errOut := sluice(t, "", "cap", "decide", run.RunID, "--answer", `{"greeting": 5}`)
	if code != cli.ExitInvalid || !strings.Contains(errOut, "greeting") { // a 400: the answer is invalid input
		t.Fatalf("a wrong answer: %d %s", code, errOut)
	}
	code, _, _ = sluice(t, "", "cap", "decide", run.RunID, "--answer", `not json`)
	if code != cli.ExitInvalid {
		t.Fatalf("not JSON: %d", code)
	}
	code, out, errOut = sluice(t, "", "cap", "decide", run.RunID, "--answer", `{"greeting": "Hello, Ada!"}`)
	if code != 0 || !strings.Contains(out, `"greeting": "Hello, Ada!"`) || !strings.Contains(out, `"status": "success"`) {
		t.Fatalf("decide: %d %s %s", code, out, errOut)
	}
	if strings.Contains(out+errOut, created.APIKey) {
		t.Fatal("the key was printed")
	}
}
