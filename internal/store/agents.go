package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// Agent is an HTTP task agent's registry entry (internal/agent). The
// registry is the server's, not an account's: admins register agents and
// the agents grant of an account says which it may call.
type Agent struct {
	Name string
	// Entry is the entry as protocol/agenthttp encodes it: every secret a
	// credentialRef into the vault, never a value (CheckAgent refuses one).
	Entry     json.RawMessage
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Agents keeps the agent registry.
type Agents interface {
	// PutAgent stores an entry, replacing the one with the same name (whose
	// CreatedAt is kept); created says which. Times are set by the store. At
	// most MaxAgents exist.
	PutAgent(ctx context.Context, a Agent) (stored Agent, created bool, err error)
	// GetAgent returns one entry; an unknown name is NotFound.
	GetAgent(ctx context.Context, name string) (Agent, error)
	// ListAgents returns every entry by name (none is an empty list).
	ListAgents(ctx context.Context) ([]Agent, error)
	// DeleteAgent removes an entry; a missing one is NotFound.
	DeleteAgent(ctx context.Context, name string) error
}

// Bounds of the agent registry.
const (
	MaxAgents          = 1000
	MaxAgentEntryBytes = 64 << 10
)

// CheckAgentName checks an agent's name (agenthttp.CheckName: letters,
// digits, '_' and '-').
func CheckAgentName(name string) error {
	if err := agenthttp.CheckName("agent", name); err != nil {
		return invalid("name", "%s", err.(*agenthttp.Error).Message)
	}
	return nil
}

// CheckAgent checks an entry before it is stored: its name, and an Entry
// that decodes as a valid registry entry of that name with no secret in
// clear. The last check is the store's own guard: whoever calls it, a token
// never reaches the database.
func CheckAgent(a Agent) error {
	if err := CheckAgentName(a.Name); err != nil {
		return err
	}
	if err := CheckJSON("agent entry", a.Entry, MaxAgentEntryBytes, true); err != nil {
		return err
	}
	e, err := agenthttp.DecodeEntry(a.Entry, agenthttp.Limits{MaxBytes: MaxAgentEntryBytes})
	if err != nil {
		ae, _ := err.(*agenthttp.Error)
		if ae == nil {
			return invalid("agent entry", "is not a registry entry")
		}
		return invalid("agent entry", "%s", ae.Message).WithDetail("path", ae.Path)
	}
	if e.Name != a.Name {
		return invalid("agent entry", "names agent %q, not %q", e.Name, a.Name)
	}
	if e.HasPlainSecrets() {
		return fault.New(fault.Invalid, "agent entry: holds a secret in clear; the store keeps only credentialRefs").
			WithDetail("field", "agent entry").
			WithSuggestions("Register agents through the agent registry, which moves secrets into the vault")
	}
	return nil
}

// AgentsFull is the error when the registry holds MaxAgents entries.
func AgentsFull() *fault.Error {
	return fault.New(fault.Invalid, "at most %d agents may be registered", MaxAgents).
		WithSuggestions("Remove agents no longer used")
}
