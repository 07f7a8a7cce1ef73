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
func accountSpec(p *params) account.Spec {
	var sp account.Spec
	if _, ok := p.m["name"]; ok {
		n := p.String("name")
		sp.Name = &n
	}
	if v, ok := p.m["permissions"]; ok && v != nil {
		var perms policy.Permissions
		if err := remarshal(p.Object("permissions"), &perms); err != nil {
			p.fail("permissions", "%s", err.Error())
		}
		sp.Permissions = &perms
	} else {
		p.take("permissions")
	}
	if v, ok := p.m["limits"]; ok && v != nil {
		var l account.Limits
		if err := remarshal(p.Object("limits"), &l); err != nil {
			p.fail("limits", "%s", err.Error())
		}
		sp.Limits = &l
	} else {
		p.take("limits")
	}
	if _, ok := p.m["disabled"]; ok {
		d := p.Bool("disabled")
		sp.Disabled = &d
	}
	return sp
}

func (s *Server) adminAccountsCreate(ctx context.Context, c *Call, w *e2a.StreamWriter) error {
	p := newParams(c.Env.Params)
	sp := accountSpec(p)
	if err := p.Done(); err != nil {
		return err
	}
	v, k, err := s.svc.Accounts.Create(ctx, sp)
	if err != nil {
		return err
	}
	return w.Complete(map[string]any{"agent_id": v.AgentID, "api_key": k.APIKey, "key_id": k.KeyID, "account": v})
}

func (s *Server) adminAccountsList(ctx context.Context, c *Call, w *e2a.StreamWriter) error {
	p := newParams(c.Env.Params)
	page := store.Page{Cursor: p.String("cursor"), Limit: p.Int("limit", 50, 1, store.MaxPageSize)}
	if err := p.Done(); err != nil {
		return err
	}
	list, next, err := s.svc.Accounts.List(ctx, page)
	if err != nil {
		return err
	}
	if list == nil {
		list = []account.View{}
	}
	return w.Complete(map[string]any{"accounts": list, "next_cursor": next})
}

func (s *Server) adminAccountsGet(ctx context.Context, c *Call, w *e2a.StreamWriter) error {
	p := newParams(c.Env.Params)
	id := p.RequiredString("id")
	if err := p.Done(); err != nil {
		return err
	}
	v, err := s.svc.Accounts.Get(ctx, id)
	if err != nil {
		return err
	}
	return w.Complete(v)
}

// accountPatch reads an account update: permissions and limits are JSON
// merge patches (RFC 7396) of the account's, null removing them all.
func accountPatch(p *params) account.Patch {
	var ap account.Patch
	if _, ok := p.m["name"]; ok {
		n := p.String("name")
		ap.Name = &n
	}
	ap.Permissions = mergePatchParam(p, "permissions")
	ap.Limits = mergePatchParam(p, "limits")
	if _, ok := p.m["disabled"]; ok {
		d := p.Bool("disabled")
		ap.Disabled = &d
	}
	return ap
}

// mergePatchParam is the parameter name as JSON when it is given: an object
// or null.
func mergePatchParam(p *params, name string) json.RawMessage {
	v, given := p.m[name]
	p.take(name)
	if !given {
		return nil
	}
	if _, isObject := v.(map[string]any); !isObject && v != nil {
		p.fail(name, "must be an object (a JSON merge patch) or null")
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		p.fail(name, "%s", err.Error())
		return nil
	}
	return b
}

func (s *Server) adminAccountsUpdate(ctx context.Context, c *Call, w *e2a.StreamWriter) error {
	p := newParams(c.Env.Params)
	id := p.RequiredString("id")
	sp := accountPatch(p)
	if err := p.Done(); err != nil {
		return err
	}
	v, err := s.svc.Accounts.Update(ctx, id, sp)
	if err != nil {
		return err
	}
	return w.Complete(v)
}

