package op

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/policy"
)

// Deps are the services operations use. One Deps is made per account (its
// permissions differ); the services behind it are shared.
type Deps struct {
	// Client sends ApiCall requests. It must enforce the egress rules at dial time
	// (see internal/egress); nil means operations that need it fail.
	Client *http.Client
	// Permissions are the account's grants: hosts and credentials are checked
	// against them by ApiCall before anything is sent.
	Permissions policy.Permissions
	Vault       Vault
	Storage     Storage
	Cache       Cache
	Clock       clock.Clock
	Limits      Limits
	// Meter counts the account's HTTP attempts against its "API calls"
	// limits (RESOLUTIONS: they count attempts); nil: unmetered (sluice run).
	Meter Meter
	// Agents calls HTTP task agents (InvokeAgent); nil: operations that need
	// it fail. Callers check the account's agents grant first.
	Agents AgentCaller
}

// AgentCaller sends one task to a registered HTTP task agent and returns its
// output (internal/agent's Invoker, or the queue bridge's client). taskID is
// the task's idempotency key; correlationID goes in X-Correlation-ID. What
// a call asks beyond its input (updates, a remote task it continues) is in
// ctx (agentcall.go), which every AgentCaller carries to the agent.
type AgentCaller interface {
	Invoke(ctx context.Context, name, taskID string, input json.RawMessage, correlationID string) (json.RawMessage, error)
}

// Meter admits or refuses one outbound HTTP attempt of an account. A refusal
// is a *fault.Error of kind RateLimited whose RetryAfter says when a call
// would be admitted; ApiCall fails that attempt with it, so the engine's
// retry waits as long, within the execution's budget.
type Meter interface {
	AllowCall(ctx context.Context, account string) error
}

// Limits bound what operations may do.
type Limits struct {
	MaxResponseBytes  int64         // ApiCall response body; default 16 MiB
	MaxLoopIterations int           // default 1000
	MaxWait           time.Duration // default 600000 ms
	ExprTimeout       time.Duration // one expression evaluation over a whole input; default 1 s
	MaxExprLength     int           // characters of one expression; default 4096
	MaxStoredBytes    int64         // one StoreData value; default 1 MiB
}

// DefaultLimits are the limits of RESOLUTIONS.
func DefaultLimits() Limits {
	return Limits{
		MaxResponseBytes:  16 << 20,
		MaxLoopIterations: 1000,
		MaxWait:           600 * time.Second,
		ExprTimeout:       time.Second,
		MaxExprLength:     4096,
		MaxStoredBytes:    1 << 20,
	}
}

// Secret is a vault entry's type and value. Its value must never reach a result,
// a log line, an error, a cache key or an audit record.
type Secret struct {
	Type  string // bearer-token is sent as "Bearer <value>", others as is
	Value string
	// Hosts are the hosts it may be sent to (policy.CredentialMaySend);
	// empty: unbound, as every record of earlier versions.
	Hosts []string
}

// String, GoString, LogValue and MarshalJSON show the type only, so a Secret
// that ends up in a log line, an error or a JSON document gives nothing away.
func (s Secret) String() string { return "Secret(" + s.Type + ", [REDACTED])" }

// GoString is String (for %#v).
func (s Secret) GoString() string { return s.String() }

// LogValue is String.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON writes the type only.
func (s Secret) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"type": s.Type, "value": "[REDACTED]"})
}

// Vault resolves credential ids to secrets. Callers check the account's grant first.
type Vault interface {
	Resolve(ctx context.Context, id string) (Secret, error)
}

// HostBindings is what a vault tells of the hosts a credential is bound to
// without opening it: validation asks it to refuse a workflow that would send
// a bound credential elsewhere before anything runs. ok is false for an
// unknown id; hosts are empty for an unbound credential.
type HostBindings interface {
	BoundHosts(ctx context.Context, id string) (hosts []string, ok bool, err error)
}

// Area says where StoreData and LoadData keep a key.
type Area struct {
	Storage   string // localStorage | sessionStorage | file
	Account   string
	SessionID string // for sessionStorage; the execution id when the caller has no session
}

// Storage keeps stored values. Implementations scope keys by Area, and the file
// storage never lets a key escape its account's folder.
type Storage interface {
	Put(ctx context.Context, a Area, key string, value any) error
	// Get returns the value and whether the key exists.
	Get(ctx context.Context, a Area, key string) (any, bool, error)
}

// Cache holds results per account; it is never shared between accounts.
type Cache interface {
	Get(account, key string) (any, bool)
	// Put stores v under key for ttl; scope (for ApiCall, host and path) lets
	// writes drop related entries.
	Put(account, key, scope string, v any, ttl time.Duration)
	// InvalidateScope drops the account's entries whose scope starts with prefix.
	InvalidateScope(account, prefix string)
}
