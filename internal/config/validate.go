package config

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/sluicehq/sluice/internal/debugserver"
	"github.com/sluicehq/sluice/internal/egress"
)

// MinAdminKeyLen is the shortest admin key accepted: 32 characters, e.g.
// `openssl rand -hex 32` (64).
const MinAdminKeyLen = 32

// bad records a problem with the value at path, placed where that value came
// from (a file position, an environment variable, or the defaults).
func (d *decoder) bad(path, format string, args ...any) {
	if d.failed[path] {
		return // its decoding problem says it already
	}
	p, ok := d.at[path]
	if !ok {
		p = Problem{}
	}
	p.Path, p.Message = path, fmt.Sprintf(format, args...)
	if !ok {
		p.Message += " (the default; set it in the config file)"
	}
	d.problems = append(d.problems, p)
}

func (d *decoder) intIn(path string, v, lo, hi int64) {
	if v < lo || v > hi {
		d.bad(path, "must be between %d and %d, got %d", lo, hi, v)
	}
}

func (d *decoder) sizeIn(path string, v, lo, hi int64) {
	if v < lo || v > hi {
		d.bad(path, "must be between %s and %s, got %s", fmtSize(lo), fmtSize(hi), fmtSize(v))
	}
}

func (d *decoder) durationIn(path string, v, lo, hi time.Duration) {
	if v < lo || v > hi {
		d.bad(path, "must be between %s and %s, got %s", fmtDuration(lo), fmtDuration(hi), fmtDuration(v))
	}
}

func (d *decoder) oneOf(path, v string, allowed ...string) {
	for _, a := range allowed {
		if v == a {
			return
		}
	}
	d.bad(path, "must be one of %s, got %q", strings.Join(allowed, ", "), v)
}

// rate checks a rate limit: at least 1, or -1 for no limit.
func (d *decoder) rate(path string, v int) {
	if v < 1 && v != -1 {
		d.bad(path, "must be at least 1, or -1 for no limit, got %d", v)
	}
}

