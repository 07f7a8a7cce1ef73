package gateway_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// runsFixture is one account's runs of every kind: a finished and a
// cancellable one of each (A2E executions, A2S capability runs, agent
// workflow runs), made through each kind's own route.
type runsFixture struct {
	s               *testServer
	api             *apiSchemas
	ownerID, key    string
	doneA2E, runA2E string // success; running (a long Wait)
	doneCap, runCap string // success; waiting for a decision
	doneFlow        string // success
	runFlow         string // its second step in flight (an agent that never answers)
}

// newestFirst is the order the fixture made its runs in, newest first.
func (f *runsFixture) newestFirst() []string {
	return []string{f.runFlow, f.doneFlow, f.runCap, f.doneCap, f.runA2E, f.doneA2E}
}

func (f *runsFixture) call(t *testing.T, method, path, key string, want int) response {
	t.Helper()
	r := f.s.call(method, path, key, nil).want(t, want)
	f.api.check(method, path, r)
	return r
}

func newRunsFixture(t *testing.T) *runsFixture {
	t.Helper()
	s := newServer(t)
	f := &runsFixture{s: s, api: loadAPISchemas(t, s)}
	stallURL, started := stallAgent(t)
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "extract", "url": mockAgent(t, "extract")}).want(t, http.StatusCreated)
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "stall", "url": stallURL}).want(t, http.StatusCreated)
	s.call("POST", "/api/v1/a2s/registry", s.admin, map[string]any{"namespace": "finance", "document": withChecksum(t, approveCap), "file": "approve.yaml"}).
		want(t, http.StatusCreated)
	f.ownerID, f.key = s.account(map[string]any{"operations": []string{"*"}, "hosts": []string{"*"}, "credentials": []string{},
		"capability_level": "basic", "agents": []string{"extract", "stall"}}, nil)

	f.doneA2E = s.call("POST", "/api/v1/workflows/execute", f.key, map[string]any{"workflow": waitDoc(0)}).want(t, http.StatusOK).str("execution_id")
	f.runA2E = s.call("POST", "/api/v1/workflows/execute?async=true", f.key, map[string]any{"workflow": waitDoc(600000)}).
		want(t, http.StatusAccepted).str("execution_id")
	waitFor(t, 10*time.Second, "the execution to run", func() bool {
		return s.call("GET", "/api/v1/executions/"+f.runA2E, f.key, nil).str("status") == "running"
	})

	f.doneCap = s.call("POST", "/api/v1/a2s/runs", f.key, map[string]any{"id": "finance/Approve", "inputs": map[string]any{"amount": 1}}).
		want(t, http.StatusOK).str("run_id")
	s.call("POST", "/api/v1/a2s/runs/"+f.doneCap+"/decisions", f.key, map[string]any{"answer": map[string]any{"verdict": "yes"}}).want(t, http.StatusOK)
	f.runCap = s.call("POST", "/api/v1/a2s/runs", f.key, map[string]any{"id": "finance/Approve", "inputs": map[string]any{"amount": 2}}).
		want(t, http.StatusOK).str("run_id")

	const flows = "/api/v1/agent-workflows/runs"
	f.doneFlow = s.call("POST", flows, f.key, map[string]any{"workflow": twoStepWorkflow("extract"), "input": map[string]any{"text": "x"}}).
		want(t, http.StatusAccepted).str("run_id")
	waitFor(t, 20*time.Second, "the agent workflow to finish", func() bool {
		return s.call("GET", flows+"/"+f.doneFlow, f.key, nil).str("status") == "success"
	})
	f.runFlow = s.call("POST", flows, f.key, map[string]any{"workflow": twoStepWorkflow("stall"), "input": map[string]any{"text": "y"}}).
		want(t, http.StatusAccepted).str("run_id")
	<-started
	return f
}

func runIDs(r response) []string {
	var ids []string
	list, _ := r.get("runs").([]any)
	for _, x := range list {
		ids = append(ids, x.(map[string]any)["run_id"].(string))
	}
	return ids
}

