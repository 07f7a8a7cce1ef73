package console

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/policy"
)

// The admin pages: each is admin.* calls, which the gateway refuses to a
// key that is not the admin's (the page then shows its 403).

// grant is one list of an account's permissions, edited as a field of
// comma-separated names.
type grant struct {
	Field string // the permissions' JSON name
	Label string
	of    func(client.Permissions) []string
}

var grants = []grant{
	{"operations", "Operations", func(p client.Permissions) []string { return p.Operations }},
	{"hosts", "Hosts", func(p client.Permissions) []string { return p.Hosts }},
	{"credentials", "Credentials", func(p client.Permissions) []string { return p.Credentials }},
	{"apis", "APIs", func(p client.Permissions) []string { return p.APIs }},
	{"agents", "Agents", func(p client.Permissions) []string { return p.Agents }},
	{"mcp_servers", "MCP servers", func(p client.Permissions) []string { return p.MCPServers }},
	{"capabilities", "Capabilities", func(p client.Permissions) []string { return p.Capabilities }},
	{"knowledge_bases", "Knowledge bases", func(p client.Permissions) []string { return p.KnowledgeBases }},
}

var levels = []string{policy.LevelBasic, policy.LevelElevated, policy.LevelAdmin}

// accountView is an account as the admin API answers it, with what its
// page's forms read.
type accountView struct{ client.Account }

// Grant is the account's list of field as the form's text.
func (a accountView) Grant(field string) string {
	for _, g := range grants {
		if g.Field == field {
			return strings.Join(g.of(a.Permissions), ", ")
		}
	}
	return ""
}

// Level is the account's capability level.
func (a accountView) Level() string { return a.Permissions.CapabilityLevel }

// LimitsValue is the account's limits for the JSON viewer.
func (a accountView) LimitsValue() any {
	var v any
	_ = json.Unmarshal(a.Limits, &v)
	return v
}

// permissionsOf reads the grants form.
func permissionsOf(form url.Values) map[string]any {
	p := map[string]any{}
	for _, g := range grants {
		list := []any{}
		for _, s := range strings.Split(form.Get(g.Field), ",") {
			if s = strings.TrimSpace(s); s != "" {
				list = append(list, s)
			}
		}
		p[g.Field] = list
	}
	if l := form.Get("capability_level"); l != "" {
		p["capability_level"] = l
	}
	return p
}

func (c *Console) accountsPage(w http.ResponseWriter, r *http.Request, ss *session) {
	var list struct {
		Accounts   []accountView `json:"accounts"`
		NextCursor string        `json:"next_cursor"`
	}
	params := map[string]any{"limit": 100}
	if cur := r.URL.Query().Get("cursor"); cur != "" {
		params["cursor"] = cur
	}
	if e := ss.call(r.Context(), mAccountsList, params, &list); e != nil {
		c.failed(w, r, ss, e)
		return
	}
	c.render(w, http.StatusOK, "accounts", ss, view{Title: "Accounts", Section: "admin", Data: map[string]any{
		"Accounts": list.Accounts, "Next": list.NextCursor, "Grants": grants, "Levels": levels, "Blank": accountView{},
	}})
}

// created shows a new key once: the one page a key is ever on, answered
// to the admin who made it and never stored by the console.
func (c *Console) created(w http.ResponseWriter, ss *session, account, keyID, key string) {
	c.render(w, http.StatusCreated, "created", ss, view{Title: "Key created", Section: "admin", Data: map[string]any{
		"Account": account, "KeyID": keyID, "Key": key,
	}})
}

func (c *Console) accountCreate(w http.ResponseWriter, r *http.Request, ss *session) {
	var out struct {
		AgentID string `json:"agent_id"`
		APIKey  string `json:"api_key"`
		KeyID   string `json:"key_id"`
	}
	params := map[string]any{"name": strings.TrimSpace(r.PostForm.Get("name")), "permissions": permissionsOf(r.PostForm)}
	if e := ss.call(r.Context(), mAccountsCreate, params, &out); e != nil {
		c.failed(w, r, ss, e)
		return
	}
	c.created(w, ss, out.AgentID, out.KeyID, out.APIKey)
}

func (c *Console) accountPage(w http.ResponseWriter, r *http.Request, ss *session) {
	id := r.PathValue("id")
	var acct accountView
	if e := ss.call(r.Context(), mAccountsGet, map[string]any{"id": id}, &acct); e != nil {
		c.failed(w, r, ss, e)
		return
	}
	var keys struct {
		Keys []client.Key `json:"keys"`
	}
	if e := ss.call(r.Context(), mKeysList, map[string]any{"id": id}, &keys); e != nil {
		c.failed(w, r, ss, e)
		return
	}
	notice := map[string]string{"updated": "Saved.", "revoked": "The key was revoked."}[r.URL.Query().Get("done")]
	c.render(w, http.StatusOK, "account", ss, view{Title: "Account " + acct.Name, Section: "admin", Notice: notice,
		Data: map[string]any{"Account": acct, "Keys": keys.Keys, "Grants": grants, "Levels": levels}})
}

