package agent

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/sluicehq/sluice/internal/vault/redact"
	"github.com/sluicehq/sluice/protocol/agenthttp"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// acpClient answers what an agent process asks of its client. Requests the
// entry does not grant are JSON-RPC errors that say so; granted file
// requests reach only files under the session's working directory (an
// os.Root, which refuses any path, symlink included, that leads out of it).
type acpClient struct {
	spec     agenthttp.ACPSpec
	cwd      string
	maxBytes int // bounds a file read or written
	log      *slog.Logger
	agent    string

	mu   sync.Mutex
	turn *acpTurn // the call under way, nil between calls
}

// acpTurn is one prompt turn's state: its session, the text collected,
// its updates' listener (the call that follows the turn now: a turn held
// on a permission request has none until the answer's call takes it), the
// permission requests to hand to that call (asks), and given, closed when
// sluice gives the turn up, which answers any request still open
// cancelled.
type acpTurn struct {
	session  acp.SessionId
	max      int
	scrub    *redact.Redactor
	mu       sync.Mutex // notifications and requests come from different goroutines
	text     strings.Builder
	overflow bool
	updates  *updater
	asks     chan *acpAsk
	given    chan struct{}
	giveOnce sync.Once
}

func newACPTurn(id acp.SessionId, max int, scrub *redact.Redactor, u *updater) *acpTurn {
	return &acpTurn{session: id, max: max, scrub: scrub, updates: u, asks: make(chan *acpAsk, 1), given: make(chan struct{})}
}

func (t *acpTurn) emit(kind string, delta any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.updates != nil {
		t.updates.emit(kind, delta)
	}
}

// listen makes u the turn's listener (nil: none).
func (t *acpTurn) listen(u *updater) {
	t.mu.Lock()
	t.updates = u
	t.mu.Unlock()
}

// giveUp answers every permission request of the turn, open or to come,
// cancelled.
func (t *acpTurn) giveUp() { t.giveOnce.Do(func() { close(t.given) }) }

func (c *acpClient) setTurn(t *acpTurn) {
	c.mu.Lock()
	c.turn = t
	c.mu.Unlock()
}

// turnOf is the call under way in session id (nil: none, or another).
func (c *acpClient) turnOf(id acp.SessionId) *acpTurn {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.turn == nil || c.turn.session != id {
		return nil
	}
	return c.turn
}

func refused(method, why string) error {
	return &acp.RequestError{Code: -32601, Message: method + " is refused: " + why}
}

// SessionUpdate maps the agent's updates to the call's E2A deltas and
// collects its message text as the output.
func (c *acpClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	t := c.turnOf(n.SessionId)
	if t == nil {
		return nil // a late update of a call that ended
	}
	u := n.Update
	switch {
	case u.AgentMessageChunk != nil:
		if tx := u.AgentMessageChunk.Content.Text; tx != nil {
			t.mu.Lock()
			if t.text.Len()+len(tx.Text) > t.max {
				t.overflow = true
			} else {
				t.text.WriteString(tx.Text)
			}
			t.mu.Unlock()
			t.emit(e2a.DeltaText, tx.Text)
		}
	case u.AgentThoughtChunk != nil:
		if tx := u.AgentThoughtChunk.Content.Text; tx != nil {
			t.emit(e2a.DeltaReasoning, tx.Text)
		}
	case u.ToolCall != nil:
		tc := u.ToolCall
		d := map[string]any{"toolCallId": string(tc.ToolCallId), "title": tc.Title, "kind": string(tc.Kind), "status": string(tc.Status)}
		if tc.RawInput != nil {
			d["rawInput"] = tc.RawInput
		}
		t.emit(e2a.DeltaTool, d)
	case u.ToolCallUpdate != nil:
		tc := u.ToolCallUpdate
		d := map[string]any{"toolCallId": string(tc.ToolCallId)}
		if tc.Title != nil {
			d["title"] = *tc.Title
		}
		if tc.Kind != nil {
			d["kind"] = string(*tc.Kind)
		}
		if tc.Status != nil {
			d["status"] = string(*tc.Status)
		}
		if tc.RawOutput != nil {
			d["rawOutput"] = tc.RawOutput
		}
		t.emit(e2a.DeltaTool, d)
	case u.Plan != nil:
		entries := make([]any, 0, len(u.Plan.Entries))
		for _, e := range u.Plan.Entries {
			entries = append(entries, map[string]any{"content": e.Content, "priority": string(e.Priority), "status": string(e.Status)})
		}
		t.emit(e2a.DeltaCustom, map[string]any{"type": "plan", "entries": entries})
	}
	return nil
}