// One listing of every kind, its filters and paging, one get of each kind.
func TestRunsListAndGetEveryKind(t *testing.T) {
	f := newRunsFixture(t)
	all := f.newestFirst()
	l := f.call(t, "GET", "/api/v1/runs", f.key, http.StatusOK)
	if ids := runIDs(l); !slices.Equal(ids, all) || l.str("next_cursor") != "" {
		t.Fatalf("list: %v, want %v: %s", ids, all, l.raw)
	}
	wantKind := map[string]string{f.doneA2E: "a2e", f.runA2E: "a2e", f.doneCap: "a2s", f.runCap: "a2s", f.doneFlow: "agent_workflow", f.runFlow: "agent_workflow"}
	wantStatus := map[string]string{f.doneA2E: "success", f.runA2E: "running", f.doneCap: "success", f.runCap: "waiting", f.doneFlow: "success", f.runFlow: "running"}
	for _, x := range l.get("runs").([]any) {
		m := x.(map[string]any)
		id := m["run_id"].(string)
		if m["kind"] != wantKind[id] || m["status"] != wantStatus[id] || m["account_id"] != f.ownerID || m["created_at"] == nil || m["updated_at"] == nil ||
			(wantStatus[id] == "success") != (m["finished_at"] != nil) {
			t.Fatalf("summary of %s: %v", id, m)
		}
	}

	for q, want := range map[string][]string{
		"?kind=a2e":                             {f.runA2E, f.doneA2E},
		"?kind=a2s,agent_workflow":              {f.runFlow, f.doneFlow, f.runCap, f.doneCap},
		"?status=waiting":                       {f.runCap},
		"?status=success":                       {f.doneFlow, f.doneCap, f.doneA2E},
		"?status=running,waiting&kind=a2e":      {f.runA2E},
		"?kind=agent_workflow&status=cancelled": nil,
	} {
		if ids := runIDs(f.call(t, "GET", "/api/v1/runs"+q, f.key, http.StatusOK)); !slices.Equal(ids, want) {
			t.Errorf("%s: %v, want %v", q, ids, want)
		}
	}
	p1 := f.call(t, "GET", "/api/v1/runs?limit=4", f.key, http.StatusOK)
	p2 := f.call(t, "GET", "/api/v1/runs?limit=4&cursor="+p1.str("next_cursor"), f.key, http.StatusOK)
	if got := append(runIDs(p1), runIDs(p2)...); p1.str("next_cursor") == "" || !slices.Equal(got, all) || p2.str("next_cursor") != "" {
		t.Fatalf("pages: %v then %v", p1.raw, p2.raw)
	}

	// A bad filter names the parameter and what it may be.
	for q, want := range map[string][]string{
		"?kind=a2x":          {"params.kind", "a2x", "a2e, a2s, agent_workflow"},
		"?kind=a2e,":         {"params.kind", "a2e, a2s, agent_workflow"},
		"?status=nearly":     {"params.status", "nearly", "queued, running, waiting, success, failed, partial, cancelled"},
		"?limit=0":           {"limit"},
		"?cursor=garbage":    {"cursor"},
		"?account=x&bogus=1": {"bogus"},
	} {
		r := f.call(t, "GET", "/api/v1/runs"+q, f.key, http.StatusBadRequest)
		for _, w := range want {
			if !strings.Contains(string(r.raw), w) {
				t.Errorf("%s: %s does not say %q", q, r.raw, w)
			}
		}
	}

	// Get: the summary and the kind's own view, the same as its own route's.
	own := map[string]string{f.doneA2E: "/api/v1/executions/", f.runA2E: "/api/v1/executions/",
		f.doneCap: "/api/v1/a2s/runs/", f.runCap: "/api/v1/a2s/runs/",
		f.doneFlow: "/api/v1/agent-workflows/runs/", f.runFlow: "/api/v1/agent-workflows/runs/"}
	for _, id := range all {
		g := f.call(t, "GET", "/api/v1/runs/"+id, f.key, http.StatusOK)
		if g.str("run_id") != id || g.str("kind") != wantKind[id] || g.str("status") != wantStatus[id] || g.get("detail") == nil {
			t.Fatalf("get %s: %s", id, g.raw)
		}
		old := f.s.call("GET", own[id]+id, f.key, nil).want(t, http.StatusOK)
		if g.str("detail.status") != old.str("status") {
			t.Fatalf("get %s: detail %v, its own route %s", id, g.get("detail"), old.raw)
		}
	}
	if g := f.call(t, "GET", "/api/v1/runs/"+f.runFlow, f.key, http.StatusOK); stepStatuses(response{body: g.get("detail").(map[string]any)}) != "a=completed b=running" {
		t.Fatalf("agent workflow detail: %s", g.raw)
	}
	f.call(t, "GET", "/api/v1/runs/run-nosuch", f.key, http.StatusNotFound)
}

