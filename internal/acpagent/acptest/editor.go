// Package acptest is an editor for tests of sluice's ACP agent: the client
// side of acp-go-sdk's connection, recording what sluice sends.
package acptest

import (
	"context"
	"errors"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"
)

// Editor is an acp.Client that keeps the session updates, answers a
// permission request with the option named by its choice (or cancelled
// when none has that name), and refuses file and terminal requests, which
// sluice must never make (it advertises no use of them): Misuse lists
// those that came.
type Editor struct {
	mu      sync.Mutex
	updates []acp.SessionUpdate
	asked   []acp.RequestPermissionRequest
	choose  string
	misuse  []string
}

var errRefused = errors.New("this editor lends sluice no files or terminals")

// Choose sets the option name permission requests are answered with.
func (e *Editor) Choose(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.choose = name
}

// Updates are the session updates so far.
func (e *Editor) Updates() []acp.SessionUpdate {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]acp.SessionUpdate(nil), e.updates...)
}

// Asked are the permission requests so far.
func (e *Editor) Asked() []acp.RequestPermissionRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]acp.RequestPermissionRequest(nil), e.asked...)
}

// Misuse names the file and terminal methods sluice called.
func (e *Editor) Misuse() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.misuse...)
}

// Text is the agent message text of the updates so far.
func (e *Editor) Text() string {
	var b strings.Builder
	for _, u := range e.Updates() {
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
	}
	return b.String()
}

func (e *Editor) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.updates = append(e.updates, n.Update)
	return nil
}

func (e *Editor) RequestPermission(_ context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.asked = append(e.asked, p)
	for _, o := range p.Options {
		if o.Name == e.choose {
			return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected(o.OptionId)}, nil
		}
	}
	return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}, nil
}

func (e *Editor) misused(method string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.misuse = append(e.misuse, method)
	return errRefused
}

func (e *Editor) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, e.misused(acp.ClientMethodFsReadTextFile)
}

func (e *Editor) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, e.misused(acp.ClientMethodFsWriteTextFile)
}

func (e *Editor) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, e.misused(acp.ClientMethodTerminalCreate)
}

func (e *Editor) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, e.misused(acp.ClientMethodTerminalKill)
}

func (e *Editor) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, e.misused(acp.ClientMethodTerminalOutput)
}

func (e *Editor) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, e.misused(acp.ClientMethodTerminalRelease)
}

func (e *Editor) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, e.misused(acp.ClientMethodTerminalWaitForExit)
}