// validate checks every value and the relations between them.
func (d *decoder) validate(c *Config) {
	const day = 24 * time.Hour
	d.addr(c.Addr)
	if c.DebugAddr != "" {
		if err := debugserver.CheckAddr(c.DebugAddr, c.Addr); err != nil {
			d.bad("debug_addr", "%v", err)
		}
	}
	if strings.TrimSpace(c.DataDir) == "" {
		d.bad("data_dir", "must name a directory")
	}
	d.oneOf("log.level", c.Log.Level, "debug", "info", "warn", "error")
	d.oneOf("log.format", c.Log.Format, "text", "json")
	d.validateTelemetry(c.Telemetry)

	d.durationIn("server.read_header_timeout", c.Server.ReadHeaderTimeout, time.Second, time.Hour)
	d.durationIn("server.read_timeout", c.Server.ReadTimeout, time.Second, day)
	d.durationIn("server.write_timeout", c.Server.WriteTimeout, time.Second, day)
	d.durationIn("server.idle_timeout", c.Server.IdleTimeout, time.Second, day)
	d.durationIn("server.shutdown_grace", c.Server.ShutdownGrace, 0, time.Hour)
	if c.Server.ReadHeaderTimeout > c.Server.ReadTimeout {
		d.bad("server.read_header_timeout", "must not be longer than server.read_timeout (%s)", fmtDuration(c.Server.ReadTimeout))
	}
	if c.Server.WriteTimeout <= c.Limits.MaxExecutionTime {
		d.bad("server.write_timeout", "must be longer than limits.max_execution_time (%s), or synchronous executions are cut off",
			fmtDuration(c.Limits.MaxExecutionTime))
	}

	d.sizeIn("max_body_bytes", c.MaxBodyBytes, 1<<10, 1<<30)
	if c.MaxBodyBytes < c.Limits.MaxDocumentBytes {
		d.bad("max_body_bytes", "must be at least limits.max_document_bytes (%s), or the largest documents cannot be sent", fmtSize(c.Limits.MaxDocumentBytes))
	}
	for i, e := range c.Egress.AllowPrivate {
		path := fmt.Sprintf("egress.allow_private[%d]", i)
		if _, ok := d.at[path]; !ok {
			path = "egress.allow_private" // set from the environment
		}
		if err := (egress.Policy{AllowPrivate: []string{e}}).Validate(); err != nil {
			d.bad(path, "%s", strings.TrimPrefix(err.Error(), "egress.allow_private: "))
		}
	}

	l := c.Limits
	d.intIn("limits.max_operations", int64(l.MaxOperations), 1, 10000)
	d.durationIn("limits.max_execution_time", l.MaxExecutionTime, time.Millisecond, day)
	d.intIn("limits.max_loop_iterations", int64(l.MaxLoopIterations), 1, 1_000_000)
	d.sizeIn("limits.max_document_bytes", l.MaxDocumentBytes, 1<<10, 1<<30)
	d.sizeIn("limits.max_response_bytes", l.MaxResponseBytes, 1<<10, 1<<30)
	d.sizeIn("limits.max_data_bytes", l.MaxDataBytes, 1<<20, 1<<30)
	d.durationIn("limits.async_execution_time", l.AsyncExecutionTime, time.Millisecond, 7*day)
	if l.AsyncExecutionTime < l.MaxExecutionTime {
		d.bad("limits.async_execution_time", "must not be shorter than limits.max_execution_time (%s)", fmtDuration(l.MaxExecutionTime))
	}

	r := c.RateLimits
	d.rate("rate_limits.requests_per_minute", r.RequestsPerMinute)
	d.rate("rate_limits.requests_per_hour", r.RequestsPerHour)
	d.rate("rate_limits.requests_per_day", r.RequestsPerDay)
	d.rate("rate_limits.api_calls_per_minute", r.APICallsPerMinute)
	d.rate("rate_limits.api_calls_per_hour", r.APICallsPerHour)
	d.rate("rate_limits.max_concurrent_executions", r.MaxConcurrentExecutions)
	d.durationIn("rate_limits.flush_interval", r.FlushInterval, time.Second, time.Hour)

	d.intIn("workers", int64(c.Workers), 1, 1024)
	d.durationIn("session.ttl", c.Session.TTL, time.Second, 30*day)
	d.durationIn("console.session_ttl", c.Console.SessionTTL, time.Minute, 30*day)
	if c.Console.Addr != "" {
		d.addrAt("console.addr", c.Console.Addr)
		if c.Console.Addr == c.Addr {
			d.bad("console.addr", "is addr (%s): leave it empty to serve the console on the API's address", c.Addr)
		}
	}
	d.sizeIn("session.max_line_bytes", c.Session.MaxLineBytes, 1<<10, 64<<20)
	d.intIn("session.max_parallel", int64(c.Session.MaxParallel), 1, 4096)
	d.intIn("session.calls_per_second", int64(c.Session.CallsPerSecond), 1, 1_000_000)
	d.durationIn("session.handshake_timeout", c.Session.HandshakeTimeout, 100*time.Millisecond, time.Hour)
	d.durationIn("session.shutdown_timeout", c.Session.ShutdownTimeout, time.Second, time.Hour)
	d.intIn("session.max_unauthenticated", int64(c.Session.MaxUnauthenticated), 1, 1_000_000)
	d.intIn("session.max_unauthenticated_per_address", int64(c.Session.MaxUnauthenticatedPerAddress), 1, 1_000_000)
	d.validateMCP(c.MCP)
	d.validateA2S(c.A2S)
	d.validateDiscovery(c.Discovery)
	d.validateAgents(c.Agents)
	d.validateRetention(c.Retention)
	d.sizeIn("store.max_execution_bytes", c.Store.MaxExecutionBytes, 1<<10, MaxStoredExecutionBytes)
	if c.Store.DSN != "" && c.Store.DSN != "sqlite" && !c.Store.Postgres() {
		d.bad("store.dsn", "want \"sqlite\" or a postgres:// URL")
	}
}

func (d *decoder) addr(a string) { d.addrAt("addr", a) }

// addrAt checks a listen address at path.
func (d *decoder) addrAt(path, a string) {
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		d.bad(path, "want host:port such as \"127.0.0.1:8080\" or \":8080\", got %q", a)
		return
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		d.bad(path, "port %q is not a number from 0 to 65535", port)
	}
	if strings.ContainsAny(host, " /") {
		d.bad(path, "host %q is not a host name or address", host)
	}
}

// adminKey settles the admin key: from SLUICE_ADMIN_KEY or admin_key_file,
// not both, and long enough. No message holds the key.
func (d *decoder) adminKey(c *Config) {
	fromEnv := c.AdminKey.Reveal() != ""
	if c.AdminKeyFile != "" {
		if fromEnv {
			d.bad("admin_key_file", "set %s or admin_key_file, not both", EnvAdminKey)
			return
		}
		text, err := ReadSecretFile(c.AdminKeyFile)
		if err != nil {
			d.bad("admin_key_file", "%s: %v", c.AdminKeyFile, err)
			return
		}
		c.AdminKey = NewSecret(text)
		d.at["admin_key"] = d.at["admin_key_file"]
	}
	if k := c.AdminKey.Reveal(); k != "" && len(k) < MinAdminKeyLen {
		p := d.at["admin_key"]
		p.Path = "admin_key"
		p.Message = fmt.Sprintf("the admin key has %d characters; it needs at least %d (e.g. `openssl rand -hex 32`)", len(k), MinAdminKeyLen)
		d.problems = append(d.problems, p)
	}
}

// fmtDuration drops zero trailing units: "24h", "1m", "1h30m".
func fmtDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// fmtSize writes a byte size in the largest binary unit that divides it.
func fmtSize(n int64) string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
