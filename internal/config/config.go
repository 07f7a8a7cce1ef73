// Package config is the server's configuration: a YAML file decoded strictly
// (unknown keys, wrong types and bad values are errors naming file:line:col
// and the key path), over embedded defaults so that no file is needed, under
// environment overrides for the main settings. It also loads the small secret
// files of the data directory (keyfile.go). docs/configuration.md describes
// every key.
package config

import (
	"log/slog"
	"strings"
	"time"

	"github.com/sluicehq/sluice/internal/egress"
)

// Config is the whole server configuration. Durations are Go durations in the
// file ("30s", "1h"); the limits the A2E spec gives in milliseconds also take
// an integer of milliseconds. Byte sizes take an integer or a size with a unit
// ("1MiB", "512KiB", "10MB").
type Config struct {
	Addr string `yaml:"addr"`
	// DebugAddr is where net/http/pprof and runtime metrics are served
	// (`serve --debug-addr`); empty: nowhere. Loopback only, never Addr.
	DebugAddr    string     `yaml:"debug_addr"`
	DataDir      string     `yaml:"data_dir"`
	Log          Log        `yaml:"log"`
	Server       Server     `yaml:"server"`
	MaxBodyBytes int64      `yaml:"max_body_bytes" unit:"bytes"`
	Egress       Egress     `yaml:"egress"`
	Limits       Limits     `yaml:"limits"`
	RateLimits   RateLimits `yaml:"rate_limits"`
	Workers      int        `yaml:"workers"`
	Session      Session    `yaml:"session"`
	MCP          MCP        `yaml:"mcp"`
	A2S          A2S        `yaml:"a2s"`
	Store        Store      `yaml:"store"`
	Retention    Retention  `yaml:"retention"`
	Discovery    Discovery  `yaml:"discovery"`
	Agents       Agents     `yaml:"agents"`
	Metrics      Metrics    `yaml:"metrics"`
	Console      Console    `yaml:"console"`
	Telemetry    Telemetry  `yaml:"telemetry"`
	// AdminKeyFile names a file (mode 0600) holding the admin key. The key
	// itself is never read from the config file: a secret does not belong in
	// a file that is copied, versioned and shown around.
	AdminKeyFile string `yaml:"admin_key_file"`
	// AdminKey is the admin key, from SLUICE_ADMIN_KEY or AdminKeyFile; empty
	// when neither is set (the admin API is then closed).
	AdminKey Secret `yaml:"-"`
}

// Log configures the server's logger.
type Log struct {
	Level  string `yaml:"level"`  // debug | info | warn | error
	Format string `yaml:"format"` // text | json
}

// SlogLevel is Level as a slog.Level.
func (l Log) SlogLevel() slog.Level {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(l.Level)) // validated on load
	return lv
}

// Server holds the HTTP server's timeouts (http.Server fields of the same
// names) and how long a shutdown waits for requests in flight.
type Server struct {
	ReadHeaderTimeout time.Duration `yaml:"read_header_timeout"`
	ReadTimeout       time.Duration `yaml:"read_timeout"`
	WriteTimeout      time.Duration `yaml:"write_timeout"`
	IdleTimeout       time.Duration `yaml:"idle_timeout"`
	ShutdownGrace     time.Duration `yaml:"shutdown_grace"`
}

// Egress is the server's egress rule (RESOLUTIONS, "Egress has two gates").
type Egress struct {
	// AllowPrivate lists private, loopback or link-local destinations that
	// may be reached: CIDRs, addresses, host names or host:port.
	AllowPrivate []string `yaml:"allow_private"`
}

// Policy is the egress.Policy of e.
func (e Egress) Policy() egress.Policy {
	return egress.Policy{AllowPrivate: append([]string(nil), e.AllowPrivate...)}
}

// Limits are the defaults for new accounts (each account may override them).
type Limits struct {
	MaxOperations      int           `yaml:"max_operations"`
	MaxExecutionTime   time.Duration `yaml:"max_execution_time" unit:"ms"`
	MaxLoopIterations  int           `yaml:"max_loop_iterations"`
	MaxDocumentBytes   int64         `yaml:"max_document_bytes" unit:"bytes"`
	MaxResponseBytes   int64         `yaml:"max_response_bytes" unit:"bytes"`
	MaxDataBytes       int64         `yaml:"max_data_bytes" unit:"bytes"`
	AsyncExecutionTime time.Duration `yaml:"async_execution_time" unit:"ms"`
}

