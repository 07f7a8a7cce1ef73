package account

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store"
)

// AdminID is the id of the account the admin key belongs to.
const AdminID = "admin"

// principalTTL bounds how long an authenticated key is trusted without a
// store read. Changes made through this process (revoke, disable, update)
// take effect at once; on other gateways sharing the store, within this time.
const principalTTL = 5 * time.Second

// maxCachedPrincipals bounds the cache of authenticated keys.
const maxCachedPrincipals = 10000

// Config are a Service's services and settings.
type Config struct {
	Store  store.Store
	Pepper policy.Pepper
	// AdminKey is SLUICE_ADMIN_KEY when set: a key of any form that
	// authenticates as the admin account, compared in constant time and
	// never stored.
	AdminKey string
	Defaults Limits // the server's default limits
	Clock    clock.Clock
	// APIHosts gives the hosts of the APIs an apis grant names (RESOLUTIONS:
	// an apis grant implies the hosts of those API entries); nil: none.
	APIHosts func(apis []string) []string
}

// Service manages accounts and keys and authenticates calls.
type Service struct {
	cfg  Config
	auth *policy.Authenticator

	updates sync.Mutex // one Update at a time: each merges into what it read

	mu    sync.Mutex
	cache map[[32]byte]cached // by SHA-256 of the presented key
	byID  map[string]cached   // by account id (Principal)
}

type cached struct {
	p       *Principal
	expires time.Time // the entry's own end (principalTTL)
	// keyExpires is the key's expires_at (zero: never). The cache trusts
	// what it holds for principalTTL, but never past the key's own end: a
	// hit at or after it is refused as the store's record would be.
	keyExpires time.Time
}

// New makes a Service.
func New(cfg Config) *Service {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Defaults == (Limits{}) {
		cfg.Defaults = DefaultLimits()
	}
	s := &Service{cfg: cfg, cache: map[[32]byte]cached{}, byID: map[string]cached{}}
	s.auth = &policy.Authenticator{Keys: keyLookup{cfg.Store}, Pepper: cfg.Pepper, Clock: cfg.Clock}
	return s
}

// Authenticate turns a presented key into its account's principal. A missing,
// malformed, unknown, expired or revoked key, and a disabled account, are
// Unauthenticated errors that never quote the key.
func (s *Service) Authenticate(ctx context.Context, text string) (*Principal, error) {
	if text == "" {
		return nil, fault.Typed(fault.Unauthenticated, fault.PermissionError, "missing API key").
			WithSuggestions("Send the key as Authorization: Bearer <key> or X-API-Key: <key>")
	}
	if s.cfg.AdminKey != "" && policy.EqualSecrets(text, s.cfg.AdminKey) {
		return s.adminPrincipal(ctx)
	}
	sum := sha256.Sum256([]byte(text))
	now := s.cfg.Clock.Now()
	s.mu.Lock()
	if c, ok := s.cache[sum]; ok && now.Before(c.expires) {
		if !c.keyExpires.IsZero() && !now.Before(c.keyExpires) {
			delete(s.cache, sum)
			s.mu.Unlock()
			return nil, policy.KeyExpired.Err()
		}
		s.mu.Unlock()
		return c.p, nil
	}
	s.mu.Unlock()

	rec, err := s.auth.AuthenticateKey(ctx, text)
	if err != nil {
		return nil, err
	}
	a, err := s.cfg.Store.GetAccount(ctx, rec.Account)
	if err != nil {
		if fe, ok := fault.As(err); ok && fe.Kind == fault.NotFound {
			return nil, invalidKey()
		}
		return nil, err
	}
	if a.Disabled {
		return nil, fault.Typed(fault.Unauthenticated, fault.PermissionError, "the account of this API key is disabled")
	}
	p, err := s.principal(a)
	if err != nil {
		return nil, err
	}
	p.KeyID = rec.ID
	s.mu.Lock()
	if len(s.cache) >= maxCachedPrincipals {
		clear(s.cache) // rare: a burst of distinct keys; start over
	}
	s.cache[sum] = cached{p: p, expires: now.Add(principalTTL), keyExpires: rec.Expires}
	s.mu.Unlock()
	return p, nil
}

func invalidKey() *fault.Error {
	return fault.Typed(fault.Unauthenticated, fault.PermissionError, "invalid API key")
}

// Principal is the principal of an account by id (asynchronous executions
// run as their account is when they run; API calls are metered by account).
// A disabled account is refused. It is cached like authenticated keys.
func (s *Service) Principal(ctx context.Context, id string) (*Principal, error) {
	now := s.cfg.Clock.Now()
	s.mu.Lock()
	if c, ok := s.byID[id]; ok && now.Before(c.expires) {
		s.mu.Unlock()
		return c.p, nil
	}
	s.mu.Unlock()
	a, err := s.cfg.Store.GetAccount(ctx, id)
	if err != nil {
		return nil, err
	}
	if a.Disabled {
		return nil, fault.New(fault.PermissionDenied, "account %s is disabled", id)
	}
	p, err := s.principal(a)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if len(s.byID) >= maxCachedPrincipals {
		clear(s.byID)
	}
	s.byID[id] = cached{p: p, expires: now.Add(principalTTL)}
	s.mu.Unlock()
	return p, nil
}

func (s *Service) principal(a store.Account) (*Principal, error) {
	var l Limits
	if len(a.Limits) > 0 && string(a.Limits) != "null" {
		if err := json.Unmarshal(a.Limits, &l); err != nil {
			return nil, fault.New(fault.Internal, "the limits of account %s are unreadable", a.ID).WithCause(err)
		}
	}
	perms := a.Permissions
	if s.cfg.APIHosts != nil && len(perms.APIs) > 0 {
		if extra := s.cfg.APIHosts(perms.APIs); len(extra) > 0 {
			perms.Hosts = append(slices.Clone(perms.Hosts), extra...)
		}
	}
	return &Principal{ID: a.ID, Name: a.Name, Permissions: perms, Limits: l.Resolve(s.cfg.Defaults)}, nil
}

func (s *Service) adminPrincipal(ctx context.Context) (*Principal, error) {
	a, err := s.cfg.Store.GetAccount(ctx, AdminID)
	if err != nil {
		return nil, err
	}
	return s.principal(a)
}

// forget drops cached principals of an account (after a change to it or its keys).
func (s *Service) forget(accountID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byID, accountID)
	for k, c := range s.cache {
		if c.p.ID == accountID {
			delete(s.cache, k)
		}
	}
}

// keyLookup is policy.KeyLookup over the store.
type keyLookup struct{ st store.Store }

func (k keyLookup) LookupKey(ctx context.Context, id string) (policy.KeyRecord, bool, error) {
	key, _, err := k.st.GetAPIKey(ctx, id)
	if err != nil {
		if fe, ok := fault.As(err); ok && fe.Kind == fault.NotFound {
			return policy.KeyRecord{}, false, nil
		}
		return policy.KeyRecord{}, false, err
	}
	rec := policy.KeyRecord{ID: key.ID, Account: key.AccountID, Hash: key.Hash, Created: key.CreatedAt}
	if key.ExpiresAt != nil {
		rec.Expires = *key.ExpiresAt
	}
	if key.RevokedAt != nil {
		rec.Revoked = *key.RevokedAt
	}
	return rec, true, nil
}

// normalizeName trims an account name.
func normalizeName(n string) string { return strings.TrimSpace(n) }
