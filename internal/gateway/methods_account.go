package gateway

import (
	"context"
	"slices"
	"strings"

	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// accountCapabilities is the A2E spec's GET /api/v1/capabilities: what the
// calling account may use.
func (s *Server) accountCapabilities(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	query := a.String("query")
	k := a.Int("top_k")
	pr := c.Principal
	env := s.svc.Runner.Environment(execution.Account(pr))
	ops := []string{}
	for _, name := range env.Catalog() {
		if env.Allowed(name) {
			ops = append(ops, name)
		}
	}
	creds := []string{}
	if s.svc.Vault != nil {
		metas, err := s.svc.Vault.List(ctx)
		if err != nil {
			return err
		}
		for _, m := range metas {
			if pr.Permissions.AllowsCredential(m.ID) {
				creds = append(creds, m.ID)
			}
		}
	}
	apis := []apiEntry{}
	if s.svc.Catalog != nil {
		for _, e := range s.svc.Catalog.APIs(pr) {
			apis = append(apis, apiEntryOf(e))
		}
	}
	kbs := slices.Clone(pr.Permissions.KnowledgeBases)
	if kbs == nil {
		kbs = []string{}
	}
	hosts := slices.Clone(pr.Permissions.Hosts)
	if hosts == nil {
		hosts = []string{}
	}
	if strings.TrimSpace(query) != "" && s.svc.Catalog != nil {
		// Only what is relevant to the query (discovery), the rest as before.
		narrowed := s.queryCapabilities(ctx, pr, query, k, ops)
		narrowed["availableCredentials"] = creds
		narrowed["allowedHosts"] = hosts
		narrowed["sqlQueriesAvailable"] = false
		narrowed["securityConstraints"] = map[string]any{
			"maxExecutionTime":  pr.Limits.MaxExecutionTimeMs,
			"maxOperations":     pr.Limits.MaxOperations,
			"maxLoopIterations": pr.Limits.MaxLoopIterations,
			"maxDataBytes":      pr.Limits.MaxDataBytes,
		}
		return w.Complete(map[string]any{"agent_id": pr.ID, "query": query, "capabilities": narrowed})
	}
	return w.Complete(map[string]any{
		"agent_id": pr.ID,
		"capabilities": map[string]any{
			"availableApis":        apis,
			"availableCredentials": creds,
			"supportedOperations":  ops,
			"knowledgeBases":       kbs,
			"allowedHosts":         hosts,
			// The reference's flag for its SQL query library; sluice has none
			// (methods_sqlqueries.go).
			"sqlQueriesAvailable": false,
			"securityConstraints": map[string]any{
				"maxExecutionTime":  pr.Limits.MaxExecutionTimeMs,
				"maxOperations":     pr.Limits.MaxOperations,
				"maxLoopIterations": pr.Limits.MaxLoopIterations,
				"maxDataBytes":      pr.Limits.MaxDataBytes,
			},
		},
	})
}

// accountRateLimit is GET /api/v1/rate-limit/status.
func (s *Server) accountRateLimit(_ context.Context, c *Call, _ args, w *e2a.StreamWriter) error {
	return w.Complete(s.svc.Limiter.Status(c.Principal))
}
