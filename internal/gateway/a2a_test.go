package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
)

// a2aCaller is an A2A client of one endpoint of the test server, as one
// account: a2a-go's own transport (1.0, or 0.3 through its compatibility
// layer), with the account's key as a Bearer token.
type a2aCaller struct {
	t      *testing.T
	tr     a2aclient.Transport
	params a2aclient.ServiceParams
}

func newA2ACaller(t *testing.T, s *testServer, agent, key string, v03 bool) *a2aCaller {
	t.Helper()
	url := s.http.URL + "/a2a/"
	switch {
	case strings.HasPrefix(agent, "/"): // a path of its own
		url = s.http.URL + agent
	case agent != "":
		url += agent + "/"
	}
	var tr a2aclient.Transport
	if v03 {
		tr = a2av0.NewJSONRPCTransport(a2av0.JSONRPCTransportConfig{URL: url, Client: s.http.Client()})
	} else {
		tr = a2aclient.NewJSONRPCTransport(url, s.http.Client())
	}
	return &a2aCaller{t: t, tr: tr, params: a2aclient.ServiceParams{"Authorization": {"Bearer " + key}}}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func dataMessage(id string, data map[string]any) *a2a.Message {
	m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(data))
	m.ID = id
	return m
}

func (c *a2aCaller) send(msg *a2a.Message, immediately bool) (*a2a.Task, error) {
	c.t.Helper()
	req := &a2a.SendMessageRequest{Message: msg}
	if immediately {
		req.Config = &a2a.SendMessageConfig{ReturnImmediately: true}
	}
	res, err := c.tr.SendMessage(ctxT(c.t), c.params, req)
	if err != nil {
		return nil, err
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		c.t.Fatalf("SendMessage answered %T, want a task", res)
	}
	return task, nil
}

func (c *a2aCaller) get(id a2a.TaskID) (*a2a.Task, error) {
	return c.tr.GetTask(ctxT(c.t), c.params, &a2a.GetTaskRequest{ID: id})
}

// waitState polls GetTask until the task is in state.
func (c *a2aCaller) waitState(id a2a.TaskID, state a2a.TaskState) *a2a.Task {
	c.t.Helper()
	var last *a2a.Task
	waitFor(c.t, 30*time.Second, "task "+string(id)+" to be "+string(state), func() bool {
		t, err := c.get(id)
		if err != nil {
			c.t.Fatalf("GetTask %s: %v", id, err)
		}
		last = t
		return t.Status.State == state
	})
	return last
}

// collect reads a stream of events to its end.
func collect(t *testing.T, seq func(func(a2a.Event, error) bool)) ([]a2a.Event, error) {
	t.Helper()
	var out []a2a.Event
	for ev, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
	return out, nil
}

func outputOf(t *testing.T, task *a2a.Task) string {
	t.Helper()
	if len(task.Artifacts) != 1 || len(task.Artifacts[0].Parts) != 1 {
		t.Fatalf("task %s: artifacts %+v", task.ID, task.Artifacts)
	}
	b, _ := json.Marshal(task.Artifacts[0].Parts[0].Data())
	return string(b)
}

// registerA2AAgents registers the mock agent echo and an agent that never
// answers, and makes an account granted both, one granted echo only, and
// one granted nothing.
func registerA2AAgents(t *testing.T, s *testServer) (both, echoOnly, none string) {
	t.Helper()
	stall, _ := stallAgent(t)
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "echo", "url": mockAgent(t, "echo")}).want(t, http.StatusCreated)
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "stall", "url": stall}).want(t, http.StatusCreated)
	_, both = s.account(map[string]any{"agents": []string{"echo", "stall"}}, nil)
	_, echoOnly = s.account(map[string]any{"agents": []string{"echo"}}, nil)
	_, none = s.account(map[string]any{}, nil)
	return both, echoOnly, none
}

// compactCard is r with its JSON body compacted (cards are indented).
func compactCard(t *testing.T, r response) response {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, r.raw); err != nil {
		t.Fatalf("not JSON: %v %s", err, r.raw)
	}
	r.raw = b.Bytes()
	return r
}

