package gateway

import (
	"context"
	"net/http"

	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// Gateway method names beyond the ones protocol/e2a names (the public eight
// and RESOLUTIONS' four, which the table uses from there). RESOLUTIONS names
// admin.<resource>.<verb>; the rest are sluice's own.
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
	MethodAdminVaultRotate     = "admin.vault.rotate"
	MethodAdminAuditList       = "admin.audit.list"
	// MethodAdminStats is the server's own counters (the web console's
	// charts); MethodAdminRateLimits is one account's rate-limit windows.
	MethodAdminStats      = "admin.stats.get"
	MethodAdminRateLimits = "admin.rate_limits.get"

	// The retention of finished work (internal/retention) and what the
	// store holds.
	MethodAdminRetentionGet    = "admin.retention.get"
	MethodAdminRetentionUpdate = "admin.retention.update"
	MethodAdminRetentionPrune  = "admin.retention.prune"
	MethodAdminStorageStats    = "admin.storage.stats"

	MethodAdminAgentsRegister = "admin.agents.register"
	MethodAdminAgentsList     = "admin.agents.list"
	MethodAdminAgentsRemove   = "admin.agents.remove"

	MethodAgentWorkflowRun    = agentflow.RunMethod
	MethodAgentWorkflowGet    = "agent.workflow.get"
	MethodAgentWorkflowCancel = "agent.workflow.cancel"
	MethodAgentWorkflowList   = "agent.workflow.list"

	// The one run API over every kind of run (internal/runs).
	MethodRunList   = "run.list"
	MethodRunGet    = "run.get"
	MethodRunCancel = "run.cancel"
	MethodRunAnswer = "run.answer"
	MethodRunEvents = "run.events"

	MethodCapabilityGet    = "capability.get"
	MethodCapabilityCancel = "capability.cancel"

	MethodKnowledgeSearch = "knowledge.search"
	// MethodKnowledgeBases lists the text knowledge bases the account's
	// knowledge_bases grants cover (the A2E reference's GET
	// /api/v1/knowledge/bases).
	MethodKnowledgeBases  = "knowledge.bases"
	MethodAdminAPIsImport = "admin.apis.import"
	MethodAdminAPIsList   = "admin.apis.list"
	MethodAdminAPIsDelete = "admin.apis.delete"
	// MethodAdminDiscoveryExplain shows how the catalog analyzes a query
	// (discovery.Index.Explain). Admin only: the expansions name words of
	// the whole catalog, whatever an account may see.
	MethodAdminDiscoveryExplain = "admin.discovery.explain"
	// MethodDiscoveryFeedback is an account saying which entry answered
	// its query: the catalog learns the query's words for it
	// (catalog.Service.Learn).
	MethodDiscoveryFeedback = "discovery.feedback"
	// MethodAdminDiscoveryUsage lists what use taught; admin only, since
	// the words come from every account's queries.
	MethodAdminDiscoveryUsage = "admin.discovery.usage"
	// MethodAdminDiscoveryForget deletes what use taught, of one entry or
	// of all.
	MethodAdminDiscoveryForget = "admin.discovery.forget"

	MethodRegistryPublish = "a2s.registry.publish"
	MethodRegistryList    = "a2s.registry.list"
	MethodRegistryGet     = "a2s.registry.get"

	MethodMCPRegister   = "mcp.server.register"
	MethodMCPList       = "mcp.server.list"
	MethodMCPUnregister = "mcp.server.unregister"

	MethodSQLQueriesSearch = "sql_queries.search"
	MethodSQLQueriesList   = "sql_queries.list"
	MethodSQLQueriesGet    = "sql_queries.get"
)

