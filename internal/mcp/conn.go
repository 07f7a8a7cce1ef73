package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/url"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/telemetry"
	"github.com/sluicehq/sluice/internal/tools"
	"github.com/sluicehq/sluice/internal/vault/redact"
)

// toolsTTL is how long a server's tool list is reused before it is asked
// again; a server that changes its tools is seen within it.
const toolsTTL = 30 * time.Second

// maxTools bounds the tools taken from one server.
const maxTools = 1000

type connKey struct{ account, name string }

// conn is one MCP client session to one registration. It is made once by
// whoever asks first (others wait on ready) and lives until it is idle for
// IdleTimeout, its server goes away, or it is unregistered.
type conn struct {
	key   connKey
	reg   store.MCPServer
	ready chan struct{} // closed when cs or err is set
	cs    *sdk.ClientSession
	err   error

	lastUsed atomic.Int64 // unix nanoseconds
	busy     atomic.Int32
	dead     atomic.Bool

	toolsMu sync.Mutex
	tools   []toolInfo
	toolsAt time.Time

	progress *progressRoutes
	tasks    taskTools
}

// toolInfo is what sluice keeps of an MCP tool.
type toolInfo struct {
	Name        string
	Title       string
	Description string
	Input       json.RawMessage
	Output      json.RawMessage
	Idempotent  bool
	ReadOnly    bool
}

// connect returns the live connection of reg, making it when there is none;
// grants are the caller's (an OAuth flow the connection runs may reach only
// hosts they cover).
func (r *Registry) connect(ctx context.Context, reg store.MCPServer, grants policy.Permissions) (*conn, error) {
	key := connKey{reg.AccountID, reg.Name}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, fault.New(fault.Unavailable, "the server is shutting down")
	}
	c := r.conns[key]
	if c != nil && (c.dead.Load() || c.reg.Command != reg.Command || c.reg.URL != reg.URL || !sameAuth(c.reg.Auth, reg.Auth)) {
		delete(r.conns, key)
		go c.close()
		c = nil
	}
	if c == nil {
		if len(r.conns) >= r.o.MaxConnections && !r.evictIdleLocked() {
			r.mu.Unlock()
			return nil, fault.New(fault.Unavailable, "too many MCP servers are connected (%d)", r.o.MaxConnections).Retry(5 * time.Second)
		}
		c = &conn{key: key, reg: reg, ready: make(chan struct{}), progress: &progressRoutes{}}
		c.lastUsed.Store(time.Now().UnixNano())
		r.conns[key] = c
		r.mu.Unlock()
		c.cs, c.err = r.dial(c, grants)
		if c.err != nil {
			r.mu.Lock()
			if r.conns[key] == c {
				delete(r.conns, key)
			}
			r.mu.Unlock()
		} else {
			go func() {
				_ = c.cs.Wait() // the server went away (or we closed it)
				c.dead.Store(true)
			}()
		}
		close(c.ready)
	} else {
		r.mu.Unlock()
	}
	select {
	case <-c.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if c.err != nil {
		return nil, c.err
	}
	c.lastUsed.Store(time.Now().UnixNano())
	return c, nil
}

// maxStreamRetries bounds the reconnections of a dropped event stream
// (resumed from its last event id, after the server's retry delay or a
// growing backoff) before the connection is given up.
const maxStreamRetries = 5

// dial starts or reaches the server and runs MCP initialization, within
// ConnectTimeout. It does not use a caller's context: the connection outlives
// the call that made it.
func (r *Registry) dial(c *conn, grants policy.Permissions) (*sdk.ClientSession, error) {
	reg := c.reg
	ctx, cancel := context.WithTimeout(context.Background(), r.o.ConnectTimeout)
	defer cancel()
	var t sdk.Transport
	what := "reached"
	scrub := redact.New()
	if reg.Command != "" {
		spec := r.o.Commands[reg.Command]
		cmd := exec.Command(spec.Command, spec.Args...)
		cmd.Env = spec.Environ()
		cmd.Dir = spec.Dir
		cmd.Stderr = &stderrLog{log: r.o.Logger, server: reg.Name, account: reg.AccountID}
		t = tapTransport{Transport: &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, progress: c.progress, tasks: &c.tasks}
		what = "started"
	} else {
		sa, err := r.resolveAuth(ctx, reg)
		if err != nil {
			return nil, err
		}
		scrub = sa.scrub
		u, _ := url.Parse(reg.URL)
		client := r.httpClientFor(&serverTransport{origin: origin(u), auth: sa, hosts: grants, progress: c.progress, tasks: &c.tasks})
		oauth, err := sa.newOAuth(client)
		if err != nil {
			return nil, err
		}
		// The standalone stream carries what the server says outside a call
		// (tools/list_changed, and requests some servers send there).
		t = &sdk.StreamableClientTransport{Endpoint: reg.URL, HTTPClient: client, MaxRetries: maxStreamRetries, OAuthHandler: oauth}
	}
	cs, err := clientFor(c).Connect(ctx, t, nil)
	if err != nil {
		msg := scrub.Scrub(boundedText(err.Error(), 300))
		r.o.Logger.Warn("mcp server unreachable", "server", reg.Name, "account", reg.AccountID, "error", msg)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fault.New(fault.Timeout, "MCP server %q did not answer within %s", reg.Name, r.o.ConnectTimeout)
		}
		if fe, ok := fault.As(err); ok { // a gate of serverTransport
			return nil, fe
		}
		return nil, fault.New(fault.Upstream, "MCP server %q could not be %s: %s", reg.Name, what, msg)
	}
	return cs, nil
}