// RequestPermission answers by the entry's policy (acp.permission). With
// ask (the default) the request goes to the call that follows the turn,
// which ends with it as its caller's pending decision; the request stays
// open until the caller's answer (acpAnswer), or until the turn is given
// up (expired, cancelled), which answers cancelled. With reject or
// allow_once it is answered at once: the agent's reject_once option (else
// reject_always), or its allow_once option; when it offers none that fits
// the request is cancelled. The call's listener is told what was asked and
// answered.
func (c *acpClient) RequestPermission(ctx context.Context, r acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	if c.spec.Permission == agenthttp.ACPAsk {
		return c.askCaller(ctx, r), nil
	}
	want := []acp.PermissionOptionKind{acp.PermissionOptionKindRejectOnce, acp.PermissionOptionKindRejectAlways}
	if c.spec.Permission == agenthttp.ACPAllowOnce {
		want = []acp.PermissionOptionKind{acp.PermissionOptionKindAllowOnce}
	}
	out := acp.NewRequestPermissionOutcomeCancelled()
	answer := "cancelled"
pick:
	for _, k := range want {
		for _, o := range r.Options {
			if o.Kind == k {
				out, answer = acp.NewRequestPermissionOutcomeSelected(o.OptionId), string(k)
				break pick
			}
		}
	}
	if t := c.turnOf(r.SessionId); t != nil {
		t.emit(e2a.DeltaCustom, permissionDelta(r, answer, string(c.spec.Permission)))
	}
	c.log.Debug("ACP agent asked permission; answered by policy", "agent", c.agent, "answer", answer)
	return acp.RequestPermissionResponse{Outcome: out}, nil
}

// askCaller hands r to the call that follows the turn and waits for the
// caller's answer.
func (c *acpClient) askCaller(ctx context.Context, r acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	cancelled := acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}
	t := c.turnOf(r.SessionId)
	if t == nil || len(r.Options) == 0 {
		return cancelled // no call to ask, or nothing to choose from
	}
	q := &acpAsk{req: r, reply: make(chan acp.RequestPermissionOutcome, 1)}
	select {
	case t.asks <- q:
	case <-t.given:
		return cancelled
	case <-ctx.Done():
		return cancelled
	}
	c.log.Debug("ACP agent asked permission; asked of the caller", "agent", c.agent)
	select {
	case o := <-q.reply:
		return acp.RequestPermissionResponse{Outcome: o}
	case <-t.given:
	case <-ctx.Done():
	}
	return cancelled
}

// permissionDelta is the custom update that tells a call's listener what
// the agent asked and how it was answered.
func permissionDelta(r acp.RequestPermissionRequest, answer, policy string) map[string]any {
	d := map[string]any{"type": "permission", "toolCallId": string(r.ToolCall.ToolCallId), "answer": answer, "policy": policy}
	if r.ToolCall.Title != nil {
		d["title"] = *r.ToolCall.Title
	}
	return d
}

