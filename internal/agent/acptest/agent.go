// Package acptest is an ACP agent for tests, made with acp-go-sdk's agent
// side: the test binary run again with EnvServe=1 (ServeIfAsked in
// TestMain) is a real program an allowlist can name.
//
// What it does is chosen by the prompt's first word:
//
//	hello            "Hel" "lo" as message chunks, with a thought, a tool call
//	                 and its update, and a plan; end_turn
//	env NAME         the value of the variable NAME ("(unset)" if it is not)
//	cwd              its working directory
//	pid              its process id
//	read PATH        fs/read_text_file PATH: the content, or "error: ..."
//	write PATH TEXT  fs/write_text_file PATH TEXT: "ok", or "error: ..."
//	terminal         terminal/create: "error: ..." when refused
//	permission       session/request_permission with allow_once and
//	                 reject_once options (its pid as the tool call's
//	                 rawInput): the option chosen, or "cancelled"
//	wait             waits for session/cancel; stopReason cancelled
//	crash            exits with status 3 in the middle of the turn
//	refuse           stopReason refusal
//	stderr N         writes N lines of "noise" to stderr, then "done"
//	anything else    "echo: " and the prompt's text
package acptest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// EnvServe, set to "1" in a test binary's environment, makes ServeIfAsked
// serve the agent on stdin/stdout and exit.
const EnvServe = "SLUICE_ACPTEST_SERVE"

// ServeIfAsked runs the agent and exits when EnvServe is "1"; call it first
// in TestMain.
func ServeIfAsked() {
	if os.Getenv(EnvServe) != "1" {
		return
	}
	a := &agent{}
	a.conn = acp.NewAgentSideConnection(a, os.Stdout, os.Stdin)
	<-a.conn.Done()
	os.Exit(0)
}

// agent implements what the tests use; the embedded interface (nil) stands
// for the methods no test calls.
type agent struct {
	acp.Agent
	conn *acp.AgentSideConnection
	n    int
}

func (a *agent) Initialize(context.Context, acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersionNumber, AuthMethods: []acp.AuthMethod{}}, nil
}

func (a *agent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

func (a *agent) NewSession(context.Context, acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	a.n++
	return acp.NewSessionResponse{SessionId: acp.SessionId(fmt.Sprintf("s%d", a.n))}, nil
}

func (a *agent) Cancel(context.Context, acp.CancelNotification) error { return nil }

func (a *agent) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, nil
}

func (a *agent) say(ctx context.Context, sid acp.SessionId, u acp.SessionUpdate) {
	_ = a.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: sid, Update: u})
}

func (a *agent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	var text string
	for _, b := range p.Prompt {
		if b.Text != nil {
			text += b.Text.Text
		}
	}
	word, rest, _ := strings.Cut(text, " ")
	reply := func(s string) (acp.PromptResponse, error) {
		a.say(ctx, p.SessionId, acp.UpdateAgentMessageText(s))
		return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
	}
	switch word {
	case "hello":
		a.say(ctx, p.SessionId, acp.UpdateAgentThoughtText("thinking"))
		a.say(ctx, p.SessionId, acp.StartToolCall("t1", "look", acp.WithStartKind(acp.ToolKindRead), acp.WithStartStatus(acp.ToolCallStatusPending)))
		a.say(ctx, p.SessionId, acp.UpdateToolCall("t1", acp.WithUpdateStatus(acp.ToolCallStatusCompleted)))
		a.say(ctx, p.SessionId, acp.UpdatePlan(acp.PlanEntry{Content: "greet", Priority: acp.PlanEntryPriorityHigh, Status: acp.PlanEntryStatusCompleted}))
		a.say(ctx, p.SessionId, acp.UpdateAgentMessageText("Hel"))
		return reply("lo")
	case "env":
		v, ok := os.LookupEnv(rest)
		if !ok {
			v = "(unset)"
		}
		return reply(v)
	case "cwd":
		d, _ := os.Getwd()
		return reply(d)
	case "pid":
		return reply(fmt.Sprint(os.Getpid()))
	case "read":
		r, err := a.conn.ReadTextFile(ctx, acp.ReadTextFileRequest{SessionId: p.SessionId, Path: rest})
		if err != nil {
			return reply("error: " + err.Error())
		}
		return reply(r.Content)
	case "write":
		path, content, _ := strings.Cut(rest, " ")
		if _, err := a.conn.WriteTextFile(ctx, acp.WriteTextFileRequest{SessionId: p.SessionId, Path: path, Content: content}); err != nil {
			return reply("error: " + err.Error())
		}
		return reply("ok")
	case "terminal":
		if _, err := a.conn.CreateTerminal(ctx, acp.CreateTerminalRequest{SessionId: p.SessionId, Command: "sh"}); err != nil {
			return reply("error: " + err.Error())
		}
		return reply("a terminal")
	case "permission":
		title := "rm -rf build"
		r, err := a.conn.RequestPermission(ctx, acp.RequestPermissionRequest{SessionId: p.SessionId,
			ToolCall: acp.ToolCallUpdate{ToolCallId: "t2", Title: &title, RawInput: map[string]any{"pid": os.Getpid()}},
			Options: []acp.PermissionOption{{OptionId: "yes", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
				{OptionId: "no", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce}}})
		switch {
		case err != nil:
			return reply("error: " + err.Error())
		case r.Outcome.Selected != nil:
			return reply(string(r.Outcome.Selected.OptionId))
		}
		return reply("cancelled")
	case "wait":
		<-ctx.Done()
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	case "crash":
		a.say(ctx, p.SessionId, acp.UpdateAgentMessageText("about to crash"))
		os.Exit(3)
	case "refuse":
		return acp.PromptResponse{StopReason: acp.StopReasonRefusal}, nil
	case "stderr":
		n, _ := strconv.Atoi(rest)
		for range n {
			fmt.Fprintln(os.Stderr, "noise")
		}
		return reply("done")
	}
	return reply("echo: " + text)
}
