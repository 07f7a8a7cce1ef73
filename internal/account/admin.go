package account

import (
	"context"
	"encoding/json"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store"
)

// View is an account as the admin API shows it. Limits are the effective
// ones: the account's own with the server's defaults filled in.
type View struct {
	AgentID     string             `json:"agent_id"`
	Name        string             `json:"name"`
	Permissions policy.Permissions `json:"permissions"`
	Limits      Limits             `json:"limits"`
	Disabled    bool               `json:"disabled"`
	CreatedAt   time.Time          `json:"created_at"`
	UpdatedAt   time.Time          `json:"updated_at"`
}

// KeyView is a key without its secret.
type KeyView struct {
	KeyID      string     `json:"key_id"`
	AgentID    string     `json:"agent_id"`
	Prefix     string     `json:"prefix"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  *time.Time `json:"expires_at,omitempty"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
	LastUsedAt *time.Time `json:"last_used_at,omitempty"`
}

// NewKey is a key as it is issued: the only time its secret is shown.
type NewKey struct {
	AgentID   string     `json:"agent_id"`
	KeyID     string     `json:"key_id"`
	APIKey    string     `json:"api_key"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
}

// Spec is what the admin API gives for a new or changed account. Nil fields
// of an update are left as they are.
type Spec struct {
	Name        *string
	Permissions *policy.Permissions
	Limits      *Limits
	Disabled    *bool
}

const maxNameLen = 200

func (sp Spec) check(create bool, server Limits) error {
	if sp.Name != nil || create {
		if sp.Name == nil || normalizeName(*sp.Name) == "" || len(*sp.Name) > maxNameLen {
			return fault.New(fault.Invalid, "name must be 1 to %d characters", maxNameLen).WithDetail("path", "name")
		}
	}
	if sp.Permissions != nil {
		if err := sp.Permissions.Validate(); err != nil {
			return err
		}
	}
	if sp.Limits != nil {
		if err := sp.Limits.check(server); err != nil {
			return err
		}
	}
	return nil
}

// MaxDataBytes is the highest data budget an account may have (1 GiB): the
// server holds the data of several executions at once.
const MaxDataBytes = 1 << 30

// MaxRetentionDays is the longest limits.retention_days: ten years, as the
// server's retention.runs.
const MaxRetentionDays = 3650

// check refuses negative limits and absurd ones, and a loop bound above the
// server's: the engine stops every loop at the server's
// limits.max_loop_iterations, so a higher one would be a promise not kept.
func (l Limits) check(server Limits) error {
	if max := server.MaxLoopIterations; max > 0 && l.MaxLoopIterations > max {
		return fault.New(fault.Invalid, "limits.max_loop_iterations %d is above the server's maximum of %d (its limits.max_loop_iterations)",
			l.MaxLoopIterations, max).WithDetail("path", "limits.max_loop_iterations").WithDetail("maximum", max).
			WithSuggestions("Give at most the server's maximum, or raise limits.max_loop_iterations in the server's configuration")
	}
	for _, f := range []struct {
		name string
		v    int
		max  int
		rate bool // -1 means no limit (for retention_days: kept for ever)
	}{
		{"requests_per_minute", l.RequestsPerMinute, 1e9, true}, {"requests_per_hour", l.RequestsPerHour, 1e9, true},
		{"requests_per_day", l.RequestsPerDay, 1e9, true}, {"api_calls_per_minute", l.APICallsPerMinute, 1e9, true},
		{"api_calls_per_hour", l.APICallsPerHour, 1e9, true}, {"max_concurrent_executions", l.MaxConcurrentExecutions, 10000, true},
		{"max_operations", l.MaxOperations, 10000, false}, {"max_execution_time_ms", l.MaxExecutionTimeMs, 24 * 3600 * 1000, false},
		{"max_loop_iterations", l.MaxLoopIterations, 1e6, false},
		{"max_data_bytes", int(l.MaxDataBytes), MaxDataBytes, false},
		{"retention_days", l.RetentionDays, MaxRetentionDays, true},
	} {
		lowest := 0
		if f.rate {
			lowest = -1
		}
		if f.v < lowest || f.v > f.max {
			return fault.New(fault.Invalid, "limits.%s must be from %d to %d (0: the server's default)", f.name, lowest, f.max).
				WithDetail("path", "limits."+f.name)
		}
	}
	return nil
}

// Create makes an account and its first key.
func (s *Service) Create(ctx context.Context, sp Spec) (View, NewKey, error) {
	return s.create(ctx, ids.New(ids.Account), sp)
}

func (s *Service) create(ctx context.Context, id string, sp Spec) (View, NewKey, error) {
	if err := sp.check(true, s.cfg.Defaults); err != nil {
		return View{}, NewKey{}, err
	}
	a := store.Account{ID: id, Name: normalizeName(*sp.Name)}
	if sp.Permissions != nil {
		a.Permissions = *sp.Permissions
	}
	if a.Permissions.CapabilityLevel == "" {
		a.Permissions.CapabilityLevel = policy.LevelBasic
	}
	if sp.Limits != nil {
		b, _ := json.Marshal(sp.Limits)
		a.Limits = b
	}
	if sp.Disabled != nil {
		a.Disabled = *sp.Disabled
	}
	stored, err := s.cfg.Store.CreateAccount(ctx, a)
	if err != nil {
		return View{}, NewKey{}, err
	}
	k, err := s.AddKey(ctx, stored.ID, nil)
	if err != nil {
		return View{}, NewKey{}, err
	}
	v, err := s.view(stored)
	return v, k, err
}

// Get returns an account.
func (s *Service) Get(ctx context.Context, id string) (View, error) {
	a, err := s.cfg.Store.GetAccount(ctx, id)
	if err != nil {
		return View{}, err
	}
	return s.view(a)
}

// List pages through accounts.
func (s *Service) List(ctx context.Context, p store.Page) ([]View, string, error) {
	as, next, err := s.cfg.Store.ListAccounts(ctx, p)
	if err != nil {
		return nil, "", err
	}
	out := make([]View, 0, len(as))
	for _, a := range as {
		v, err := s.view(a)
		if err != nil {
			return nil, "", err
		}
		out = append(out, v)
	}
	return out, next, nil
}

// Patch is a change to an account (PATCH /api/v1/admin/accounts/{id}): nil
// fields are left as they are. Permissions and Limits are JSON merge
// patches (RFC 7396, see mergepatch.go) of the account's permissions and
// its own limits: a JSON object, or null to remove them all.
type Patch struct {
	Name        *string
	Permissions json.RawMessage
	Limits      json.RawMessage
	Disabled    *bool
}

// Update changes an account; its cached principals are dropped at once.
// The merge is a read, then a write: concurrent updates of one account in
// this process are serialised, so neither loses the other's grants.
func (s *Service) Update(ctx context.Context, id string, p Patch) (View, error) {
	s.updates.Lock()
	defer s.updates.Unlock()
	sp := Spec{Name: p.Name, Disabled: p.Disabled}
	if p.Permissions != nil || p.Limits != nil {
		a, err := s.cfg.Store.GetAccount(ctx, id)
		if err != nil {
			return View{}, err
		}
		if p.Permissions != nil {
			current, err := json.Marshal(a.Permissions)
			if err != nil {
				return View{}, err
			}
			var perms policy.Permissions
			if err := applyMergePatch("permissions", current, p.Permissions, &perms); err != nil {
				return View{}, err
			}
			if perms.CapabilityLevel == "" { // removed: back to the level a new account has
				perms.CapabilityLevel = policy.LevelBasic
			}
			sp.Permissions = &perms
		}
		if p.Limits != nil {
			var l Limits
			if err := applyMergePatch("limits", a.Limits, p.Limits, &l); err != nil {
				return View{}, err
			}
			sp.Limits = &l
		}
	}
	if err := sp.check(false, s.cfg.Defaults); err != nil {
		return View{}, err
	}
	if id == AdminID && (sp.Permissions != nil && sp.Permissions.CapabilityLevel != policy.LevelAdmin || sp.Disabled != nil && *sp.Disabled) {
		return View{}, fault.New(fault.Conflict, "the admin account cannot be disabled or lose its admin level")
	}
	u := store.AccountUpdate{Permissions: sp.Permissions, Disabled: sp.Disabled}
	if sp.Name != nil {
		n := normalizeName(*sp.Name)
		u.Name = &n
	}
	if sp.Limits != nil {
		u.Limits, _ = json.Marshal(sp.Limits)
	}
	a, err := s.cfg.Store.UpdateAccount(ctx, id, u)
	s.forget(id)
	if err != nil {
		return View{}, err
	}
	return s.view(a)
}

func (s *Service) view(a store.Account) (View, error) {
	p, err := s.principal(a)
	if err != nil {
		return View{}, err
	}
	return View{AgentID: a.ID, Name: a.Name, Permissions: a.Permissions.WithEmptyLists(), Limits: p.Limits,
		Disabled: a.Disabled, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}, nil
}

// AddKey issues a new key for an account; expires nil means never.
func (s *Service) AddKey(ctx context.Context, accountID string, expires *time.Time) (NewKey, error) {
	spec := policy.KeySpec{Account: accountID}
	if expires != nil {
		spec.Expires = *expires
	}
	k, rec, err := policy.IssueKey(s.cfg.Pepper, spec, s.cfg.Clock.Now())
	if err != nil {
		return NewKey{}, err
	}
	stored := store.APIKey{ID: rec.ID, AccountID: accountID, Hash: rec.Hash, Prefix: policy.KeyPrefix + rec.ID, CreatedAt: rec.Created}
	if !rec.Expires.IsZero() {
		e := rec.Expires
		stored.ExpiresAt = &e
	}
	if _, err := s.cfg.Store.AddAPIKey(ctx, stored); err != nil {
		return NewKey{}, err
	}
	return NewKey{AgentID: accountID, KeyID: rec.ID, APIKey: k.Reveal(), ExpiresAt: stored.ExpiresAt}, nil
}

// Keys lists an account's keys without their secrets.
func (s *Service) Keys(ctx context.Context, accountID string) ([]KeyView, error) {
	if _, err := s.cfg.Store.GetAccount(ctx, accountID); err != nil {
		return nil, err
	}
	ks, err := s.cfg.Store.ListAPIKeys(ctx, accountID)
	if err != nil {
		return nil, err
	}
	out := make([]KeyView, len(ks))
	for i, k := range ks {
		out[i] = KeyView{KeyID: k.ID, AgentID: k.AccountID, Prefix: k.Prefix, CreatedAt: k.CreatedAt,
			ExpiresAt: k.ExpiresAt, RevokedAt: k.RevokedAt, LastUsedAt: k.LastUsedAt}
	}
	return out, nil
}

// RevokeKey revokes one of an account's keys; it stops working at once here.
func (s *Service) RevokeKey(ctx context.Context, accountID, keyID string) (KeyView, error) {
	err := s.cfg.Store.RevokeAPIKey(ctx, accountID, keyID)
	s.forget(accountID)
	if err != nil {
		return KeyView{}, err
	}
	ks, err := s.Keys(ctx, accountID)
	if err != nil {
		return KeyView{}, err
	}
	for _, k := range ks {
		if k.KeyID == keyID {
			return k, nil
		}
	}
	return KeyView{}, fault.New(fault.NotFound, "key %s not found", keyID)
}

// EnsureAdmin makes the admin account on first start. Without a configured
// admin key it also issues one and returns it (to be shown once); with one,
// it returns "".
func (s *Service) EnsureAdmin(ctx context.Context) (string, error) {
	_, err := s.cfg.Store.GetAccount(ctx, AdminID)
	if err == nil {
		return "", nil
	}
	if fe, ok := fault.As(err); !ok || fe.Kind != fault.NotFound {
		return "", err
	}
	name := "admin"
	perms := policy.Permissions{CapabilityLevel: policy.LevelAdmin}
	sp := Spec{Name: &name, Permissions: &perms}
	if s.cfg.AdminKey != "" {
		a := store.Account{ID: AdminID, Name: name, Permissions: perms}
		_, err := s.cfg.Store.CreateAccount(ctx, a)
		return "", err
	}
	_, k, err := s.create(ctx, AdminID, sp)
	return k.APIKey, err
}
