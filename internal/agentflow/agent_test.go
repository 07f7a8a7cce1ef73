package agentflow_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/sluicehq/sluice/internal/agent"
	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/vault"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// seenTask is one task an httptest agent received.
type seenTask struct {
	taskID, correlation, idempotency string
	input                            map[string]any
}

// httpAgent is an agent of the task contract that answers with f(input) and
// records what it got.
func httpAgent(t *testing.T, f func(in map[string]any) any) (string, func() []seenTask) {
	var mu sync.Mutex
	var seen []seenTask
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		req, err := agenthttp.DecodeRequest(b, agenthttp.Limits{})
		if err != nil {
			t.Errorf("agent got a bad request: %v", err)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		var in map[string]any
		_ = json.Unmarshal(req.Input, &in)
		mu.Lock()
		seen = append(seen, seenTask{taskID: req.TaskID, correlation: r.Header.Get(agenthttp.HeaderCorrelationID),
			idempotency: r.Header.Get(agenthttp.HeaderIdempotencyKey), input: in})
		mu.Unlock()
		out, _ := json.Marshal(f(in))
		resp, _ := json.Marshal(map[string]any{"task_id": req.TaskID, "status": "success", "output": json.RawMessage(out)})
		w.Header().Set("Content-Type", "application/json")
		w.Write(resp)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []seenTask {
		mu.Lock()
		defer mu.Unlock()
		return append([]seenTask(nil), seen...)
	}
}

// Through internal/agent's registry and invoker to real HTTP agents.
func TestRunWithHTTPAgents(t *testing.T) {
	w := newWorld(t)
	key, err := vault.GenerateMasterKey()
	if err != nil {
		t.Fatal(err)
	}
	ring, err := vault.NewKeyring(key)
	if err != nil {
		t.Fatal(err)
	}
	reg := agent.NewRegistry(agent.RegistryOptions{Store: w.db, Vault: vault.NewSealed(vault.NewMemoryRecords(), ring, vault.Options{}),
		Egress: egress.Policy{AllowPrivate: []string{"127.0.0.1"}}})
	inv := agent.NewInvoker(agent.InvokerOptions{Registry: reg})
	upURL, upSeen := httpAgent(t, func(in map[string]any) any {
		s, _ := in["text"].(string)
		return map[string]any{"text": strings.ToUpper(s), "words": strings.Fields(s)}
	})
	echoURL, echoSeen := httpAgent(t, func(in map[string]any) any { return in })
	for name, u := range map[string]string{"upper": upURL, "echo": echoURL} {
		if _, _, err := reg.Register(ctx, agenthttp.NewEntry(name, u)); err != nil {
			t.Fatal(err)
		}
	}
	n := w.node(t, inv, "n1")
	n.r.Agents = agentflow.AgentsIn(reg)
	r := n.start(t).r
	doc := `{"workflow_id": "w", "start_step": "up", "steps": {
	  "up": {"id": "up", "agent_name": "upper", "next_step": "say", "input_mapping": {"text": "${workflow.input.text}"}},
	  "say": {"id": "say", "agent_name": "echo", "next_step": null,
	          "input_mapping": {"second": "${up.output.words[1]}", "all": "${up.output.text}!"}}}}`
	runID, err := r.Start(ctx, "alice", decode(t, doc), json.RawMessage(`{"text": "slow river"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	v := waitFinal(t, r, "alice", runID)
	if v.Status != store.StatusSuccess {
		t.Fatalf("%+v", v)
	}
	jsonEq(t, v.Output, `{"second": "river", "all": "SLOW RIVER!"}`)
	for step, seen := range map[string][]seenTask{"up": upSeen(), "say": echoSeen()} {
		if len(seen) != 1 || seen[0].taskID != agentflow.TaskID(runID, step) || seen[0].correlation != runID ||
			seen[0].idempotency != seen[0].taskID {
			t.Fatalf("step %s: agent saw %+v", step, seen)
		}
	}
	// An agent not in the registry is refused at Start.
	_, err = r.Start(ctx, "alice", decode(t, strings.Replace(doc, `"echo"`, `"nobody"`, 1)), nil, "")
	if fe, ok := fault.As(err); !ok || fe.Kind != fault.Invalid || !strings.Contains(fe.Message, `agent "nobody", which is not registered`) {
		t.Fatalf("got %v", err)
	}
}
