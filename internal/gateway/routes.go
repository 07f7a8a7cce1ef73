package gateway

import "net/http"

// access says who may call a route's method.
type access int

const (
	accessPublic  access = iota // no key (health, readiness, metrics, the API description)
	accessAccount               // any enabled account
	accessAdmin                 // an account with capability_level admin
)

// Gateway methods of the REST surface beyond the ones protocol/e2a names.
// RESOLUTIONS lists execution.list/cancel/events and admin.<resource>.<verb>;
// the A2E spec's two per-account reads need names too, and get these.
const (
	MethodAccountCapabilities = "account.capabilities"
	MethodAccountRateLimit    = "account.rate_limit"

	MethodAdminAccountsCreate  = "admin.accounts.create"
	MethodAdminAccountsList    = "admin.accounts.list"
	MethodAdminAccountsGet     = "admin.accounts.get"
	MethodAdminAccountsUpdate  = "admin.accounts.update"
	MethodAdminKeysCreate      = "admin.keys.create"
	MethodAdminKeysList        = "admin.keys.list"
	MethodAdminKeysRevoke      = "admin.keys.revoke"
	MethodAdminCredentialsPut  = "admin.credentials.put"
	MethodAdminCredentialsList = "admin.credentials.list"
	MethodAdminCredentialsGet  = "admin.credentials.get"
	MethodAdminCredentialsDel  = "admin.credentials.delete"
	MethodAdminAuditList       = "admin.audit.list"
)

// route is one REST endpoint: the HTTP method and path pattern (net/http's
// syntax), and the gateway method it is dispatched as. Infrastructure routes
// (health, readiness, metrics, the API description) have no gateway method:
// they carry no account's work and are answered directly.
//
// The table is the one source of the routes: the mux is built from it, and a
// test checks /openapi.json against it.
type route struct {
	method  string // HTTP method
	pattern string // path pattern
	rpc     string // gateway method; "" for infrastructure
	// okStatus is the HTTP status of a successful answer (default 200).
	okStatus int
}