// Events: every kind's stream ends with exactly one final frame; a kind
// that stores no frames sends that one, built from its record, and follows
// a run that has not finished until it does.
func TestRunsEventsEveryKind(t *testing.T) {
	f := newRunsFixture(t)
	for _, id := range []string{f.doneA2E, f.doneCap, f.doneFlow} {
		frames, end := readSSE(t, f.s, f.key, "/api/v1/runs/"+id+"/events", "")
		if len(frames) == 0 || end == "" {
			t.Fatalf("%s: %d frames, end %q", id, len(frames), end)
		}
		finals := 0
		for i, fr := range frames {
			if fr.frame["is_final"] == true {
				finals++
			}
			if fr.id != strconv.Itoa(i+1) || fr.frame["request_id"] != id {
				t.Fatalf("%s: frame %d: id %s %v", id, i, fr.id, fr.frame)
			}
		}
		last := frames[len(frames)-1].frame
		body, _ := last["body"].(map[string]any)
		result, _ := body["result"].(map[string]any)
		if finals != 1 || last["is_final"] != true || last["response_kind"] != "e2a.complete" || result["status"] != "success" {
			t.Fatalf("%s: %d final frames, last %v", id, finals, last)
		}
		// After the final frame, nothing more: with no frame to send, the
		// answer is the stream's summary as JSON (as for an execution's).
		rest := f.call(t, "GET", "/api/v1/runs/"+id+"/events?after="+frames[len(frames)-1].id, f.key, http.StatusOK)
		if rest.get("frames") != float64(0) || rest.str("run_id") != id {
			t.Fatalf("%s after its last frame: %s", id, rest.raw)
		}
	}

	// The streams of the unfinished runs follow them until they are
	// cancelled (through each kind's own route), then end with one final
	// frame saying so. A stream may open after its cancel: its answer is the
	// same.
	type ended struct {
		id     string
		frames []sseEvent
		end    string
	}
	done := make(chan ended, 3)
	unfinished := map[string]string{f.runA2E: "/api/v1/executions/", f.runCap: "/api/v1/a2s/runs/", f.runFlow: "/api/v1/agent-workflows/runs/"}
	for id := range unfinished {
		go func() {
			frames, end := readSSENoFatal(f.s.http.URL, f.key, "/api/v1/runs/"+id+"/events")
			done <- ended{id, frames, end}
		}()
	}
	for id, own := range unfinished {
		f.s.call("POST", own+id+"/cancel", f.key, nil).want(t, http.StatusOK)
	}
	for range unfinished {
		e := <-done
		if len(e.frames) == 0 || e.end == "" {
			t.Fatalf("%s: %d frames, end %q", e.id, len(e.frames), e.end)
		}
		last := e.frames[len(e.frames)-1].frame
		if last["is_final"] != true || !strings.Contains(mustJSON(t, last["body"]), `"status":"cancelled"`) {
			t.Fatalf("%s: last frame %v", e.id, last)
		}
	}
}

