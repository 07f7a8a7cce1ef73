package gateway_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
)

// webhook is an A2A push notification receiver: it keeps what each POST
// carried.
type webhook struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []pushed
}

type pushed struct {
	task  *a2a.Task
	token string
	auth  string
	raw   string
}

func newWebhook(t *testing.T) *webhook {
	w := &webhook{}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var sr a2a.StreamResponse
		if err := json.Unmarshal(raw, &sr); err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		task, _ := sr.Event.(*a2a.Task)
		w.mu.Lock()
		w.got = append(w.got, pushed{task: task, token: r.Header.Get("A2A-Notification-Token"), auth: r.Header.Get("Authorization"), raw: string(raw)})
		w.mu.Unlock()
		rw.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(w.srv.Close)
	return w
}

// of are the notifications of task id in state ("": every state).
func (w *webhook) of(id a2a.TaskID, state a2a.TaskState) []pushed {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []pushed
	for _, p := range w.got {
		if p.task != nil && p.task.ID == id && (state == "" || p.task.Status.State == state) {
			out = append(out, p)
		}
	}
	return out
}

// waitPushed waits for task id's notification of state and then checks,
// once a sweep more has surely passed, that it came once.
func (w *webhook) waitPushed(t *testing.T, s *testServer, id a2a.TaskID, state a2a.TaskState) pushed {
	t.Helper()
	waitFor(t, 30*time.Second, "the "+string(state)+" notification of "+string(id), func() bool { return len(w.of(id, state)) > 0 })
	// Another config on another task, set now, is notified by a later
	// sweep: once it came, the sweeps that could repeat ours have run.
	w.syncSweep(t, s)
	got := w.of(id, state)
	if len(got) != 1 {
		t.Fatalf("%d notifications of %s for %s, want 1", len(got), state, id)
	}
	return got[0]
}

// syncSweep sends a message with a push config of its own to the echo
// agent of s and waits for its final notification: a sweep that began
// after this call has run to its end.
func (w *webhook) syncSweep(t *testing.T, s *testServer) {
	t.Helper()
	_, key := s.account(map[string]any{"agents": []string{"echo"}}, nil)
	n := syncs.Add(1)
	req := &a2a.SendMessageRequest{Message: dataMessage(fmt.Sprintf("m-sync-%d", n), map[string]any{"sync": n}),
		Config: &a2a.SendMessageConfig{PushConfig: &a2a.PushConfig{URL: w.srv.URL + "/sync"}}}
	c := newA2ACaller(t, s, "echo", key, false)
	res, err := c.tr.SendMessage(ctxT(t), c.params, req)
	if err != nil {
		t.Fatal(err)
	}
	id := res.(*a2a.Task).ID
	waitFor(t, 30*time.Second, "the sync notification", func() bool { return len(w.of(id, a2a.TaskStateCompleted)) > 0 })
}

var syncs atomic.Int64