// listTools returns the server's tools, asking it at most every toolsTTL.
func (c *conn) listTools(ctx context.Context) ([]toolInfo, error) {
	c.toolsMu.Lock()
	defer c.toolsMu.Unlock()
	if c.tools != nil && time.Since(c.toolsAt) < toolsTTL {
		return c.tools, nil
	}
	c.busy.Add(1)
	defer c.busy.Add(-1)
	var out []toolInfo
	for t, err := range c.cs.Tools(ctx, nil) {
		if err != nil {
			if ctx.Err() == nil {
				c.dead.Store(c.dead.Load() || errors.Is(err, sdk.ErrConnectionClosed))
			}
			return nil, fault.New(fault.Upstream, "MCP server %q did not list its tools: %s", c.reg.Name, boundedText(err.Error(), 300)).WithCause(err)
		}
		if len(out) == maxTools {
			break
		}
		ti := toolInfo{Name: t.Name, Title: t.Title, Description: t.Description}
		ti.Input, _ = json.Marshal(t.InputSchema)
		if t.OutputSchema != nil {
			ti.Output, _ = json.Marshal(t.OutputSchema)
		}
		if a := t.Annotations; a != nil {
			ti.Idempotent, ti.ReadOnly = a.IdempotentHint || a.ReadOnlyHint, a.ReadOnlyHint
			if ti.Title == "" {
				ti.Title = a.Title
			}
		}
		out = append(out, ti)
	}
	if out == nil {
		out = []toolInfo{}
	}
	c.tools, c.toolsAt = out, time.Now()
	c.lastUsed.Store(time.Now().UnixNano())
	return out, nil
}

// call runs one tool. onEvent, when set, receives the server's progress
// notifications for the call.
func (c *conn) call(ctx context.Context, tool string, args map[string]any, onEvent func(tools.Event)) (*sdk.CallToolResult, error) {
	c.busy.Add(1)
	defer func() {
		c.lastUsed.Store(time.Now().UnixNano())
		c.busy.Add(-1)
	}()
	if args == nil {
		args = map[string]any{}
	}
	params := &sdk.CallToolParams{Name: tool, Arguments: args}
	// The server joins the caller's trace: MCP's place for it is _meta (an
	// HTTP server also gets the headers, from the egress client).
	if meta := telemetry.ToMeta(ctx, nil); meta != nil {
		params.Meta = meta
	}
	if onEvent == nil {
		return c.cs.CallTool(ctx, params)
	}
	token, finish := c.progress.add(onEvent)
	params.SetProgressToken(token)
	res, err := c.cs.CallTool(ctx, params)
	finish(ctx)
	return res, err
}

func (c *conn) close() {
	<-c.ready
	if c.cs != nil {
		_ = c.cs.Close()
	}
}

// drop forgets c and closes it.
func (r *Registry) drop(c *conn) {
	r.mu.Lock()
	if r.conns[c.key] == c {
		delete(r.conns, c.key)
	}
	r.mu.Unlock()
	c.close()
}

// evictIdleLocked closes the connection idle the longest, if any is idle.
func (r *Registry) evictIdleLocked() bool {
	var oldest *conn
	for _, c := range r.conns {
		if c.busy.Load() == 0 && isReady(c) && (oldest == nil || c.lastUsed.Load() < oldest.lastUsed.Load()) {
			oldest = c
		}
	}
	if oldest == nil {
		return false
	}
	delete(r.conns, oldest.key)
	go oldest.close()
	return true
}

func isReady(c *conn) bool {
	select {
	case <-c.ready:
		return true
	default:
		return false
	}
}

// reap closes connections idle for IdleTimeout and forgets dead ones.
func (r *Registry) reap() {
	defer close(r.done)
	every := min(max(r.o.IdleTimeout/4, 50*time.Millisecond), 30*time.Second)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-tick.C:
		}
		cutoff := time.Now().Add(-r.o.IdleTimeout).UnixNano()
		var idle []*conn
		r.mu.Lock()
		for k, c := range r.conns {
			if !isReady(c) {
				continue
			}
			if c.dead.Load() || c.busy.Load() == 0 && c.lastUsed.Load() < cutoff {
				delete(r.conns, k)
				idle = append(idle, c)
			}
		}
		r.mu.Unlock()
		for _, c := range idle {
			c.close()
		}
	}
}

// stderrLog logs what a command server writes to stderr, a line at a time,
// each bounded.
type stderrLog struct {
	log             *slog.Logger
	server, account string
	mu              sync.Mutex
	buf             []byte
}

func (w *stderrLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			if len(w.buf) > 4096 {
				w.emit(w.buf)
				w.buf = w.buf[:0]
			}
			return len(p), nil
		}
		w.emit(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
}

func (w *stderrLog) emit(line []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	w.log.Info("mcp server stderr", "server", w.server, "account", w.account, "line", boundedText(string(line), 1024))
}

// sameAuth reports whether two registrations name the same credentials.
func sameAuth(a, b store.MCPServerAuth) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
