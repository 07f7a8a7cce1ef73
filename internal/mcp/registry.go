// Package mcp lets accounts use MCP servers from their sessions: it keeps the
// registrations (in the store, so they outlive the process), decides what may
// be registered, keeps one MCP client connection per registration (through
// github.com/modelcontextprotocol/go-sdk), and serves the servers' tools as
// session tools named mcp.<server>.<tool>.
//
// What may be registered is policy, and all of it is here:
//   - the account's mcp_servers grant names the servers it may register and
//     use ("*": any name);
//   - a command server names an entry of the operator's allowlist
//     (config mcp.commands): an account never gives a program, arguments or
//     environment;
//   - a URL server is a streamable-HTTP endpoint under both egress gates: the
//     account's hosts grant, and the server's rule refusing private, loopback
//     and link-local addresses unless allowlisted (checked again at dial time
//     by the egress transport).
package mcp

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/store"
)

// Options configure a Registry. Zero durations and sizes take the defaults
// of the config file.
type Options struct {
	Store    store.MCPServers
	Commands map[string]config.MCPCommand
	// Egress is the server's rule for URL servers.
	Egress egress.Policy
	// HTTPClient reaches URL servers (nil: an egress client over Egress).
	HTTPClient *http.Client
	// Vault resolves the credentials a URL server's registration names (nil:
	// registrations naming credentials are refused).
	Vault          op.Vault
	ConnectTimeout time.Duration
	CallTimeout    time.Duration
	IdleTimeout    time.Duration
	MaxResultBytes int64
	// MaxConnections bounds the servers connected at once, over all
	// accounts (each command server is a process). Default 128.
	MaxConnections int
	Logger         *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 10 * time.Second
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 30 * time.Second
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 5 * time.Minute
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = 1 << 20
	}
	if o.MaxConnections <= 0 {
		o.MaxConnections = 128
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.HTTPClient == nil {
		o.HTTPClient = egress.NewClient(o.Egress)
	}
	return o
}

// Server is a registration as callers see it: its tools by session name
// (empty when the server could not be reached just now).
type Server struct {
	Name    string `json:"name"`
	Command string `json:"command,omitempty"`
	URL     string `json:"url,omitempty"`
	// Auth names the credentials the server's requests carry, by vault id.
	Auth  *store.MCPServerAuth `json:"auth,omitempty"`
	Tools []string             `json:"tools,omitempty"`
}

// Registration is what an account registers: a command or a URL, and for a
// URL the credentials its requests carry (vault ids, see ParseAuth).
type Registration struct {
	Name, Command, URL string
	Auth               store.MCPServerAuth
}

func serverOf(reg store.MCPServer) Server {
	s := Server{Name: reg.Name, Command: reg.Command, URL: reg.URL}
	if !reg.Auth.IsZero() {
		a := reg.Auth
		s.Auth = &a
	}
	return s
}

// Registry is the MCP registry. It is safe for concurrent use.
type Registry struct {
	o Options

	mu     sync.Mutex
	conns  map[connKey]*conn
	closed bool
	stop   chan struct{}
	done   chan struct{}
}

// New makes a Registry and starts its reaper of idle connections; Close
// stops it and every connection.
func New(o Options) *Registry {
	r := &Registry{o: o.withDefaults(), conns: map[connKey]*conn{}, stop: make(chan struct{}), done: make(chan struct{})}
	go r.reap()
	return r
}

// Register checks a registration against policy, connects to the server
// and lists its tools (a server that cannot be reached is not registered),
// then stores it. Its credentials are resolved and checked against their
// host bindings by connecting.
func (r *Registry) Register(ctx context.Context, p *account.Principal, g Registration) (Server, error) {
	reg := store.MCPServer{AccountID: p.ID, Name: g.Name, Command: g.Command, URL: g.URL, Auth: g.Auth}
	if err := store.CheckMCPServer(reg); err != nil {
		return Server{}, err
	}
	if err := r.allowed(p, reg); err != nil {
		return Server{}, err
	}
	c, err := r.connect(ctx, reg, p.Permissions)
	if err != nil {
		return Server{}, err
	}
	tools, err := c.listTools(ctx)
	if err != nil {
		r.drop(c)
		return Server{}, err
	}
	if _, err := r.o.Store.AddMCPServer(ctx, reg); err != nil {
		r.drop(c)
		return Server{}, err
	}
	out := serverOf(reg)
	out.Tools = toolNames(reg.Name, tools)
	return out, nil
}