// The four config methods, on 1.0 and 0.3: create (with and without an
// id), get, list, delete; the token and credentials never answered; a
// config on another account's task is TaskNotFound; a loopback or private
// host is refused unless allowlisted, naming the host; the bound per task.
func TestA2APushConfigs(t *testing.T) {
	s := newServer(t)
	both, echoOnly, _ := registerA2AAgents(t, s)
	hook := newWebhook(t)
	c := newA2ACaller(t, s, "echo", both, false)
	task, err := c.send(dataMessage("m-push-cfg", map[string]any{"x": 1}), false)
	if err != nil {
		t.Fatal(err)
	}
	const token, creds = "tok-SECRET-4242", "cred-SECRET-4343"
	cfg := &a2a.PushConfig{TaskID: task.ID, ID: "mine", URL: hook.srv.URL + "/a?key=q", Token: token,
		Auth: &a2a.PushAuthInfo{Scheme: "Bearer", Credentials: creds}}
	made, err := c.tr.CreateTaskPushConfig(ctxT(t), c.params, cfg)
	if err != nil || made.ID != "mine" || made.URL != cfg.URL || made.Token != "" || made.Auth == nil || made.Auth.Credentials != "" || made.Auth.Scheme != "Bearer" {
		t.Fatalf("create: %v %+v", err, made)
	}
	anon, err := c.tr.CreateTaskPushConfig(ctxT(t), c.params, &a2a.PushConfig{TaskID: task.ID, URL: hook.srv.URL + "/b"})
	if err != nil || anon.ID == "" {
		t.Fatalf("create without an id: %v %+v", err, anon)
	}
	got, err := c.tr.GetTaskPushConfig(ctxT(t), c.params, &a2a.GetTaskPushConfigRequest{TaskID: task.ID, ID: "mine"})
	if err != nil || got.URL != cfg.URL || got.Token != "" {
		t.Fatalf("get: %v %+v", err, got)
	}
	old := newA2ACaller(t, s, "echo", both, true) // 0.3: tasks/pushNotificationConfig/*
	list, err := old.tr.ListTaskPushConfigs(ctxT(t), old.params, &a2a.ListTaskPushConfigRequest{TaskID: task.ID})
	if err != nil || len(list) != 2 {
		t.Fatalf("list (0.3): %v %+v", err, list)
	}
	if _, err := old.tr.CreateTaskPushConfig(ctxT(t), old.params, &a2a.PushConfig{TaskID: task.ID, ID: "old", URL: hook.srv.URL + "/c"}); err != nil {
		t.Fatalf("create (0.3): %v", err)
	}
	raw := s.call("POST", "/a2a/echo/", both, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ListTaskPushNotificationConfigs",
		"params": map[string]any{"taskId": task.ID}}).want(t, http.StatusOK)
	if strings.Contains(string(raw.raw), "SECRET") || !strings.Contains(string(raw.raw), `"mine"`) {
		t.Fatalf("the list's JSON: %s", raw.raw)
	}
	u, _ := url.Parse(s.http.URL + "/a2a/echo/rest")
	rest := a2aclient.NewRESTTransport(u, s.http.Client()) // HTTP+JSON: /tasks/{id}/pushNotificationConfigs
	if made, err := rest.CreateTaskPushConfig(ctxT(t), c.params, &a2a.PushConfig{TaskID: task.ID, ID: "rest", URL: hook.srv.URL + "/r", Token: token}); err != nil || made.Token != "" {
		t.Fatalf("create (HTTP+JSON): %v %+v", err, made)
	}
	if err := rest.DeleteTaskPushConfig(ctxT(t), c.params, &a2a.DeleteTaskPushConfigRequest{TaskID: task.ID, ID: "rest"}); err != nil {
		t.Fatalf("delete (HTTP+JSON): %v", err)
	}
	if err := c.tr.DeleteTaskPushConfig(ctxT(t), c.params, &a2a.DeleteTaskPushConfigRequest{TaskID: task.ID, ID: "old"}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if err := c.tr.DeleteTaskPushConfig(ctxT(t), c.params, &a2a.DeleteTaskPushConfigRequest{TaskID: task.ID, ID: "old"}); err == nil {
		t.Fatal("a deleted config deleted again: no error")
	}
	if _, err := c.tr.GetTaskPushConfig(ctxT(t), c.params, &a2a.GetTaskPushConfigRequest{TaskID: task.ID, ID: "old"}); err == nil {
		t.Fatal("a deleted config read: no error")
	}

	// Another account's task: TaskNotFound on every method.
	other := newA2ACaller(t, s, "echo", echoOnly, false)
	if _, err := other.tr.CreateTaskPushConfig(ctxT(t), other.params, &a2a.PushConfig{TaskID: task.ID, URL: hook.srv.URL}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("create on another account's task: %v", err)
	}
	if _, err := other.tr.ListTaskPushConfigs(ctxT(t), other.params, &a2a.ListTaskPushConfigRequest{TaskID: task.ID}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("list on another account's task: %v", err)
	}
	if err := other.tr.DeleteTaskPushConfig(ctxT(t), other.params, &a2a.DeleteTaskPushConfigRequest{TaskID: task.ID, ID: "mine"}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("delete on another account's task: %v", err)
	}

	// Hosts the egress rule refuses, named; 127.0.0.1 is allowlisted by
	// the test server (the webhook above), localhost and 10/8 are not.
	for _, u := range []string{"http://localhost:9/hook", "http://10.1.2.3/hook", "http://[::1]:9/hook", "http://169.254.169.254/latest"} {
		_, err := c.tr.CreateTaskPushConfig(ctxT(t), c.params, &a2a.PushConfig{TaskID: task.ID, URL: u})
		host := strings.TrimSuffix(strings.SplitN(strings.TrimPrefix(u, "http://"), "/", 2)[0], "")
		if !errors.Is(err, a2a.ErrInvalidParams) || !strings.Contains(err.Error(), "egress.allow_private") ||
			!strings.Contains(err.Error(), strings.Trim(strings.Split(host, "]")[0], "[")) {
			t.Fatalf("a webhook at %s: %v", u, err)
		}
	}
	if _, err := c.tr.CreateTaskPushConfig(ctxT(t), c.params, &a2a.PushConfig{TaskID: task.ID, URL: hook.srv.URL, Token: "SECRET\r\nX: y"}); !errors.Is(err, a2a.ErrInvalidParams) ||
		!strings.Contains(err.Error(), "token holds a control character") || strings.Contains(err.Error(), "SECRET") {
		t.Fatalf("a token with a line break: %v", err)
	}
	if _, err := c.tr.CreateTaskPushConfig(ctxT(t), c.params, &a2a.PushConfig{TaskID: task.ID, URL: "ftp://example.com/x"}); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Fatalf("an ftp webhook: %v", err)
	}
	// A bad webhook in SendMessage starts nothing.
	bad := &a2a.SendMessageRequest{Message: dataMessage("m-push-bad", map[string]any{}), Config: &a2a.SendMessageConfig{PushConfig: &a2a.PushConfig{URL: "http://localhost:9/x"}}}
	if _, err := c.tr.SendMessage(ctxT(t), c.params, bad); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Fatalf("SendMessage with a refused webhook: %v", err)
	}
	if l, _ := c.tr.ListTasks(ctxT(t), c.params, &a2a.ListTasksRequest{}); len(l.Tasks) != 1 {
		t.Fatalf("a refused webhook started a task: %+v", l.Tasks)
	}

	// The bound per task, named in the error.
	for i := 0; ; i++ {
		_, err := c.tr.CreateTaskPushConfig(ctxT(t), c.params, &a2a.PushConfig{TaskID: task.ID, ID: fmt.Sprintf("n%d", i), URL: hook.srv.URL})
		if err != nil {
			if !strings.Contains(err.Error(), "10 push notification configs") || i > 10 {
				t.Fatalf("config %d: %v", i, err)
			}
			break
		}
	}

	// The secrets: in no log line, no audit record; in the vault by id.
	waitFor(t, 10*time.Second, "the audit records", func() bool {
		r := s.call("GET", "/api/v1/admin/audit?limit=1000", s.admin, nil).want(t, http.StatusOK)
		return strings.Contains(string(r.raw), "CreateTaskPushNotificationConfig")
	})
	audit := s.call("GET", "/api/v1/admin/audit?limit=1000", s.admin, nil).want(t, http.StatusOK)
	creds2 := s.call("GET", "/api/v1/admin/credentials", s.admin, nil).want(t, http.StatusOK)
	for where, text := range map[string]string{"logs": s.logs.String(), "audit": string(audit.raw), "credential list": string(creds2.raw)} {
		if strings.Contains(text, "SECRET") {
			t.Fatalf("a push secret in the %s: %s", where, text)
		}
	}
	if !strings.Contains(string(creds2.raw), "a2a-push.") {
		t.Fatalf("the secrets are not in the vault: %s", creds2.raw)
	}
}

