package gateway

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/tools"
)

// mcpSessions are the server's live MCP sessions: bounded in number (on the
// server and per account), and each ended once its key no longer
// authenticates (revoked, expired, its account disabled), found by the
// connection recheck every A2E session has (ConnAuth).
type mcpSessions struct {
	s   *Server
	cfg MCPConfig

	mu         sync.Mutex
	byID       map[string]*mcpSession
	perAccount map[string]int
	sweeping   bool
}

func newMCPSessions(s *Server, cfg MCPConfig) *mcpSessions {
	return &mcpSessions{s: s, cfg: cfg, byID: map[string]*mcpSession{}, perAccount: map[string]int{}}
}

// open makes a session for auth's account, within the bounds.
func (t *mcpSessions) open(auth *ConnAuth) (*mcpSession, error) {
	account := auth.AccountID()
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.byID) >= t.cfg.MaxSessions {
		return nil, fault.New(fault.Unavailable, "the server holds its limit of %d MCP sessions", t.cfg.MaxSessions).
			WithSuggestions("Try again later")
	}
	if t.perAccount[account] >= t.cfg.MaxSessionsPerAccount {
		return nil, fault.New(fault.RateLimited, "the account holds its limit of %d MCP sessions", t.cfg.MaxSessionsPerAccount).
			WithSuggestions("End a session you no longer use (DELETE /mcp with its Mcp-Session-Id)")
	}
	ms := t.s.newMCPSession(ids.New(ids.MCPSession), auth)
	t.byID[ms.id] = ms
	t.perAccount[account]++
	if !t.sweeping {
		t.sweeping = true
		go t.sweep()
	}
	return ms, nil
}

// get is the session of id, or nil.
func (t *mcpSessions) get(id string) *mcpSession {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byID[id]
}

// started follows ms once the request that opened it is answered: a session
// the go-sdk kept (it was initialized) is forgotten when it ends, one it
// drops (the request was no initialize, or a refused one) at once.
func (t *mcpSessions) started(ms *mcpSession) {
	var ss *mcp.ServerSession
	for s := range ms.server.Sessions() {
		if s.InitializeParams() != nil {
			ss = s
		}
	}
	if ss == nil {
		t.forget(ms)
		return
	}
	t.connected(ms, ss)
}

// connected watches ss, the go-sdk's session of ms, until it ends.
func (t *mcpSessions) connected(ms *mcpSession, ss *mcp.ServerSession) {
	ms.mu.Lock()
	ms.ss = ss
	ms.mu.Unlock()
	go func() {
		_ = ss.Wait()
		t.forget(ms)
	}()
}

func (t *mcpSessions) forget(ms *mcpSession) {
	ms.stopFollowing()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byID[ms.id] != ms {
		return
	}
	delete(t.byID, ms.id)
	account := ms.auth.AccountID()
	if t.perAccount[account]--; t.perAccount[account] <= 0 {
		delete(t.perAccount, account)
	}
}

// sweep checks each session's key once per recheck period, and ends the
// sessions whose key is refused; it stops when no session is left.
func (t *mcpSessions) sweep() {
	d := t.s.dispatcher
	every := d.connRecheck
	if every <= 0 {
		every = connRecheck
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	watch := time.NewTicker(t.cfg.ListChangedEvery)
	defer watch.Stop()
	for {
		select {
		case <-tick.C:
		case <-watch.C:
			t.watch()
			continue
		case <-t.s.sessionsCtx.Done():
			t.closeAll()
			return
		}
		t.mu.Lock()
		live := make([]*mcpSession, 0, len(t.byID))
		for _, ms := range t.byID {
			live = append(live, ms)
		}
		if len(live) == 0 {
			t.sweeping = false
			t.mu.Unlock()
			return
		}
		t.mu.Unlock()
		for _, ms := range live {
			if _, err := ms.auth.principal(t.s.sessionsCtx, d); fault.KindOf(err) == fault.Unauthenticated {
				t.s.log.Info("mcp session ended: its key no longer authenticates", "session", ms.id)
				ms.close()
			}
		}
	}
}

// watch gives each session that has listed its tools the account's tools
// as they are now: the go-sdk sends notifications/tools/list_changed to a
// session whose tools that changed (a grant, a capability published, an MCP
// server registered). The list is taken from the tool catalogue once per
// account, not through the dispatcher: it is the server's own look, not a
// request of the account's, so it is neither audited nor counted against
// its rate limits; the host's next tools/list is.
func (t *mcpSessions) watch() {
	if t.s.svc.Tools == nil {
		return
	}
	byAccount := map[string][]*mcpSession{}
	t.mu.Lock()
	for _, ms := range t.byID {
		if ms.listed() {
			id := ms.auth.AccountID()
			byAccount[id] = append(byAccount[id], ms)
		}
	}
	t.mu.Unlock()
	ctx := t.s.sessionsCtx
	for _, sessions := range byAccount {
		p, err := sessions[0].auth.principal(ctx, t.s.dispatcher)
		if err != nil {
			continue // the sweep ends a session whose key is refused
		}
		list, err := t.s.svc.Tools.List(ctx, p, tools.ListOptions{})
		if err != nil {
			t.s.log.Debug("mcp: the account's tools could not be listed", "account", p.ID, "error", err)
			continue
		}
		for _, ms := range sessions {
			ms.applyTools(list)
		}
	}
}

// closeAll ends every session (the server shuts down).
func (t *mcpSessions) closeAll() {
	t.mu.Lock()
	live := make([]*mcpSession, 0, len(t.byID))
	for _, ms := range t.byID {
		live = append(live, ms)
	}
	t.mu.Unlock()
	for _, ms := range live {
		ms.close()
	}
}

// close ends the session: its streams close and its calls in flight are
// cancelled.
func (ms *mcpSession) close() {
	ms.mu.Lock()
	ss := ms.ss
	ms.mu.Unlock()
	if ss != nil {
		_ = ss.Close()
	}
}

// ServeMCP serves one MCP session on t (stdio: `sluice mcp --stdio`) for the
// account of key, until the peer ends it or ctx ends. A key that does not
// authenticate is the error, before any MCP message is read.
func (s *Server) ServeMCP(ctx context.Context, t mcp.Transport, key string) error {
	auth, err := s.dispatcher.OpenConn(ctx, key, ids.New(ids.Request), "mcp.connect")
	if err != nil {
		return err
	}
	ms, err := s.mcp.sessions.open(auth)
	if err != nil {
		return err
	}
	ms.preload(ctx)
	ss, err := ms.server.Connect(ctx, t, nil)
	if err != nil {
		s.mcp.sessions.forget(ms)
		return err
	}
	s.mcp.sessions.connected(ms, ss)
	stop := context.AfterFunc(ctx, ms.close)
	defer stop()
	_ = ss.Wait()
	return nil
}