// The cards: public, naming sluice's endpoints only; the extended card is
// the caller's view.
func TestA2ACards(t *testing.T) {
	s := newServer(t)
	both, echoOnly, _ := registerA2AAgents(t, s)
	agentURL := s.http.URL + "/a2a/echo/"
	c := compactCard(t, s.call("GET", "/a2a/echo/.well-known/agent-card.json", "", nil).want(t, http.StatusOK))
	for _, want := range []string{`"name":"echo"`, `"url":"` + agentURL + `"`, `"protocolVersion":"0.3"`, `"streaming":true`, `"scheme":"Bearer"`} {
		if !strings.Contains(string(c.raw), want) {
			t.Fatalf("agent card lacks %s: %s", want, c.raw)
		}
	}
	var card a2a.AgentCard
	if err := json.Unmarshal(c.raw, &card); err != nil || card.Name != "echo" || len(card.Skills) != 1 || len(card.SupportedInterfaces) != 4 {
		t.Fatalf("a2a-go reads the card: %v %+v", err, card)
	}
	old, err := a2av0.NewAgentCardParser()(c.raw)
	if err != nil || old.Name != "echo" || len(old.SupportedInterfaces) == 0 || old.SupportedInterfaces[0].URL != agentURL {
		t.Fatalf("a2a-go's 0.3 parser reads the card: %v %+v", err, old)
	}
	list := s.call("GET", "/api/v1/admin/agents", s.admin, nil).want(t, http.StatusOK)
	var agents struct {
		Agents []struct{ URL string } `json:"agents"`
	}
	_ = json.Unmarshal(list.raw, &agents)
	srv := compactCard(t, s.call("GET", "/.well-known/agent-card.json", "", nil).want(t, http.StatusOK))
	for _, a := range agents.Agents {
		if a.URL == "" || strings.Contains(string(c.raw), a.URL) || strings.Contains(string(srv.raw), a.URL) {
			t.Fatalf("a card names an agent's own URL %q: %s %s", a.URL, c.raw, srv.raw)
		}
	}
	if !strings.Contains(string(srv.raw), `"id":"echo"`) || !strings.Contains(string(srv.raw), `"id":"stall"`) {
		t.Fatalf("server card: %s", srv.raw)
	}
	s.call("GET", "/a2a/nobody/.well-known/agent-card.json", "", nil).want(t, http.StatusNotFound)
	ext, err := newA2ACaller(t, s, "", echoOnly, false).tr.GetExtendedAgentCard(ctxT(t), a2aclient.ServiceParams{"Authorization": {"Bearer " + echoOnly}}, &a2a.GetExtendedAgentCardRequest{})
	if err != nil || len(ext.Skills) != 1 || ext.Skills[0].ID != "echo" {
		t.Fatalf("extended card of an account granted echo: %v %+v", err, ext)
	}
	if ext, err := newA2ACaller(t, s, "", both, false).tr.GetExtendedAgentCard(ctxT(t), a2aclient.ServiceParams{"Authorization": {"Bearer " + both}}, &a2a.GetExtendedAgentCardRequest{}); err != nil || len(ext.Skills) != 2 {
		t.Fatalf("extended card of an account granted both: %v %+v", err, ext)
	}
}

