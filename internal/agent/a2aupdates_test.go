package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/sluicehq/sluice/internal/agent"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/vault"
	"github.com/sluicehq/sluice/protocol/agenthttp"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// collector keeps a call's updates.
type collector struct {
	mu  sync.Mutex
	got []agent.Update
}

func (c *collector) add(u agent.Update) {
	c.mu.Lock()
	c.got = append(c.got, u)
	c.mu.Unlock()
}

func (c *collector) all() []agent.Update {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]agent.Update(nil), c.got...)
}

// texts are the text updates, in order.
func texts(us []agent.Update) []string {
	var out []string
	for _, u := range us {
		if u.Kind == e2a.DeltaText {
			out = append(out, u.Delta.(string))
		}
	}
	return out
}

// customs are the custom updates of type typ, in order.
func customs(us []agent.Update, typ string) []map[string]any {
	var out []map[string]any
	for _, u := range us {
		if m, ok := u.Delta.(map[string]any); ok && u.Kind == e2a.DeltaCustom && m["type"] == typ {
			out = append(out, m)
		}
	}
	return out
}

// awaitSubscribed holds an agent until its caller follows the task on a
// stream (or a long while has passed, so a broken caller fails the test
// instead of hanging it).
func awaitSubscribed(ctx context.Context, a *a2aAgent, id a2a.TaskID) {
	t := time.NewTimer(30 * time.Second)
	defer t.Stop()
	select {
	case <-a.subscribed(string(id)):
	case <-ctx.Done():
	case <-t.C:
	}
}

// A streaming A2A agent's status messages and artifact updates reach the
// caller who asked for them, in order, as E2A deltas: text as text, a data
// artifact as custom {"type":"artifact"}, state changes as custom
// {"type":"status"}; the agent's credential appears in none of them.
func TestA2AAgentStreamsUpdates(t *testing.T) {
	e := newEnv(t)
	const secret = "tok-a2a-secret-0042"
	var a *a2aAgent
	a = newA2AAgent(t, true, func(ctx context.Context, exec *a2asrv.ExecutorContext, _ map[string]any, yield func(a2a.Event, error) bool) {
		awaitSubscribed(ctx, a, exec.TaskID)
		for _, ev := range []a2a.Event{
			a2a.NewStatusUpdateEvent(exec, a2a.TaskStateWorking, a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("thinking with "+secret))),
			a2a.NewArtifactEvent(exec, a2a.NewTextPart("part one")),
			a2a.NewArtifactEvent(exec, a2a.NewDataPart(map[string]any{"n": 1, "key": secret})),
			a2a.NewStatusUpdateEvent(exec, a2a.TaskStateCompleted, nil),
		} {
			if !yield(ev, nil) {
				return
			}
		}
	})
	host := strings.TrimPrefix(a.srv.URL, "http://")
	if _, err := e.vault.Put(ctx, vault.Entry{ID: "planner-token", Type: "bearer-token", Hosts: []string{strings.Split(host, ":")[0]},
		Value: vault.NewPlaintext(secret)}); err != nil {
		t.Fatal(err)
	}
	e.registerA2A(t, "planner", a, func(en *agenthttp.Entry) {
		en.Auth = &agenthttp.AuthConfig{Type: agenthttp.AuthBearer, Token: agenthttp.SecretRef("planner-token")}
	})
	var c collector
	out, err := e.inv.Invoke(agent.WithUpdates(ctx, c.add), "planner", "task-s1", json.RawMessage(`{}`), "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), secret) {
		t.Fatalf("output %s holds the credential", out)
	}
	got := c.all()
	raw, _ := json.Marshal(got)
	if strings.Contains(string(raw), secret) {
		t.Fatalf("updates hold the credential: %s", raw)
	}
	tx := texts(got)
	if len(tx) != 2 || !strings.HasPrefix(tx[0], "thinking with ") || tx[1] != "part one" {
		t.Fatalf("text updates %q, want the status message then the artifact's text (%s)", tx, raw)
	}
	arts := customs(got, "artifact")
	if len(arts) != 1 || fmt.Sprint(arts[0]["data"].(map[string]any)["n"]) != "1" {
		t.Fatalf("artifact updates %v", arts)
	}
	var states []string
	for _, s := range customs(got, "status") {
		states = append(states, s["state"].(string))
	}
	if len(states) < 2 || states[len(states)-2] != string(a2a.TaskStateWorking) || states[len(states)-1] != string(a2a.TaskStateCompleted) {
		t.Fatalf("status updates %v, want ... WORKING, COMPLETED", states)
	}
	// The updates come in the order the agent sent them.
	order := map[string]int{}
	for i, u := range got {
		if m, ok := u.Delta.(map[string]any); ok {
			order[fmt.Sprint(m["type"], m["state"])] = i
		} else {
			order[u.Delta.(string)[:5]] = i
		}
	}
	if !(order["status"+string(a2a.TaskStateWorking)] < order["think"] && order["think"] < order["part "] &&
		order["part "] < order["artifact<nil>"] && order["artifact<nil>"] < order["status"+string(a2a.TaskStateCompleted)]) {
		t.Fatalf("updates out of order: %s", raw)
	}
}