// List returns the account's registrations that its grant still covers,
// with the tools of those connected now or reachable within the connect
// timeout.
func (r *Registry) List(ctx context.Context, p *account.Principal) ([]Server, error) {
	regs, err := r.o.Store.ListMCPServers(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	out := make([]Server, 0, len(regs))
	for _, reg := range regs {
		if !p.Permissions.AllowsMCPServer(reg.Name) {
			continue
		}
		s := serverOf(reg)
		if r.allowed(p, reg) == nil {
			if c, err := r.connect(ctx, reg, p.Permissions); err == nil {
				if tools, err := c.listTools(ctx); err == nil {
					s.Tools = toolNames(reg.Name, tools)
				}
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// Unregister removes a registration and closes its connection.
func (r *Registry) Unregister(ctx context.Context, p *account.Principal, name string) error {
	if err := store.CheckMCPServerName(name); err != nil {
		return err
	}
	if !p.Permissions.AllowsMCPServer(name) {
		return denied(name)
	}
	if err := r.o.Store.DeleteMCPServer(ctx, p.ID, name); err != nil {
		return err
	}
	r.mu.Lock()
	c := r.conns[connKey{p.ID, name}]
	r.mu.Unlock()
	if c != nil {
		r.drop(c)
	}
	return nil
}

// Close stops the reaper and closes every connection (stopping command
// servers).
func (r *Registry) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	conns := make([]*conn, 0, len(r.conns))
	for _, c := range r.conns {
		conns = append(conns, c)
	}
	r.conns = map[connKey]*conn{}
	r.mu.Unlock()
	close(r.stop)
	<-r.done
	for _, c := range conns {
		c.close()
	}
	return nil
}

// allowed is the registration policy (see the package comment).
func (r *Registry) allowed(p *account.Principal, reg store.MCPServer) error {
	if !p.Permissions.AllowsMCPServer(reg.Name) {
		return denied(reg.Name)
	}
	if reg.Command != "" {
		if _, ok := r.o.Commands[reg.Command]; !ok {
			return fault.New(fault.PermissionDenied, "command %q is not in this server's allowlist of MCP commands", reg.Command).
				WithDetail("field", "command").
				WithSuggestions("Name an entry of the server's mcp.commands, or ask its operator to add one")
		}
		return nil
	}
	u, err := url.Parse(reg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return fault.New(fault.Invalid, "url: want an http or https URL without user info, such as https://mcp.example.com/mcp").
			WithDetail("field", "url")
	}
	host, port := u.Hostname(), egress.PortOf(u.Scheme, u.Port())
	if !p.Permissions.AllowsHost(host, port) {
		return fault.New(fault.PermissionDenied, "host %s is not in this account's hosts", net.JoinHostPort(host, port)).
			WithDetail("field", "url").WithSuggestions("Ask an admin to grant the host")
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil && !ip.IsGlobalUnicast() || ip != nil && ip.IsPrivate() || host == "localhost" {
		if !r.o.Egress.Allows(host, port) {
			return fault.New(fault.PermissionDenied, "%s is a private, loopback or link-local address, refused unless the server's egress.allow_private lists it", host).
				WithDetail("field", "url")
		}
	}
	return checkCredentialGrants(p.Permissions, reg.Auth)
}

func denied(name string) *fault.Error {
	return fault.New(fault.PermissionDenied, "MCP server %q is not in this account's mcp_servers", name).
		WithDetail("field", "name").WithSuggestions("Ask an admin to grant it in mcp_servers")
}

// toolNames are the session names of a server's tools.
func toolNames(server string, tools []toolInfo) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = ToolPrefix + server + "." + t.Name
	}
	return out
}

// Connected is how many server connections are open now.
func (r *Registry) Connected() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.conns)
}
