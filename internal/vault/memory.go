// Package vault resolves credential ids to secrets. Memory is the in-process
// vault used by `sluice run --credential` and by tests; Sealed is the server's
// vault: AES-256-GCM records under a keyring of master keys, kept by a Records
// backend. Package redact scrubs secret values from what leaves the process.
package vault

import (
	"context"
	"sync"

	"github.com/sluicehq/sluice/internal/op"
)

// Memory is a map of credential id to secret, safe for concurrent use.
type Memory struct {
	mu      sync.RWMutex
	secrets map[string]op.Secret
}

// NewMemory makes a vault holding a copy of secrets (nil: empty).
func NewMemory(secrets map[string]op.Secret) *Memory {
	m := &Memory{secrets: make(map[string]op.Secret, len(secrets))}
	for id, s := range secrets {
		m.secrets[id] = s
	}
	return m
}

// Set adds or replaces a credential.
func (m *Memory) Set(id string, s op.Secret) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.secrets[id] = s
}

// IDs lists the credential ids held (never values), in no particular order.
func (m *Memory) IDs() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]string, 0, len(m.secrets))
	for id := range m.secrets {
		out = append(out, id)
	}
	return out
}

// Resolve returns the secret for id. An unknown id is a PermissionError that
// names the id only.
func (m *Memory) Resolve(ctx context.Context, id string) (op.Secret, error) {
	if err := ctx.Err(); err != nil {
		return op.Secret{}, err
	}
	m.mu.RLock()
	s, ok := m.secrets[id]
	m.mu.RUnlock()
	if !ok {
		return op.Secret{}, unavailable(id)
	}
	return s, nil
}

// BoundHosts implements op.HostBindings.
func (m *Memory) BoundHosts(ctx context.Context, id string) ([]string, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	s, ok := m.secrets[id]
	return s.Hosts, ok, nil
}