var routes = []route{
	{method: http.MethodGet, pattern: "/health"},
	{method: http.MethodGet, pattern: "/ready"},
	{method: http.MethodGet, pattern: "/metrics"},
	{method: http.MethodGet, pattern: "/openapi.json"},

	{method: http.MethodGet, pattern: "/api/v1/capabilities", rpc: MethodAccountCapabilities},
	{method: http.MethodGet, pattern: "/api/v1/rate-limit/status", rpc: MethodAccountRateLimit},
	{method: http.MethodPost, pattern: "/api/v1/workflows/validate", rpc: "workflow.validate"},
	{method: http.MethodPost, pattern: "/api/v1/workflows/execute", rpc: "workflow.execute"},
	{method: http.MethodGet, pattern: "/api/v1/executions", rpc: "execution.list"},
	{method: http.MethodGet, pattern: "/api/v1/executions/{id}", rpc: "execution.get"},
	{method: http.MethodPost, pattern: "/api/v1/executions/{id}/cancel", rpc: "execution.cancel"},
	{method: http.MethodGet, pattern: "/api/v1/executions/{id}/events", rpc: "execution.events"},
	{method: http.MethodPost, pattern: "/api/v1/e2a"},    // any gateway method, named by the envelope
	{method: http.MethodGet, pattern: "/api/v1/session"}, // A2E sessions over WebSocket; calls are tool.list/tool.call

	{method: http.MethodPost, pattern: "/api/v1/knowledge/search", rpc: MethodKnowledgeSearch},
	{method: http.MethodGet, pattern: "/api/v1/knowledge/bases", rpc: MethodKnowledgeBases},
	{method: http.MethodPost, pattern: "/api/v1/sql-queries/search", rpc: MethodSQLQueriesSearch},
	{method: http.MethodGet, pattern: "/api/v1/sql-queries", rpc: MethodSQLQueriesList},
	{method: http.MethodGet, pattern: "/api/v1/sql-queries/{id}", rpc: MethodSQLQueriesGet},
	{method: http.MethodPost, pattern: "/api/v1/discovery/feedback", rpc: MethodDiscoveryFeedback},
	{method: http.MethodPost, pattern: "/api/v1/agent-workflows/runs", rpc: MethodAgentWorkflowRun, okStatus: http.StatusAccepted},
	{method: http.MethodGet, pattern: "/api/v1/agent-workflows/runs/{id}", rpc: MethodAgentWorkflowGet},
	{method: http.MethodPost, pattern: "/api/v1/agent-workflows/runs/{id}/cancel", rpc: MethodAgentWorkflowCancel},
	{method: http.MethodGet, pattern: "/api/v1/agent-workflows/runs", rpc: MethodAgentWorkflowList},
	{method: http.MethodPost, pattern: "/api/v1/a2s/runs", rpc: "capability.run"},
	{method: http.MethodGet, pattern: "/api/v1/a2s/runs/{id}", rpc: MethodCapabilityGet},
	{method: http.MethodPost, pattern: "/api/v1/a2s/runs/{id}/cancel", rpc: MethodCapabilityCancel},
	{method: http.MethodPost, pattern: "/api/v1/a2s/runs/{id}/decisions", rpc: "capability.decide"},
	{method: http.MethodPost, pattern: "/api/v1/a2s/registry", rpc: MethodRegistryPublish, okStatus: http.StatusCreated},
	{method: http.MethodGet, pattern: "/api/v1/a2s/registry", rpc: MethodRegistryList},
	{method: http.MethodGet, pattern: "/api/v1/a2s/registry/{path...}", rpc: MethodRegistryGet},

	{method: http.MethodPost, pattern: "/api/v1/admin/accounts", rpc: MethodAdminAccountsCreate, okStatus: http.StatusCreated},
	{method: http.MethodGet, pattern: "/api/v1/admin/accounts", rpc: MethodAdminAccountsList},
	{method: http.MethodGet, pattern: "/api/v1/admin/accounts/{id}", rpc: MethodAdminAccountsGet},
	{method: http.MethodPatch, pattern: "/api/v1/admin/accounts/{id}", rpc: MethodAdminAccountsUpdate},
	{method: http.MethodPost, pattern: "/api/v1/admin/accounts/{id}/keys", rpc: MethodAdminKeysCreate, okStatus: http.StatusCreated},
	{method: http.MethodGet, pattern: "/api/v1/admin/accounts/{id}/keys", rpc: MethodAdminKeysList},
	{method: http.MethodDelete, pattern: "/api/v1/admin/accounts/{id}/keys/{key_id}", rpc: MethodAdminKeysRevoke},
	{method: http.MethodPut, pattern: "/api/v1/admin/credentials/{id}", rpc: MethodAdminCredentialsPut},
	{method: http.MethodGet, pattern: "/api/v1/admin/credentials", rpc: MethodAdminCredentialsList},
	{method: http.MethodGet, pattern: "/api/v1/admin/credentials/{id}", rpc: MethodAdminCredentialsGet},
	{method: http.MethodDelete, pattern: "/api/v1/admin/credentials/{id}", rpc: MethodAdminCredentialsDel},
	{method: http.MethodGet, pattern: "/api/v1/admin/audit", rpc: MethodAdminAuditList},
	{method: http.MethodPost, pattern: "/api/v1/admin/agents", rpc: MethodAdminAgentsRegister, okStatus: http.StatusCreated},
	{method: http.MethodGet, pattern: "/api/v1/admin/agents", rpc: MethodAdminAgentsList},
	{method: http.MethodDelete, pattern: "/api/v1/admin/agents/{id}", rpc: MethodAdminAgentsRemove},
	{method: http.MethodPost, pattern: "/api/v1/admin/apis", rpc: MethodAdminAPIsImport, okStatus: http.StatusCreated},
	{method: http.MethodGet, pattern: "/api/v1/admin/apis", rpc: MethodAdminAPIsList},
	{method: http.MethodDelete, pattern: "/api/v1/admin/apis/{id}", rpc: MethodAdminAPIsDelete},
	{method: http.MethodGet, pattern: "/api/v1/admin/discovery/explain", rpc: MethodAdminDiscoveryExplain},
	{method: http.MethodGet, pattern: "/api/v1/admin/discovery/usage", rpc: MethodAdminDiscoveryUsage},
	{method: http.MethodDelete, pattern: "/api/v1/admin/discovery/usage", rpc: MethodAdminDiscoveryForget},
}
