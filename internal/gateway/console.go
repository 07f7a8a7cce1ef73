package gateway

import (
	"context"
	"net/http"
	"strings"

	"github.com/sluicehq/sluice/internal/console"
)

// The web console (internal/console) is served beside the API: it calls
// the gateway's methods through an E2AConn per sign-in, transport
// "console", so its pages obey the API's permissions, limits and audit.

// OpenConsole opens a console sign-in's connection for key.
func (s *Server) OpenConsole(ctx context.Context, key string) (console.Conn, error) {
	return s.OpenE2A(ctx, key, "console")
}

// AccountID is the account the connection's key authenticated as.
func (c *E2AConn) AccountID() string { return c.auth.AccountID() }

// Admin reports whether that account is an admin, as last checked.
func (c *E2AConn) Admin() bool {
	c.auth.mu.Lock()
	defer c.auth.mu.Unlock()
	return c.auth.p.Admin()
}

// withConsole serves the console at /console/ (and GET / as a redirect to
// it) in front of api.
func withConsole(c http.Handler, api http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" && r.Method == http.MethodGet || r.URL.Path == "/console" || strings.HasPrefix(r.URL.Path, console.Prefix) {
			c.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}
