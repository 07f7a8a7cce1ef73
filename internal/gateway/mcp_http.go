package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/policy"
)

// MCPConfig bounds the MCP sessions of /mcp and says which hosts and
// origins may reach it.
type MCPConfig struct {
	MaxSessions           int           // on the server (default 1000)
	MaxSessionsPerAccount int           // default 32
	IdleTimeout           time.Duration // a session without a request this long ends (default 10 min)
	PageSize              int           // tools per tools/list page (default 100)
	// ListChangedEvery is how often each account with a session that has
	// listed its tools has its tools compared with what it was told
	// (default 30 s); a change is sent as notifications/tools/list_changed.
	ListChangedEvery time.Duration
	// AllowedHosts, when set, are the only Host headers /mcp answers (the
	// names a proxy in front forwards). Without it, a request that came to
	// a loopback address must name a loopback host (DNS rebinding).
	AllowedHosts []string
	// AllowedOrigins are the browser origins (scheme://host[:port]) that
	// may call /mcp besides the server's own; a request with any other
	// Origin is refused.
	AllowedOrigins []string
	ServerVersion  string // what initialize reports (default "dev")
}

func (c MCPConfig) withDefaults() MCPConfig {
	if c.MaxSessions <= 0 {
		c.MaxSessions = 1000
	}
	if c.MaxSessionsPerAccount <= 0 {
		c.MaxSessionsPerAccount = 32
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = 10 * time.Minute
	}
	if c.PageSize <= 0 {
		c.PageSize = 100
	}
	if c.ListChangedEvery <= 0 {
		c.ListChangedEvery = 30 * time.Second
	}
	if c.ServerVersion == "" {
		c.ServerVersion = "dev"
	}
	return c
}

// mcpHTTP is the Streamable HTTP ingress at /mcp: the go-sdk's handler,
// behind the checks that come before any MCP message is read: host and
// origin, the key (401 with WWW-Authenticate: Bearer), the session's owner,
// and the session bounds.
type mcpHTTP struct {
	s        *Server
	cfg      MCPConfig
	sdk      *mcp.StreamableHTTPHandler
	sessions *mcpSessions
}

func newMCPHTTP(s *Server) *mcpHTTP {
	cfg := s.cfg.MCP.withDefaults()
	h := &mcpHTTP{s: s, cfg: cfg, sessions: newMCPSessions(s, cfg)}
	h.sdk = mcp.NewStreamableHTTPHandler(h.server, &mcp.StreamableHTTPOptions{
		SessionTimeout: cfg.IdleTimeout,
		Logger:         s.log.With("component", "mcp"),
		// The body is read after the key is checked, and bounded like any
		// request's.
		MaxRequestBodyBytes: s.cfg.MaxBodyBytes,
	})
	return h
}

// newSessionKey holds, in a request that opens a session, the session the
// go-sdk's handler is to connect (it asks for its server twice).
type newSessionKey struct{}

// server is the go-sdk's getServer: the MCP server of the session a
// request opens; nil for other requests (the handler then checks the
// protocol version against its defaults).
func (h *mcpHTTP) server(r *http.Request) *mcp.Server {
	if ms, ok := r.Context().Value(newSessionKey{}).(*mcpSession); ok {
		return ms.server
	}
	return nil
}

func (h *mcpHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := requestID(r)
	w.Header().Set("X-Request-ID", id)
	if err := h.checkHostAndOrigin(r); err != nil {
		writeRPCError(w, http.StatusForbidden, err)
		return
	}
	key, err := policy.PresentedKey(r.Header)
	var auth *ConnAuth
	if err == nil {
		auth, err = h.s.dispatcher.OpenConn(r.Context(), key, id, "mcp.connect")
	} else {
		h.s.dispatcher.refused(id, "mcp.connect", err)
	}
	if err != nil {
		w.Header().Set("WWW-Authenticate", `Bearer realm="sluice"`)
		writeRPCError(w, http.StatusUnauthorized, err)
		return
	}
	// A tool call's answer streams for as long as the call runs (bounded by
	// the account's execution time), and GET is the session's stream: lift
	// the server's write timeout for this response, as SSE does.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
		// A session answers only the key that opened it; to another caller
		// it does not exist.
		if ms := h.sessions.get(sid); ms == nil || ms.keyID != auth.KeyID() {
			writeRPCError(w, http.StatusNotFound, fault.New(fault.NotFound, "no MCP session %q for this key", sid))
			return
		}
		h.sdk.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodPost {
		h.sdk.ServeHTTP(w, r) // the go-sdk's answer: a session id is needed
		return
	}
	// Only an initialize opens a session that lasts, so only it takes one
	// of the bounded slots; any other message without a session (a newer
	// host's server/discover, which this stateful server refuses) is
	// answered by a session of its own that the go-sdk drops at once.
	initialize, err := peekInitialize(w, r, h.s.cfg.MaxBodyBytes)
	if err != nil {
		writeRPCError(w, fault.From(err).Kind.HTTPStatus(), err)
		return
	}
	if !initialize {
		ms := h.s.newMCPSession(ids.New(ids.MCPSession), auth)
		h.sdk.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), newSessionKey{}, ms)))
		return
	}
	ms, err := h.sessions.open(auth)
	if err != nil {
		writeRPCError(w, fault.From(err).Kind.HTTPStatus(), err)
		return
	}
	ms.preload(r.Context())
	h.sdk.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), newSessionKey{}, ms)))
	h.sessions.started(ms)
}

// peekInitialize reads r's body (at most limit bytes: the key has been
// checked) and says whether it is an initialize request; the body is put
// back for the go-sdk's handler.
func peekInitialize(w http.ResponseWriter, r *http.Request, limit int64) (bool, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return false, fault.New(fault.TooLarge, "the message is over the limit of %d bytes", limit)
		}
		return false, fault.New(fault.Invalid, "the message could not be read: %v", err)
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	var head struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(b, &head) == nil && head.Method == "initialize", nil
}

// checkHostAndOrigin refuses a request whose Host is not one the server
// answers (AllowedHosts; else, on a loopback address, a loopback name) or
// whose Origin is neither the server's own nor an allowed one.
func (h *mcpHTTP) checkHostAndOrigin(r *http.Request) error {
	host := hostOnly(r.Host)
	if len(h.cfg.AllowedHosts) > 0 {
		if !slices.Contains(h.cfg.AllowedHosts, host) && !slices.Contains(h.cfg.AllowedHosts, r.Host) {
			return fault.New(fault.PermissionDenied, "Host %q is not one this server answers on /mcp", r.Host)
		}
	} else if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && isLoopback(hostOnly(local.String())) && !isLoopback(host) {
		return fault.New(fault.PermissionDenied, "Host %q is not a loopback name, and the request came to a loopback address", r.Host)
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	if slices.Contains(h.cfg.AllowedOrigins, origin) {
		return nil
	}
	if u, err := url.Parse(origin); err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host) {
		return nil
	}
	return fault.New(fault.PermissionDenied, "Origin %q may not call /mcp", origin)
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return strings.Trim(h, "[]")
	}
	return strings.Trim(hostport, "[]")
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// writeRPCError answers with status and a JSON-RPC error without an id, as
// the go-sdk's client reads a refused request.
func writeRPCError(w http.ResponseWriter, status int, err error) {
	fe := fault.From(err)
	writeJSON(w, status, map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": jsonrpc.Error{Code: int64(fe.Kind.JSONRPCCode()), Message: fe.Message}})
}