// Cancel: one route for every kind, through the kind's own service; the
// kinds' own routes see the cancel, and the new route sees theirs.
func TestRunsCancelEveryKind(t *testing.T) {
	f := newRunsFixture(t)
	own := map[string]string{f.runA2E: "/api/v1/executions/", f.runCap: "/api/v1/a2s/runs/", f.runFlow: "/api/v1/agent-workflows/runs/"}
	for id, path := range own {
		c := f.call(t, "POST", "/api/v1/runs/"+id+"/cancel", f.key, http.StatusOK)
		if c.str("status") != "cancelled" || c.str("detail.status") != "cancelled" || c.str("finished_at") == "" {
			t.Fatalf("cancel %s: %s", id, c.raw)
		}
		if old := f.s.call("GET", path+id, f.key, nil).want(t, http.StatusOK); old.str("status") != "cancelled" {
			t.Fatalf("%s after the cancel, through its own route: %s", id, old.raw)
		}
		// Cancelled once: a second cancel is a conflict, for every kind.
		if r := f.call(t, "POST", "/api/v1/runs/"+id+"/cancel", f.key, http.StatusConflict); !strings.Contains(string(r.raw), "already cancelled") {
			t.Fatalf("second cancel of %s: %s", id, r.raw)
		}
	}
	for _, id := range []string{f.doneA2E, f.doneCap, f.doneFlow} {
		if r := f.call(t, "POST", "/api/v1/runs/"+id+"/cancel", f.key, http.StatusConflict); !strings.Contains(string(r.raw), "already success") {
			t.Fatalf("cancel of finished %s: %s", id, r.raw)
		}
	}
	if flow := f.s.call("GET", "/api/v1/agent-workflows/runs/"+f.runFlow, f.key, nil); stepStatuses(flow) != "a=completed b=cancelled" {
		t.Fatalf("the agent workflow's steps after the cancel: %s", flow.raw)
	}

	// A run cancelled through its kind's own route is cancelled here too.
	another := f.s.call("POST", "/api/v1/a2s/runs", f.key, map[string]any{"id": "finance/Approve", "inputs": map[string]any{"amount": 3}}).
		want(t, http.StatusOK).str("run_id")
	f.s.call("POST", "/api/v1/a2s/runs/"+another+"/cancel", f.key, nil).want(t, http.StatusOK)
	if g := f.call(t, "GET", "/api/v1/runs/"+another, f.key, http.StatusOK); g.str("status") != "cancelled" {
		t.Fatalf("cancelled through its own route: %s", g.raw)
	}
}

// Another account sees none of an account's runs; account= is an admin's.
func TestRunsAreScopedToTheirAccount(t *testing.T) {
	f := newRunsFixture(t)
	otherID, other := f.s.account(map[string]any{"operations": []string{"*"}}, nil)
	if l := f.call(t, "GET", "/api/v1/runs", other, http.StatusOK); len(runIDs(l)) != 0 {
		t.Fatalf("another account's list: %s", l.raw)
	}
	for _, id := range f.newestFirst() {
		f.call(t, "GET", "/api/v1/runs/"+id, other, http.StatusNotFound)
		f.call(t, "POST", "/api/v1/runs/"+id+"/cancel", other, http.StatusNotFound)
		if r := f.call(t, "GET", "/api/v1/runs/"+id+"/events", other, http.StatusNotFound); r.str("error.type") == "" {
			t.Fatalf("events of another's run: %s", r.raw)
		}
	}
	// Nothing was cancelled by those calls.
	if g := f.call(t, "GET", "/api/v1/runs/"+f.runCap, f.key, http.StatusOK); g.str("status") != "waiting" {
		t.Fatalf("after another account's cancel: %s", g.raw)
	}

	// account= names another account's runs: an admin's alone.
	for _, q := range []string{"?account=" + f.ownerID, "?account=*"} {
		if r := f.call(t, "GET", "/api/v1/runs"+q, other, http.StatusForbidden); !strings.Contains(string(r.raw), "account") {
			t.Fatalf("%s by a non-admin: %s", q, r.raw)
		}
	}
	if l := f.call(t, "GET", "/api/v1/runs?account="+otherID, other, http.StatusOK); len(runIDs(l)) != 0 {
		t.Fatalf("naming itself: %s", l.raw)
	}
	if l := f.call(t, "GET", "/api/v1/runs?account="+f.ownerID, f.key, http.StatusOK); !slices.Equal(runIDs(l), f.newestFirst()) {
		t.Fatalf("the owner naming itself: %s", l.raw)
	}
	if l := f.call(t, "GET", "/api/v1/runs?account="+f.ownerID+"&kind=a2s", f.s.admin, http.StatusOK); !slices.Equal(runIDs(l), []string{f.runCap, f.doneCap}) {
		t.Fatalf("an admin's list of another account's capability runs: %s", l.raw)
	}
	// Every account's: the other account's run shows up beside the owner's.
	mine := f.s.call("POST", "/api/v1/workflows/execute", other, map[string]any{"workflow": waitDoc(0)}).want(t, http.StatusOK).str("execution_id")
	l := f.call(t, "GET", "/api/v1/runs?account=*&limit=1000", f.s.admin, http.StatusOK)
	if ids := runIDs(l); len(ids) != 7 || ids[0] != mine || !slices.Equal(ids[1:], f.newestFirst()) {
		t.Fatalf("every account's runs: %v", ids)
	}
	if l := f.call(t, "GET", "/api/v1/runs", f.s.admin, http.StatusOK); len(runIDs(l)) != 0 {
		t.Fatalf("an admin's own runs: %s", l.raw)
	}
}