func (s *Server) adminKeysCreate(ctx context.Context, c *Call, w *e2a.StreamWriter) error {
	p := newParams(c.Env.Params)
	id := p.RequiredString("id")
	var expires *time.Time
	if e := p.String("expires_at"); e != "" {
		t, err := time.Parse(time.RFC3339, e)
		if err != nil {
			p.fail("expires_at", "must be an RFC 3339 time, like 2027-01-31T00:00:00Z")
		}
		expires = &t
	}
	if err := p.Done(); err != nil {
		return err
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

func (s *Server) adminKeysList(ctx context.Context, c *Call, w *e2a.StreamWriter) error {
	p := newParams(c.Env.Params)
	id := p.RequiredString("id")
	if err := p.Done(); err != nil {
		return err
	}
	keys, err := s.svc.Accounts.Keys(ctx, id)
	if err != nil {
		return err
	}
	if keys == nil {
		keys = []account.KeyView{}
	}
	return w.Complete(map[string]any{"keys": keys})
}

func (s *Server) adminKeysRevoke(ctx context.Context, c *Call, w *e2a.StreamWriter) error {
	p := newParams(c.Env.Params)
	id, keyID := p.RequiredString("id"), p.RequiredString("key_id")
	if err := p.Done(); err != nil {
		return err
	}
	k, err := s.svc.Accounts.RevokeKey(ctx, id, keyID)
	if err != nil {
		return err
	}
	return w.Complete(k)
}

func (s *Server) adminCredentialsPut(ctx context.Context, c *Call, w *e2a.StreamWriter) error {
	p := newParams(c.Env.Params)
	e := vault.Entry{ID: p.RequiredString("id"), Type: p.RequiredString("type"), Description: p.String("description"),
		Hosts: p.Strings("hosts")}
	value := p.RequiredString("value")
	if err := p.Done(); err != nil {
		return err
	}
	e.Value = vault.NewPlaintext(value)
	m, err := s.svc.Vault.Put(ctx, e)
	if err != nil {
		return err
	}
	return w.Complete(m)
}

func (s *Server) adminCredentialsList(ctx context.Context, c *Call, w *e2a.StreamWriter) error {
	if err := newParams(c.Env.Params).Done(); err != nil {
		return err
	}
	list, err := s.svc.Vault.List(ctx)
	if err != nil {
		return err
	}
	if list == nil {
		list = []vault.Metadata{}
	}
	return w.Complete(map[string]any{"credentials": list})
}

func (s *Server) adminCredentialsGet(ctx context.Context, c *Call, w *e2a.StreamWriter) error {
	p := newParams(c.Env.Params)
	id := p.RequiredString("id")
	if err := p.Done(); err != nil {
		return err
	}
	m, err := s.svc.Vault.Describe(ctx, id)
	if err != nil {
		return err
	}
	return w.Complete(m)
}

func (s *Server) adminCredentialsDelete(ctx context.Context, c *Call, w *e2a.StreamWriter) error {
	p := newParams(c.Env.Params)
	id := p.RequiredString("id")
	if err := p.Done(); err != nil {
		return err
	}
	if err := s.svc.Vault.Delete(ctx, id); err != nil {
		return err
	}
	return w.Complete(map[string]any{"id": id, "deleted": true})
}

func (s *Server) adminAuditList(ctx context.Context, c *Call, w *e2a.StreamWriter) error {
	p := newParams(c.Env.Params)
	q := store.AuditQuery{
		AccountID: p.String("account"), Method: p.String("method"), Decision: p.String("decision"),
		Page: store.Page{Cursor: p.String("cursor"), Limit: p.Int("limit", 100, 1, store.MaxPageSize)},
	}
	q.Since = timeParam(p, "since")
	q.Until = timeParam(p, "until")
	if err := p.Done(); err != nil {
		return err
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

func timeParam(p *params, name string) time.Time {
	s := p.String(name)
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		p.fail(name, "must be an RFC 3339 time")
	}
	return t
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
