// Package acpagent is sluice as an Agent Client Protocol agent: an editor
// (Zed, a JetBrains IDE, Neovim…) spawns `sluice acp --stdio` and talks ACP
// (JSON-RPC on stdio) to it, through coder/acp-go-sdk's agent side. Each
// prompt becomes one E2A call (agent.invoke, or capability.run for a
// capability) made through a Caller: the embedded dispatcher or a relay to
// a server's /api/v1/e2a, so the account's grants, limits and audit apply
// as on every other ingress. What the call streams comes back as
// session/update notifications; a decision the work waits for becomes
// session/request_permission.
package acpagent

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/sluicehq/sluice/internal/telemetry"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// Caller makes one E2A call and hands its frames to sink in order, the
// final one last. An error means the call got no final frame (the server
// could not be reached, or the connection broke); a refusal or a failure is
// the final e2a.error frame, not an error.
type Caller interface {
	Call(ctx context.Context, env *e2a.Envelope, sink e2a.FrameSink) error
}

// Bounds of one `sluice acp` process.
const (
	DefaultMaxSessions = 16
	DefaultIdleTimeout = 30 * time.Minute
	// maxPromptBytes bounds the text and embedded context of one prompt:
	// an agent's task input is bounded by the agent contract too, and a
	// prompt over it is refused here with a clear message rather than there.
	maxPromptBytes = 4 << 20
	// maxDecisions bounds the decisions of one turn: a capability that
	// keeps asking ends the turn with an error instead of looping forever.
	maxDecisions = 32
)

// Options configure an Agent.
type Options struct {
	// Target is what prompts go to: an agent's name, or cap:NS/ID[@VERSION]
	// (ParseTarget).
	Target  Target
	Caller  Caller
	Version string // sluice's, in initialize's agentInfo
	// MaxSessions and IdleTimeout bound the sessions (0: the defaults). A
	// session idle for longer is forgotten; a new session when MaxSessions
	// are open replaces the one idle longest, or is refused if every one
	// is in a prompt.
	MaxSessions int
	IdleTimeout time.Duration
	Logger      *slog.Logger
}

// Agent is the acp.Agent that `sluice acp` serves.
type Agent struct {
	o        Options
	conn     *acp.AgentSideConnection
	ready    chan struct{} // closed once conn is set
	sessions *sessions
	log      *slog.Logger
}

// editor is the connection to the editor. The SDK reads requests as soon as
// the connection is made, before NewAgentSideConnection has returned it:
// a handler waits for it here.
func (a *Agent) editor() *acp.AgentSideConnection {
	<-a.ready
	return a.conn
}

// Serve speaks ACP on in and out until the editor closes in or ctx ends.
// Only ACP messages are written to out.
func Serve(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	if o.Caller == nil {
		return errors.New("acpagent: no caller")
	}
	a := newAgent(o)
	a.conn = acp.NewAgentSideConnection(a, out, in)
	a.conn.SetLogger(a.log)
	close(a.ready)
	select {
	case <-a.conn.Done():
	case <-ctx.Done():
	}
	return nil
}

func newAgent(o Options) *Agent {
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Agent{o: o, ready: make(chan struct{}), sessions: newSessions(o.MaxSessions, o.IdleTimeout, time.Now), log: o.Logger}
}

// Initialize advertises what sluice does and nothing else: no session/load
// (sessions are not stored), no modes, no MCP servers of the editor's (the
// agent runs behind sluice, not in the editor), text and embedded context
// in prompts (resource links too, which ACP requires of every agent), no
// images or audio, and no authentication methods (the key is
// SLUICE_API_KEY's). It uses none of the editor's file-system or terminal
// capabilities.
func (a *Agent) Initialize(_ context.Context, _ acp.InitializeRequest) (acp.InitializeResponse, error) {
	title := "sluice: " + a.o.Target.String()
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentCapabilities: acp.AgentCapabilities{
			PromptCapabilities: acp.PromptCapabilities{EmbeddedContext: true},
		},
		AgentInfo:   &acp.Implementation{Name: "sluice", Title: &title, Version: a.o.Version},
		AuthMethods: []acp.AuthMethod{},
	}, nil
}

// NewSession opens a session. cwd is passed to the agent with each prompt;
// the editor's MCP servers are not connected (the work runs on sluice,
// under the account's grants, not in the editor: docs/protocols/acp.md),
// which is logged, not refused, as editors send the ones they have.
func (a *Agent) NewSession(_ context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	if len(p.McpServers) > 0 {
		a.log.Info("the editor's MCP servers are not connected: sluice's agents use the account's tools", "count", len(p.McpServers))
	}
	s, err := a.sessions.open(p.Cwd)
	if err != nil {
		return acp.NewSessionResponse{}, rpcError(err)
	}
	return acp.NewSessionResponse{SessionId: acp.SessionId(s.id)}, nil
}

// Prompt is one turn: the prompt goes to the target, what it streams comes
// back as updates, and the turn ends with end_turn, or cancelled after
// session/cancel (the SDK cancels ctx), or a JSON-RPC error carrying the
// fault's code and message.
func (a *Agent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	s, err := a.sessions.take(string(p.SessionId))
	if err != nil {
		return acp.PromptResponse{}, rpcError(err)
	}
	defer a.sessions.release(s)
	in, err := readPrompt(p)
	if err != nil {
		return acp.PromptResponse{}, rpcError(err)
	}
	t := &turn{a: a, s: s, tools: map[string]bool{}}
	// The editor's trace context, if its prompt's _meta carries one: the
	// calls the prompt makes continue that trace.
	err = a.o.Target.run(telemetry.FromMeta(ctx, p.Meta), t, in)
	if ctx.Err() != nil || errors.Is(err, errCancelled) {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	if err != nil {
		return acp.PromptResponse{}, rpcError(err)
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// Cancel has nothing to do of its own: the SDK cancels the prompt's
// context, which cancels the call (and a waiting capability run).
func (a *Agent) Cancel(context.Context, acp.CancelNotification) error { return nil }

// The methods below are not offered (nothing in initialize advertises
// them): each is answered as an unknown method.

func (a *Agent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, acp.NewMethodNotFound(acp.AgentMethodAuthenticate)
}

func (a *Agent) Logout(context.Context, acp.LogoutRequest) (acp.LogoutResponse, error) {
	return acp.LogoutResponse{}, acp.NewMethodNotFound(acp.AgentMethodLogout)
}

func (a *Agent) CloseSession(context.Context, acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionClose)
}

func (a *Agent) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionList)
}

func (a *Agent) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionResume)
}

func (a *Agent) SetSessionConfigOption(context.Context, acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetConfigOption)
}

func (a *Agent) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetMode)
}
