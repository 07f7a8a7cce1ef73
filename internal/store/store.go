// Package store is the server's durable state behind one interface: accounts and
// their API keys, encrypted vault records, executions with their checkpoints and
// event frames, audit records, rate-limit counters and the accounts' localStorage.
//
// The interface speaks the server's language (accounts, executions, cursors), never
// a database's: SQLite (internal/store/sqlite) implements it now and PostgreSQL
// later, and both run the one contract suite in internal/store/storetest. The
// bounds every implementation enforces live in limits.go, the checks in check.go, so
// two backends can only differ in speed.
//
// Errors are *fault.Error: NotFound for a missing row (and for another account's
// row: scoping never reveals that an id exists), Conflict for a broken uniqueness
// or status rule, Invalid for input over a bound or malformed, Unavailable when the
// database cannot be written. Messages never hold key hashes, ciphertext, values or
// documents.
package store

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/sluicehq/sluice/internal/policy"
)

// Store is everything the server keeps. Implementations are safe for
// concurrent use; every write is durable (survives kill -9 of the process) when
// it returns nil.
type Store interface {
	Accounts
	APIKeys
	Credentials
	Executions
	Checkpoints
	Events
	Audit
	RateCounters
	KV
	MCPServers
	PushConfigs
	KnowledgeBases
	Capabilities
	Agents
	SharedLimits
	Values
	Settings
	DiscoveryUsageStore
	Retention
	// Close waits for pending writes and releases the database (and the data
	// directory's lock). Calls after Close fail with Unavailable.
	Close() error
}

// Page asks for one page of a list: Cursor is the Next of the previous page
// ("" for the first), Limit the page size (0: DefaultPageSize; at most
// MaxPageSize). Cursors are opaque and stay valid while rows are added.
type Page struct {
	Cursor string
	Limit  int
}

