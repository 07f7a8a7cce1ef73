package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/cli"
)

// sluiceTTY runs sluice as on a terminal: stdout and stderr are terminals.
func sluiceTTY(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	yes := true
	code = cli.Main(context.Background(), args, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errb, ErrIsTerminal: &yes, OutIsTerminal: &yes})
	return code, out.String(), errb.String()
}

// remoteAccount starts a server and makes an account that may run the data
// workflows; SLUICE_API_KEY is its key. It returns the account's client.
func remoteAccount(t *testing.T) *client.Client {
	t.Helper()
	srv := adminServer(t)
	code, out, errOut := sluice(t, "", "accounts", "create", "--name", "runner", "--operations", "LoadData,FilterData,TransformData,Wait", "--capability-level", "basic")
	var created struct {
		APIKey string `json:"api_key"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &created) != nil {
		t.Fatalf("create: %d %s %s", code, out, errOut)
	}
	t.Setenv("SLUICE_API_KEY", created.APIKey)
	return client.New(srv.URL, created.APIKey, nil)
}

// failingFlow fails at its last step: its input path holds nothing.
var failingFlow = strings.Replace(dataFlow, `"/workflow/big","transform"`, `"/workflow/nothing","transform"`, 1)

// waitFlow parks on a Wait of ten minutes: a run that stays running.
const waitFlow = `{"type":"operationUpdate","operationId":"nap","operation":{"Wait":{"duration":600000}}}
{"type":"beginExecution","executionId":"nap-1","operationOrder":["nap"]}
`

func decodeJSON[T any](t *testing.T, what, s string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s is not the JSON expected: %v\n%s", what, err, s)
	}
	return v
}

func TestExecCommand(t *testing.T) {
	remoteAccount(t)
	flow := writeFile(t, "flow.jsonl", dataFlow)

	// Synchronous: the execution, exit 0.
	code, out, errOut := sluice(t, "", "exec", flow, "--input", `{"min":2}`)
	ex := decodeJSON[map[string]any](t, "exec", out)
	got, _ := json.Marshal(ex["results"].(map[string]any)["sorted"])
	if code != cli.ExitOK || ex["status"] != "success" || string(got) != `[{"n":"c","v":2},{"n":"a","v":3}]` {
		t.Fatalf("exec: %d %s %s", code, out, errOut)
	}
	// The workflow fails: exit 1, the execution printed with its error.
	code, out, _ = sluice(t, failingFlow, "exec", "-", "--input", `{"min":2}`, "--id", "fail-1")
	if code != cli.ExitFailed || decodeJSON[map[string]any](t, "failed exec", out)["status"] != "failed" {
		t.Fatalf("failing exec: %d %s", code, out)
	}
	// An invalid document: the server's 400, its report printed, exit 2.
	bad := strings.Replace(dataFlow, `"operator":">="`, `"operator":"=>"`, 1)
	code, out, _ = sluice(t, bad, "exec", "-")
	rep := decodeJSON[client.ValidateResult](t, "report", out)
	if code != cli.ExitInvalid || rep.Valid || len(rep.Errors) == 0 || rep.Errors[0].Line != 2 {
		t.Fatalf("invalid exec: %d %s", code, out)
	}
	// On a terminal, a problem a line, whole.
	code, out, _ = sluiceTTY(t, "exec", writeFile(t, "bad.jsonl", bad))
	if code != cli.ExitInvalid || !strings.HasPrefix(out, "error: line 2 big ") || !strings.Contains(out, "operator") {
		t.Fatalf("invalid exec on a terminal: %d %s", code, out)
	}
	// Bad input and a missing file: exit 2 naming them.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"exec", flow, "--input", "{nope"}, "--input"},
		{[]string{"exec", "/no/such/flow.jsonl"}, "/no/such/flow.jsonl"},
		{[]string{"exec", flow, "-o", "xml"}, "json, yaml or table"},
		{[]string{"exec", flow, "--async", "--follow"}, "--follow"},
		{[]string{"exec", writeFile(t, "nobegin.jsonl", strings.SplitAfter(dataFlow, "\n")[0]), "--id", "x"}, "beginExecution"},
	} {
		code, _, errOut := sluice(t, "", c.args...)
		if code != cli.ExitInvalid || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, errOut)
		}
	}
	// --id is the execution's id, the idempotency key: the same id answers
	// the execution already run.
	code, out, _ = sluice(t, "", "exec", flow, "--input", `{"min":2}`, "--id", "cli-exec-7")
	first := decodeJSON[map[string]any](t, "exec --id", out)
	code2, out2, _ := sluice(t, "", "exec", flow, "--input", `{"min":2}`, "--id", "cli-exec-7")
	again := decodeJSON[map[string]any](t, "exec --id again", out2)
	if code != 0 || code2 != 0 || again["client_execution_id"] != "cli-exec-7" || again["execution_id"] != first["execution_id"] {
		t.Fatalf("--id: %d %s / %d %s", code, out, code2, out2)
	}

	// --async: queued, its id printed; tail follows it to its end.
	code, out, _ = sluice(t, "", "exec", flow, "--input", `{"min":2}`, "--async", "--id", "cli-async-1")
	queued := decodeJSON[map[string]any](t, "exec --async", out)
	asyncID, _ := queued["execution_id"].(string)
	if code != 0 || asyncID == "" || queued["status"] != "queued" {
		t.Fatalf("--async: %d %s", code, out)
	}
	code, out, errOut = sluice(t, "", "runs", "tail", asyncID, "-o", "json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := decodeJSON[map[string]any](t, "the last frame", lines[len(lines)-1])
	if code != 0 || len(lines) < 5 || last["is_final"] != true {
		t.Fatalf("tail -o json: %d %s %s", code, out, errOut)
	}
	for _, l := range lines {
		decodeJSON[map[string]any](t, "a frame line", l)
	}

	// --follow on a terminal: a line per step on stderr, then the execution.
	code, out, errOut = sluiceTTY(t, "exec", flow, "--input", `{"min":2}`, "--follow", "--id", "cli-follow-1")
	for _, want := range []string{"▶ execution exec-", "✓ seed", "✓ sorted", "■ SUCCESS"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("--follow progress lacks %q:\n%s", want, errOut)
		}
	}
	if code != 0 || !strings.HasPrefix(out, "EXECUTION_ID") || !strings.Contains(out, "cli-follow-1") {
		t.Fatalf("--follow table: %d\n%s", code, out)
	}
	// --follow of a failing workflow: the failed step, exit 1; -o json: NDJSON.
	code, out, errOut = sluice(t, failingFlow, "exec", "-", "--input", `{"min":2}`, "--follow", "-o", "json", "--id", "fail-follow-1")
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if code != cli.ExitFailed || len(lines) < 3 || !strings.Contains(out, `"kind":"failed"`) {
		t.Fatalf("--follow failing -o json: %d %s %s", code, out, errOut)
	}
	code, out, _ = sluice(t, "", "exec", flow, "--input", `{"min":2}`, "-o", "yaml")
	var y map[string]any
	if code != 0 || yaml.Unmarshal([]byte(out), &y) != nil || y["status"] != "success" {
		t.Fatalf("-o yaml: %d %s", code, out)
	}
}

func TestRunsCommands(t *testing.T) {
	c := remoteAccount(t)
	ctx := context.Background()
	flow := writeFile(t, "flow.jsonl", dataFlow)
	// exec prints the execution; its execution_id is the run's id.
	execID := func(stdin string, args ...string) string {
		t.Helper()
		code, out, errOut := sluice(t, stdin, append([]string{"exec"}, args...)...)
		id, _ := decodeJSON[map[string]any](t, "exec", out)["execution_id"].(string)
		if code > 1 || id == "" {
			t.Fatalf("exec %v: %d %s %s", args, code, out, errOut)
		}
		return id
	}
	ok1 := execID("", flow, "--input", `{"min":2}`, "--id", "r-ok-1")
	execID("", flow, "--input", `{"min":2}`, "--id", "r-ok-2")
	failed := execID(failingFlow, "-", "--input", `{"min":2}`, "--id", "r-fail-1", "--async")
	if code, _, errOut := sluice(t, "", "runs", "tail", failed); code != cli.ExitFailed { // to its end
		t.Fatalf("tail of a failing run: %d %s", code, errOut)
	}
	// The record is written just after the final frame: wait for it.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if r, err := c.Run(ctx, failed); err == nil && r.Final() || time.Now().After(deadline) {
			break
		}
	}

	// list -o json is an array of the API's own objects.
	code, out, errOut := sluice(t, "", "runs", "list")
	if code != 0 || !strings.HasPrefix(out, "[") {
		t.Fatalf("runs list: %d %s %s", code, out, errOut)
	}
	api, _, err := c.Runs(ctx, client.RunsQuery{})
	if err != nil {
		t.Fatal(err)
	}
	apiJSON, _ := json.Marshal(api)
	if want := decodeJSON[[]map[string]any](t, "API", string(apiJSON)); !reflect.DeepEqual(decodeJSON[[]map[string]any](t, "runs list", out), want) || len(want) != 3 {
		t.Fatalf("runs list is not the API's array:\n%s\n%s", out, apiJSON)
	}
	// yaml: the same objects.
	code, yout, _ := sluice(t, "", "runs", "list", "-o", "yaml")
	var ylist []map[string]any
	if code != 0 || yaml.Unmarshal([]byte(yout), &ylist) != nil || len(ylist) != 3 || ylist[0]["run_id"] != decodeJSON[[]map[string]any](t, "", out)[0]["run_id"] {
		t.Fatalf("runs list -o yaml: %d %s", code, yout)
	}
	// A table on a terminal: a header and a row per run.
	code, tout, _ := sluiceTTY(t, "runs", "list")
	rows := strings.Split(strings.TrimSpace(tout), "\n")
	if code != 0 || len(rows) != 4 || !strings.HasPrefix(rows[0], "RUN_ID") || !strings.Contains(tout, failed) || !strings.Contains(rows[0], "KIND") {
		t.Fatalf("runs list table: %d\n%s", code, tout)
	}
	// Filters.
	code, out, _ = sluice(t, "", "runs", "list", "--status", "failed", "--kind", "a2e")
	if l := decodeJSON[[]map[string]any](t, "filtered", out); code != 0 || len(l) != 1 || l[0]["run_id"] != failed {
		t.Fatalf("--status failed: %d %s", code, out)
	}
	code, out, _ = sluice(t, "", "runs", "list", "--since", "1h", "--limit", "2")
	if l := decodeJSON[[]map[string]any](t, "since", out); code != 0 || len(l) != 2 {
		t.Fatalf("--since 1h --limit 2: %d %s", code, out)
	}
	code, out, _ = sluice(t, "", "runs", "list", "--until", "2001-01-01")
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("--until 2001: %d %q", code, out)
	}
	for _, bad := range [][]string{{"--kind", "nope"}, {"--since", "yesterday"}, {"--limit", "0"}, {"--since", "1h", "--until", "2h"}} {
		code, _, errOut := sluice(t, "", append([]string{"runs", "list"}, bad...)...)
		if code != cli.ExitInvalid || errOut == "" {
			t.Errorf("runs list %v: exit %d %s", bad, code, errOut)
		}
	}
	// A non-admin naming another account is refused: 403, exit 1.
	if code, _, errOut := sluice(t, "", "runs", "list", "--account", "*"); code != cli.ExitFailed || !strings.Contains(errOut, "403") {
		t.Errorf("--account * as a non-admin: %d %s", code, errOut)
	}

	// An admin (only SLUICE_ADMIN_KEY set) lists every account's runs.
	apiKey := os.Getenv("SLUICE_API_KEY")
	t.Setenv("SLUICE_API_KEY", "")
	code, out, errOut = sluice(t, "", "runs", "list", "--account", "*")
	if l := decodeJSON[[]map[string]any](t, "--account *", out); code != 0 || len(l) != 3 {
		t.Fatalf("--account * as the admin: %d %s %s", code, out, errOut)
	}
	code, out, _ = sluice(t, "", "runs", "list")
	if l := decodeJSON[[]map[string]any](t, "the admin's own", out); code != 0 || len(l) != 0 {
		t.Fatalf("the admin's own runs: %d %s", code, out)
	}
	t.Setenv("SLUICE_API_KEY", apiKey)

	// get: the run and its detail; exit by its status.
	code, out, _ = sluice(t, "", "runs", "get", ok1)
	run := decodeJSON[map[string]any](t, "runs get", out)
	if code != 0 || run["kind"] != "a2e" || run["detail"].(map[string]any)["client_execution_id"] != "r-ok-1" {
		t.Fatalf("runs get: %d %s", code, out)
	}
	if code, out, _ = sluice(t, "", "runs", "get", failed); code != cli.ExitFailed {
		t.Fatalf("runs get of a failed run: %d %s", code, out)
	}
	if code, _, errOut = sluice(t, "", "runs", "get", "r-none"); code != cli.ExitFailed || !strings.Contains(errOut, "404") {
		t.Fatalf("runs get of no run: %d %s", code, errOut)
	}
	// events: the stored frames as a list, or a line per step.
	code, out, _ = sluice(t, "", "runs", "events", failed)
	frames := decodeJSON[[]map[string]any](t, "events", out)
	if code != cli.ExitFailed || len(frames) < 3 || frames[len(frames)-1]["is_final"] != true {
		t.Fatalf("runs events: %d %s", code, out)
	}
	code, out, _ = sluice(t, "", "runs", "events", failed, "--after", "2")
	if after := decodeJSON[[]map[string]any](t, "events --after", out); len(after) != len(frames)-2 {
		t.Fatalf("events --after 2: %d of %d frames", len(after), len(frames))
	}
	code, out, _ = sluiceTTY(t, "runs", "events", failed)
	if code != cli.ExitFailed || !strings.Contains(out, "✓ seed") || !strings.Contains(out, "✗ sorted") || !strings.Contains(out, "■ FAILED") {
		t.Fatalf("runs events table: %d\n%s", code, out)
	}
	// cancel: a running run is cancelled; an ended one is the server's 409.
	napping := execID(waitFlow, "-", "--async")
	code, out, errOut = sluice(t, "", "runs", "cancel", napping)
	if code != 0 || decodeJSON[map[string]any](t, "cancel", out)["status"] != "cancelled" {
		t.Fatalf("runs cancel: %d %s %s", code, out, errOut)
	}
	if code, _, errOut = sluice(t, "", "runs", "cancel", ok1); code != cli.ExitFailed || !strings.Contains(errOut, "409") {
		t.Fatalf("cancel of an ended run: %d %s", code, errOut)
	}
}

// A capability run waiting for a decision: runs get exits 3; cap list and
// cap get read the registry.
func TestRunsWaitingAndCapabilities(t *testing.T) {
	c := remoteAccount(t)
	ctx := context.Background()
	admin := client.New(os.Getenv("SLUICE_URL"), os.Getenv("SLUICE_ADMIN_KEY"), nil)
	publishPromptCap(t, admin)
	run, err := c.RunCapability(ctx, "demo/Greet", map[string]any{"name": "Ada"}, client.RunCapabilityOptions{})
	if err != nil || run.Status != "waiting" {
		t.Fatalf("run: %+v %v", run, err)
	}
	code, out, errOut := sluice(t, "", "runs", "get", run.RunID)
	if code != cli.ExitWaiting || decodeJSON[map[string]any](t, "get", out)["status"] != "waiting" {
		t.Fatalf("runs get of a waiting run: %d %s %s", code, out, errOut)
	}
	code, out, _ = sluice(t, "", "runs", "list", "--kind", "a2s", "--status", "waiting")
	if l := decodeJSON[[]map[string]any](t, "a2s list", out); code != 0 || len(l) != 1 || l[0]["run_id"] != run.RunID {
		t.Fatalf("list waiting: %d %s", code, out)
	}

	code, out, _ = sluice(t, "", "cap", "list")
	caps := decodeJSON[[]client.CapabilityEntry](t, "cap list", out)
	if code != 0 || len(caps) != 1 || caps[0].Namespace != "demo" || caps[0].ID != "Greet" || caps[0].Versions != 1 || caps[0].Document != "" {
		t.Fatalf("cap list: %d %s", code, out)
	}
	code, out, _ = sluice(t, "", "cap", "get", "demo/Greet", "--version", "^1.0.0")
	if e := decodeJSON[client.CapabilityEntry](t, "cap get", out); code != 0 || e.Version != "1.0.0" || !strings.Contains(e.Document, "Greet {name}.") {
		t.Fatalf("cap get: %d %s", code, out)
	}
	code, out, _ = sluiceTTY(t, "cap", "list")
	if code != 0 || !strings.HasPrefix(out, "NAMESPACE") || !strings.Contains(out, "Greet") {
		t.Fatalf("cap list table: %d\n%s", code, out)
	}
	if code, _, errOut := sluice(t, "", "cap", "get", "demo/Nope"); code != cli.ExitFailed || !strings.Contains(errOut, "404") {
		t.Fatalf("cap get of none: %d %s", code, errOut)
	}
}

func publishPromptCap(t *testing.T, admin *client.Client) {
	t.Helper()
	code, out, errOut := sluice(t, "", "cap", "checksum", writeFile(t, "greet.yaml", promptCap))
	sum := strings.TrimSpace(out)
	if code != 0 || sum == "" {
		t.Fatalf("checksum: %d %s %s", code, out, errOut)
	}
	if i := strings.LastIndex(sum, " "); i >= 0 {
		sum = sum[i+1:]
	}
	if err := admin.Do(context.Background(), "POST", "/api/v1/a2s/registry",
		map[string]any{"namespace": "demo", "document": "checksum: " + sum + "\n" + promptCap}, nil); err != nil {
		t.Fatal(err)
	}
}

func TestAuditAndAgentRunsCommands(t *testing.T) {
	c := remoteAccount(t)
	flow := writeFile(t, "flow.jsonl", dataFlow)
	if code, out, _ := sluice(t, "", "exec", flow, "--input", `{"min":2}`); code != 0 {
		t.Fatal(out)
	}
	// The audit trail is written behind the calls: wait for the execution's.
	var code int
	var out, errOut string
	var recs []map[string]any
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		code, out, errOut = sluice(t, "", "audit", "--method", "workflow.execute", "--since", "1h")
		if recs = decodeJSON[[]map[string]any](t, "audit", out); len(recs) > 0 || code != 0 {
			break
		}
	}
	if code != 0 || len(recs) == 0 || recs[0]["method"] != "workflow.execute" || recs[0]["decision"] != "allow" {
		t.Fatalf("audit: %d %s %s", code, out, errOut)
	}
	code, out, _ = sluice(t, "", "audit", "--until", "2001-01-01")
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("audit --until 2001: %d %q", code, out)
	}
	code, out, _ = sluiceTTY(t, "audit", "--limit", "3")
	if rows := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(rows) != 4 || !strings.HasPrefix(rows[0], "TIME") {
		t.Fatalf("audit table: %d\n%s", code, out)
	}
	if code, _, errOut := sluice(t, "", "audit", "--decision", "maybe"); code != cli.ExitInvalid || !strings.Contains(errOut, "--decision") {
		t.Fatalf("audit --decision maybe: %d %s", code, errOut)
	}

	code, out, errOut = sluice(t, "", "agents", "runs")
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("agents runs: %d %q %s", code, out, errOut)
	}
	_ = c
	t.Setenv("SLUICE_ADMIN_KEY", "")
	if code, _, errOut := sluice(t, "", "audit"); code != cli.ExitInvalid || !strings.Contains(errOut, "SLUICE_ADMIN_KEY") {
		t.Fatalf("audit without the admin key: %d %s", code, errOut)
	}
}

// -o on the list and get commands that were there before: one shape per
// object, a list an array.
func TestOutputOfAdminLists(t *testing.T) {
	adminServer(t)
	if code, out, _ := sluice(t, "", "accounts", "create", "--name", "shape"); code != 0 {
		t.Fatal(out)
	}
	code, out, _ := sluice(t, "", "accounts", "list", "-o", "yaml")
	var accts []map[string]any
	if code != 0 || yaml.Unmarshal([]byte(out), &accts) != nil || len(accts) < 1 {
		t.Fatalf("accounts list -o yaml: %d %s", code, out)
	}
	code, out, _ = sluiceTTY(t, "accounts", "list")
	if code != 0 || !strings.HasPrefix(out, "AGENT_ID") || !strings.Contains(out, "shape") {
		t.Fatalf("accounts list table: %d\n%s", code, out)
	}
	for _, args := range [][]string{{"vault", "list"}, {"agents", "list"}, {"api", "list"}} {
		code, out, errOut := sluice(t, "", args...)
		if code != 0 || strings.TrimSpace(out) != "[]" {
			t.Errorf("%v: an empty list is []: %d %q %s", args, code, out, errOut)
		}
	}
	if code, _, errOut := sluice(t, "", "vault", "list", "-o", "csv"); code != cli.ExitInvalid || !strings.Contains(errOut, "-o") {
		t.Fatalf("-o csv: %d %s", code, errOut)
	}
}

func TestUsageErrorsAndHints(t *testing.T) {
	for _, args := range [][]string{{"frobnicate"}, {"runs", "frobnicate"}, {"accounts", "nope"}, {"cap", "lists"}, {"agents", "run"}} {
		code, out, errOut := sluice(t, "", args...)
		if code != cli.ExitInvalid || !strings.Contains(errOut, "unknown command") || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	// help of a topic that does not exist is a usage error too; of one that
	// does, its help.
	if code, out, errOut := sluice(t, "", "help", "nope"); code != cli.ExitInvalid || !strings.Contains(errOut, `unknown help topic "nope"`) || out != "" {
		t.Errorf("help nope: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, out, _ := sluice(t, "", "help", "runs", "list"); code != 0 || !strings.Contains(out, "newest first") {
		t.Errorf("help runs list: %d %s", code, out)
	}
	// A group alone prints its help.
	if code, out, _ := sluice(t, "", "runs"); code != 0 || !strings.Contains(out, "tail") {
		t.Errorf("runs alone: %d %s", code, out)
	}
	// A server that is not there: the hint says what to do.
	t.Setenv("SLUICE_URL", "http://127.0.0.1:1")
	t.Setenv("SLUICE_API_KEY", "slk_x")
	t.Setenv("SLUICE_ADMIN_KEY", "slk_y")
	for _, args := range [][]string{{"runs", "list"}, {"exec", writeFile(t, "f.jsonl", dataFlow)}, {"audit"}, {"accounts", "list"}} {
		code, _, errOut := sluice(t, "", args...)
		if code != cli.ExitFailed || !strings.Contains(errOut, "cannot reach sluice at http://127.0.0.1:1: is `sluice serve` running? set SLUICE_URL") {
			t.Errorf("%v unreachable: %d %s", args, code, errOut)
		}
	}
	// A session URL without its path says the path.
	for _, u := range []string{"ws://127.0.0.1:1", "http://127.0.0.1:1/api/v1/session"} {
		code, _, errOut := sluice(t, "", "session", "call", "x", "--url", u)
		if code != cli.ExitInvalid || !strings.Contains(errOut, "/api/v1/session") {
			t.Errorf("session --url %s: %d %s", u, code, errOut)
		}
	}
}

// tail resumes a stream that breaks after the last frame it received: no
// frame lost, none twice.
func TestTailResumesABrokenStream(t *testing.T) {
	var calls []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		after := r.URL.Query().Get("after")
		calls = append(calls, after)
		w.Header().Set("Content-Type", "text/event-stream")
		switch after {
		case "": // frames 1 and 2, then the connection ends without the end event
			_, _ = io.WriteString(w, "id: 1\nevent: frame\ndata: {\"sequence\":0,\"is_final\":false}\n\n"+
				"id: 2\nevent: frame\ndata: {\"sequence\":1,\"is_final\":false}\n\n")
		case "2": // the server sends frame 2 again, then the final one
			_, _ = io.WriteString(w, "id: 2\nevent: frame\ndata: {\"sequence\":1,\"is_final\":false}\n\n"+
				"id: 3\nevent: frame\ndata: {\"sequence\":2,\"is_final\":true,\"response_kind\":\"e2a.complete\",\"body\":{\"result\":{\"status\":\"failed\"}}}\n\n"+
				"event: end\ndata: {\"run_id\":\"r\",\"frames\":2,\"last_seq\":3,\"ended\":true}\n\n")
		default:
			w.WriteHeader(500)
		}
	}))
	defer srv.Close()
	t.Setenv("SLUICE_URL", srv.URL)
	t.Setenv("SLUICE_API_KEY", "slk_test")
	code, out, errOut := sluice(t, "", "runs", "tail", "r", "-o", "json")
	want := `{"sequence":0,"is_final":false}` + "\n" + `{"sequence":1,"is_final":false}` + "\n" +
		`{"sequence":2,"is_final":true,"response_kind":"e2a.complete","body":{"result":{"status":"failed"}}}` + "\n"
	if code != cli.ExitFailed || out != want || len(calls) != 2 || calls[1] != "2" {
		t.Fatalf("exit %d, calls %q\n%s\n%s", code, calls, out, errOut)
	}
}
