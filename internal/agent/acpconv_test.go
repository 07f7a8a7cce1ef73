package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/agent"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
)

// in is ctx with the conversation id of account.
func in(account, id string) context.Context {
	return agent.WithConversation(ctx, op.AgentConversationKey(account, id))
}

// TestACPConversations: calls with one key share an ACP session (the agent
// remembers the previous prompt); another id, another account with the
// same id, and calls without a key each get a session of their own.
func TestACPConversations(t *testing.T) {
	e := acpEnv(t, t.TempDir(), nil)
	e.registerACP(t, "coder", nil)
	says := func(c context.Context, text, want string) {
		t.Helper()
		got, err := e.say(t, c, "coder", text)
		if err != nil || !strings.HasPrefix(got, want) && !strings.HasSuffix(got, want) {
			t.Fatalf("%s: %q %v; want %q", text, got, err, want)
		}
	}
	a1 := in("acct_a", "ctx-1")
	says(a1, "remember blue", "echo: remember blue")
	says(a1, "recall", ", prompt 2, before: remember blue")
	says(a1, "recall", ", prompt 3, before: recall")
	says(in("acct_a", "ctx-2"), "recall", ", prompt 1, before: -")
	// Another account naming the same context id reaches a conversation of
	// its own, never acct_a's.
	says(in("acct_b", "ctx-1"), "recall", ", prompt 1, before: -")
	says(ctx, "recall", ", prompt 1, before: -")
	says(ctx, "recall", ", prompt 1, before: -")
	says(a1, "recall", ", prompt 4, before: recall")

	// Each conversation has a process of its own, kept for its next call;
	// calls without a key share the others.
	pid1, _ := e.say(t, a1, "coder", "pid")
	pid2, _ := e.say(t, in("acct_a", "ctx-2"), "coder", "pid")
	if again, _ := e.say(t, a1, "coder", "pid"); pid1 == pid2 || again != pid1 {
		t.Fatalf("pids: conversation 1 %q then %q, conversation 2 %q", pid1, again, pid2)
	}
	if n := e.inv.ACPLive("coder"); n != 4 { // ctx-1, ctx-2, acct_b's, and one for calls without a key
		t.Fatalf("%d processes, want 4", n)
	}
}

// TestACPConversationProcessDies: a conversation whose process died goes on
// in a new process and a new session; the agent's memory is lost.
func TestACPConversationProcessDies(t *testing.T) {
	e := acpEnv(t, t.TempDir(), nil)
	e.registerACP(t, "coder", nil)
	c := in("acct_a", "ctx-1")
	if _, err := e.say(t, c, "coder", "remember blue"); err != nil {
		t.Fatal(err)
	}
	_, err := e.say(t, c, "coder", "crash")
	wantKind(t, err, fault.Upstream, "a crash")
	got, err := e.say(t, c, "coder", "recall")
	if err != nil || !strings.HasSuffix(got, ", prompt 1, before: -") {
		t.Fatalf("after a crash: %q %v", got, err)
	}
}

// TestACPConversationOneCallAtATime: a second call of a busy conversation
// waits for the first and then prompts the same session; one that gives up
// while it waits fails Unavailable, saying why.
func TestACPConversationOneCallAtATime(t *testing.T) {
	e := acpEnv(t, t.TempDir(), nil)
	e.registerACP(t, "coder", nil)
	first, cancel := context.WithCancel(in("acct_a", "ctx-1"))
	underway := make(chan struct{})
	var once sync.Once
	first = agent.WithUpdates(first, func(agent.Update) { once.Do(func() { close(underway) }) })
	errc := make(chan error, 1)
	go func() {
		_, err := e.inv.Invoke(first, "coder", "", json.RawMessage(`{"text":"wait"}`), "")
		errc <- err
	}()
	<-underway
	type answer struct {
		text string
		err  error
	}
	second := make(chan answer, 1)
	go func() {
		text, err := e.say(t, in("acct_a", "ctx-1"), "coder", "recall")
		second <- answer{text, err}
	}()
	gaveUp, stop := context.WithCancel(in("acct_a", "ctx-1"))
	third := make(chan error, 1)
	go func() {
		_, err := e.inv.Invoke(gaveUp, "coder", "", json.RawMessage(`{"text":"recall"}`), "")
		third <- err
	}()
	for e.inv.ACPQueued() < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	fe := wantKind(t, <-third, fault.Unavailable, "a call that gave up waiting")
	if !strings.Contains(fe.Message, "waited for the earlier call of its conversation") {
		t.Fatalf("message %q", fe.Message)
	}
	cancel()
	wantKind(t, <-errc, fault.Unavailable, "the cancelled first call")
	a := <-second
	if a.err != nil || !strings.HasSuffix(a.text, ", prompt 2, before: wait") {
		t.Fatalf("the waiting call: %q %v", a.text, a.err)
	}
	if n := e.inv.ACPLive("coder"); n != 1 {
		t.Fatalf("%d processes for one conversation", n)
	}
}