// Account is a caller of the server.
type Account struct {
	ID          string
	Name        string
	Permissions policy.Permissions
	// Limits is the account's limits document (JSON object; null when unset).
	Limits    json.RawMessage
	Disabled  bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// AccountUpdate changes the fields that are set (nil: unchanged).
type AccountUpdate struct {
	Name        *string
	Permissions *policy.Permissions
	Limits      json.RawMessage // nil: unchanged; "null" clears
	Disabled    *bool
}

// Accounts keeps accounts. Account ids are chosen by the caller (see CheckID).
type Accounts interface {
	// CreateAccount stores a new account; its times are set by the store. An id
	// in use is a Conflict.
	CreateAccount(ctx context.Context, a Account) (Account, error)
	GetAccount(ctx context.Context, id string) (Account, error)
	// ListAccounts pages through accounts in id order.
	ListAccounts(ctx context.Context, p Page) (accounts []Account, next string, err error)
	UpdateAccount(ctx context.Context, id string, u AccountUpdate) (Account, error)
	// DisableAccount marks the account disabled; disabling twice is no error.
	DisableAccount(ctx context.Context, id string) error
}

// APIKey is one key of an account. Hash is the HMAC of the key's secret (the
// caller hashes; the store never sees the key itself).
type APIKey struct {
	ID         string // public key id
	AccountID  string
	Hash       []byte // empty in lists
	Prefix     string // short display prefix, e.g. "sk_live_ab12"
	CreatedAt  time.Time
	ExpiresAt  *time.Time
	RevokedAt  *time.Time
	LastUsedAt *time.Time
}

// Active reports whether the key may authenticate at now: not revoked and not
// expired.
func (k APIKey) Active(now time.Time) bool {
	return k.RevokedAt == nil && (k.ExpiresAt == nil || now.Before(*k.ExpiresAt))
}

// APIKeys keeps API keys.
type APIKeys interface {
	// AddAPIKey stores a key of an existing account (NotFound otherwise). A key
	// id or hash in use is a Conflict; an account holds at most
	// MaxAPIKeysPerAccount keys, revoked ones included.
	AddAPIKey(ctx context.Context, k APIKey) (APIKey, error)
	// FindAPIKey returns the key with this hash and its account, revoked,
	// expired or disabled as they may be: the caller decides (APIKey.Active,
	// Account.Disabled). An unknown hash is NotFound.
	FindAPIKey(ctx context.Context, hash []byte) (APIKey, Account, error)
	// GetAPIKey returns the key with this public id and its account (hash
	// included), revoked or expired as it may be; an unknown id is NotFound.
	// Authentication looks keys up by id and compares hashes in constant time.
	GetAPIKey(ctx context.Context, id string) (APIKey, Account, error)
	// ListAPIKeys lists an account's keys, oldest first, without hashes.
	ListAPIKeys(ctx context.Context, accountID string) ([]APIKey, error)
	// RevokeAPIKey revokes a key of the account; another account's key is
	// NotFound. Revoking twice keeps the first time.
	RevokeAPIKey(ctx context.Context, accountID, keyID string) error
	// MarkAPIKeysUsed records last-use times, key id to time, in one write (the
	// caller batches; unknown ids are skipped). A time never moves backwards.
	MarkAPIKeysUsed(ctx context.Context, used map[string]time.Time) error
}

// Credential is a vault record, encrypted by the caller.
type Credential struct {
	ID          string
	Type        string
	Description string
	Hosts       []string // the hosts it is bound to, canonical; empty: unbound
	MasterKeyID string
	Nonce       []byte // empty in lists
	Ciphertext  []byte // empty in lists
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Credentials keeps vault records. The store never sees a secret in clear.
type Credentials interface {
	// PutCredential inserts or replaces a record (CreatedAt is kept on replace).
	PutCredential(ctx context.Context, c Credential) (Credential, error)
	GetCredential(ctx context.Context, id string) (Credential, error)
	// ListCredentials pages through records in id order, metadata only.
	ListCredentials(ctx context.Context, p Page) (creds []Credential, next string, err error)
	DeleteCredential(ctx context.Context, id string) error
	// AllCredentials returns every record with its ciphertext, for master-key
	// rotation (at most MaxCredentials exist).
	AllCredentials(ctx context.Context) ([]Credential, error)
	// RotateCredentials replaces the nonce, ciphertext and master key id (not
	// the hosts, which are sealed with the value) of the
	// given records in one transaction. Each must be unchanged since it was read
	// (same UpdatedAt as AllCredentials gave); otherwise nothing is written and
	// the error is a Conflict naming the record. Deleted records are NotFound.
	RotateCredentials(ctx context.Context, creds []Credential) error
}

// Status is an execution's status.
type Status string

// Execution statuses (RESOLUTIONS "Calls, results and status words").
const (
	StatusQueued    Status = "queued"
	StatusRunning   Status = "running"
	StatusWaiting   Status = "waiting"
	StatusSuccess   Status = "success"
	StatusFailed    Status = "failed"
	StatusPartial   Status = "partial"
	StatusCancelled Status = "cancelled"
)

// Statuses lists every status.
var Statuses = []Status{StatusQueued, StatusRunning, StatusWaiting, StatusSuccess, StatusFailed, StatusPartial, StatusCancelled}

// Final reports whether s ends an execution: success, failed, partial or
// cancelled. A final execution never changes again. (A run interrupted by a
// shutdown is not cancelled: it stays running so recovery resumes it.)
func (s Status) Final() bool {
	return s == StatusSuccess || s == StatusFailed || s == StatusPartial || s == StatusCancelled
}

// Valid reports whether s is one of Statuses.
func (s Status) Valid() bool {
	switch s {
	case StatusQueued, StatusRunning, StatusWaiting, StatusSuccess, StatusFailed, StatusPartial, StatusCancelled:
		return true
	}
	return false
}

// Execution is one run of a document by an account.
type Execution struct {
	ID        string // the server's id
	AccountID string
	// Kind says which runner owns the record: KindA2E, KindCapability or
	// KindAgentWorkflow. CreateExecution derives an empty Kind from the
	// document (KindOfDocument); it never changes afterwards.
	Kind string
	// ClientID is the client's executionId, an idempotency key per account
	// ("" when none was given); Digest identifies the document it came with.
	ClientID string
	Digest   string
	Document []byte          // the document as received; empty in lists
	Input    json.RawMessage // empty in lists
	Status   Status
	Async    bool
	// SessionID is the caller's session ("" when none).
	SessionID string
	BudgetMs  int64
	Result    json.RawMessage // the execute response body; empty in lists
	Errors    json.RawMessage // JSON array of error objects; empty in lists
	CreatedAt time.Time
	// StartedAt is set by the store when the status first leaves queued,
	// FinishedAt when it becomes final.
	StartedAt  *time.Time
	FinishedAt *time.Time
}

// ExecutionQuery filters and pages an account's executions.
type ExecutionQuery struct {
	Status []Status // any of these; empty: all
	// Kinds: any of these kinds (one runner's list names its own; the run
	// API's kind filter may name several); empty: all.
	Kinds []string
	// AllAccounts lists every account's executions and ignores the account
	// ListExecutions is given: an admin's listing of runs (internal/runs,
	// which makes the admin check). Nothing else sets it.
	AllAccounts bool
	Page
}

// ExecutionUpdate moves an execution on. Status is required; Result and Errors
// replace the stored ones when non-nil.
type ExecutionUpdate struct {
	Status Status
	Result json.RawMessage
	Errors json.RawMessage
}

// Executions keeps execution records.
type Executions interface {
	// CreateExecution stores e (ID, AccountID, Digest, Document and Status
	// required; CreatedAt set by the store; an empty Kind is derived from
	// the document, an unknown one is Invalid). When ClientID is set and the
	// account already has an execution with it, nothing is stored: the same
	// Digest returns that execution with created false, another Digest is a
	// Conflict. The check and the insert are one atomic step.
	CreateExecution(ctx context.Context, e Execution) (stored Execution, created bool, err error)
	// GetExecution returns an execution of the account; another account's id
	// is NotFound.
	GetExecution(ctx context.Context, accountID, id string) (Execution, error)
	// FindExecutionByClientID returns the account's execution with this client
	// executionId; NotFound when there is none.
	FindExecutionByClientID(ctx context.Context, accountID, clientID string) (Execution, error)
	// ListExecutions pages through the account's executions, newest first,
	// without documents, inputs, results and errors.
	ListExecutions(ctx context.Context, accountID string, q ExecutionQuery) (execs []Execution, next string, err error)
	// UpdateExecution sets the status (and result/errors) of the account's
	// execution. A final execution is never changed: that is a Conflict naming
	// its status.
	UpdateExecution(ctx context.Context, accountID, id string, u ExecutionUpdate) error
	// ListUnfinished pages through executions of one kind (required: each
	// runner recovers only its own records) of every account whose status is
	// not final, oldest first, for recovery after a restart. They are complete
	// (document and input included), so keep such pages small.
	ListUnfinished(ctx context.Context, kind string, p Page) (execs []Execution, next string, err error)
}

// Checkpoints keeps the latest checkpoint of each execution (the engine's JSON;
// internal/checkpoint adapts it to engine.Checkpointer).
type Checkpoints interface {
	// SaveCheckpoint replaces the execution's checkpoint. An unknown execution
	// is NotFound.
	SaveCheckpoint(ctx context.Context, executionID string, data json.RawMessage) error
	// LoadCheckpoint returns the latest checkpoint; NotFound when none.
	LoadCheckpoint(ctx context.Context, executionID string) (json.RawMessage, error)
}

// Event is one frame of an execution's event stream.
type Event struct {
	ExecutionID string
	Seq         int64 // 1, 2, 3... per execution
	Data        json.RawMessage
	CreatedAt   time.Time
}

// Events keeps the frames of executions for replay (SSE Last-Event-ID).
type Events interface {
	// AppendEvents appends frames in order and returns the sequence of the
	// last one. An unknown execution is NotFound; past MaxEventsPerExecution
	// frames, nothing is appended and the error is Invalid.
	AppendEvents(ctx context.Context, executionID string, frames ...json.RawMessage) (lastSeq int64, err error)
	// ListEvents returns up to limit frames with Seq > afterSeq, in order
	// (limit 0: DefaultPageSize; at most MaxPageSize).
	ListEvents(ctx context.Context, executionID string, afterSeq int64, limit int) ([]Event, error)
}

// Audit decisions.
const (
	DecisionAllow   = "allow"
	DecisionDeny    = "deny"
	DecisionLimited = "limited"
)

// AuditRecord is one request or operation as the audit trail keeps it. Nothing
// in it may be a secret: callers put ids and codes in it, never values.
type AuditRecord struct {
	ID        int64 // set by the store, rising
	Time      time.Time
	RequestID string
	AccountID string
	Method    string
	Operation string
	Decision  string // allow, deny or limited
	LatencyMs int64
	Status    string
	ErrorCode string
	Details   json.RawMessage // small JSON object, or empty
}

// AuditQuery filters audit records; zero fields do not filter. Since is
// inclusive, Until exclusive.
type AuditQuery struct {
	AccountID string
	Method    string
	Decision  string
	Since     time.Time
	Until     time.Time
	Page
}

// Audit keeps the audit trail.
type Audit interface {
	// AppendAudit stores records in one write (at most MaxAuditBatch).
	AppendAudit(ctx context.Context, recs []AuditRecord) error
	// QueryAudit pages through matching records, newest first.
	QueryAudit(ctx context.Context, q AuditQuery) (recs []AuditRecord, next string, err error)
}

// RateCounter is the count of one account in one window (kind, e.g. "hour",
// "day", "api_hour"; its start and end).
type RateCounter struct {
	AccountID string
	Window    string
	Start     time.Time
	End       time.Time
	Count     int64
}

// RateCounters keeps rate-limit counters across restarts.
type RateCounters interface {
	// SaveRateCounters stores counters in one write. A counter only grows: a
	// lower count than the stored one for the same window leaves it (a late
	// flush never forgets requests). Windows that ended at or before now are
	// dropped as a side effect.
	SaveRateCounters(ctx context.Context, now time.Time, cs []RateCounter) error
	// LoadRateCounters returns the counters whose window has not ended at now.
	LoadRateCounters(ctx context.Context, now time.Time) ([]RateCounter, error)
}

// KV is the durable key-value storage of accounts (A2E localStorage; see
// LocalStorage for the op.Storage adapter).
type KV interface {
	// PutKV stores a JSON value under key for the account. An account holds at
	// most MaxKVKeysPerAccount keys.
	PutKV(ctx context.Context, accountID, key string, value json.RawMessage) error
	// GetKV returns the value and whether the key exists.
	GetKV(ctx context.Context, accountID, key string) (json.RawMessage, bool, error)
	// DeleteKV removes a key; a missing key is no error.
	DeleteKV(ctx context.Context, accountID, key string) error
}

// MCPServer is an MCP server an account registered for its sessions: reached
// by Command (the name of an entry of the server's configured allowlist,
// never a command line) or by URL (a streamable-HTTP endpoint), never both.
type MCPServer struct {
	AccountID string
	Name      string
	Command   string
	URL       string
	// Auth is how a URL server is authenticated to: vault credential ids,
	// never a value. Zero for none (and for every command server).
	Auth      MCPServerAuth
	CreatedAt time.Time
}

// MCPServerAuth names the vault credentials a URL server's requests carry.
type MCPServerAuth struct {
	// Headers maps a header name to the id of the credential sent as its
	// value (a bearer-token credential as "Bearer <value>").
	Headers map[string]string `json:"headers,omitempty"`
	// OAuth, when set, is the OAuth client-credentials flow, run when the
	// server asks for a token (401 with its protected resource metadata);
	// the scopes are those the server's challenge or metadata names.
	OAuth *MCPOAuth `json:"oauth,omitempty"`
}

// MCPOAuth names the credentials of the OAuth client-credentials flow.
type MCPOAuth struct {
	ClientID     string `json:"clientId"`     // id of the credential holding the client id
	ClientSecret string `json:"clientSecret"` // id of the credential holding the client secret
}

// IsZero reports whether a carries no credentials.
func (a MCPServerAuth) IsZero() bool { return len(a.Headers) == 0 && a.OAuth == nil }

// CredentialIDs are the vault ids a names, sorted.
func (a MCPServerAuth) CredentialIDs() []string {
	var ids []string
	for _, id := range a.Headers {
		ids = append(ids, id)
	}
	if a.OAuth != nil {
		ids = append(ids, a.OAuth.ClientID, a.OAuth.ClientSecret)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// MCPServers keeps accounts' MCP server registrations.
type MCPServers interface {
	// AddMCPServer stores a registration; its time is set by the store. A
	// name in use by the account is a Conflict, unless the registration is
	// the same, which returns the stored one (registering is idempotent). An
	// account holds at most MaxMCPServersPerAccount.
	AddMCPServer(ctx context.Context, s MCPServer) (MCPServer, error)
	// ListMCPServers returns the account's registrations by name.
	ListMCPServers(ctx context.Context, accountID string) ([]MCPServer, error)
	// DeleteMCPServer removes a registration; a missing one is NotFound.
	DeleteMCPServer(ctx context.Context, accountID, name string) error
}