// A2A 1.0 and 0.3 clients, every method: a message is a durable run, read,
// listed, streamed, cancelled; another account's task is TaskNotFound; a
// refused agent is a permission error; a wrong key is 401 before the body
// is read.
func TestA2AMethods(t *testing.T) {
	s := newServer(t)
	both, echoOnly, none := registerA2AAgents(t, s)
	for _, v03 := range []bool{false, true} {
		name := "1.0"
		if v03 {
			name = "0.3"
		}
		t.Run(name, func(t *testing.T) {
			echo := newA2ACaller(t, s, "echo", both, v03)
			// Blocking: the task ends with the agent's output.
			task, err := echo.send(dataMessage("m-block-"+name, map[string]any{"text": "hello"}), false)
			if err != nil || task.Status.State != a2a.TaskStateCompleted || !strings.Contains(outputOf(t, task), `"echo":{"text":"hello"}`) {
				t.Fatalf("blocking send: %v %+v", err, task)
			}
			if task.Status.Message == nil || task.ContextID == "" {
				t.Fatalf("blocking send: no status message or context: %+v", task)
			}
			// The task is the run.
			r := s.call("GET", "/api/v1/runs/"+string(task.ID), both, nil).want(t, http.StatusOK)
			if r.str("kind") != "agent_workflow" || r.str("status") != "success" {
				t.Fatalf("the task's run: %s", r.raw)
			}
			// The same messageId again is the same task.
			again, err := echo.send(dataMessage("m-block-"+name, map[string]any{"text": "hello"}), false)
			if err != nil || again.ID != task.ID {
				t.Fatalf("the message again: %v %+v", err, again)
			}
			// Text parts become {"text": ...}.
			text := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi"), a2a.NewTextPart("there"))
			text.ID = "m-text-" + name
			if task, err := echo.send(text, false); err != nil || !strings.Contains(outputOf(t, task), `"text":"hi\nthere"`) {
				t.Fatalf("text message: %v %+v", err, task)
			}
			// Non-blocking: the task as submitted (or working), then completed.
			msg := dataMessage("m-async-"+name, map[string]any{"n": 1})
			msg.ContextID = "ctx-" + name
			task, err = echo.send(msg, true)
			// Submitted, or working, or (a fast agent) completed already.
			if err != nil || task.Status.State != a2a.TaskStateSubmitted && task.Status.State != a2a.TaskStateWorking && task.Status.State != a2a.TaskStateCompleted {
				t.Fatalf("non-blocking send: %v %+v", err, task)
			}
			if done := echo.waitState(task.ID, a2a.TaskStateCompleted); done.ContextID != "ctx-"+name {
				t.Fatalf("the context id: %+v", done)
			}
			// A failing agent: FAILED with its message.
			failed, err := echo.send(dataMessage("m-fail-"+name, map[string]any{"mock_error": "no can do"}), false)
			if err != nil || failed.Status.State != a2a.TaskStateFailed || failed.Status.Message == nil {
				t.Fatalf("failing agent: %v %+v", err, failed)
			}
			// Streaming: the task, WORKING, the artifact, COMPLETED.
			events, err := collect(t, echo.tr.SendStreamingMessage(ctxT(t), echo.params, &a2a.SendMessageRequest{Message: dataMessage("m-stream-"+name, map[string]any{"s": true})}))
			if err != nil || len(events) < 3 {
				t.Fatalf("stream: %v %d events", err, len(events))
			}
			if _, ok := events[0].(*a2a.Task); !ok {
				t.Fatalf("stream starts with %T", events[0])
			}
			last, ok := events[len(events)-1].(*a2a.TaskStatusUpdateEvent)
			if !ok || last.Status.State != a2a.TaskStateCompleted {
				t.Fatalf("stream ends with %+v", events[len(events)-1])
			}
			if art, ok := events[len(events)-2].(*a2a.TaskArtifactUpdateEvent); !ok || art.Artifact == nil {
				t.Fatalf("no artifact before the final status: %+v", events[len(events)-2])
			}
			// Cancel a task whose agent never answers; a subscriber sees it end.
			stall := newA2ACaller(t, s, "stall", both, v03)
			slow, err := stall.send(dataMessage("m-stall-"+name, map[string]any{}), true)
			if err != nil {
				t.Fatalf("send to stall: %v", err)
			}
			subscribed := make(chan []a2a.Event, 1)
			go func() {
				evs, _ := collect(t, stall.tr.SubscribeToTask(ctxT(t), stall.params, &a2a.SubscribeToTaskRequest{ID: slow.ID}))
				subscribed <- evs
			}()
			stall.waitState(slow.ID, a2a.TaskStateWorking)
			cancelled, err := stall.tr.CancelTask(ctxT(t), stall.params, &a2a.CancelTaskRequest{ID: slow.ID})
			if err != nil || cancelled.Status.State != a2a.TaskStateCanceled {
				t.Fatalf("cancel: %v %+v", err, cancelled)
			}
			select {
			case evs := <-subscribed:
				// The last event is the final status update, or the task
				// itself when the subscription began after the cancel.
				var end a2a.TaskState
				switch ev := evs[len(evs)-1].(type) {
				case *a2a.TaskStatusUpdateEvent:
					end = ev.Status.State
				case *a2a.Task:
					end = ev.Status.State
				}
				if end != a2a.TaskStateCanceled {
					t.Fatalf("subscription ends with %+v", evs[len(evs)-1])
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the subscription did not end with the cancel")
			}
			if _, err := stall.tr.CancelTask(ctxT(t), stall.params, &a2a.CancelTaskRequest{ID: slow.ID}); !errors.Is(err, a2a.ErrTaskNotCancelable) {
				t.Fatalf("cancel a cancelled task: %v", err)
			}
			// Another account's task is not found; a refused agent is refused.
			other := newA2ACaller(t, s, "echo", echoOnly, v03)
			if _, err := other.get(task.ID); !errors.Is(err, a2a.ErrTaskNotFound) {
				t.Fatalf("another account's task: %v", err)
			}
			if _, err := newA2ACaller(t, s, "echo", none, v03).send(dataMessage("m-refused-"+name, map[string]any{}), false); !errors.Is(err, a2a.ErrUnauthorized) {
				t.Fatalf("a refused agent: %v", err)
			}
			if _, err := newA2ACaller(t, s, "stall", echoOnly, v03).get(slow.ID); !errors.Is(err, a2a.ErrUnauthorized) {
				t.Fatalf("a refused agent's task: %v", err)
			}
		})
	}
	// ListTasks (1.0): the account's tasks of this agent.
	echo := newA2ACaller(t, s, "echo", both, false)
	list, err := echo.tr.ListTasks(ctxT(t), echo.params, &a2a.ListTasksRequest{PageSize: 100})
	if err != nil || len(list.Tasks) < 8 {
		t.Fatalf("ListTasks: %v %+v", err, list)
	}
	for _, task := range list.Tasks {
		if task.Metadata["agent"] != "echo" {
			t.Fatalf("ListTasks at echo lists %+v", task)
		}
	}
	byContext, err := echo.tr.ListTasks(ctxT(t), echo.params, &a2a.ListTasksRequest{ContextID: "ctx-1.0"})
	if err != nil || len(byContext.Tasks) != 1 {
		t.Fatalf("ListTasks by context: %v %+v", err, byContext)
	}
	// A wrong key: 401 with a Bearer challenge, the body never read.
	r := s.call("POST", "/a2a/echo/", "sk_live_wrong", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": map[string]any{"id": "x"}})
	if r.status != http.StatusUnauthorized || !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") || !strings.Contains(string(r.raw), "-31401") {
		t.Fatalf("wrong key: %d %v %s", r.status, r.header, r.raw)
	}
	if r := s.call("POST", "/a2a/echo/", "", "{"); r.status != http.StatusUnauthorized || r.header.Get("WWW-Authenticate") == "" {
		t.Fatalf("no key: %d %v %s", r.status, r.header, r.raw)
	}
	if _, err := newA2ACaller(t, s, "echo", "sk_live_wrong", false).get("x"); err == nil {
		t.Fatal("a2a-go's client with a wrong key: no error")
	}
}

// restartAgent is a task agent whose first call lasts until the gateway
// that made it stops, and whose later calls answer {"after": "restart"}.
// started is closed at the first call.
func restartAgent(t *testing.T) (agentURL string, started chan struct{}) {
	var calls atomic.Int64
	started = make(chan struct{})
	agentSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			_, _ = w.Write([]byte(`{"status":"healthy"}`))
			return
		}
		var task struct {
			TaskID string `json:"task_id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&task)
		if calls.Add(1) == 1 {
			close(started)
			<-r.Context().Done() // the first call lasts until its gateway stops
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"task_id":"` + task.TaskID + `","status":"success","output":{"after":"restart"},"error":null}`))
	}))
	t.Cleanup(agentSrv.Close)
	return agentSrv.URL, started
}

