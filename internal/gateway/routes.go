package gateway

import "net/http"

// access says who may call a method.
type access int

const (
	accessPublic  access = iota // no key (health, readiness, metrics, the API description)
	accessAccount               // any enabled account
	accessAdmin                 // an account with capability_level admin
)

// route is one REST endpoint: the HTTP method and path pattern (net/http's
// syntax), and the gateway method it is dispatched as. Infrastructure routes
// (health, readiness, metrics, the API description) and the ingresses that
// name their method in the request (E2A, sessions) have none: they are
// answered directly, or dispatch each call they read.
type route struct {
	method  string // HTTP method
	pattern string // path pattern
	rpc     string // gateway method; "" for infrastructure
	// okStatus is the HTTP status of a successful answer (default 200).
	okStatus int
	sse      bool // the method's frames are sent as Server-Sent Events
}

// infrastructureRoutes are the routes of no one gateway method.
var infrastructureRoutes = []route{
	{method: http.MethodGet, pattern: "/health"},
	{method: http.MethodGet, pattern: "/ready"},
	{method: http.MethodGet, pattern: "/metrics"},
	{method: http.MethodGet, pattern: "/openapi.json"},
	{method: http.MethodPost, pattern: "/api/v1/e2a"},    // any gateway method, named by the envelope
	{method: http.MethodGet, pattern: "/api/v1/session"}, // A2E sessions over WebSocket; calls are tool.list/tool.call
	// MCP over Streamable HTTP: a message, the server's stream, the end of a
	// session; calls are tool.list/tool.call.
	{method: http.MethodPost, pattern: "/mcp"},
	{method: http.MethodGet, pattern: "/mcp"},
	{method: http.MethodDelete, pattern: "/mcp"},
}

// routes are every route the mux serves: the infrastructure's, then each
// method's from methodTable. A test checks /openapi.json against them.
var routes = tableRoutes()

func tableRoutes() []route {
	out := append([]route(nil), infrastructureRoutes...)
	for _, m := range methodTable {
		for _, r := range m.rest {
			out = append(out, route{method: r.verb, pattern: r.pattern, rpc: m.name, okStatus: r.ok, sse: r.sse})
		}
	}
	return out
}
