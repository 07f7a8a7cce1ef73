package client

import (
	"context"
	"net/url"
	"strconv"
)

// Validate validates a JSONL workflow.
func (c *Client) Validate(ctx context.Context, workflow string) (*ValidateResult, error) {
	var r ValidateResult
	return &r, c.Do(ctx, "POST", "/api/v1/workflows/validate", map[string]any{"workflow": workflow}, &r)
}

// ExecuteOptions are the optional parts of an execute call.
type ExecuteOptions struct {
	Input     map[string]any
	Async     bool
	SessionID string
}

// Execute runs a workflow (or queues it, with Async). An invalid workflow is
// an *Error whose Report holds the validate response.
func (c *Client) Execute(ctx context.Context, workflow string, o ExecuteOptions) (*Execution, error) {
	body := map[string]any{"workflow": workflow}
	if o.Input != nil {
		body["input"] = o.Input
	}
	if o.Async {
		body["async"] = true
	}
	if o.SessionID != "" {
		body["session_id"] = o.SessionID
	}
	var e Execution
	return &e, c.Do(ctx, "POST", "/api/v1/workflows/execute", body, &e)
}

// Execution reads one of the account's executions.
func (c *Client) Execution(ctx context.Context, id string) (*Execution, error) {
	var e Execution
	return &e, c.Do(ctx, "GET", "/api/v1/executions/"+pathEscape(id), nil, &e)
}

// Cancel cancels an execution that has not ended.
func (c *Client) Cancel(ctx context.Context, id string) (*Execution, error) {
	var e Execution
	return &e, c.Do(ctx, "POST", "/api/v1/executions/"+pathEscape(id)+"/cancel", nil, &e)
}

// CreateAccount makes an account and its first key (admin).
func (c *Client) CreateAccount(ctx context.Context, spec AccountSpec) (*Account, *NewKey, error) {
	var r struct {
		NewKey
		Account Account `json:"account"`
	}
	if err := c.Do(ctx, "POST", "/api/v1/admin/accounts", spec, &r); err != nil {
		return nil, nil, err
	}
	return &r.Account, &r.NewKey, nil
}

// Accounts lists accounts, one page (admin).
func (c *Client) Accounts(ctx context.Context, cursor string, limit int) ([]Account, string, error) {
	q := url.Values{}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var r struct {
		Accounts []Account `json:"accounts"`
		Next     string    `json:"next_cursor"`
	}
	path := "/api/v1/admin/accounts"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	err := c.Do(ctx, "GET", path, nil, &r)
	return r.Accounts, r.Next, err
}

// Account reads one account (admin).
func (c *Client) Account(ctx context.Context, id string) (*Account, error) {
	var a Account
	return &a, c.Do(ctx, "GET", "/api/v1/admin/accounts/"+pathEscape(id), nil, &a)
}

// UpdateAccount changes an account (admin). The server merges permissions
// and limits (JSON merge patch, RFC 7396): the grants and limits spec sets
// replace the account's of those names, and the others stay.
func (c *Client) UpdateAccount(ctx context.Context, id string, spec AccountSpec) (*Account, error) {
	var a Account
	return &a, c.Do(ctx, "PATCH", "/api/v1/admin/accounts/"+pathEscape(id), spec, &a)
}

// PatchAccount sends a JSON merge patch (RFC 7396) of an account (admin):
// {"permissions": {"knowledge_bases": ["kb"]}} changes that grant only; a
// member set to null removes it, e.g. {"limits": {"max_operations": null}}
// returns that limit to the server's default. An empty list is a list:
// {"permissions": {"hosts": []}} grants no host.
func (c *Client) PatchAccount(ctx context.Context, id string, patch map[string]any) (*Account, error) {
	var a Account
	return &a, c.Do(ctx, "PATCH", "/api/v1/admin/accounts/"+pathEscape(id), patch, &a)
}

// AddKey issues another key for an account (admin).
func (c *Client) AddKey(ctx context.Context, id string) (*NewKey, error) {
	var k NewKey
	return &k, c.Do(ctx, "POST", "/api/v1/admin/accounts/"+pathEscape(id)+"/keys", map[string]any{}, &k)
}

// Keys lists an account's keys (admin).
func (c *Client) Keys(ctx context.Context, id string) ([]Key, error) {
	var r struct {
		Keys []Key `json:"keys"`
	}
	return r.Keys, c.Do(ctx, "GET", "/api/v1/admin/accounts/"+pathEscape(id)+"/keys", nil, &r)
}

// RevokeKey revokes one of an account's keys (admin).
func (c *Client) RevokeKey(ctx context.Context, id, keyID string) (*Key, error) {
	var k Key
	return &k, c.Do(ctx, "DELETE", "/api/v1/admin/accounts/"+pathEscape(id)+"/keys/"+pathEscape(keyID), nil, &k)
}

// PutCredential stores a credential in the vault (admin), bound to hosts
// ("host", "host:port", "*.domain") when any are given: it is then sent to
// no other host. Replacing a credential replaces its binding too.
func (c *Client) PutCredential(ctx context.Context, id, typ, value, description string, hosts ...string) (*Credential, error) {
	var m Credential
	body := map[string]any{"type": typ, "value": value}
	if description != "" {
		body["description"] = description
	}
	if len(hosts) > 0 {
		body["hosts"] = hosts
	}
	return &m, c.Do(ctx, "PUT", "/api/v1/admin/credentials/"+pathEscape(id), body, &m)
}

// Credentials lists the vault's credentials, metadata only (admin).
func (c *Client) Credentials(ctx context.Context) ([]Credential, error) {
	var r struct {
		Credentials []Credential `json:"credentials"`
	}
	return r.Credentials, c.Do(ctx, "GET", "/api/v1/admin/credentials", nil, &r)
}

// DeleteCredential deletes a credential (admin).
func (c *Client) DeleteCredential(ctx context.Context, id string) error {
	return c.Do(ctx, "DELETE", "/api/v1/admin/credentials/"+pathEscape(id), nil, nil)
}
