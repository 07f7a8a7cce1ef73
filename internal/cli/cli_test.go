package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/cli"
)

func sluice(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	no := false
	code = cli.Main(context.Background(), args, cli.Stdio{In: strings.NewReader(stdin), Out: &out, Err: &errb, ErrIsTerminal: &no})
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const dataFlow = `{"type":"operationUpdate","operationId":"seed","operation":{"LoadData":{"storage":"sessionStorage","key":"none","default":[{"n":"a","v":3},{"n":"b","v":1},{"n":"c","v":2}],"outputPath":"/workflow/items"}}}
{"type":"operationUpdate","operationId":"big","operation":{"FilterData":{"inputPath":"/workflow/items","conditions":[{"field":"v","operator":">=","value":{"path":"/input/min"}}],"outputPath":"/workflow/big"}}}
{"type":"operationUpdate","operationId":"sorted","operation":{"TransformData":{"inputPath":"/workflow/big","transform":"sort","config":{"field":"v"},"outputPath":"/workflow/sorted"}}}
{"type":"beginExecution","executionId":"cli-1","operationOrder":["seed","big","sorted"]}
`

func TestVersion(t *testing.T) {
	code, out, _ := sluice(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, "sluice ") {
		t.Fatalf("version: %d %q", code, out)
	}
}

func TestValidateExitCodes(t *testing.T) {
	code, out, _ := sluice(t, dataFlow, "validate", "-")
	if code != cli.ExitOK || !strings.Contains(out, `"valid": true`) {
		t.Fatalf("valid doc: exit %d, %s", code, out)
	}
	bad := strings.Replace(dataFlow, `"operator":">="`, `"operator":"=>"`, 1)
	code, out, _ = sluice(t, bad, "validate", "-")
	var rep struct {
		Valid  bool
		Errors []struct {
			Line        int
			Path        string
			OperationID string `json:"operationId"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("validate must print JSON: %v\n%s", err, out)
	}
	if code != cli.ExitInvalid || rep.Valid || len(rep.Errors) == 0 || rep.Errors[0].Line != 2 || rep.Errors[0].OperationID != "big" ||
		!strings.Contains(rep.Errors[0].Path, "operator") {
		t.Fatalf("invalid doc: exit %d, %s", code, out)
	}
	if code, _, errOut := sluice(t, "", "validate", "/no/such/file.jsonl"); code != cli.ExitInvalid || !strings.Contains(errOut, "/no/such/file.jsonl: no such file") {
		t.Fatalf("missing file: exit %d, %s", code, errOut)
	}
	if code, _, _ := sluice(t, "", "validate"); code != cli.ExitInvalid {
		t.Fatalf("missing argument must be a usage error, got %d", code)
	}
}

func TestRunDataWorkflow(t *testing.T) {
	path := writeFile(t, "flow.jsonl", dataFlow)
	code, out, _ := sluice(t, "", "run", path, "--input", `{"min":2}`, "--data", t.TempDir())
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, out)
	}
	var res struct {
		Status  string
		Results map[string]any
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(res.Results["sorted"])
	if res.Status != "success" || string(got) != `[{"n":"c","v":2},{"n":"a","v":3}]` {
		t.Fatalf("got %s", out)
	}
}

func TestRunFailureAndProgress(t *testing.T) {
	fails := strings.Replace(dataFlow, `"/workflow/big","transform"`, `"/workflow/nothing","transform"`, 1)
	var out, errb bytes.Buffer
	code := cli.Main(context.Background(), []string{"run", "-", "--input", `{"min":2}`, "--progress", "--data", t.TempDir()},
		cli.Stdio{In: strings.NewReader(fails), Out: &out, Err: &errb})
	if code != cli.ExitFailed || !strings.Contains(out.String(), `"status": "failed"`) || !strings.Contains(out.String(), "DataError") {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	for _, want := range []string{"▶ execution", "✓ seed", "✗ sorted", "FAILED"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, errb.String())
		}
	}
}

func TestRunEgressAndCredentials(t *testing.T) {
	const secret = "tok-9d8c7b6a5f4e"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"auth": r.Header.Get("Authorization")})
	}))
	defer srv.Close()
	doc := `{"type":"operationUpdate","operationId":"call","operation":{"ApiCall":{"method":"GET","url":"` + srv.URL + `/me","headers":{"Authorization":{"credentialRef":{"id":"tok"}}},"outputPath":"/workflow/me"}}}
{"type":"beginExecution","executionId":"e","operationOrder":["call"]}`
	path := writeFile(t, "call.jsonl", doc)
	host := strings.TrimPrefix(srv.URL, "http://")

	// Loopback refused without --allow-egress.
	t.Setenv("SLUICE_TEST_TOKEN", secret)
	code, out, _ := sluice(t, "", "run", path, "--credential", "tok=env:SLUICE_TEST_TOKEN", "--credential-type", "tok=bearer-token")
	if code != cli.ExitFailed || !strings.Contains(out, "PermissionError") {
		t.Fatalf("loopback must be refused: exit %d %s", code, out)
	}
	// Allowed, the credential is sent but never printed.
	code, out, errOut := sluice(t, "", "run", path, "--allow-egress", host, "--credential", "tok=env:SLUICE_TEST_TOKEN", "--credential-type", "tok=bearer-token")
	if code != cli.ExitOK || strings.Contains(out+errOut, secret) || !strings.Contains(out, "[REDACTED]") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	// A credential that was not given is a permission problem of the document.
	code, out, _ = sluice(t, "", "run", path, "--allow-egress", host)
	if code != cli.ExitInvalid || !strings.Contains(out, "PermissionError") {
		t.Fatalf("ungranted credential: exit %d %s", code, out)
	}
}

func TestRunBadFlags(t *testing.T) {
	path := writeFile(t, "flow.jsonl", dataFlow)
	cases := map[string][]string{
		"input not JSON":        {"--input", "{nope"},
		"input not object":      {"--input", "[1]"},
		"credential no value":   {"--credential", "x"},
		"credential env unset":  {"--credential", "x=env:SLUICE_NOT_SET_ANYWHERE"},
		"type without cred":     {"--credential-type", "y=bearer-token"},
		"bad egress":            {"--allow-egress", "not a host!"},
		"negative timeout":      {"--timeout", "-1s"},
		"unknown flag":          {"--frobnicate"},
		"credential file empty": {"--credential", "x=@/no/such/file"},
	}
	for name, flags := range cases {
		code, _, errOut := sluice(t, "", append([]string{"run", path}, flags...)...)
		if code != cli.ExitInvalid || errOut == "" {
			t.Errorf("%s: exit %d, stderr %q", name, code, errOut)
		}
	}
	code, _, errOut := sluice(t, "", "run", path, "--credential", "x=supersecretvalue", "--credential", "x=supersecretvalue")
	if code != cli.ExitInvalid || strings.Contains(errOut, "supersecretvalue") {
		t.Errorf("duplicate credential: exit %d, stderr %q must not echo the value", code, errOut)
	}
}

func TestRunPrintsWarnings(t *testing.T) {
	// "orphan" is defined but reached from nowhere: a warning, and the run goes on.
	doc := strings.Replace(dataFlow, `{"type":"beginExecution"`, `{"type":"operationUpdate","operationId":"orphan","operation":{"Wait":{"duration":1}}}
{"type":"beginExecution"`, 1)
	code, out, errOut := sluice(t, doc, "run", "-", "--input", `{"min":2}`, "--data", t.TempDir())
	if code != cli.ExitOK || !strings.Contains(errOut, "warning: line 4 orphan") {
		t.Fatalf("exit %d, stderr %q, stdout %s", code, errOut, out)
	}
}
