package gateway

import (
	"context"
	"encoding/json"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/vault"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// accountSpec reads a new account's fields from params; a name is required.
func accountSpec(a args) (account.Spec, error) {
	var sp account.Spec
	if a.Has("name") {
		n := a.String("name")
		sp.Name = &n
	}
	if m := a.Object("permissions"); m != nil {
		var perms policy.Permissions
		if err := remarshal(m, &perms); err != nil {
			return sp, paramError("permissions", "%s", err.Error())
		}
		sp.Permissions = &perms
	}
	if m := a.Object("limits"); m != nil {
		var l account.Limits
		if err := remarshal(m, &l); err != nil {
			return sp, paramError("limits", "%s", err.Error())
		}
		sp.Limits = &l
	}
	if a.Has("disabled") {
		d := a.Bool("disabled")
		sp.Disabled = &d
	}
	return sp, nil
}

func (s *Server) adminAccountsCreate(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	sp, err := accountSpec(a)
	if err != nil {
		return err
	}
	v, k, err := s.svc.Accounts.Create(ctx, sp)
	if err != nil {
		return err
	}
	return w.Complete(map[string]any{"agent_id": v.AgentID, "api_key": k.APIKey, "key_id": k.KeyID, "account": v})
}

func (s *Server) adminAccountsList(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	page := store.Page{Cursor: a.String("cursor"), Limit: a.Int("limit")}
	list, next, err := s.svc.Accounts.List(ctx, page)
	if err != nil {
		return err
	}
	if list == nil {
		list = []account.View{}
	}
	return w.Complete(map[string]any{"accounts": list, "next_cursor": next})
}

func (s *Server) adminAccountsGet(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	v, err := s.svc.Accounts.Get(ctx, a.String("id"))
	if err != nil {
		return err
	}
	return w.Complete(v)
}

// accountPatch reads an account update: permissions and limits are JSON
// merge patches (RFC 7396) of the account's, null removing them all.
func accountPatch(a args) (account.Patch, error) {
	var ap account.Patch
	if a.Has("name") {
		n := a.String("name")
		ap.Name = &n
	}
	var err error
	if ap.Permissions, err = mergePatchParam(a, "permissions"); err != nil {
		return ap, err
	}
	if ap.Limits, err = mergePatchParam(a, "limits"); err != nil {
		return ap, err
	}
	if a.Has("disabled") {
		d := a.Bool("disabled")
		ap.Disabled = &d
	}
	return ap, nil
}

// mergePatchParam is the parameter name as JSON when it is given: an object
// (the table checked it) or null.
func mergePatchParam(a args, name string) (json.RawMessage, error) {
	if !a.Has(name) {
		return nil, nil
	}
	b, err := json.Marshal(a.Any(name))
	if err != nil {
		return nil, paramError(name, "%s", err.Error())
	}
	return b, nil
}

func (s *Server) adminAccountsUpdate(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	sp, err := accountPatch(a)
	if err != nil {
		return err
	}
	v, err := s.svc.Accounts.Update(ctx, a.String("id"), sp)
	if err != nil {
		return err
	}
	return w.Complete(v)
}

func (s *Server) adminKeysCreate(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	id := a.String("id")
	var expires *time.Time
	if t := a.Time("expires_at"); !t.IsZero() {
		expires = &t
	}
	if _, err := s.svc.Accounts.Get(ctx, id); err != nil {
		return err
	}
	k, err := s.svc.Accounts.AddKey(ctx, id, expires)
	if err != nil {
		return err
	}
	return w.Complete(k)
}

func (s *Server) adminKeysList(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	keys, err := s.svc.Accounts.Keys(ctx, a.String("id"))
	if err != nil {
		return err
	}
	if keys == nil {
		keys = []account.KeyView{}
	}
	return w.Complete(map[string]any{"keys": keys})
}

func (s *Server) adminKeysRevoke(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	k, err := s.svc.Accounts.RevokeKey(ctx, a.String("id"), a.String("key_id"))
	if err != nil {
		return err
	}
	return w.Complete(k)
}

func (s *Server) adminCredentialsPut(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	e := vault.Entry{ID: a.String("id"), Type: a.String("type"), Description: a.String("description"),
		Hosts: a.Strings("hosts")}
	e.Value = vault.NewPlaintext(a.String("value"))
	m, err := s.svc.Vault.Put(ctx, e)
	if err != nil {
		return err
	}
	return w.Complete(m)
}

func (s *Server) adminCredentialsList(ctx context.Context, c *Call, _ args, w *e2a.StreamWriter) error {
	list, err := s.svc.Vault.List(ctx)
	if err != nil {
		return err
	}
	if list == nil {
		list = []vault.Metadata{}
	}
	return w.Complete(map[string]any{"credentials": list})
}

func (s *Server) adminCredentialsGet(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	m, err := s.svc.Vault.Describe(ctx, a.String("id"))
	if err != nil {
		return err
	}
	return w.Complete(m)
}

func (s *Server) adminCredentialsDelete(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	id := a.String("id")
	if err := s.svc.Vault.Delete(ctx, id); err != nil {
		return err
	}
	return w.Complete(map[string]any{"id": id, "deleted": true})
}

// adminVaultRotate re-seals every credential under the current master key
// (docs/configuration.md, "Rotating the master key"): all or nothing, and
// the report says when the previous keys may go.
func (s *Server) adminVaultRotate(ctx context.Context, c *Call, _ args, w *e2a.StreamWriter) error {
	rep, err := s.svc.Vault.Rotate(ctx)
	if err != nil {
		return err
	}
	return w.Complete(rep)
}

func (s *Server) adminAuditList(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	q := store.AuditQuery{
		AccountID: a.String("account"), Method: a.String("method"), Decision: a.String("decision"),
		Page:  store.Page{Cursor: a.String("cursor"), Limit: a.Int("limit")},
		Since: a.Time("since"), Until: a.Time("until"),
	}
	recs, next, err := s.svc.Store.QueryAudit(ctx, q)
	if err != nil {
		return err
	}
	out := make([]map[string]any, len(recs))
	for i, r := range recs {
		out[i] = auditView(r)
	}
	return w.Complete(map[string]any{"records": out, "next_cursor": next})
}

func auditView(r store.AuditRecord) map[string]any {
	v := map[string]any{
		"id": r.ID, "time": r.Time, "request_id": r.RequestID, "agent_id": r.AccountID,
		"method": r.Method, "decision": r.Decision, "latency_ms": r.LatencyMs, "status": r.Status,
	}
	if r.Operation != "" {
		v["operation"] = r.Operation
	}
	if r.ErrorCode != "" {
		v["error_code"] = r.ErrorCode
	}
	if len(r.Details) > 0 {
		v["details"] = r.Details
	}
	return v
}

// notConfigured is the error of an admin method whose service is off.
func notConfigured(what string) error {
	return fault.New(fault.Unavailable, "%s is not configured on this server", what)
}
