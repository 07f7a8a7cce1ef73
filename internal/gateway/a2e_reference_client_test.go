package gateway_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestA2EReferenceClient drives the A2E reference server's own client
// (github.com/MauricioPerera/a2e, client/a2e_client.py), unmodified, against a
// whole sluice on a random loopback port: every method of it must work.
// SLUICE_TEST_A2E_CLIENT names the client's file and python3 must import
// requests; otherwise (CI, which has no GitHub access) the test skips. The
// client is never copied into this repository.
func TestA2EReferenceClient(t *testing.T) {
	clientFile := os.Getenv("SLUICE_TEST_A2E_CLIENT")
	if clientFile == "" {
		t.Skip("SLUICE_TEST_A2E_CLIENT does not name the reference client's a2e_client.py")
	}
	if _, err := os.Stat(clientFile); err != nil {
		t.Fatalf("SLUICE_TEST_A2E_CLIENT: %v", err)
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	if out, err := exec.Command(python, "-c", "import requests").CombinedOutput(); err != nil {
		t.Skipf("python3 cannot import requests: %s", out)
	}

	s := newServer(t)
	up := upstreamJSON(t, usersJSON)
	s.call("POST", "/api/v1/admin/apis", s.admin, map[string]any{"name": "guide", "kind": "text", "format": "markdown", "document": refundsGuide}).want(t, http.StatusCreated)
	id, key := s.account(map[string]any{"operations": []string{"*"}, "hosts": []string{"*"}, "knowledge_bases": []string{"guide"}}, nil)

	config, _ := json.Marshal(map[string]string{"client": clientFile, "base_url": s.http.URL, "api_key": key, "upstream": up.URL, "workflow_id": uniqueID()})
	cmd := exec.Command(python, "testdata/a2e_client_driver.py")
	cmd.Stdin = bytes.NewReader(config)
	// The calls go to 127.0.0.1 directly, never through a proxy the
	// environment may name.
	cmd.Env = append(os.Environ(), "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("driver: %v\n%s", err, stderr.String())
	}
	var results map[string]struct {
		OK     bool            `json:"ok"`
		Result json.RawMessage `json:"result"`
		Status int             `json:"status"`
		Body   string          `json:"body"`
	}
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("driver output: %v\n%s", err, out)
	}
	t.Logf("reference client results: %s", out)

	// result decodes one call's result, failing the test if the call failed.
	result := func(name string, into any) {
		t.Helper()
		r, ok := results[name]
		switch {
		case !ok:
			t.Fatalf("%s: not called", name)
		case !r.OK:
			t.Fatalf("%s: HTTP %d: %s", name, r.Status, r.Body)
		}
		if err := json.Unmarshal(r.Result, into); err != nil {
			t.Fatalf("%s: %v: %s", name, err, r.Result)
		}
	}
	type capabilities struct {
		AgentID      string `json:"agent_id"`
		Capabilities struct {
			KnowledgeBases      []string `json:"knowledgeBases"`
			SQLQueriesAvailable *bool    `json:"sqlQueriesAvailable"`
		} `json:"capabilities"`
	}
	for _, name := range []string{"get_capabilities", "get_capabilities_by_token"} {
		var caps capabilities
		result(name, &caps)
		if caps.AgentID != id || !slices.Equal(caps.Capabilities.KnowledgeBases, []string{"guide"}) ||
			caps.Capabilities.SQLQueriesAvailable == nil || *caps.Capabilities.SQLQueriesAvailable {
			t.Errorf("%s: %s", name, results[name].Result)
		}
	}
	var report struct{ Valid bool }
	if result("validate_workflow", &report); !report.Valid {
		t.Errorf("validate_workflow: %s", results["validate_workflow"].Result)
	}
	type executed struct {
		ExecutionID string `json:"execution_id"`
		Status      string `json:"status"`
	}
	var ex, exFalse executed
	result("execute_workflow", &ex)
	result("execute_workflow_validate_false", &exFalse)
	if ex.Status != "success" || ex.ExecutionID == "" || exFalse.Status != "success" {
		t.Errorf("execute_workflow: %s / %s", results["execute_workflow"].Result, results["execute_workflow_validate_false"].Result)
	}
	// validate=False skips nothing: the invalid workflow is refused as invalid.
	if r := results["execute_invalid_validate_false"]; r.OK || r.Status != http.StatusBadRequest || !strings.Contains(r.Body, "NoSuchOp") {
		t.Errorf("an invalid workflow with validate=False: %+v", r)
	}
	var got executed
	if result("get_execution", &got); got.ExecutionID != ex.ExecutionID || got.Status != "success" {
		t.Errorf("get_execution: %s", results["get_execution"].Result)
	}
	for _, name := range []string{"list_executions", "list_executions_status"} {
		var list []executed
		if result(name, &list); !slices.Contains(list, executed{ExecutionID: ex.ExecutionID, Status: "success"}) {
			t.Errorf("%s does not list %s: %s", name, ex.ExecutionID, results[name].Result)
		}
	}
	var bases []map[string]any
	result("list_knowledge_bases", &bases)
	if len(bases) != 1 || bases[0]["id"] != "guide" || bases[0]["type"] != "knowledge" || bases[0]["description"] != "Refunds" || bases[0]["items_count"] != float64(2) {
		t.Errorf("list_knowledge_bases: %s", results["list_knowledge_bases"].Result)
	}
	for _, name := range []string{"search_knowledge", "search_knowledge_listed"} {
		var hits []map[string]any
		if result(name, &hits); len(hits) == 0 || hits[0]["id"] != "guide#0" {
			t.Errorf("%s: %s", name, results[name].Result)
		}
	}
	for _, name := range []string{"search_sql_queries", "list_sql_queries"} {
		var none []any
		if result(name, &none); none == nil || len(none) != 0 {
			t.Errorf("%s: %s", name, results[name].Result)
		}
	}
	if r := results["get_sql_query"]; r.OK || r.Status != http.StatusNotFound {
		t.Errorf("get_sql_query: %+v", r)
	}
}