// methodSpec declares one gateway method, once. Everything else is derived
// from methodTable: the dispatcher's registry (Server.registerMethods), the
// mux's method routes (routes), parameter checking (decodeParams, before the
// handler runs), and tests hold protocol/e2a's method lists and
// openapi.json to it.
type methodSpec struct {
	name   string
	access access
	// publicIf makes the method public on servers configured so (the
	// registry's reads with public_registry).
	publicIf func(Config) bool
	// rest are its REST routes; none: reached through E2A and sessions only.
	rest []restRoute
	// params are what it takes. rawParams: the params are one document the
	// handler decodes itself (an agent registry entry), unchecked here.
	params    []param
	rawParams bool
	// streams: it writes chunk frames before its final one, which E2A
	// streams and sessions pass on, and an sse route sends as events.
	streams bool
	// servedIf: served only on servers where it holds (its service is
	// configured); nil: always. Its routes stay in the mux either way, and
	// answer that the method is unknown.
	servedIf func(*Services) bool
	handle   func(s *Server, ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error
}

// restRoute is one REST endpoint of a method: the HTTP method, the path
// pattern (net/http's syntax; a wildcard fills the parameter of its name)
// and the status of a successful answer (0: 200).
type restRoute struct {
	verb, pattern string
	ok            int
	sse           bool // answered as Server-Sent Events (sse.go)
}

func get(pattern string) restRoute  { return restRoute{verb: http.MethodGet, pattern: pattern} }
func post(pattern string) restRoute { return restRoute{verb: http.MethodPost, pattern: pattern} }
func del(pattern string) restRoute  { return restRoute{verb: http.MethodDelete, pattern: pattern} }
func created(pattern string) restRoute {
	return restRoute{verb: http.MethodPost, pattern: pattern, ok: http.StatusCreated}
}

func params(p ...param) []param { return p }

func withCapabilities(v *Services) bool { return v.Capabilities != nil }
func withAgents(v *Services) bool       { return v.Agents != nil }
func withAgentFlows(v *Services) bool   { return v.AgentFlows != nil }
func withCatalog(v *Services) bool      { return v.Catalog != nil }
func withRetention(v *Services) bool    { return v.Retention != nil }
func withLearning(v *Services) bool     { return v.Catalog != nil && v.Catalog.Learning() }
func withRegistry(v *Services) bool     { return v.Registry != nil }
func withMCP(v *Services) bool          { return v.MCP != nil }
func publicRegistry(c Config) bool      { return c.PublicRegistry }

// workflowParam is the A2E document of workflow.validate and .execute.
var workflowParam = param{name: "workflow", kind: pWorkflow, required: true,
	need: "the JSONL document as a string, or an array of message objects"}

// executionIDParams: execution_id (E2A), or id (the REST path).
var executionIDParams = params(param{name: "execution_id", kind: pString, required: true, restPath: "id"})

// methodTable is every gateway method. Adding a method is one entry here and
// its handler, which reads its checked parameters from args:
//
//	{name: MethodWidgetGet, access: accessAccount, servedIf: withWidgets,
//		rest:   []restRoute{get("/api/v1/widgets/{id}")},
//		params: params(reqStr("id"), integer("depth", 1, 1, 5)),
//		handle: (*Server).widgetGet},
//	// func (s *Server) widgetGet(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error { ... a.String("id") ... }
//
// then describe its routes in openapi.json (TestOpenAPIMatchesMethodTable
// says what is missing).
var methodTable = []methodSpec{
	{name: e2a.MethodWorkflowValidate, access: accessAccount,
		rest: []restRoute{post("/api/v1/workflows/validate")}, params: params(workflowParam),
		handle: (*Server).workflowValidate},
	{name: e2a.MethodWorkflowExecute, access: accessAccount, streams: true,
		rest: []restRoute{post("/api/v1/workflows/execute")},
		// validate is the A2E reference client's switch (it sends true).
		// sluice validates every workflow before it runs it, so false
		// turns nothing off; it is declared so that it is known and typed.
		params: params(workflowParam, param{name: "input", kind: pObject, want: "an object (read by /input/... paths)"},
			boolean("async"), str("session_id"), boolean("validate")),
		handle: (*Server).workflowExecute},

	{name: e2a.MethodExecutionGet, access: accessAccount,
		rest: []restRoute{get("/api/v1/executions/{id}")}, params: executionIDParams,
		handle: (*Server).executionGet},
	{name: e2a.MethodExecutionList, access: accessAccount,
		rest: []restRoute{get("/api/v1/executions")}, params: append(pageParams(50, store.MaxPageSize), strs("status")),
		handle: (*Server).executionList},
	{name: e2a.MethodExecutionCancel, access: accessAccount,
		rest: []restRoute{post("/api/v1/executions/{id}/cancel")}, params: executionIDParams,
		handle: (*Server).executionCancel},
	{name: e2a.MethodExecutionEvents, access: accessAccount, streams: true,
		rest:   []restRoute{{verb: http.MethodGet, pattern: "/api/v1/executions/{id}/events", sse: true}},
		params: append(executionIDParams[:len(executionIDParams):len(executionIDParams)], integer("after", 0, 0, 1<<30)),
		handle: (*Server).executionEvents},

	// Runs of every kind (A2E executions, capability runs, agent workflow
	// runs) as one family; the routes above and the kinds' own stay as
	// they are. account is an admin's: another account's runs, or "*".
	{name: MethodRunList, access: accessAccount,
		rest:   []restRoute{get("/api/v1/runs")},
		params: append(pageParams(50, store.MaxPageSize), strs("kind"), strs("status"), str("account")),
		handle: (*Server).runList},
	{name: MethodRunGet, access: accessAccount,
		rest: []restRoute{get("/api/v1/runs/{id}")}, params: runIDParams,
		handle: (*Server).runGet},
	{name: MethodRunCancel, access: accessAccount,
		rest: []restRoute{post("/api/v1/runs/{id}/cancel")}, params: runIDParams,
		handle: (*Server).runCancel},
	{name: MethodRunAnswer, access: accessAccount,
		rest: []restRoute{post("/api/v1/runs/{id}/answer")},
		params: append(runIDParams[:len(runIDParams):len(runIDParams)],
			param{name: "answer", kind: pAny, required: true, need: "the answer the run waits for"}),
		handle: (*Server).runAnswer},
	{name: MethodRunEvents, access: accessAccount, streams: true,
		rest:   []restRoute{{verb: http.MethodGet, pattern: "/api/v1/runs/{id}/events", sse: true}},
		params: append(runIDParams[:len(runIDParams):len(runIDParams)], integer("after", 0, 0, 1<<30)),
		handle: (*Server).runEvents},

	// Session calls; a session's tool/list and tool/call become these.
	{name: e2a.MethodToolList, access: accessAccount,
		// include_deferred: every tool is listed now; nothing is deferred.
		params: params(str("query"), strs("filter_tags"), str("filter_kind"), boolean("include_deferred")),
		handle: (*Server).toolList},
	{name: e2a.MethodToolCall, access: accessAccount, streams: true,
		params: params(reqStr("tool_name"), object("arguments"), boolean("streaming"), seconds("timeout", maxToolTimeout),
			str("correlation_id"), str("session_id")),
		handle: (*Server).toolCall},

	{name: e2a.MethodCapabilityRun, access: accessAccount, servedIf: withCapabilities,
		rest: []restRoute{post("/api/v1/a2s/runs")},
		params: params(reqStr("id"), str("version"), object("inputs"), str("session_id"), object("credentials"),
			seconds("timeout", maxToolTimeout), str("client_id")),
		handle: (*Server).capabilityRun},
	{name: e2a.MethodCapabilityDecide, access: accessAccount, servedIf: withCapabilities,
		rest:   []restRoute{post("/api/v1/a2s/runs/{id}/decisions")},
		params: params(reqStr("id"), param{name: "answer", kind: pAny, required: true, need: "the answer the run waits for"}),
		handle: (*Server).capabilityDecide},
	{name: MethodCapabilityGet, access: accessAccount, servedIf: withCapabilities,
		rest: []restRoute{get("/api/v1/a2s/runs/{id}")}, params: params(reqStr("id")),
		handle: (*Server).capabilityGet},
	{name: MethodCapabilityCancel, access: accessAccount, servedIf: withCapabilities,
		rest: []restRoute{post("/api/v1/a2s/runs/{id}/cancel")}, params: params(reqStr("id")),
		handle: (*Server).capabilityCancel},

	{name: e2a.MethodAgentInvoke, access: accessAccount, servedIf: withAgents, streams: true,
		params: params(reqStr("agent"), anyValue("input"), str("task_id"), boolean("streaming"),
			str("remote_task_id"), str("context_id")),
		handle: (*Server).agentInvoke},
	{name: MethodAdminAgentsRegister, access: accessAdmin, servedIf: withAgents,
		rest: []restRoute{created("/api/v1/admin/agents")}, rawParams: true,
		handle: (*Server).adminAgentsRegister},
	{name: MethodAdminAgentsList, access: accessAdmin, servedIf: withAgents,
		rest:   []restRoute{get("/api/v1/admin/agents")},
		handle: (*Server).adminAgentsList},
	{name: MethodAdminAgentsRemove, access: accessAdmin, servedIf: withAgents,
		rest: []restRoute{del("/api/v1/admin/agents/{id}")}, params: params(reqStr("id")),
		handle: (*Server).adminAgentsRemove},

	{name: MethodAgentWorkflowRun, access: accessAccount, servedIf: withAgentFlows,
		rest:   []restRoute{{verb: http.MethodPost, pattern: "/api/v1/agent-workflows/runs", ok: http.StatusAccepted}},
		params: params(param{name: "workflow", kind: pAny, required: true}, anyValue("input"), str("client_id")),
		handle: (*Server).agentWorkflowRun},
	{name: MethodAgentWorkflowGet, access: accessAccount, servedIf: withAgentFlows,
		rest: []restRoute{get("/api/v1/agent-workflows/runs/{id}")}, params: params(reqStr("id")),
		handle: (*Server).agentWorkflowGet},
	{name: MethodAgentWorkflowCancel, access: accessAccount, servedIf: withAgentFlows,
		rest: []restRoute{post("/api/v1/agent-workflows/runs/{id}/cancel")}, params: params(reqStr("id"), str("account_id")),
		handle: (*Server).agentWorkflowCancel},
	{name: MethodAgentWorkflowList, access: accessAccount, servedIf: withAgentFlows,
		rest:   []restRoute{get("/api/v1/agent-workflows/runs")},
		params: append(pageParams(agentflow.DefaultListLimit, agentflow.MaxListLimit), strs("status")),
		handle: (*Server).agentWorkflowList},

	{name: MethodKnowledgeSearch, access: accessAccount, servedIf: withCatalog,
		rest:   []restRoute{post("/api/v1/knowledge/search")},
		params: params(reqStr("query"), str("kb_id"), str("type"), integer("top_k", 5, 1, 100)),
		handle: (*Server).knowledgeSearch},
	// RESOLUTIONS' capability.search: the catalog's A2S capabilities the
	// account may see, ranked for the query (E2A and sessions; REST has
	// GET /api/v1/capabilities?query=).
	{name: e2a.MethodCapabilitySearch, access: accessAccount, servedIf: withCatalog,
		params: params(reqStr("query"), integer("top_k", 5, 1, 100)),
		handle: (*Server).capabilitySearch},
	{name: MethodKnowledgeBases, access: accessAccount, servedIf: withCatalog,
		rest:   []restRoute{get("/api/v1/knowledge/bases")},
		handle: (*Server).knowledgeBases},
	{name: MethodAdminAPIsImport, access: accessAdmin, servedIf: withCatalog,
		rest:   []restRoute{created("/api/v1/admin/apis")},
		params: params(reqStr("name"), reqStr("document"), str("kind"), str("format")),
		handle: (*Server).adminAPIsImport},
	{name: MethodAdminAPIsList, access: accessAdmin, servedIf: withCatalog,
		rest:   []restRoute{get("/api/v1/admin/apis")},
		handle: (*Server).adminAPIsList},
	{name: MethodAdminAPIsDelete, access: accessAdmin, servedIf: withCatalog,
		rest: []restRoute{del("/api/v1/admin/apis/{id}")}, params: params(reqStr("id")),
		handle: (*Server).adminAPIsDelete},
	{name: MethodAdminDiscoveryExplain, access: accessAdmin, servedIf: withCatalog,
		rest: []restRoute{get("/api/v1/admin/discovery/explain")}, params: params(reqStr("query")),
		handle: (*Server).adminDiscoveryExplain},
	{name: MethodDiscoveryFeedback, access: accessAccount, servedIf: withLearning,
		rest: []restRoute{post("/api/v1/discovery/feedback")}, params: params(reqStr("query"), reqStr("id"), str("kind")),
		handle: (*Server).discoveryFeedback},
	{name: MethodAdminDiscoveryUsage, access: accessAdmin, servedIf: withLearning,
		rest: []restRoute{get("/api/v1/admin/discovery/usage")}, params: params(str("id"), str("kind")),
		handle: (*Server).adminDiscoveryUsage},
	{name: MethodAdminDiscoveryForget, access: accessAdmin, servedIf: withLearning,
		rest: []restRoute{del("/api/v1/admin/discovery/usage")}, params: params(str("id"), str("kind")),
		handle: (*Server).adminDiscoveryForget},

	{name: MethodRegistryPublish, access: accessAdmin, servedIf: withRegistry,
		rest: []restRoute{created("/api/v1/a2s/registry")}, params: params(str("namespace"), reqStr("document"), str("file")),
		handle: (*Server).registryPublish},
	{name: MethodRegistryList, access: accessAccount, publicIf: publicRegistry, servedIf: withRegistry,
		rest:   []restRoute{get("/api/v1/a2s/registry")},
		params: append(params(str("namespace")), pageParams(store.DefaultPageSize, store.MaxPageSize)...),
		handle: (*Server).registryList},
	{name: MethodRegistryGet, access: accessAccount, publicIf: publicRegistry, servedIf: withRegistry,
		rest: []restRoute{get("/api/v1/a2s/registry/{path...}")}, params: params(reqStr("path"), str("version")),
		handle: (*Server).registryGet},

	// The session's mcp namespace.
	{name: MethodMCPRegister, access: accessAccount, servedIf: withMCP,
		params: params(reqStr("name"), str("command"), str("url"), object("headers"), object("oauth")),
		handle: (*Server).mcpRegister},
	{name: MethodMCPList, access: accessAccount, servedIf: withMCP,
		handle: (*Server).mcpList},
	{name: MethodMCPUnregister, access: accessAccount, servedIf: withMCP,
		params: params(reqStr("name")),
		handle: (*Server).mcpUnregister},

	{name: MethodAccountCapabilities, access: accessAccount,
		rest: []restRoute{get("/api/v1/capabilities")}, params: params(str("query"), integer("top_k", 10, 1, 100)),
		handle: (*Server).accountCapabilities},
	{name: MethodAccountRateLimit, access: accessAccount,
		rest:   []restRoute{get("/api/v1/rate-limit/status")},
		handle: (*Server).accountRateLimit},

	// The A2E reference's SQL query library, which sluice does not keep
	// (methods_sqlqueries.go): the filters are taken and answer nothing.
	{name: MethodSQLQueriesSearch, access: accessAccount,
		rest:   []restRoute{post("/api/v1/sql-queries/search")},
		params: params(reqStr("query"), str("database"), str("category"), integer("top_k", 5, 1, 100)),
		handle: (*Server).sqlQueriesSearch},
	{name: MethodSQLQueriesList, access: accessAccount,
		rest: []restRoute{get("/api/v1/sql-queries")}, params: params(str("database"), str("category")),
		handle: (*Server).sqlQueriesList},
	{name: MethodSQLQueriesGet, access: accessAccount,
		rest: []restRoute{get("/api/v1/sql-queries/{id}")}, params: params(reqStr("id")),
		handle: (*Server).sqlQueriesGet},

	{name: MethodAdminAccountsCreate, access: accessAdmin,
		rest: []restRoute{created("/api/v1/admin/accounts")}, params: accountParams(object),
		handle: (*Server).adminAccountsCreate},
	{name: MethodAdminAccountsList, access: accessAdmin,
		rest: []restRoute{get("/api/v1/admin/accounts")}, params: pageParams(50, store.MaxPageSize),
		handle: (*Server).adminAccountsList},
	{name: MethodAdminAccountsGet, access: accessAdmin,
		rest: []restRoute{get("/api/v1/admin/accounts/{id}")}, params: params(reqStr("id")),
		handle: (*Server).adminAccountsGet},
	{name: MethodAdminAccountsUpdate, access: accessAdmin,
		rest:   []restRoute{{verb: http.MethodPatch, pattern: "/api/v1/admin/accounts/{id}"}},
		params: append(params(reqStr("id")), accountParams(mergePatch)...),
		handle: (*Server).adminAccountsUpdate},
	{name: MethodAdminRetentionGet, access: accessAdmin, servedIf: withRetention,
		rest:   []restRoute{get("/api/v1/admin/retention")},
		handle: (*Server).adminRetentionGet},
	{name: MethodAdminRetentionUpdate, access: accessAdmin, servedIf: withRetention,
		rest:   []restRoute{{verb: http.MethodPatch, pattern: "/api/v1/admin/retention"}},
		params: params(retentionAge("runs"), retentionAge("audit"), boolean("reset")),
		handle: (*Server).adminRetentionUpdate},
	{name: MethodAdminRetentionPrune, access: accessAdmin, servedIf: withRetention,
		rest:   []restRoute{post("/api/v1/admin/retention/prune")},
		handle: (*Server).adminRetentionPrune},
	{name: MethodAdminStorageStats, access: accessAdmin,
		rest:   []restRoute{get("/api/v1/admin/storage")},
		handle: (*Server).adminStorageStats},
	{name: MethodAdminKeysCreate, access: accessAdmin,
		rest: []restRoute{created("/api/v1/admin/accounts/{id}/keys")}, params: params(reqStr("id"), rfc3339("expires_at")),
		handle: (*Server).adminKeysCreate},
	{name: MethodAdminKeysList, access: accessAdmin,
		rest: []restRoute{get("/api/v1/admin/accounts/{id}/keys")}, params: params(reqStr("id")),
		handle: (*Server).adminKeysList},
	{name: MethodAdminKeysRevoke, access: accessAdmin,
		rest: []restRoute{del("/api/v1/admin/accounts/{id}/keys/{key_id}")}, params: params(reqStr("id"), reqStr("key_id")),
		handle: (*Server).adminKeysRevoke},
	{name: MethodAdminCredentialsPut, access: accessAdmin,
		rest:   []restRoute{{verb: http.MethodPut, pattern: "/api/v1/admin/credentials/{id}"}},
		params: params(reqStr("id"), reqStr("type"), str("description"), strs("hosts"), reqStr("value")),
		handle: (*Server).adminCredentialsPut},
	{name: MethodAdminCredentialsList, access: accessAdmin,
		rest:   []restRoute{get("/api/v1/admin/credentials")},
		handle: (*Server).adminCredentialsList},
	{name: MethodAdminCredentialsGet, access: accessAdmin,
		rest: []restRoute{get("/api/v1/admin/credentials/{id}")}, params: params(reqStr("id")),
		handle: (*Server).adminCredentialsGet},
	{name: MethodAdminCredentialsDel, access: accessAdmin,
		rest: []restRoute{del("/api/v1/admin/credentials/{id}")}, params: params(reqStr("id")),
		handle: (*Server).adminCredentialsDelete},
	{name: MethodAdminVaultRotate, access: accessAdmin,
		rest:   []restRoute{post("/api/v1/admin/vault/rotate")},
		handle: (*Server).adminVaultRotate},
	{name: MethodAdminAuditList, access: accessAdmin,
		rest: []restRoute{get("/api/v1/admin/audit")},
		params: append(params(str("account"), str("method"), str("decision")),
			append(pageParams(100, store.MaxPageSize), rfc3339("since"), rfc3339("until"))...),
		handle: (*Server).adminAuditList},
	{name: MethodAdminStats, access: accessAdmin,
		handle: (*Server).adminStats},
	{name: MethodAdminRateLimits, access: accessAdmin, params: params(reqStr("account")),
		handle: (*Server).adminRateLimits},
}

// accountParams are an account's settable fields; permissions and limits are
// of kind (an object, or an update's merge patch).
func accountParams(kind func(string) param) []param {
	return params(str("name"), kind("permissions"), kind("limits"), boolean("disabled"))
}

// mergePatch is an object parameter that is a JSON merge patch (RFC 7396):
// null is a value (remove all), read with Has and Any.
func mergePatch(name string) param {
	return param{name: name, kind: pObject, want: "an object (a JSON merge patch) or null"}
}

// methodByName is the table's entry for name.
func methodByName(name string) (methodSpec, bool) {
	for _, m := range methodTable {
		if m.name == name {
			return m, true
		}
	}
	return methodSpec{}, false
}

// CheckParams checks params as the gateway checks method's before its
// handler runs (for callers that build envelopes: the CLI's tests). An
// unknown method is an error.
func CheckParams(method string, params map[string]any) error {
	m, ok := methodByName(method)
	if !ok {
		return unknownMethod(method, nil)
	}
	if m.rawParams {
		return nil
	}
	_, err := decodeParams(m.name, m.params, params)
	return err
}

// registerMethods registers the table's methods this server serves.
func (s *Server) registerMethods() {
	for _, m := range methodTable {
		if m.servedIf != nil && !m.servedIf(&s.svc) {
			continue
		}
		a := m.access
		if m.publicIf != nil && m.publicIf(s.cfg) {
			a = accessPublic
		}
		s.dispatcher.register(m.name, a, m.bind(s))
	}
}

// bind is m's handler on s: its params are checked, then handed over typed.
func (m methodSpec) bind(s *Server) handler {
	return func(ctx context.Context, c *Call, w *e2a.StreamWriter) error {
		a := args{method: m.name, spec: m.params, given: c.Env.Params}
		if !m.rawParams {
			var err error
			if a, err = decodeParams(m.name, m.params, c.Env.Params); err != nil {
				return err
			}
		}
		return m.handle(s, ctx, c, a, w)
	}
}