// A task outlives its gateway: the server stops while the agent works,
// and the task ends on the next one, read and followed there.
func TestA2ATaskSurvivesRestart(t *testing.T) {
	agentURL, started := restartAgent(t)
	dir := t.TempDir()
	a := startServer(t, dir)
	a.call("POST", "/api/v1/admin/agents", a.admin, map[string]any{"name": "later", "url": agentURL}).want(t, http.StatusCreated)
	_, key := a.account(map[string]any{"agents": []string{"later"}}, nil)
	task, err := newA2ACaller(t, a, "later", key, false).send(dataMessage("m-restart", map[string]any{"x": 1}), true)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the agent was never called")
	}
	a.close()
	b := startServer(t, dir)
	c := newA2ACaller(t, b, "later", key, false)
	events, err := collect(t, c.tr.SubscribeToTask(ctxT(t), c.params, &a2a.SubscribeToTaskRequest{ID: task.ID}))
	if err != nil || len(events) == 0 {
		t.Fatalf("subscribe after the restart: %v %+v", err, events)
	}
	done := c.waitState(task.ID, a2a.TaskStateCompleted)
	if !strings.Contains(outputOf(t, done), `"after":"restart"`) {
		t.Fatalf("after the restart: %+v", done)
	}
}

// A capability as an A2A agent: its inputs in a data part; a pending
// decision is INPUT_REQUIRED, and the next message on the task answers it.
func TestA2ACapabilitySkill(t *testing.T) {
	s := newServer(t)
	s.call("POST", "/api/v1/a2s/registry", s.admin, map[string]any{"namespace": "finance", "document": withChecksum(t, approveCap), "file": "approve.yaml"}).want(t, http.StatusCreated)
	_, key := s.account(map[string]any{"capability_level": "basic", "operations": []string{"LoadData"}}, nil)
	_, other := s.account(map[string]any{"capability_level": "basic"}, nil)
	// The registry takes a key (public_registry is off), and so does the card.
	s.call("GET", "/a2a-cap/finance/Approve/.well-known/agent-card.json", "", nil).want(t, http.StatusUnauthorized)
	card := compactCard(t, s.call("GET", "/a2a-cap/finance/Approve/.well-known/agent-card.json", key, nil).want(t, http.StatusOK))
	if !strings.Contains(string(card.raw), `"url":"`+s.http.URL+`/a2a-cap/finance/Approve/"`) {
		t.Fatalf("capability card: %s", card.raw)
	}
	s.call("GET", "/a2a-cap/finance/Nope/.well-known/agent-card.json", key, nil).want(t, http.StatusNotFound)
	// A capability above the account's level is refused, as on every ingress.
	elevated := withChecksum(t, strings.NewReplacer("id: Approve", "id: Wire", "level: basic", "level: elevated").Replace(approveCap))
	s.call("POST", "/api/v1/a2s/registry", s.admin, map[string]any{"namespace": "finance", "document": elevated, "file": "wire.yaml"}).want(t, http.StatusCreated)
	if _, err := newA2ACaller(t, s, "/a2a-cap/finance/Wire/", key, false).send(dataMessage("m-wire", map[string]any{"amount": 1}), false); !errors.Is(err, a2a.ErrUnauthorized) {
		t.Fatalf("a capability above the account's level: %v", err)
	}
	for _, v03 := range []bool{false, true} {
		c := newA2ACaller(t, s, "/a2a-cap/finance/Approve/", key, v03)
		id := "m-cap-" + strings.ReplaceAll(fmt.Sprint(v03), " ", "")
		task, err := c.send(dataMessage(id, map[string]any{"amount": 40}), false)
		if err != nil || task.Status.State != a2a.TaskStateInputRequired || task.Status.Message == nil ||
			task.Status.Message.Parts[0].Text() != "Approve a refund of 40 EUR?" {
			t.Fatalf("run (0.3: %v): %v %+v", v03, err, task)
		}
		if _, err := newA2ACaller(t, s, "/a2a-cap/finance/Approve/", other, v03).get(task.ID); !errors.Is(err, a2a.ErrTaskNotFound) {
			t.Fatalf("another account's capability task: %v", err)
		}
		answer := dataMessage(id+"-answer", map[string]any{"verdict": "yes"})
		answer.TaskID = task.ID
		done, err := c.send(answer, false)
		if err != nil || done.Status.State != a2a.TaskStateCompleted || !strings.Contains(outputOf(t, done), `"verdict":"approved"`) {
			t.Fatalf("answer (0.3: %v): %v %+v", v03, err, done)
		}
		again := dataMessage(id+"-again", map[string]any{"verdict": "no"})
		again.TaskID = task.ID
		if _, err := c.send(again, false); !errors.Is(err, a2a.ErrUnsupportedOperation) {
			t.Fatalf("a second answer (0.3: %v): %v", v03, err)
		}
		if got, err := c.get(task.ID); err != nil || got.Status.State != a2a.TaskStateCompleted || got.ContextID != task.ContextID {
			t.Fatalf("GetTask: %v %+v", err, got)
		}
	}
}

