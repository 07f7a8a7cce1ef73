package cli_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func weatherFixture(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../capability/testdata/weather.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCapTest(t *testing.T) {
	file := writeFile(t, "weather.yaml", weatherFixture(t))
	code, out, errOut := sluice(t, "", "cap", "test", file)
	if code != 0 || !strings.Contains(out, "PASS 1 Post weather update") || !strings.Contains(out, "PASS 2 Do not post") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	bad := writeFile(t, "bad.yaml", strings.Replace(weatherFixture(t), "temperature: 28\n        conditions: \"Sunny\"\n    tasks:", "temperature: 99\n        conditions: \"Sunny\"\n    tasks:", 1))
	code, out, _ = sluice(t, "", "cap", "test", bad)
	// The edit broke the checksum: the document is invalid before any example runs.
	if code != 2 {
		t.Fatalf("a document whose checksum does not match: exit %d\n%s", code, out)
	}
	// Without the checksum, the example runs and fails, saying why.
	lines := strings.Split(strings.Replace(weatherFixture(t), "temperature: 28\n        conditions: \"Sunny\"\n    tasks:", "temperature: 99\n        conditions: \"Sunny\"\n    tasks:", 1), "\n")
	var kept []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "checksum:") {
			kept = append(kept, l)
		}
	}
	code, out, _ = sluice(t, "", "cap", "test", writeFile(t, "nosum.yaml", strings.Join(kept, "\n")))
	if code != 1 || !strings.Contains(out, "FAIL 1") || !strings.Contains(out, `want {"conditions":"Sunny","temperature":99}`) || !strings.Contains(out, "PASS 2") {
		t.Fatalf("a failing example: exit %d\n%s", code, out)
	}
}

func TestCapRun(t *testing.T) {
	doc := `a2s: 1.0.0
id: Greeter
version: 1.0.0
type: atomic
description: greets
audit: {status: unaudited}
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
	file := writeFile(t, "greet.yaml", doc)
	code, out, errOut := sluice(t, "", "cap", "run", file, "--input", `{"name":"ada"}`)
	var r struct {
		Status  string         `json:"status"`
		Outputs map[string]any `json:"outputs"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.Status != "success" || r.Outputs["greeting"] != "hello ada" {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	// Bad inputs: exit 2 naming the field; a secret as an input is refused.
	for _, in := range []string{`{"name":5}`, `{"client_secret":"s3cr3t"}`, `{"nope":1}`, `[1]`} {
		code, out, errOut = sluice(t, "", "cap", "run", file, "--input", in)
		if code != 2 || strings.Contains(out+errOut, "s3cr3t") {
			t.Fatalf("input %s: exit %d\n%s\n%s", in, code, out, errOut)
		}
	}
	// A prompt waits: exit 3 and the prompt on stderr.
	prompt := strings.Replace(doc, `    type: agent_decision
    inputs:
      name: {mapping: inputs.name}
    outputs:
      greeting: {type: string, lifecycle: task}
    definition:
      logic: |
        greeting = "hello " + name
`, `    type: prompt
    inputs:
      name: {mapping: inputs.name}
    outputs:
      greeting: {type: string, lifecycle: task}
    prompt:
      template: "Greet {name} warmly."
      format:
        greeting: string
`, 1)
	code, out, errOut = sluice(t, "", "cap", "run", writeFile(t, "prompt.yaml", prompt), "--input", `{"name":"ada"}`)
	if code != 3 || !strings.Contains(errOut, "Greet ada warmly.") || !strings.Contains(out, `"status": "waiting"`) {
		t.Fatalf("prompt: exit %d\n%s\n%s", code, out, errOut)
	}
	// An invalid document: exit 2 with file:line:col.
	code, _, errOut = sluice(t, "", "cap", "run", writeFile(t, "broken.yaml", "a2s: 1.0.0\nid: [\n"), "--input", `{}`)
	if code != 2 || !strings.Contains(errOut, "broken.yaml:") {
		t.Fatalf("broken: exit %d\n%s", code, errOut)
	}
}

// On a terminal, cap test says on stderr as each example ends; piped, its
// stderr has no progress. Stdout is the same report either way.
func TestCapTestProgress(t *testing.T) {
	file := writeFile(t, "weather.yaml", weatherFixture(t))
	code, out, errOut := sluiceTTY(t, "cap", "test", file)
	// (After the document's lint warnings.)
	if code != 0 || !strings.HasSuffix(errOut, "\nexample 1/2 passed\nexample 2/2 passed\n") {
		t.Fatalf("on a terminal: exit %d, stderr %q", code, errOut)
	}
	code, piped, errOut := sluice(t, "", "cap", "test", file)
	if code != 0 || strings.Contains(errOut, "example") || piped != out {
		t.Fatalf("piped: exit %d, stderr %q, stdout %q (terminal: %q)", code, errOut, piped, out)
	}
}