// One call passes on at most agent.MaxUpdates updates, then one that says
// the rest were dropped; the result is whole. The bound is lowered to 20
// here: a thousand updates through a2a-go's server, which copies the task
// at each, take minutes under -race.
func TestA2AAgentUpdatesAreBounded(t *testing.T) {
	limit := agent.LowerUpdateLimit(t, 20)
	e := newEnv(t)
	var a *a2aAgent
	a = newA2AAgent(t, true, func(ctx context.Context, exec *a2asrv.ExecutorContext, _ map[string]any, yield func(a2a.Event, error) bool) {
		awaitSubscribed(ctx, a, exec.TaskID)
		for i := range limit + 50 {
			if !yield(a2a.NewStatusUpdateEvent(exec, a2a.TaskStateWorking, a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(fmt.Sprint("step ", i)))), nil) {
				return
			}
		}
		if yield(a2a.NewArtifactEvent(exec, a2a.NewDataPart(map[string]any{"done": true})), nil) {
			yield(a2a.NewStatusUpdateEvent(exec, a2a.TaskStateCompleted, nil), nil)
		}
	})
	e.registerA2A(t, "planner", a, nil)
	var c collector
	out, err := e.inv.Invoke(agent.WithUpdates(ctx, c.add), "planner", "task-s2", json.RawMessage(`{}`), "")
	if err != nil || string(out) != `{"done":true}` {
		t.Fatalf("output %s, %v", out, err)
	}
	got := c.all()
	if len(got) != limit+1 || len(customs(got[len(got)-1:], "truncated")) != 1 {
		t.Fatalf("%d updates, the last %v: want %d and a truncated one", len(got), got[len(got)-1], limit)
	}
}

// askAct asks which color before it goes on; the next message of the same
// task answers it, and the task completes with {"color": answer}. It
// records the task ids the messages came on.
type askAct struct {
	mu      sync.Mutex
	taskIDs []string // of messages that continued a task
}

func (k *askAct) act(_ context.Context, exec *a2asrv.ExecutorContext, _ map[string]any, yield func(a2a.Event, error) bool) {
	if exec.StoredTask == nil {
		yield(a2a.NewStatusUpdateEvent(exec, a2a.TaskStateInputRequired,
			a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("which color?"))), nil)
		return
	}
	k.mu.Lock()
	k.taskIDs = append(k.taskIDs, string(exec.Message.TaskID))
	k.mu.Unlock()
	var answer string
	for _, p := range exec.Message.Parts {
		answer += p.Text()
	}
	if yield(a2a.NewArtifactEvent(exec, a2a.NewDataPart(map[string]any{"color": answer})), nil) {
		yield(a2a.NewStatusUpdateEvent(exec, a2a.TaskStateCompleted, nil), nil)
	}
}

