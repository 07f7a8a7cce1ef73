package gateway_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/protocol/a2s"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// withChecksum adds the checksum a published document must carry.
func withChecksum(t *testing.T, src string) string {
	t.Helper()
	tree, err := a2s.ParseTree([]byte(src), a2s.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := a2s.ComputeChecksum(tree)
	if err != nil {
		t.Fatal(err)
	}
	return "checksum: \"" + sum + "\"\n" + src
}

// approveCap asks for a verdict (a prompt task with an enum), then records
// it; `sluice acp`'s permission round trip runs it too (cmd/sluice).
var approveCap = func() string {
	// Found from this file, not the working directory: the test binary
	// also runs as an ACP agent (acptest) in a directory of its own, and
	// this runs before TestMain.
	_, self, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(self), "../../testdata/a2s/approve.yaml"))
	if err != nil {
		panic(err)
	}
	return string(b)
}()

func TestA2SRegistryAndRuns(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	doc := withChecksum(t, approveCap)
	elevated := withChecksum(t, strings.NewReplacer("id: Approve", "id: Wire", "level: basic", "level: elevated").Replace(approveCap))

	// Publishing is for admins; a document must lint clean and carry its checksum.
	_, key := s.account(map[string]any{"capability_level": "basic", "operations": []string{"LoadData"}}, nil)
	s.call("POST", "/api/v1/a2s/registry", key, map[string]any{"namespace": "finance", "document": doc, "file": "approve.yaml"}).want(t, http.StatusForbidden)
	r := s.call("POST", "/api/v1/a2s/registry", s.admin, map[string]any{"namespace": "finance", "document": doc, "file": "approve.yaml"}).want(t, http.StatusCreated)
	if r.str("capability.version") != "1.2.0" || r.str("capability.checksum") == "" || r.get("capability.document") != nil {
		t.Fatalf("publish: %s", r.raw)
	}
	s.call("POST", "/api/v1/a2s/registry", s.admin, map[string]any{"namespace": "finance", "document": elevated, "file": "wire.yaml"}).want(t, http.StatusCreated)
	bad := s.call("POST", "/api/v1/a2s/registry", s.admin, map[string]any{"namespace": "finance", "document": approveCap, "file": "nosum.yaml"}).want(t, http.StatusBadRequest)
	if !strings.Contains(string(bad.raw), "checksum") {
		t.Fatalf("publish without a checksum: %s", bad.raw)
	}
	// Same version, other content: versions are immutable.
	changed := withChecksum(t, strings.Replace(approveCap, "then records", "and records", 1))
	s.call("POST", "/api/v1/a2s/registry", s.admin, map[string]any{"namespace": "finance", "document": changed}).want(t, http.StatusConflict)

	// Reading the registry takes a key (public_registry is off).
	s.call("GET", "/api/v1/a2s/registry/finance/Approve", "", nil).want(t, http.StatusUnauthorized)
	g := s.call("GET", "/api/v1/a2s/registry/finance/Approve?version=^1.0.0", key, nil).want(t, http.StatusOK)
	if g.str("version") != "1.2.0" || !strings.Contains(g.str("document"), "id: Approve") {
		t.Fatalf("get: %s", g.raw)
	}
	s.call("GET", "/api/v1/a2s/registry/finance/Approve?version=^2.0.0", key, nil).want(t, http.StatusNotFound)
	l := s.call("GET", "/api/v1/a2s/registry?namespace=finance", key, nil).want(t, http.StatusOK)
	if n := len(l.get("capabilities").([]any)); n != 2 {
		t.Fatalf("list: %s", l.raw)
	}
	// capability.search (E2A) finds a published capability by what it does.
	status, frames := postEnvelope(t, s, key, map[string]any{"request_id": "search-1", "method": "capability.search",
		"params": map[string]any{"query": "approve a refund", "top_k": 1}})
	if status != http.StatusOK || len(frames) != 1 || frames[0].Kind != e2a.KindComplete {
		t.Fatalf("capability.search: %d %v", status, frames)
	}
	found, _ := frames[0].Body["result"].(map[string]any)["results"].([]any)
	if len(found) != 1 || found[0].(map[string]any)["kind"] != "capability" || !strings.Contains(fmt.Sprint(found[0]), "Approve") {
		t.Fatalf("capability.search results: %v", frames[0].Body)
	}
	if status, _ := postEnvelope(t, s, key, map[string]any{"request_id": "search-2", "method": "capability.search",
		"params": map[string]any{"top_k": 1}}); status != http.StatusBadRequest {
		t.Fatalf("capability.search without a query: %d", status)
	}

	// A run that waits for the agent's answer.
	run := s.call("POST", "/api/v1/a2s/runs", key, map[string]any{"id": "finance/Approve", "version": "^1", "inputs": map[string]any{"amount": 40}}).want(t, http.StatusOK)
	runID := run.str("run_id")
	if run.str("status") != "waiting" || run.str("pending.prompt") != "Approve a refund of 40 EUR?" {
		t.Fatalf("run: %s", run.raw)
	}
	// Another account sees nothing of it; a capability above the account's level is refused.
	_, other := s.account(map[string]any{"capability_level": "elevated"}, nil)
	s.call("GET", "/api/v1/a2s/runs/"+runID, other, nil).want(t, http.StatusNotFound)
	s.call("POST", "/api/v1/a2s/runs", key, map[string]any{"id": "finance/Wire", "inputs": map[string]any{"amount": 1}}).want(t, http.StatusForbidden)
	// Elevated, but unaudited: the default audit policy refuses it.
	refused := s.call("POST", "/api/v1/a2s/runs", other, map[string]any{"id": "finance/Wire", "inputs": map[string]any{"amount": 1}}).want(t, http.StatusForbidden)
	if !strings.Contains(string(refused.raw), "unaudited") {
		t.Fatalf("audit policy: %s", refused.raw)
	}
	// Secrets as inputs, unknown inputs, unknown capabilities.
	s.call("POST", "/api/v1/a2s/runs", key, map[string]any{"id": "finance/Approve", "inputs": map[string]any{"api_key": "k"}}).want(t, http.StatusBadRequest)
	s.call("POST", "/api/v1/a2s/runs", key, map[string]any{"id": "finance/Nope"}).want(t, http.StatusNotFound)

	// The server restarts; the run still waits and takes its answer.
	s.close()
	s = startServer(t, dir)
	if g := s.call("GET", "/api/v1/a2s/runs/"+runID, key, nil).want(t, http.StatusOK); g.str("status") != "waiting" {
		t.Fatalf("after restart: %s", g.raw)
	}
	s.call("POST", "/api/v1/a2s/runs/"+runID+"/decisions", key, map[string]any{"answer": map[string]any{"verdict": "perhaps"}}).want(t, http.StatusBadRequest)
	d := s.call("POST", "/api/v1/a2s/runs/"+runID+"/decisions", key, map[string]any{"answer": map[string]any{"verdict": "yes"}}).want(t, http.StatusOK)
	if d.str("status") != "success" || d.str("outputs.verdict") != "approved" {
		t.Fatalf("decide: %s", d.raw)
	}
	s.call("POST", "/api/v1/a2s/runs/"+runID+"/decisions", key, map[string]any{"answer": map[string]any{"verdict": "no"}}).want(t, http.StatusConflict)
	if g := s.call("GET", "/api/v1/a2s/runs/"+runID, key, nil).want(t, http.StatusOK); g.str("status") != "success" || g.str("result.outputs.verdict") != "approved" {
		t.Fatalf("stored run: %s", g.raw)
	}
	// The persistent output is in the account's localStorage.
	wf := jsonl(`{"type":"operationUpdate","operationId":"load","operation":{"LoadData":{"storage":"localStorage","key":"a2s/finance/Approve/verdict","outputPath":"/workflow/v"}}}`,
		`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["load"]}`)
	ex := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": wf}).want(t, http.StatusOK)
	if ex.str("results.load") != "approved" {
		t.Fatalf("kept output: %s", ex.raw)
	}

	// Cancel a waiting run.
	run = s.call("POST", "/api/v1/a2s/runs", key, map[string]any{"id": "finance/Approve", "inputs": map[string]any{"amount": 3}}).want(t, http.StatusOK)
	c := s.call("POST", "/api/v1/a2s/runs/"+run.str("run_id")+"/cancel", key, nil).want(t, http.StatusOK)
	if c.str("status") != "cancelled" {
		t.Fatalf("cancel: %s", c.raw)
	}
}