// RateLimits are the default rate limits of accounts; -1 means no limit.
type RateLimits struct {
	RequestsPerMinute       int `yaml:"requests_per_minute"`
	RequestsPerHour         int `yaml:"requests_per_hour"`
	RequestsPerDay          int `yaml:"requests_per_day"`
	APICallsPerMinute       int `yaml:"api_calls_per_minute"`
	APICallsPerHour         int `yaml:"api_calls_per_hour"`
	MaxConcurrentExecutions int `yaml:"max_concurrent_executions"`
	// FlushInterval is how often hour and day counters are saved; a crash
	// loses at most this much counting.
	FlushInterval time.Duration `yaml:"flush_interval"`
}

// Session configures sessions: how long the storage of a REST session lives
// (RESOLUTIONS, "Sessions for REST callers"), and the limits of A2E NDJSON
// sessions (stdio, TCP, WebSocket), which the server announces in every
// handshake.
type Session struct {
	TTL time.Duration `yaml:"ttl"`
	// MaxLineBytes bounds one message (line or WebSocket frame).
	MaxLineBytes int64 `yaml:"max_line_bytes" unit:"bytes"`
	// MaxParallel is the calls in flight per session; one more gets
	// rate_limited at once.
	MaxParallel int `yaml:"max_parallel"`
	// CallsPerSecond is the call rate per session, in bursts of MaxParallel.
	CallsPerSecond int `yaml:"calls_per_second"`
	// HandshakeTimeout is how long a new session may take to send its
	// handshake.
	HandshakeTimeout time.Duration `yaml:"handshake_timeout"`
	// ShutdownTimeout is how long a shutdown without its own timeout drains
	// calls in flight.
	ShutdownTimeout time.Duration `yaml:"shutdown_timeout"`
	// MaxUnauthenticated bounds the session connections (WebSocket and TCP)
	// that have not yet completed their handshake, on the whole server;
	// MaxUnauthenticatedPerAddress bounds them per remote IP address. One
	// more is refused at once (HTTP 503 or 429 before the upgrade; an error
	// message and a close on TCP).
	MaxUnauthenticated           int `yaml:"max_unauthenticated"`
	MaxUnauthenticatedPerAddress int `yaml:"max_unauthenticated_per_address"`
}

// Store chooses where the server keeps its state: SQLite in data_dir (the
// default, one machine) or a PostgreSQL database shared by several gateways.
type Store struct {
	// DSN is "" or "sqlite" for SQLite, or a postgres:// URL. Leave the
	// password out (libpq's PGPASSWORD or ~/.pgpass supply it): the file is
	// no place for a secret. It is never logged.
	DSN string `yaml:"dsn" redact:"url"`
	// MaxExecutionBytes is the stored limit of an execution: the largest
	// result (its JSON) and checkpoint kept for it. An execution going over
	// it ends failed with a DataError naming the limit; it is never left
	// unstored. At most 64 MiB, the store's own ceiling.
	MaxExecutionBytes int64 `yaml:"max_execution_bytes" unit:"bytes"`
}

// MaxStoredExecutionBytes is the highest store.max_execution_bytes: the
// store's ceiling, store.MaxExecutionBytes (config cannot import store; a
// test there keeps the two equal).
const MaxStoredExecutionBytes = 64 << 20

// Postgres reports whether the store is PostgreSQL.
func (s Store) Postgres() bool {
	return strings.HasPrefix(s.DSN, "postgres://") || strings.HasPrefix(s.DSN, "postgresql://")
}

// Console configures the web console (docs/console.md).
type Console struct {
	// Enabled serves the console at /console/ (and redirects GET / there).
	Enabled bool `yaml:"enabled"`
	// Addr serves it on an address of its own instead of the API's
	// ("": on the API's address).
	Addr string `yaml:"addr"`
	// SessionTTL is how long a sign-in lasts.
	SessionTTL time.Duration `yaml:"session_ttl"`
}

// Metrics configures the Prometheus endpoint.
type Metrics struct {
	Enabled bool `yaml:"enabled"`
}

// LogValue is the configuration for a start-up log line: everything but the
// admin key, of which only its presence shows.
func (c *Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("addr", c.Addr),
		slog.String("debug_addr", c.DebugAddr),
		slog.String("data_dir", c.DataDir),
		slog.String("log_level", c.Log.Level),
		slog.String("log_format", c.Log.Format),
		slog.Int64("max_body_bytes", c.MaxBodyBytes),
		slog.Any("egress_allow_private", c.Egress.AllowPrivate),
		slog.Int("workers", c.Workers),
		slog.Duration("session_ttl", c.Session.TTL),
		slog.Int("session_max_parallel", c.Session.MaxParallel),
		slog.Bool("metrics", c.Metrics.Enabled),
		slog.Bool("traces", c.Telemetry.Enabled()),
		slog.Bool("store_postgres", c.Store.Postgres()),
		slog.String("agents_queue", c.Agents.Redacted()),
		slog.Int("agents_workers", c.Agents.Workers),
		slog.Bool("admin_key_set", c.AdminKey.Reveal() != ""),
	)
}