// A task that asks for input ends the call with the question and the
// remote task's ids (op.AgentPendingOf); a call with the answer and
// agent.WithContinuation sends it as the next message of that same task,
// which completes.
func TestA2AAgentInputRequiredContinues(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(map[bool]string{false: "reading", true: "streaming"}[streaming], func(t *testing.T) {
			// a2a-go's server tells a follower of a task its new state a
			// moment before it takes the task's next message ("execution
			// already in progress"); the invoker's retry, on a real clock,
			// waits that moment out as it would for a person's answer.
			e := newEnv(t, func(_ *agent.RegistryOptions, io *agent.InvokerOptions) { io.Clock = clock.Real{} })
			k := &askAct{}
			a := newA2AAgent(t, streaming, k.act)
			e.registerA2A(t, "planner", a, func(en *agenthttp.Entry) {
				en.Retry = agenthttp.RetryConfig{MaxRetries: 8, InitialDelay: 10 * time.Millisecond, MaxDelay: 200 * time.Millisecond, BackoffMultiplier: 2}
			})
			_, err := e.inv.Invoke(ctx, "planner", "task-q1", json.RawMessage(`{}`), "")
			p, ok := op.AgentPendingOf(err)
			if !ok || p.TaskID == "" || p.ContextID == "" || p.Agent != "planner" || p.State != string(a2a.TaskStateInputRequired) {
				t.Fatalf("error %v, pending %+v", err, p)
			}
			if q, _ := p.Question.(map[string]any); q["text"] != "which color?" {
				t.Fatalf("question %v", p.Question)
			}
			out, err := e.inv.Invoke(agent.WithContinuation(ctx, agent.Continuation{TaskID: p.TaskID, ContextID: p.ContextID}),
				"planner", "task-q1-answer", json.RawMessage(`{"text":"blue"}`), "")
			if err != nil || string(out) != `{"color":"blue"}` {
				t.Fatalf("answer: %s, %v", out, err)
			}
			k.mu.Lock()
			defer k.mu.Unlock()
			if len(k.taskIDs) != 1 || k.taskIDs[0] != p.TaskID {
				t.Fatalf("the answer came on tasks %v, want %s", k.taskIDs, p.TaskID)
			}
		})
	}
}

// A task read while it works (an agent that does not stream) reports each
// state once and each status message once, however often it is read.
func TestA2AAgentPolledUpdatesAreSaidOnce(t *testing.T) {
	e := newEnv(t)
	release := make(chan struct{})
	var a *a2aAgent
	a = newA2AAgent(t, false, func(ctx context.Context, exec *a2asrv.ExecutorContext, _ map[string]any, yield func(a2a.Event, error) bool) {
		if !yield(a2a.NewStatusUpdateEvent(exec, a2a.TaskStateWorking, a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("working on it"))), nil) {
			return
		}
		select { // until the caller has read the working task a few times
		case <-release:
		case <-ctx.Done():
			return
		}
		if yield(a2a.NewArtifactEvent(exec, a2a.NewDataPart(map[string]any{"done": true})), nil) {
			yield(a2a.NewStatusUpdateEvent(exec, a2a.TaskStateCompleted, nil), nil)
		}
	})
	e.registerA2A(t, "planner", a, nil)
	go func() {
		deadline := time.Now().Add(30 * time.Second)
		for a.count("GetTask") < 4 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		close(release)
	}()
	var c collector
	out, err := e.inv.Invoke(agent.WithUpdates(ctx, c.add), "planner", "task-p1", json.RawMessage(`{}`), "")
	if err != nil || string(out) != `{"done":true}` {
		t.Fatalf("output %s, %v", out, err)
	}
	got := c.all()
	if tx := texts(got); len(tx) > 1 {
		t.Fatalf("the status message was said %d times: %q", len(tx), tx)
	}
	seen := map[string]bool{}
	for _, s := range customs(got, "status") {
		st := s["state"].(string)
		if seen[st] {
			t.Fatalf("state %s reported twice: %v", st, got)
		}
		seen[st] = true
	}
	if !seen[string(a2a.TaskStateCompleted)] {
		t.Fatalf("no COMPLETED status in %v", got)
	}
}