// With public_registry on, anyone may read the registry.
func TestA2SPublicRegistry(t *testing.T) {
	s := newServer(t, func(c *config.Config) { c.A2S.PublicRegistry = true })
	s.call("POST", "/api/v1/a2s/registry", s.admin, map[string]any{"namespace": "finance", "document": withChecksum(t, approveCap)}).want(t, http.StatusCreated)
	g := s.call("GET", "/api/v1/a2s/registry/finance/Approve", "", nil).want(t, http.StatusOK)
	if g.str("id") != "Approve" {
		t.Fatalf("public get: %s", g.raw)
	}
	s.call("POST", "/api/v1/a2s/registry", "", map[string]any{"document": "x"}).want(t, http.StatusUnauthorized)
}

// Published capabilities are session tools of the accounts that may run them.
func TestA2SSessionTools(t *testing.T) {
	s := newServer(t)
	s.call("POST", "/api/v1/a2s/registry", s.admin, map[string]any{"namespace": "finance", "document": withChecksum(t, approveCap)}).want(t, http.StatusCreated)
	_, key := s.account(map[string]any{"capability_level": "basic"}, nil)
	r := openRaw(t, s)
	r.handshake(key)
	r.send("tool/list/req", map[string]any{"query": "records verdict"})
	m := r.recv()
	if names := fmtAny(m["tools"]); !strings.Contains(names, "name:cap.finance/Approve") {
		t.Fatalf("tools: %v", names)
	}
	id := r.send("tool/call/req", map[string]any{"tool_name": "cap.finance/Approve", "arguments": map[string]any{"amount": 9}})
	m = r.recv()
	data, _ := m["data"].(map[string]any)
	inner, _ := data["data"].(map[string]any)
	if m["req_id"] != id || data["success"] != true || inner["status"] != "waiting" {
		t.Fatalf("call: %v", m)
	}
	r.send("tool/call/req", map[string]any{"tool_name": "capability.decide", "arguments": map[string]any{"run_id": inner["run_id"], "answer": map[string]any{"verdict": "no"}}})
	m = r.recv()
	data, _ = m["data"].(map[string]any)
	if data["success"] != true || !strings.Contains(fmtAny(data["data"]), "verdict:refused") {
		t.Fatalf("decide: %v", m)
	}
}