// A task that completes notifies its webhooks: set in SendMessage (with a
// token and credentials) and by CreateTaskPushConfig; the final state
// once, with the token and the task's artifact and history; the token
// nowhere else.
func TestA2APushDelivered(t *testing.T) {
	s := newServer(t)
	both, _, _ := registerA2AAgents(t, s)
	hook := newWebhook(t)
	c := newA2ACaller(t, s, "echo", both, false)
	const token = "tok-SECRET-delivered"
	req := &a2a.SendMessageRequest{Message: dataMessage("m-push-send", map[string]any{"hello": "push"}),
		Config: &a2a.SendMessageConfig{ReturnImmediately: true, PushConfig: &a2a.PushConfig{URL: hook.srv.URL + "/send",
			Token: token, Auth: &a2a.PushAuthInfo{Scheme: "Bearer", Credentials: "cred-SECRET-delivered"}}}}
	res, err := c.tr.SendMessage(ctxT(t), c.params, req)
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*a2a.Task)
	// The same message again (a client's retry) answers the same task and
	// sets no second webhook.
	if again, err := c.tr.SendMessage(ctxT(t), c.params, req); err != nil || again.(*a2a.Task).ID != task.ID {
		t.Fatalf("the same message again: %v %+v", err, again)
	}
	if list, err := c.tr.ListTaskPushConfigs(ctxT(t), c.params, &a2a.ListTaskPushConfigRequest{TaskID: task.ID}); err != nil || len(list) != 1 {
		t.Fatalf("configs after the same message twice: %v %+v", err, list)
	}
	got := hook.waitPushed(t, s, task.ID, a2a.TaskStateCompleted)
	if got.token != token || got.auth != "Bearer cred-SECRET-delivered" {
		t.Fatalf("the notification's token %q and authorization %q", got.token, got.auth)
	}
	if len(got.task.Artifacts) != 1 || !strings.Contains(got.raw, `"hello":"push"`) || len(got.task.History) != 2 {
		t.Fatalf("the notification's task: %s", got.raw)
	}

	// A 0.3 client's message/send with its pushNotificationConfig.
	old := newA2ACaller(t, s, "echo", both, true)
	res03, err := old.tr.SendMessage(ctxT(t), old.params, &a2a.SendMessageRequest{Message: dataMessage("m-push-03", map[string]any{"v": "0.3"}),
		Config: &a2a.SendMessageConfig{PushConfig: &a2a.PushConfig{URL: hook.srv.URL + "/old", Token: "tok-03"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := hook.waitPushed(t, s, res03.(*a2a.Task).ID, a2a.TaskStateCompleted); got.token != "tok-03" {
		t.Fatalf("0.3's notification: token %q", got.token)
	}

	// A config set on an ended task is told its last state, once.
	if _, err := c.tr.CreateTaskPushConfig(ctxT(t), c.params, &a2a.PushConfig{TaskID: task.ID, ID: "late", URL: hook.srv.URL + "/late"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the late config's notification", func() bool { return len(hook.of(task.ID, a2a.TaskStateCompleted)) == 2 })
	hook.syncSweep(t, s)
	if n := len(hook.of(task.ID, a2a.TaskStateCompleted)); n != 2 {
		t.Fatalf("%d final notifications for two configs", n)
	}

	// The token is in no answer, log line or audit record.
	read, _ := c.tr.GetTask(ctxT(t), c.params, &a2a.GetTaskRequest{ID: task.ID})
	list, _ := c.tr.ListTaskPushConfigs(ctxT(t), c.params, &a2a.ListTaskPushConfigRequest{TaskID: task.ID})
	audit := s.call("GET", "/api/v1/admin/audit?limit=1000", s.admin, nil).want(t, http.StatusOK)
	for where, v := range map[string]any{"GetTask": read, "list": list, "logs": s.logs.String(), "audit": string(audit.raw)} {
		b, _ := json.Marshal(v)
		if strings.Contains(string(b), "SECRET") {
			t.Fatalf("a push secret in %s: %s", where, b)
		}
	}
}

// A task whose gateway stops while its agent works: the next gateway
// sends the final notification, once.
func TestA2APushSurvivesRestart(t *testing.T) {
	agentURL, started := restartAgent(t)
	hook := newWebhook(t)
	dir := t.TempDir()
	a := startServer(t, dir)
	a.call("POST", "/api/v1/admin/agents", a.admin, map[string]any{"name": "later", "url": agentURL}).want(t, http.StatusCreated)
	a.call("POST", "/api/v1/admin/agents", a.admin, map[string]any{"name": "echo", "url": mockAgent(t, "echo")}).want(t, http.StatusCreated)
	_, key := a.account(map[string]any{"agents": []string{"later"}}, nil)
	c := newA2ACaller(t, a, "later", key, false)
	req := &a2a.SendMessageRequest{Message: dataMessage("m-push-restart", map[string]any{"x": 1}),
		Config: &a2a.SendMessageConfig{ReturnImmediately: true, PushConfig: &a2a.PushConfig{URL: hook.srv.URL, Token: "tok-restart"}}}
	res, err := c.tr.SendMessage(ctxT(t), c.params, req)
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*a2a.Task)
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the agent was never called")
	}
	admin := a.admin
	a.close()
	b := startServer(t, dir)
	b.admin = admin // shown on the first start only
	got := hook.waitPushed(t, b, task.ID, a2a.TaskStateCompleted)
	if got.token != "tok-restart" || !strings.Contains(got.raw, `"after":"restart"`) {
		t.Fatalf("after the restart: %q %s", got.token, got.raw)
	}
}

// History: the user's message and the agent's status message, the last n
// with historyLength.
func TestA2AHistory(t *testing.T) {
	s := newServer(t)
	both, _, _ := registerA2AAgents(t, s)
	c := newA2ACaller(t, s, "echo", both, false)
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello history"))
	msg.ID = "m-history"
	task, err := c.send(msg, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(task.History) != 2 || task.History[0].ID != "m-history" || task.History[0].Role != a2a.MessageRoleUser ||
		task.History[1].Role != a2a.MessageRoleAgent {
		t.Fatalf("SendMessage's history: %+v", task.History)
	}
	if text, ok := task.History[0].Parts[0].Content.(a2a.Text); !ok || string(text) != "hello history" {
		t.Fatalf("the user's message: %+v", task.History[0].Parts[0])
	}
	for n, want := range map[int]int{0: 0, 1: 1, 2: 2, 10: 2} {
		got, err := c.tr.GetTask(ctxT(t), c.params, &a2a.GetTaskRequest{ID: task.ID, HistoryLength: &n})
		if err != nil || len(got.History) != want {
			t.Fatalf("historyLength %d: %v %d messages", n, err, len(got.History))
		}
		if n == 1 && got.History[0].Role != a2a.MessageRoleAgent {
			t.Fatalf("historyLength 1 keeps the last: %+v", got.History[0])
		}
	}
	old := newA2ACaller(t, s, "echo", both, true)
	if got, err := old.get(task.ID); err != nil || len(got.History) != 2 {
		t.Fatalf("0.3 GetTask's history: %v %+v", err, got)
	}
	one := 1
	list, err := c.tr.ListTasks(ctxT(t), c.params, &a2a.ListTasksRequest{HistoryLength: &one})
	if err != nil || len(list.Tasks) != 1 || len(list.Tasks[0].History) != 1 {
		t.Fatalf("ListTasks with historyLength 1: %v %+v", err, list)
	}
}

// A webhook that fails is tried again (5xx), up to its bound; one that
// refuses (4xx) is not: the failure is logged without the token, and the
// cursor moves on.
func TestA2APushRetried(t *testing.T) {
	s := newServer(t)
	both, _, _ := registerA2AAgents(t, s)
	var flaky, refusing atomic.Int64
	hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/flaky":
			if flaky.Add(1) < 3 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			w.WriteHeader(http.StatusOK)
		default:
			refusing.Add(1)
			w.WriteHeader(http.StatusForbidden)
		}
	}))
	t.Cleanup(hooks.Close)
	c := newA2ACaller(t, s, "echo", both, false)
	task, err := c.send(dataMessage("m-push-retry", map[string]any{}), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/flaky", "/refusing?secret=SECRET-in-query"} {
		if _, err := c.tr.CreateTaskPushConfig(ctxT(t), c.params, &a2a.PushConfig{TaskID: task.ID, URL: hooks.URL + path, Token: "tok-SECRET-retry"}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 30*time.Second, "the flaky webhook's third attempt", func() bool { return flaky.Load() >= 3 })
	waitFor(t, 30*time.Second, "the refusal logged", func() bool { return strings.Contains(s.logs.String(), "push notification not delivered") })
	hook := newWebhook(t)
	hook.syncSweep(t, s)
	if flaky.Load() != 3 || refusing.Load() != 1 {
		t.Fatalf("attempts: flaky %d (want 3), refusing %d (want 1)", flaky.Load(), refusing.Load())
	}
	if logs := s.logs.String(); strings.Contains(logs, "SECRET") || !strings.Contains(logs, "answered 403") {
		t.Fatalf("the logs: %s", logs)
	}
}

// A capability's task notifies its webhook that it waits for input, then,
// once answered, that it completed: each once.
func TestA2APushCapability(t *testing.T) {
	s := newServer(t)
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "echo", "url": mockAgent(t, "echo")}).want(t, http.StatusCreated)
	s.call("POST", "/api/v1/a2s/registry", s.admin, map[string]any{"namespace": "finance", "document": withChecksum(t, approveCap), "file": "approve.yaml"}).want(t, http.StatusCreated)
	_, key := s.account(map[string]any{"capability_level": "basic", "operations": []string{"LoadData"}}, nil)
	hook := newWebhook(t)
	c := newA2ACaller(t, s, "/a2a-cap/finance/Approve/", key, false)
	req := &a2a.SendMessageRequest{Message: dataMessage("m-cap-push", map[string]any{"amount": 40}),
		Config: &a2a.SendMessageConfig{PushConfig: &a2a.PushConfig{URL: hook.srv.URL + "/cap", Token: "tok-cap"}}}
	res, err := c.tr.SendMessage(ctxT(t), c.params, req)
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*a2a.Task)
	if task.Status.State != a2a.TaskStateInputRequired || len(task.History) != 2 {
		t.Fatalf("the capability's task: %+v", task)
	}
	if got := hook.waitPushed(t, s, task.ID, a2a.TaskStateInputRequired); got.token != "tok-cap" {
		t.Fatalf("the input-required notification's token %q", got.token)
	}
	answer := dataMessage("m-cap-push-answer", map[string]any{"verdict": "yes"})
	answer.TaskID = task.ID
	if _, err := c.send(answer, false); err != nil {
		t.Fatal(err)
	}
	got := hook.waitPushed(t, s, task.ID, a2a.TaskStateCompleted)
	if !strings.Contains(got.raw, `"verdict":"approved"`) {
		t.Fatalf("the completed notification: %s", got.raw)
	}
}