// The HTTP+JSON binding beside JSON-RPC: a2a-go's REST clients, 1.0 and 0.3.
func TestA2AREST(t *testing.T) {
	s := newServer(t)
	both, _, _ := registerA2AAgents(t, s)
	u, err := url.Parse(s.http.URL + "/a2a/echo/rest")
	if err != nil {
		t.Fatal(err)
	}
	params := a2aclient.ServiceParams{"Authorization": {"Bearer " + both}}
	for name, tr := range map[string]a2aclient.Transport{
		"1.0": a2aclient.NewRESTTransport(u, s.http.Client()),
		"0.3": mustTransport(t)(a2av0.NewRESTTransport(a2av0.RESTTransportConfig{URL: u.String(), Client: s.http.Client()})),
	} {
		res, err := tr.SendMessage(ctxT(t), params, &a2a.SendMessageRequest{Message: dataMessage("m-rest-"+name, map[string]any{"via": "rest"})})
		task, _ := res.(*a2a.Task)
		if err != nil || task == nil || task.Status.State != a2a.TaskStateCompleted || !strings.Contains(outputOf(t, task), `"via":"rest"`) {
			t.Fatalf("%s SendMessage: %v %+v", name, err, res)
		}
		if got, err := tr.GetTask(ctxT(t), params, &a2a.GetTaskRequest{ID: task.ID}); err != nil || got.Status.State != a2a.TaskStateCompleted {
			t.Fatalf("%s GetTask: %v %+v", name, err, got)
		}
	}
	r := s.call("POST", "/a2a/echo/rest/message:send", "sk_live_wrong", map[string]any{})
	if r.status != http.StatusUnauthorized || r.header.Get("WWW-Authenticate") == "" {
		t.Fatalf("REST with a wrong key: %d %s", r.status, r.raw)
	}
}