// accountUpdate disables or enables an account, or saves its grants.
func (c *Console) accountUpdate(w http.ResponseWriter, r *http.Request, ss *session) {
	id := r.PathValue("id")
	params := map[string]any{"id": id}
	switch r.PostForm.Get("action") {
	case "disable":
		params["disabled"] = true
	case "enable":
		params["disabled"] = false
	case "grants":
		params["permissions"] = permissionsOf(r.PostForm)
		if n := strings.TrimSpace(r.PostForm.Get("name")); n != "" {
			params["name"] = n
		}
	default:
		c.refuse(w, r, ss, http.StatusBadRequest, "action: want disable, enable or grants")
		return
	}
	if e := ss.call(r.Context(), mAccountsUpdate, params, nil); e != nil {
		c.failed(w, r, ss, e)
		return
	}
	http.Redirect(w, r, Prefix+"admin/accounts/"+url.PathEscape(id)+"?done=updated", http.StatusSeeOther)
}

func (c *Console) keyCreate(w http.ResponseWriter, r *http.Request, ss *session) {
	var out struct {
		AgentID string `json:"agent_id"`
		KeyID   string `json:"key_id"`
		APIKey  string `json:"api_key"`
	}
	if e := ss.call(r.Context(), mKeysCreate, map[string]any{"id": r.PathValue("id")}, &out); e != nil {
		c.failed(w, r, ss, e)
		return
	}
	c.created(w, ss, out.AgentID, out.KeyID, out.APIKey)
}

// keyRevoke revokes a key; with action=rotate it first makes the account a
// new key, shown once, then revokes the old one.
func (c *Console) keyRevoke(w http.ResponseWriter, r *http.Request, ss *session) {
	id, key := r.PathValue("id"), r.PathValue("key")
	var out struct {
		AgentID string `json:"agent_id"`
		KeyID   string `json:"key_id"`
		APIKey  string `json:"api_key"`
	}
	rotate := r.PostForm.Get("action") == "rotate"
	if rotate {
		if e := ss.call(r.Context(), mKeysCreate, map[string]any{"id": id}, &out); e != nil {
			c.failed(w, r, ss, e)
			return
		}
	}
	if e := ss.call(r.Context(), mKeysRevoke, map[string]any{"id": id, "key_id": key}, nil); e != nil {
		c.failed(w, r, ss, e)
		return
	}
	if rotate {
		c.created(w, ss, out.AgentID, out.KeyID, out.APIKey)
		return
	}
	http.Redirect(w, r, Prefix+"admin/accounts/"+url.PathEscape(id)+"?done=revoked", http.StatusSeeOther)
}

// credentialsPage lists the vault's credentials: metadata only (the method
// returns no value), with a form to put a new value.
func (c *Console) credentialsPage(w http.ResponseWriter, r *http.Request, ss *session) {
	var list struct {
		Credentials []map[string]any `json:"credentials"`
	}
	if e := ss.call(r.Context(), mCredentialsList, nil, &list); e != nil {
		c.failed(w, r, ss, e)
		return
	}
	notice := ""
	if r.URL.Query().Get("done") == "put" {
		notice = "The credential was stored."
	}
	c.render(w, http.StatusOK, "credentials", ss, view{Title: "Credentials", Section: "admin", Notice: notice, Data: list.Credentials})
}

func (c *Console) credentialPut(w http.ResponseWriter, r *http.Request, ss *session) {
	f := r.PostForm
	params := map[string]any{"id": strings.TrimSpace(f.Get("id")), "type": strings.TrimSpace(f.Get("type")),
		"description": f.Get("description"), "value": f.Get("value")}
	var hosts []any
	for _, h := range strings.Split(f.Get("hosts"), ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	if len(hosts) > 0 {
		params["hosts"] = hosts
	}
	// The result is the credential's metadata: nothing of it is shown.
	if e := ss.call(r.Context(), mCredentialsPut, params, nil); e != nil {
		c.failed(w, r, ss, e)
		return
	}
	http.Redirect(w, r, Prefix+"admin/credentials?done=put", http.StatusSeeOther)
}

func (c *Console) auditPage(w http.ResponseWriter, r *http.Request, ss *session) {
	q := r.URL.Query()
	params := map[string]any{"limit": 100}
	for _, k := range []string{"account", "method", "decision", "cursor"} {
		if v := strings.TrimSpace(q.Get(k)); v != "" {
			params[k] = v
		}
	}
	var list struct {
		Records    []map[string]any `json:"records"`
		NextCursor string           `json:"next_cursor"`
	}
	if e := ss.call(r.Context(), mAuditList, params, &list); e != nil {
		c.failed(w, r, ss, e)
		return
	}
	next := ""
	if list.NextCursor != "" {
		v := url.Values{}
		for _, k := range []string{"account", "method", "decision"} {
			if s := q.Get(k); s != "" {
				v.Set(k, s)
			}
		}
		v.Set("cursor", list.NextCursor)
		next = "?" + v.Encode()
	}
	c.render(w, http.StatusOK, "audit", ss, view{Title: "Audit", Section: "admin", Data: map[string]any{
		"Records": list.Records, "Next": next, "Account": q.Get("account"), "Method": q.Get("method"), "Decision": q.Get("decision"),
	}})
}