// ReadTextFile reads a file under the working directory, when granted.
func (c *acpClient) ReadTextFile(_ context.Context, r acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	if !c.spec.FSRead {
		return acp.ReadTextFileResponse{}, refused("fs/read_text_file", "agent "+c.agent+"'s registry entry does not grant acp.fs.read")
	}
	root, rel, err := c.confine(r.Path)
	if err != nil {
		return acp.ReadTextFileResponse{}, err
	}
	defer root.Close()
	f, err := root.Open(rel)
	if err != nil {
		return acp.ReadTextFileResponse{}, fsError("fs/read_text_file", r.Path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(c.maxBytes)+1))
	if err != nil {
		return acp.ReadTextFileResponse{}, fsError("fs/read_text_file", r.Path, err)
	}
	if len(b) > c.maxBytes {
		return acp.ReadTextFileResponse{}, &acp.RequestError{Code: -32602, Message: "fs/read_text_file: " + r.Path + " is over the limit of " + itoa(c.maxBytes) + " bytes"}
	}
	content := string(b)
	if r.Line != nil || r.Limit != nil {
		lines := strings.SplitAfter(content, "\n")
		start := 0
		if r.Line != nil && *r.Line > 1 {
			start = min(*r.Line-1, len(lines))
		}
		end := len(lines)
		if r.Limit != nil && *r.Limit >= 0 {
			end = min(start+*r.Limit, end)
		}
		content = strings.Join(lines[start:end], "")
	}
	return acp.ReadTextFileResponse{Content: content}, nil
}

// WriteTextFile writes a file under the working directory, when granted.
func (c *acpClient) WriteTextFile(_ context.Context, r acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	if !c.spec.FSWrite {
		return acp.WriteTextFileResponse{}, refused("fs/write_text_file", "agent "+c.agent+"'s registry entry does not grant acp.fs.write")
	}
	if len(r.Content) > c.maxBytes {
		return acp.WriteTextFileResponse{}, &acp.RequestError{Code: -32602, Message: "fs/write_text_file: the content is over the limit of " + itoa(c.maxBytes) + " bytes"}
	}
	root, rel, err := c.confine(r.Path)
	if err != nil {
		return acp.WriteTextFileResponse{}, err
	}
	defer root.Close()
	f, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return acp.WriteTextFileResponse{}, fsError("fs/write_text_file", r.Path, err)
	}
	_, err = f.WriteString(r.Content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return acp.WriteTextFileResponse{}, fsError("fs/write_text_file", r.Path, err)
	}
	return acp.WriteTextFileResponse{}, nil
}

// confine opens the working directory as a root and returns path relative
// to it; a path that is not absolute or not under it is refused.
func (c *acpClient) confine(path string) (*os.Root, string, error) {
	if !filepath.IsAbs(path) {
		return nil, "", &acp.RequestError{Code: -32602, Message: "path " + quote(path) + " is not absolute"}
	}
	rel, err := filepath.Rel(c.cwd, filepath.Clean(path))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, "", &acp.RequestError{Code: -32602, Message: "path " + quote(path) + " is outside the session's working directory " + quote(c.cwd)}
	}
	root, err := os.OpenRoot(c.cwd)
	if err != nil {
		return nil, "", &acp.RequestError{Code: -32603, Message: "the session's working directory cannot be opened"}
	}
	return root, rel, nil
}

// fsError says why a file request failed without the server's own paths
// beyond the one asked for.
func fsError(method, path string, err error) error {
	why := "failed"
	var pe *os.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		why = "no such file"
	case errors.Is(err, fs.ErrPermission):
		why = "permission denied"
	case errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes"):
		why = "the path leads outside the session's working directory"
	case errors.As(err, &pe):
		why = pe.Err.Error()
	}
	return &acp.RequestError{Code: -32602, Message: method + ": " + quote(path) + ": " + why}
}

const noTerminal = "sluice grants ACP agents no terminals"

func (c *acpClient) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, refused("terminal/create", noTerminal)
}

func (c *acpClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, refused("terminal/kill", noTerminal)
}

func (c *acpClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, refused("terminal/output", noTerminal)
}

func (c *acpClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, refused("terminal/release", noTerminal)
}

func (c *acpClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, refused("terminal/wait_for_exit", noTerminal)
}
