package cli_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/cli"
)

// The spec's example, corrected (protocol/a2s/testdata), and its checksum.
const (
	weatherYAML = "../../protocol/a2s/testdata/weather.yaml"
	weatherJSON = "../../protocol/a2s/testdata/weather.json"
	weatherSum  = "sha256:0bdb47a4f9f29e229bbd9addc2ab4e2904b34a603bdf77e058e84b73b28869c3"
)

func readFixture(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCapLint(t *testing.T) {
	// Warnings alone: exit 0, the warning printed as file:line:col.
	code, out, errOut := sluice(t, "", "cap", "lint", weatherYAML)
	if code != cli.ExitOK || out != weatherYAML+":137:20: warning: A2S051 lifecycle \"flow\" is read as \"task\"\n" || errOut != "0 errors, 1 warning\n" {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = sluice(t, "", "cap", "lint", weatherJSON)
	if code != cli.ExitOK || !strings.Contains(out, weatherJSON+":182:24: warning: A2S051") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	// Files are linted as a set: the YAML and JSON forms are one id and
	// version twice.
	code, out, _ = sluice(t, "", "cap", "lint", weatherYAML, weatherJSON)
	if code != cli.ExitInvalid || !strings.Contains(out, "error: A2S092 WeatherUpdateCapability version 1.0.0 is also defined in") {
		t.Fatalf("duplicate: exit %d\n%s", code, out)
	}
	// An error: exit 2.
	bad := strings.Replace(readFixture(t, weatherYAML), `mapping: "getWeather.outputs.temperature"`, `mapping: "getWether.outputs.temperature"`, 1)
	file := writeFile(t, "bad.yaml", bad)
	code, out, _ = sluice(t, "", "cap", "lint", file)
	if code != cli.ExitInvalid || !strings.Contains(out, file+":132:18: error: A2S040 getWether.outputs.temperature: there is no task getWether") {
		t.Fatalf("bad: exit %d\n%s", code, out)
	}
	// Standard input, syntax errors in JSON terms.
	code, out, _ = sluice(t, `{"a2s": "1.0.0",}`, "cap", "lint", "-")
	if code != cli.ExitInvalid || !strings.Contains(out, "-:1:17: error: A2S001 JSON: unexpected character '}'") {
		t.Fatalf("stdin: exit %d\n%s", code, out)
	}
	// A clean document prints nothing.
	clean := strings.Replace(readFixture(t, weatherYAML), "lifecycle: flow", "lifecycle: task", 1)
	clean = strings.Replace(clean, "checksum: \"sha256:0bdb", "checksum: \"sha256:xxxx", 1)
	file = writeFile(t, "clean.yaml", clean)
	code, out, _ = sluice(t, "", "cap", "checksum", file)
	sum := strings.TrimSpace(out)
	clean = strings.Replace(clean, "sha256:xxxx47a4f9f29e229bbd9addc2ab4e2904b34a603bdf77e058e84b73b28869c3", sum, 1)
	file = writeFile(t, "clean.yaml", clean)
	if code, out, errOut = sluice(t, "", "cap", "lint", file); code != cli.ExitOK || out != "" || errOut != "" {
		t.Fatalf("clean: exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestCapLintJSON(t *testing.T) {
	code, out, _ := sluice(t, "", "cap", "lint", "--json", weatherYAML)
	var rep struct {
		Diagnostics []struct {
			Rule, Severity, File, Path, Message string
			Line, Col                           int
		}
		Errors, Warnings int
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	d := rep.Diagnostics
	if code != cli.ExitOK || rep.Errors != 0 || rep.Warnings != 1 || len(d) != 1 || d[0].Rule != "A2S051" ||
		d[0].Line != 137 || d[0].Col != 20 || d[0].Path != "tasks[1].outputs.shouldPost.lifecycle" || d[0].Severity != "warning" {
		t.Fatalf("exit %d\n%s", code, out)
	}
	code, out, _ = sluice(t, "a2s: 1.0.0\n", "cap", "lint", "--json", "-")
	if code != cli.ExitInvalid || !strings.Contains(out, `"rule": "A2S010"`) || !strings.Contains(out, `"errors": 4`) {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

func TestCapLintUsage(t *testing.T) {
	if code, _, _ := sluice(t, "", "cap", "lint"); code != cli.ExitInvalid {
		t.Fatalf("no file: exit %d", code)
	}
	if code, _, errOut := sluice(t, "", "cap", "lint", "/no/such/cap.yaml"); code != cli.ExitInvalid || !strings.Contains(errOut, "cannot read capability") {
		t.Fatalf("missing file: exit %d %s", code, errOut)
	}
	big := writeFile(t, "big.yaml", "a: "+strings.Repeat("x", 1<<20)+"\n")
	if code, out, _ := sluice(t, "", "cap", "lint", big); code != cli.ExitInvalid || !strings.Contains(out, "error: A2S002 document is larger than the limit") {
		t.Fatalf("big file: exit %d %s", code, out)
	}
}

func TestCapChecksum(t *testing.T) {
	for _, f := range []string{weatherYAML, weatherJSON} {
		code, out, _ := sluice(t, "", "cap", "checksum", f)
		if code != cli.ExitOK || out != weatherSum+"\n" {
			t.Fatalf("%s: exit %d %q", f, code, out)
		}
		if code, _, errOut := sluice(t, "", "cap", "checksum", "--verify", f); code != cli.ExitOK {
			t.Fatalf("%s --verify: exit %d %s", f, code, errOut)
		}
	}
	// Bare hex verifies too.
	bare := strings.Replace(readFixture(t, weatherYAML), weatherSum, strings.ToUpper(strings.TrimPrefix(weatherSum, "sha256:")), 1)
	if code, _, errOut := sluice(t, "", "cap", "checksum", "--verify", writeFile(t, "bare.yaml", bare)); code != cli.ExitOK {
		t.Fatalf("bare hex: exit %d %s", code, errOut)
	}
	// A changed document: mismatch, exit 1, the checksum printed anyway.
	changed := strings.Replace(readFixture(t, weatherYAML), "San Francisco", "Oakland", 1)
	code, out, errOut := sluice(t, "", "cap", "checksum", "--verify", writeFile(t, "changed.yaml", changed))
	if code != cli.ExitFailed || !strings.HasPrefix(out, "sha256:") || out == weatherSum+"\n" || !strings.Contains(errOut, "checksum mismatch") {
		t.Fatalf("mismatch: exit %d %q %s", code, out, errOut)
	}
	// No checksum field: exit 1. A placeholder: exit 1.
	if code, _, errOut := sluice(t, "a2s: 1.0.0\nid: X\n", "cap", "checksum", "--verify", "-"); code != cli.ExitFailed || !strings.Contains(errOut, "no checksum") {
		t.Fatalf("no checksum: exit %d %s", code, errOut)
	}
	if code, _, errOut := sluice(t, "checksum: \"<sha256>\"\n", "cap", "checksum", "--verify", "-"); code != cli.ExitFailed || !strings.Contains(errOut, "not sha256") {
		t.Fatalf("placeholder: exit %d %s", code, errOut)
	}
	// Unreadable documents: exit 2.
	if code, _, errOut := sluice(t, "a: [", "cap", "checksum", "--verify", "-"); code != cli.ExitInvalid || !strings.Contains(errOut, "YAML") {
		t.Fatalf("bad syntax: exit %d %s", code, errOut)
	}
	if code, _, _ := sluice(t, "", "cap", "checksum"); code != cli.ExitInvalid {
		t.Fatalf("no file: exit %d", code)
	}
}

func TestCapSchema(t *testing.T) {
	code, out, _ := sluice(t, "", "cap", "schema")
	var s map[string]any
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != cli.ExitOK || s["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Fatalf("exit %d %v\n%.200s", code, err, out)
	}
}
