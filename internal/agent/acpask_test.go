package agent_test

import (
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/agent"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

func asks(s *agenthttp.ACPSpec) { s.Permission = agenthttp.ACPAsk }

// ask prompts "permission" and returns what the call's error asks.
func (e *env) ask(t *testing.T, name string) *op.AgentPending {
	t.Helper()
	out, err := e.inv.Invoke(ctx, name, "", json.RawMessage(`{"text":"permission"}`), "")
	p, ok := op.AgentPendingOf(err)
	if !ok {
		t.Fatalf("want a pending permission, got %s %v", out, err)
	}
	return p
}

// answer continues the pending permission id with input.
func (e *env) answer(name, id, input string, fn func(agent.Update)) (json.RawMessage, error) {
	c := agent.WithContinuation(ctx, agent.Continuation{TaskID: id})
	c = agent.WithUpdates(c, fn)
	return e.inv.Invoke(c, name, "", json.RawMessage(input), "")
}

// A permission request asked of the caller ends the call with the question
// and its options; an answer naming no option is refused (listing them) and
// leaves it open; the answer continues the same turn, whose output is the
// call's; the id is then spent.
func TestACPPermissionAskedOfCaller(t *testing.T) {
	e := acpEnv(t, t.TempDir(), nil)
	e.registerACP(t, "asker", asks)
	p := e.ask(t, "asker")
	if !strings.HasPrefix(p.TaskID, "acpperm-") || p.Agent != "asker" || p.State != op.StateInputRequired {
		t.Fatalf("pending %+v", p)
	}
	if len(p.Options) != 2 || p.Options[0] != (op.AgentOption{ID: "yes", Name: "Allow", Kind: "allow_once"}) || p.Options[1].ID != "no" {
		t.Fatalf("options %+v", p.Options)
	}
	q, _ := p.Question.(map[string]any)
	if q["title"] != "rm -rf build" || q["toolCall"].(map[string]any)["toolCallId"] != "t2" {
		t.Fatalf("question %#v", p.Question)
	}

	_, err := e.answer("asker", p.TaskID, `{"optionId":"maybe"}`, nil)
	if fe, ok := fault.As(err); !ok || fe.Kind != fault.Invalid || !strings.Contains(fe.Message, `"maybe" is not one of its options`) ||
		!strings.Contains(fe.Message, `"yes" (Allow, allow_once), "no" (Reject, reject_once)`) {
		t.Fatalf("unknown option: %v", err)
	}
	// Another agent's name does not reach it.
	e.registerACP(t, "other", asks)
	if _, err := e.answer("other", p.TaskID, `{"answer":"yes"}`, nil); err == nil || !strings.Contains(err.Error(), "no pending permission request") {
		t.Fatalf("another agent: %v", err)
	}

	var mu sync.Mutex
	var ups []agent.Update
	out, err := e.answer("asker", p.TaskID, `{"text":"allow"}`, func(u agent.Update) { mu.Lock(); ups = append(ups, u); mu.Unlock() })
	if err != nil || !strings.Contains(string(out), `"text":"yes"`) || !strings.Contains(string(out), `"stop_reason":"end_turn"`) {
		t.Fatalf("answered: %s %v", out, err)
	}
	mu.Lock()
	b, _ := json.Marshal(ups)
	mu.Unlock()
	if !strings.Contains(string(b), `"answer":"allow_once","policy":"ask"`) || !strings.Contains(string(b), `{"delta_kind":"text","delta":"yes"}`) {
		t.Fatalf("updates of the answer's call: %s", b)
	}
	if _, err := e.answer("asker", p.TaskID, `{"answer":"yes"}`, nil); err == nil || !strings.Contains(err.Error(), "it was answered") {
		t.Fatalf("answered twice: %v", err)
	}

	// An answer naming a kind, a second turn on the kept process.
	p2 := e.ask(t, "asker")
	if p2.TaskID == p.TaskID {
		t.Fatal("a pending id was reused")
	}
	if out, err := e.answer("asker", p2.TaskID, `{"answer":"reject_once"}`, nil); err != nil || !strings.Contains(string(out), `"text":"no"`) {
		t.Fatalf("by kind: %s %v", out, err)
	}
	// An id never asked.
	if _, err := e.answer("asker", "acpperm-0", `{"answer":"yes"}`, nil); err == nil || !strings.Contains(err.Error(), "never asked here") {
		t.Fatalf("unknown id: %v", err)
	}
}

// A pending permission nobody answers expires: the agent gets cancelled,
// the process is free again, and a late answer is told it expired.
func TestACPPermissionExpires(t *testing.T) {
	e := acpEnv(t, t.TempDir(), func(c *config.ACP) { c.PendingTimeout = 100 * time.Millisecond; c.MaxProcesses = 1 })
	e.registerACP(t, "asker", asks)
	p := e.ask(t, "asker")
	// The pool's one process is held until the request expires: until
	// then another call finds it busy.
	var out json.RawMessage
	var err error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if out, err = e.inv.Invoke(ctx, "asker", "", json.RawMessage(`{"text":"hi"}`), ""); err == nil {
			break
		}
	}
	if err != nil || !strings.Contains(string(out), "echo: hi") {
		t.Fatalf("the process was not given back: %s %v", out, err)
	}
	_, err = e.answer("asker", p.TaskID, `{"answer":"yes"}`, nil)
	if fe, ok := fault.As(err); !ok || fe.Kind != fault.NotFound || !strings.Contains(fe.Message, "expired") || !strings.Contains(fe.Message, "agents.acp.pending_timeout") {
		t.Fatalf("late answer: %v", err)
	}
}

// A process that dies while its permission request waits: the answer is
// told so, and the next call starts another process.
func TestACPPermissionProcessDied(t *testing.T) {
	e := acpEnv(t, t.TempDir(), nil)
	e.registerACP(t, "asker", asks)
	p := e.ask(t, "asker")
	in, _ := p.Question.(map[string]any)["toolCall"].(map[string]any)["rawInput"].(map[string]any)
	pid, _ := in["pid"].(float64)
	proc, err := os.FindProcess(int(pid))
	if pid == 0 || err != nil {
		t.Fatalf("no pid in %#v: %v", p.Question, err)
	}
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	// Whether the answer finds the process gone, or is sent as it dies,
	// the caller is told the process ended.
	_, err = e.answer("asker", p.TaskID, `{"optionId":"yes"}`, nil)
	if fe, ok := fault.As(err); !ok || fe.Kind != fault.Upstream || !strings.Contains(fe.Message, "its process ended") {
		t.Fatalf("an answer after the process died: %v", err)
	}
	if got, err := e.say(t, ctx, "asker", "hi"); err != nil || got != "echo: hi" {
		t.Fatalf("after the death: %q %v", got, err)
	}
}
