package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	agentacp "github.com/sluicehq/sluice/internal/agent/acptest"
	"github.com/sluicehq/sluice/internal/config"
)

// An editor's session of `sluice acp --agent coder`, where coder is an ACP
// agent behind sluice (the test binary as internal/agent/acptest), is one
// conversation: the agent's second answer remembers the first prompt. A
// second editor session is a conversation of its own.
func TestACPStdioConversationWithACPAgent(t *testing.T) {
	srv := acpCoderServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ed := startEditor(t, srv.key, "--agent", "coder", "--url", srv.url)
	sid := ed.open(ctx)
	say := func(sid acp.SessionId, text, want string) {
		t.Helper()
		before := len(ed.Text())
		r, err := ed.prompt(ctx, sid, text)
		if got := ed.Text()[before:]; err != nil || r.StopReason != acp.StopReasonEndTurn || !strings.Contains(got, want) {
			t.Fatalf("%s: %q %+v %v, want %q\nstderr:\n%s", text, got, r, err, want, ed.stderr)
		}
	}
	say(sid, "remember blue", "echo: remember blue")
	say(sid, "recall", "prompt 2, before: remember blue")
	s2, err := ed.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: "/work/project", McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	say(s2.SessionId, "recall", "prompt 1, before: -")
	say(sid, "recall", "prompt 3, before: recall")
}

// acpCoderServer is a server whose agent coder is the test binary as an
// ACP agent (internal/agent/acptest), and an account granted it.
func acpCoderServer(t *testing.T) served {
	t.Helper()
	return agentServer(t, func(c *config.Config) {
		c.Agents.ACP.Commands = map[string]config.ACPCommand{"tester": {Command: os.Args[0], Args: []string{"-test.run=^$"},
			Env: []string{agentacp.EnvServe + "=1"}, Dir: t.TempDir()}}
	}, map[string]any{"name": "coder", "protocol": "acp", "acp": map[string]any{"command": "tester"}})
}

// An ACP agent behind sluice streams, and its updates reach the editor of
// `sluice acp` as they came, through agent.invoke's chunk frames: its
// thought, its tool call and the call's end, its plan, and its message in
// the two chunks it sent, in that order, before the turn ends.
func TestACPStdioStreamsAnACPAgentsUpdates(t *testing.T) {
	srv := acpCoderServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ed := startEditor(t, srv.key, "--agent", "coder", "--url", srv.url)
	sid := ed.open(ctx)
	r, err := ed.prompt(ctx, sid, "hello")
	if err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v\nstderr:\n%s", r, err, ed.stderr)
	}
	var seen []string
	for _, u := range ed.Updates() {
		switch {
		case u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil:
			seen = append(seen, "thought:"+u.AgentThoughtChunk.Content.Text.Text)
		case u.ToolCall != nil:
			seen = append(seen, "tool:"+u.ToolCall.Title)
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil:
			seen = append(seen, "tool update:"+string(*u.ToolCallUpdate.Status))
		case u.Plan != nil && len(u.Plan.Entries) > 0:
			seen = append(seen, "plan:"+u.Plan.Entries[0].Content)
		case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
			seen = append(seen, "text:"+u.AgentMessageChunk.Content.Text.Text)
		}
	}
	want := []string{"thought:thinking", "tool:look", "tool update:completed", "plan:greet", "text:Hel", "text:lo"}
	if strings.Join(seen, " | ") != strings.Join(want, " | ") {
		t.Fatalf("the editor saw\n  %s\nwant\n  %s\nstderr:\n%s", strings.Join(seen, " | "), strings.Join(want, " | "), ed.stderr)
	}
}