func mustTransport(t *testing.T) func(a2aclient.Transport, error) a2aclient.Transport {
	return func(tr a2aclient.Transport, err error) a2aclient.Transport {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
}

// Every A2A request passes the account's request limit and is audited once,
// as every other ingress's.
func TestA2ALimitedAndAudited(t *testing.T) {
	s := newServer(t)
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "echo", "url": mockAgent(t, "echo")}).want(t, http.StatusCreated)
	id, key := s.account(map[string]any{"agents": []string{"echo"}}, map[string]any{"requests_per_minute": 2})
	c := newA2ACaller(t, s, "echo", key, false)
	if _, err := c.send(dataMessage("m-audit", map[string]any{}), false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.get("awf-missing"); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("GetTask of no task: %v", err)
	}
	r := s.call("POST", "/a2a/echo/", key, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": map[string]any{"id": "x"}})
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
		t.Fatalf("over the limit: %d %v %s", r.status, r.header, r.raw)
	}
	var records []any
	waitFor(t, 5*time.Second, "the audit records", func() bool {
		records, _ = s.call("GET", "/api/v1/admin/audit?limit=1000&account="+id, s.admin, nil).want(t, http.StatusOK).get("records").([]any)
		return strings.Contains(fmt.Sprint(records), "decision:limited")
	})
	got := fmt.Sprint(records)
	for _, want := range []string{"method:a2a.SendMessage", "method:a2a.GetTask", "error_code:task_not_found", "decision:limited"} {
		if !strings.Contains(got, want) {
			t.Fatalf("the audit lacks %s: %s", want, got)
		}
	}
}
