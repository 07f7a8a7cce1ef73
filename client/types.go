package client

import (
	"encoding/json"
	"time"
)

// Problem is one error or warning of a validation.
type Problem struct {
	Type        string         `json:"type"`
	Message     string         `json:"message"`
	OperationID string         `json:"operationId,omitempty"`
	Line        int            `json:"line,omitempty"`
	Path        string         `json:"path,omitempty"`
	Details     map[string]any `json:"details,omitempty"`
	Suggestions []string       `json:"suggestions,omitempty"`
}

// ValidateResult is the validate response.
type ValidateResult struct {
	Valid    bool      `json:"valid"`
	Errors   []Problem `json:"errors"`
	Warnings []Problem `json:"warnings"`
}

// Execution is an execute response or an execution record.
type Execution struct {
	ExecutionID string         `json:"execution_id"`
	Status      string         `json:"status"`
	Results     map[string]any `json:"results"`
	Errors      []Problem      `json:"errors"`
	DurationMs  int64          `json:"duration_ms"`
	Async       bool           `json:"async"`
	// ClientExecutionID is the document's executionId, the idempotency key
	// (ExecutionID is the server's own id).
	ClientExecutionID string          `json:"client_execution_id,omitempty"`
	CreatedAt         *time.Time      `json:"created_at,omitempty"`
	StartedAt         *time.Time      `json:"started_at,omitempty"`
	CompletedAt       *time.Time      `json:"completed_at,omitempty"`
	Waiting           json.RawMessage `json:"waiting,omitempty"` // what a waiting execution waits for
}

// Final reports whether the execution has ended.
func (e *Execution) Final() bool {
	switch e.Status {
	case "success", "failed", "partial", "cancelled":
		return true
	}
	return false
}

// Permissions are an account's grants.
type Permissions struct {
	Operations      []string `json:"operations,omitempty"`
	Hosts           []string `json:"hosts,omitempty"`
	APIs            []string `json:"apis,omitempty"`
	Credentials     []string `json:"credentials,omitempty"`
	Agents          []string `json:"agents,omitempty"`
	MCPServers      []string `json:"mcp_servers,omitempty"`
	CapabilityLevel string   `json:"capability_level,omitempty"`
	Capabilities    []string `json:"capabilities,omitempty"`
	KnowledgeBases  []string `json:"knowledge_bases,omitempty"`
}

// Account is an account as the admin API shows it.
type Account struct {
	AgentID     string          `json:"agent_id"`
	Name        string          `json:"name"`
	Permissions Permissions     `json:"permissions"`
	Limits      json.RawMessage `json:"limits"`
	Disabled    bool            `json:"disabled"`
	CreatedAt   time.Time       `json:"created_at"`
	UpdatedAt   time.Time       `json:"updated_at"`
}

// AccountSpec creates or changes an account; nil fields are left out.
type AccountSpec struct {
	Name        *string        `json:"name,omitempty"`
	Permissions *Permissions   `json:"permissions,omitempty"`
	Limits      map[string]int `json:"limits,omitempty"`
	Disabled    *bool          `json:"disabled,omitempty"`
}

// NewKey is a key as issued: its secret is shown this once.
type NewKey struct {
	AgentID   string     `json:"agent_id"`
	KeyID     string     `json:"key_id"`
	APIKey    string     `json:"api_key"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
}

// Key is a key without its secret.
type Key struct {
	KeyID      string     `json:"key_id"`
	AgentID    string     `json:"agent_id"`
	Prefix     string     `json:"prefix"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  *time.Time `json:"expires_at,omitempty"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
	LastUsedAt *time.Time `json:"last_used_at,omitempty"`
}

// Credential is a vault entry's metadata.
type Credential struct {
	ID          string    `json:"id"`
	Type        string    `json:"type"`
	Description string    `json:"description,omitempty"`
	Hosts       []string  `json:"hosts"`            // the hosts it may be sent to; empty: unbound
	KeyID       string    `json:"key_id,omitempty"` // the master key it is sealed with (vault rotate moves it)
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}
