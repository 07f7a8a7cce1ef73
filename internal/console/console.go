// Package console is sluice's web console: server-rendered pages (html/template,
// embedded with embed) over the gateway's own methods, a little plain
// JavaScript of its own for live updates, and SVG for graphs.
//
// It decides nothing about who may see or do what. Every page's data and
// every action is a call of a gateway method (run.list, run.cancel,
// admin.accounts.create ...) made through a Conn the gateway opened for the
// signed-in key, with transport "console": the permissions, rate limits and
// audit records are the API's. The console keeps only its sign-ins
// (sessions.go) and what keeps a browser safe (guard.go): a random session
// id in an HttpOnly, SameSite=Strict cookie, a CSRF token on every form, a
// strict Content-Security-Policy. The key itself stays in the server's
// memory, inside the Conn, and never reaches a cookie or a page.
package console

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// Conn is one signed-in key's connection to the gateway: each Call takes
// the dispatcher's path (the key re-checked, its grants, its rate limit,
// audit) and writes the method's frames to sink, ending with one final
// frame. The gateway implements it (gateway.E2AConn).
type Conn interface {
	Call(ctx context.Context, env *e2a.Envelope, sink e2a.FrameSink) error
	// AccountID is the account the key authenticated as.
	AccountID() string
	// Admin reports whether that account may call admin methods: it only
	// chooses which links a page shows; the gateway refuses the calls.
	Admin() bool
}

// Caller opens a Conn for a key presented at sign-in; a refused key is a
// *fault.Error of kind Unauthenticated.
type Caller interface {
	OpenConsole(ctx context.Context, key string) (Conn, error)
}

// Config wires a Console.
type Config struct {
	Caller Caller
	// SessionTTL is how long a sign-in lasts (default 8 h).
	SessionTTL time.Duration
	// MaxSessions bounds the sign-ins kept in memory (default 10000); the
	// oldest goes first.
	MaxSessions int
	Clock       clock.Clock
	Logger      *slog.Logger
}

// Console serves the pages under Prefix.
type Console struct {
	caller   Caller
	sessions *sessions
	clock    clock.Clock
	log      *slog.Logger
	mux      *http.ServeMux
}

// Prefix is where the console is served.
const Prefix = "/console/"

// New makes a Console.
func New(cfg Config) *Console {
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = 8 * time.Hour
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = 10000
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Console{caller: cfg.Caller, clock: cfg.Clock, log: cfg.Logger,
		sessions: newSessions(cfg.SessionTTL, cfg.MaxSessions, cfg.Clock)}
	c.mux = c.routes()
	return c
}

// ServeHTTP answers the console's routes, and GET / with a redirect to the
// console; every answer carries the security headers.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	secureHeaders(w)
	c.mux.ServeHTTP(w, r)
}