// The E2A methods: run.list and run.get answer what the REST routes do.
func TestRunsOverE2A(t *testing.T) {
	f := newRunsFixture(t)
	status, frames := postEnvelope(t, f.s, f.key, map[string]any{"request_id": "runs-1", "method": "run.list",
		"params": map[string]any{"kind": []string{"a2s", "agent_workflow"}, "status": "success"}})
	if status != http.StatusOK || len(frames) != 1 || frames[0].Kind != e2a.KindComplete {
		t.Fatalf("run.list: %d %v", status, frames)
	}
	result, _ := frames[0].Body["result"].(map[string]any)
	if got := runIDs(response{body: result}); !slices.Equal(got, []string{f.doneFlow, f.doneCap}) {
		t.Fatalf("run.list: %v", result)
	}
	status, frames = postEnvelope(t, f.s, f.key, map[string]any{"request_id": "runs-2", "method": "run.get",
		"params": map[string]any{"run_id": f.runCap}})
	if status != http.StatusOK || len(frames) != 1 {
		t.Fatalf("run.get: %d %v", status, frames)
	}
	result, _ = frames[0].Body["result"].(map[string]any)
	if result["kind"] != "a2s" || result["status"] != "waiting" || result["detail"] == nil {
		t.Fatalf("run.get: %v", result)
	}
	// run.events streams the run's frames as chunks (an agent workflow's
	// steps, then its final frame), then says how it ended.
	status, frames = postEnvelope(t, f.s, f.key, map[string]any{"request_id": "runs-4", "method": "run.events",
		"params": map[string]any{"run_id": f.doneFlow}})
	n := len(frames)
	if status != http.StatusOK || n < 3 || frames[n-1].Kind != e2a.KindComplete {
		t.Fatalf("run.events: %d %v", status, frames)
	}
	for _, fr := range frames[:n-1] {
		if fr.Kind != e2a.KindChunk {
			t.Fatalf("run.events: %v", frames)
		}
	}
	delta, _ := frames[n-2].Body["delta"].(map[string]any)
	end, _ := frames[n-1].Body["result"].(map[string]any)
	if delta["is_final"] != true || delta["request_id"] != f.doneFlow || end["ended"] != true || end["run_id"] != f.doneFlow {
		t.Fatalf("run.events: %v then %v", frames[0].Body, frames[1].Body)
	}
	if status, _ := postEnvelope(t, f.s, f.key, map[string]any{"request_id": "runs-3", "method": "run.list",
		"params": map[string]any{"kind": "a2x"}}); status != http.StatusBadRequest {
		t.Fatalf("run.list of an unknown kind: %d", status)
	}
}

// readSSENoFatal is readSSE for a goroutine: a failure is an empty answer,
// which the test reports.
func readSSENoFatal(url, key, path string) ([]sseEvent, string) {
	req, _ := http.NewRequest("GET", url+path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, ""
	}
	defer resp.Body.Close()
	out, end, err := parseSSE(resp.Body)
	if err != nil {
		return nil, ""
	}
	return out, end
}

