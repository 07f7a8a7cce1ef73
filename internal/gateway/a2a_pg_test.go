package gateway_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
)

// A task across gateways sharing PostgreSQL: started through one, read,
// followed, listed and cancelled through the other.
func TestA2ATaskAcrossGateways(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	dir := t.TempDir()
	onPG := func(c *config.Config) { c.Store.DSN = dsn }
	stall, started := stallAgent(t)
	a := startServer(t, dir, onPG)
	a.call("POST", "/api/v1/admin/agents", a.admin, map[string]any{"name": "echo", "url": mockAgent(t, "echo")}).want(t, http.StatusCreated)
	a.call("POST", "/api/v1/admin/agents", a.admin, map[string]any{"name": "stall", "url": stall}).want(t, http.StatusCreated)
	_, key := a.account(map[string]any{"agents": []string{"echo", "stall"}}, nil)
	b := startServer(t, dir, onPG)

	done, err := newA2ACaller(t, a, "echo", key, false).send(dataMessage("m-pg-echo", map[string]any{"text": "pg"}), false)
	if err != nil || done.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("send through a: %v %+v", err, done)
	}
	if got, err := newA2ACaller(t, b, "echo", key, true).get(done.ID); err != nil || got.Status.State != a2a.TaskStateCompleted ||
		!strings.Contains(outputOf(t, got), `"text":"pg"`) {
		t.Fatalf("GetTask through b (0.3): %v %+v", err, got)
	}

	slow, err := newA2ACaller(t, a, "stall", key, false).send(dataMessage("m-pg-stall", map[string]any{}), true)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the stalling agent was never called")
	}
	onB := newA2ACaller(t, b, "stall", key, false)
	subscribed := make(chan []a2a.Event, 1)
	go func() {
		evs, _ := collect(t, onB.tr.SubscribeToTask(ctxT(t), onB.params, &a2a.SubscribeToTaskRequest{ID: slow.ID}))
		subscribed <- evs
	}()
	list, err := onB.tr.ListTasks(ctxT(t), onB.params, &a2a.ListTasksRequest{Status: a2a.TaskStateWorking})
	if err != nil || len(list.Tasks) != 1 || list.Tasks[0].ID != slow.ID {
		t.Fatalf("ListTasks of working tasks through b: %v %+v", err, list)
	}
	cancelled, err := onB.tr.CancelTask(ctxT(t), onB.params, &a2a.CancelTaskRequest{ID: slow.ID})
	if err != nil || cancelled.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("cancel through b: %v %+v", err, cancelled)
	}
	select {
	case evs := <-subscribed:
		if len(evs) == 0 {
			t.Fatal("the subscription through b sent nothing")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the subscription through b did not end with the cancel")
	}
	if got, err := newA2ACaller(t, a, "stall", key, false).get(slow.ID); err != nil || got.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("the cancelled task through a: %v %+v", err, got)
	}
}

// Two gateways sharing PostgreSQL both run a push sender: each task's
// final notification is delivered once, whichever gateway started it.
func TestA2APushAcrossGateways(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	dir := t.TempDir()
	onPG := func(c *config.Config) { c.Store.DSN = dsn }
	a := startServer(t, dir, onPG)
	a.call("POST", "/api/v1/admin/agents", a.admin, map[string]any{"name": "echo", "url": mockAgent(t, "echo")}).want(t, http.StatusCreated)
	_, key := a.account(map[string]any{"agents": []string{"echo"}}, nil)
	b := startServer(t, dir, onPG)
	b.admin = a.admin
	hook := newWebhook(t)
	var ids []a2a.TaskID
	for i := range 8 {
		gw := a
		if i%2 == 1 {
			gw = b
		}
		c := newA2ACaller(t, gw, "echo", key, false)
		req := &a2a.SendMessageRequest{Message: dataMessage(fmt.Sprintf("m-pg-push-%d", i), map[string]any{"n": i}),
			Config: &a2a.SendMessageConfig{ReturnImmediately: true, PushConfig: &a2a.PushConfig{URL: hook.srv.URL, Token: "tok-pg"}}}
		res, err := c.tr.SendMessage(ctxT(t), c.params, req)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.(*a2a.Task).ID)
	}
	for _, id := range ids {
		waitFor(t, 30*time.Second, "the final notification of "+string(id), func() bool { return len(hook.of(id, a2a.TaskStateCompleted)) > 0 })
	}
	// A sweep more on each gateway, then: once each.
	hook.syncSweep(t, a)
	hook.syncSweep(t, b)
	for _, id := range ids {
		if got := hook.of(id, a2a.TaskStateCompleted); len(got) != 1 || got[0].token != "tok-pg" {
			t.Fatalf("task %s: %d final notifications, want 1", id, len(got))
		}
	}
}
