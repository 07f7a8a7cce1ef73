package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
)

// TestA2ESDKClient runs the A2E Python SDK's own client, unmodified, against
// `sluice session --stdio` (this test binary started as sluice): the default
// handshake, tool lists with filter_kind, calls, events, a refusal and a
// ping, each decoded by the SDK's pydantic models. It needs a checkout of
// github.com/a2eprotocol/python-sdk named by SLUICE_TEST_A2E_SDK and python3
// with pydantic 2; without them it skips (CI has no GitHub access: the golden
// transcripts of internal/gateway keep the shapes in step there).
func TestA2ESDKClient(t *testing.T) {
	sdk := os.Getenv("SLUICE_TEST_A2E_SDK")
	if sdk == "" {
		t.Skip("set SLUICE_TEST_A2E_SDK to a checkout of github.com/a2eprotocol/python-sdk")
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	if out, err := exec.Command(python, "-c", "import pydantic, sys; sys.exit(0 if pydantic.VERSION.startswith('2.') else 1)").CombinedOutput(); err != nil {
		t.Skipf("python3 has no pydantic 2: %v %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(sdk, "a2e", "caps", "tools", "client.py")); err != nil {
		t.Fatalf("SLUICE_TEST_A2E_SDK=%s is not a checkout of the SDK: %v", sdk, err)
	}
	dir := t.TempDir()
	key := sdkAccount(t, dir)
	driver, _ := filepath.Abs(filepath.Join("testdata", "a2e_sdk_client.py"))
	sluice, _ := json.Marshal([]string{os.Args[0]})

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, driver)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+sdk, "SLUICE_SDK_COMMAND="+string(sluice), "SLUICE_SDK_KEY="+key,
		"SLUICE_TEST_MAIN_ARGS="+strings.Join([]string{"session", "--stdio", "--data", dir}, "\x1f"), "SLUICE_LOG_LEVEL=error")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the SDK driver: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if strings.Contains(stdout.String()+stderr.String(), key) {
		t.Error("the key was printed")
	}
	var got struct {
		DefaultCaps   []map[string]any    `json:"default_caps"`
		AskedCaps     []map[string]any    `json:"asked_caps"`
		SessionIDSet  bool                `json:"session_id_set"`
		PingOK        bool                `json:"ping_ms_positive"`
		OpTools       []string            `json:"op_tools"`
		OpParams      map[string][]string `json:"op_params"`
		WorkflowTools []string            `json:"workflow_tools"`
		QueryTools    []string            `json:"query_tools"`
		Call          map[string]any      `json:"call"`
		Stream        struct {
			Success bool             `json:"success"`
			Events  []map[string]any `json:"events"`
		} `json:"stream"`
		Denied map[string]any `json:"denied"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("the driver's report: %v\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	report, _ := json.Marshal(got)
	check := func(ok bool, what string) {
		if !ok {
			t.Errorf("%s; the SDK got %s\nstderr:\n%s", what, report, stderr.String())
		}
	}
	check(len(got.DefaultCaps) == 0 && got.SessionIDSet && got.PingOK, "default handshake: no caps asked that sluice knows, a session, a pong")
	asked, _ := json.Marshal(got.AskedCaps)
	check(string(asked) == `[{"capability":"tools","enabled":true},{"capability":"mcp","enabled":true},{"capability":"env","enabled":false}]`,
		"asked caps: tools and mcp enabled, env not, streaming left out")
	check(strings.Join(got.OpTools, " ") == "op.FilterData op.Wait" &&
		strings.Contains(strings.Join(got.OpParams["op.FilterData"], " "), "conditions inputPath"),
		"filter_kind op: the account's two operations, with their parameters")
	check(strings.Join(got.WorkflowTools, " ") == "workflow.execute workflow.validate", "filter_kind workflow")
	check(len(got.QueryTools) > 0 && got.QueryTools[0] == "op.FilterData", "query filter")
	data, _ := json.Marshal(got.Call["data"])
	check(got.Call["success"] == true && got.Call["tool_name"] == "op.FilterData" && string(data) == `[{"v":2},{"v":3}]` &&
		got.Call["duration_ms_is_int"] == true, "op.FilterData call")
	check(got.Stream.Success && len(got.Stream.Events) >= 2, "streaming workflow.execute: events, then success")
	for i, e := range got.Stream.Events {
		check(e["type"] == "tool/event" && e["kind"] == "progress" && e["seq"] == float64(i), "event seq from 0")
	}
	check(got.Denied != nil && got.Denied["code"] == "tool_denied" && got.Denied["req_id_set"] == true, "op.ApiCall refused with tool_denied")
}

// sdkAccount makes an account that may run FilterData and Wait in the data
// directory dir, through the admin API of a sluice opened on it and closed
// again, and returns its key.
func sdkAccount(t *testing.T, dir string) string {
	t.Helper()
	cfg := config.Defaults()
	cfg.DataDir = dir
	app, err := gateway.Open(context.Background(), &cfg, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	srv := httptest.NewServer(app.Server.Handler())
	defer srv.Close()
	body := `{"name":"sdk agent","permissions":{"operations":["FilterData","Wait"]}}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/admin/accounts", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+app.AdminKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var created struct {
		APIKey string `json:"api_key"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&created); err != nil || resp.StatusCode != http.StatusCreated || created.APIKey == "" {
		t.Fatalf("create account: %d %v", resp.StatusCode, err)
	}
	return created.APIKey
}