// parseSSE reads an event stream to its end event: the frames before it and
// the end's data ("" when the stream stopped without one).
func parseSSE(r io.Reader) ([]sseEvent, string, error) {
	var out []sseEvent
	var cur sseEvent
	var event string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			cur.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			event = line[7:]
		case strings.HasPrefix(line, "data: "):
			if event == "end" || event == "error" {
				return out, line[6:], nil
			}
			if err := json.Unmarshal([]byte(line[6:]), &cur.frame); err != nil {
				return nil, "", err
			}
			out = append(out, cur)
			cur = sseEvent{}
		}
	}
	return out, "", nil
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// heldAgent is a loopback agent that holds every task until the caller
// gives up: started is closed when the first task arrives, released when
// that task's request ends (its worker stopped invoking it).
func heldAgent(t *testing.T) (url string, started, released chan struct{}) {
	t.Helper()
	started, released, quit := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var first sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			_, _ = w.Write([]byte(`{"status": "healthy"}`))
			return
		}
		// The server notices the caller leaving only once the body is read.
		_, _ = io.Copy(io.Discard, r.Body)
		isFirst := false
		first.Do(func() { isFirst = true; close(started) })
		select {
		case <-r.Context().Done():
			if isFirst {
				close(released)
			}
		case <-quit:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(quit) })
	return srv.URL, started, released
}

// streamRun reads a run's event stream through s to its end (at most 30 s).
func streamRun(t *testing.T, s *testServer, key, id string) []sseEvent {
	t.Helper()
	req, _ := http.NewRequest("GET", s.http.URL+"/api/v1/runs/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	frames, end, err := parseSSE(resp.Body)
	if err != nil || end == "" {
		t.Fatalf("the stream of %s through %s: %v, end %q after %d frames", id, s.http.URL, err, end, len(frames))
	}
	return frames
}

// Two gateways share a PostgreSQL store: a run of each cancellable kind
// started on a is cancelled through b's /api/v1/runs and stops on a, and
// its stream through either gateway ends with one final frame saying so.
func TestRunsCancelAcrossGateways(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	dir := t.TempDir()
	onPG := func(c *config.Config) { c.Store.DSN = dsn }
	a := startServer(t, dir, onPG)
	heldURL, started, released := heldAgent(t)
	a.call("POST", "/api/v1/admin/agents", a.admin, map[string]any{"name": "extract", "url": mockAgent(t, "extract")}).want(t, http.StatusCreated)
	a.call("POST", "/api/v1/admin/agents", a.admin, map[string]any{"name": "stall", "url": heldURL}).want(t, http.StatusCreated)
	_, key := a.account(map[string]any{"operations": []string{"*"}, "agents": []string{"extract", "stall"}},
		map[string]any{"max_concurrent_executions": 1, "requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1})
	slow := a.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": waitDoc(120000), "async": true}).
		want(t, http.StatusAccepted).str("execution_id")
	waitFor(t, 20*time.Second, "the execution to run on a", func() bool {
		return a.call("GET", "/api/v1/executions/"+slow, key, nil).str("status") == "running"
	})
	flow := a.call("POST", "/api/v1/agent-workflows/runs", key, map[string]any{"workflow": twoStepWorkflow("stall"), "input": map[string]any{"text": "z"}}).
		want(t, http.StatusAccepted).str("run_id")
	<-started
	b := startServer(t, dir, onPG)

	for _, id := range []string{slow, flow} {
		if r := b.call("POST", "/api/v1/runs/"+id+"/cancel", key, nil).want(t, http.StatusOK); r.str("status") != "cancelled" {
			t.Fatalf("cancel of %s through b: %s", id, r.raw)
		}
	}
	// Stopped where they ran: the execution's slot is free again on a, and
	// the agent's task was let go.
	quick := jsonl(`{"type":"operationUpdate","operationId":"w","operation":{"Wait":{"duration":1}}}`,
		`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["w"]}`)
	waitFor(t, 30*time.Second, "the cancelled execution to free its slot on a", func() bool {
		return a.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": quick}).status == http.StatusOK
	})
	select {
	case <-released:
	case <-time.After(30 * time.Second):
		t.Fatal("the agent workflow's step still runs 30 s after its cancel")
	}
	for _, s := range []*testServer{a, b} {
		for _, id := range []string{slow, flow} {
			frames := streamRun(t, s, key, id)
			finals := 0
			for _, f := range frames {
				if f.frame["is_final"] == true {
					finals++
				}
			}
			if last := frames[len(frames)-1].frame; finals != 1 || resultStatus(last) != "cancelled" {
				t.Fatalf("%s through %s: %d frames, %d final, last %v", id, s.http.URL, len(frames), finals, last)
			}
		}
	}
}
