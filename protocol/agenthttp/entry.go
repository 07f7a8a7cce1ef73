package agenthttp

import (
	"bytes"
	"encoding/json"
	"math"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Entry is an agent's registry entry (RESOLUTIONS "HTTP task agents"):
//
//	{"name": "ResearchAgent", "url": "http://research-agent:8080",
//	 "auth_config": {"type": "bearer", "token": {"credentialRef": {"id": "..."}}},
//	 "timeout": 30000,
//	 "retry_config": {"max_retries": 3, "initial_delay_ms": 1000,
//	                  "max_delay_ms": 30000, "backoff_multiplier": 2.0}}
//
// An entry with "protocol": "a2a" is an A2A agent: URL is its agent card's
// URL, or the base URL its card is found under
// (/.well-known/agent-card.json), and its calls speak A2A instead of the
// task contract.
//
// An entry with "protocol": "acp" is an Agent Client Protocol agent, a
// program sluice runs: it has no URL and no auth_config, and its "acp"
// object (ACPSpec) names the allowlisted command that runs it.
//
// Build one with NewEntry (the defaults) or DecodeEntry; Validate checks it.
type Entry struct {
	Name string
	URL  string
	// Protocol is how the agent is called: ProtocolTask ("", the default),
	// ProtocolA2A or ProtocolACP.
	Protocol Protocol
	// ACP is set for protocol acp entries only.
	ACP *ACPSpec
	// Auth is nil when the agent takes no credentials.
	Auth    *AuthConfig
	Timeout time.Duration // whole milliseconds; DefaultTimeout
	Retry   RetryConfig
}

// Protocol is how a registered agent is called.
type Protocol string

// The protocols of the registry.
const (
	ProtocolTask Protocol = ""    // the task contract (POST the task, JSON answer)
	ProtocolA2A  Protocol = "a2a" // Google A2A, found by its agent card
)

// AuthType is the kind of an auth_config.
type AuthType string

// The auth types of the registry.
const (
	AuthBearer  AuthType = "bearer"  // Authorization: Bearer <token>
	AuthAPIKey  AuthType = "apikey"  // <header, default X-API-Key>: <key>
	AuthHeaders AuthType = "headers" // each header as configured
)

// AuthConfig is how an agent authenticates sluice. Only the fields of Type
// are set.
type AuthConfig struct {
	Type    AuthType
	Token   Secret            // bearer
	Key     Secret            // apikey
	Header  string            // apikey: the header name ("" means X-API-Key)
	Headers map[string]Secret // headers: header name -> value
}

// RetryConfig is an agent's retry policy. MaxRetries counts retries, not
// attempts: 3 means up to 4 attempts (RESOLUTIONS).
type RetryConfig struct {
	MaxRetries        int
	InitialDelay      time.Duration // whole milliseconds
	MaxDelay          time.Duration // whole milliseconds
	BackoffMultiplier float64
}

// Defaults and bounds of an entry.
const (
	DefaultTimeout           = 30 * time.Second
	DefaultMaxRetries        = 3
	DefaultInitialDelay      = time.Second
	DefaultMaxDelay          = 30 * time.Second
	DefaultBackoffMultiplier = 2.0

	MaxNameBytes      = 64
	MaxURLBytes       = 2048
	MaxTimeout        = time.Hour
	MaxRetriesLimit   = 10
	MaxDelayLimit     = 10 * time.Minute
	MaxMultiplier     = 10.0
	MaxCustomHeaders  = 32
	MaxHeaderNameSize = 128
)

// DefaultRetryConfig is the spec's default: 3 retries from 1 s, doubling,
// at most 30 s apart.
func DefaultRetryConfig() RetryConfig {
	return RetryConfig{MaxRetries: DefaultMaxRetries, InitialDelay: DefaultInitialDelay,
		MaxDelay: DefaultMaxDelay, BackoffMultiplier: DefaultBackoffMultiplier}
}

// NewEntry is an entry with the default timeout and retry policy.
func NewEntry(name, rawURL string) Entry {
	return Entry{Name: name, URL: rawURL, Timeout: DefaultTimeout, Retry: DefaultRetryConfig()}
}

// Delay is the wait before retry n (1 for the first retry):
// InitialDelay * BackoffMultiplier^(n-1), at most MaxDelay. Jitter is the
// caller's.
func (c RetryConfig) Delay(n int) time.Duration {
	if n < 1 {
		n = 1
	}
	d := float64(c.InitialDelay) * math.Pow(c.BackoffMultiplier, float64(n-1))
	if math.IsNaN(d) || d > float64(c.MaxDelay) {
		return c.MaxDelay
	}
	return time.Duration(d)
}

// reservedHeaders are set by the bridge itself; an entry may not set them.
var reservedHeaders = []string{"Host", "Content-Type", "Content-Length", "Transfer-Encoding", "Connection", "Te",
	"Trailer", "Upgrade", "Keep-Alive", "Proxy-Connection", "X-Correlation-Id", "Idempotency-Key"}

// CheckName checks an agent's name: 1 to MaxNameBytes of letters, digits,
// '_' and '-', starting with a letter or digit. No '.': session tools are
// named agent.<name>, and vault references agent.<name>.<...>.
func CheckName(what, name string) error {
	if name == "" {
		return errorf(what, "name", 0, "is required")
	}
	if len(name) > MaxNameBytes {
		return errorf(what, "name", 0, "is %d bytes long, over the limit of %d", len(name), MaxNameBytes)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case i > 0 && (c == '_' || c == '-'):
		default:
			return errorf(what, "name", 0, "holds %q at byte %d; use letters, digits, '_' and '-' (starting with a letter or digit)", rune(c), i)
		}
	}
	return nil
}

// CheckURL checks an agent's URL: absolute http or https with a host,
// without user info or fragment, at most MaxURLBytes. Whether the host may
// be reached is the egress policy's call, not the codec's.
func CheckURL(what, rawURL string) error {
	if rawURL == "" {
		return errorf(what, "url", 0, "is required")
	}
	if len(rawURL) > MaxURLBytes {
		return errorf(what, "url", 0, "is %d bytes long, over the limit of %d", len(rawURL), MaxURLBytes)
	}
	u, err := url.Parse(rawURL)
	switch {
	case err != nil:
		return errorf(what, "url", 0, "is not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return errorf(what, "url", 0, "want an http or https URL such as http://research-agent:8080")
	case u.Host == "" || u.Hostname() == "":
		return errorf(what, "url", 0, "has no host")
	case u.User != nil:
		return errorf(what, "url", 0, "may not hold user info; put credentials in auth_config")
	case u.Fragment != "" || strings.Contains(rawURL, "#"):
		return errorf(what, "url", 0, "may not hold a fragment")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return errorf(what, "url", 0, "has an invalid port")
		}
	}
	return nil
}

// HealthURL is the agent's health check URL: its URL with HealthPath
// appended to the path and no query.
func HealthURL(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", err
	}
	u.Path = strings.TrimRight(u.Path, "/") + HealthPath
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	return u.String(), nil
}

// checkHeaderName checks a header name an entry sets (RFC 9110 token, not
// one the bridge sets itself) and returns its canonical form.
func checkHeaderName(what, path, name string) (string, error) {
	if name == "" || len(name) > MaxHeaderNameSize {
		return "", errorf(what, path, 0, "must be a header name of 1 to %d characters", MaxHeaderNameSize)
	}
	for i := 0; i < len(name); i++ {
		if !isTokenChar(name[i]) {
			return "", errorf(what, path, 0, "holds %q at byte %d, which a header name cannot", rune(name[i]), i)
		}
	}
	c := textproto.CanonicalMIMEHeaderKey(name)
	if slices.Contains(reservedHeaders, c) {
		return "", errorf(what, path, 0, "%s is set by sluice itself", quoteShort(c))
	}
	return c, nil
}

func isTokenChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// Validate checks every field of e; errors name the field and never show a
// secret.
func (e Entry) Validate() error {
	const what = "entry"
	if err := CheckName(what, e.Name); err != nil {
		return err
	}
	switch e.Protocol {
	case ProtocolTask, ProtocolA2A:
		if e.ACP != nil {
			return errorf(what, acpSpecPath, 0, acpWrongProtocol)
		}
		if err := CheckURL(what, e.URL); err != nil {
			return err
		}
	case ProtocolACP:
		// The process is the operator's (agents.acp.commands): there is no
		// URL to reach and no credential to send.
		switch {
		case e.URL != "":
			return errorf(what, "url", 0, "is not a field of protocol \"acp\" entries: the agent is the program its acp.command names")
		case e.Auth != nil:
			return errorf(what, "auth_config", 0, "is not a field of protocol \"acp\" entries: the agent's credentials are in its command's env (agents.acp.commands)")
		case e.ACP == nil:
			return errorf(what, acpSpecPath, 0, "is required for protocol \"acp\": {\"command\": NAME} naming an entry of agents.acp.commands")
		}
		if err := e.ACP.validate(what); err != nil {
			return err
		}
	default:
		return errorf(what, "protocol", 0, "is %s; want \"a2a\" for an A2A agent, \"acp\" for an ACP agent, or leave it out for the task contract", quoteShort(string(e.Protocol)))
	}
	if e.Timeout <= 0 || e.Timeout > MaxTimeout || e.Timeout%time.Millisecond != 0 {
		return errorf(what, "timeout", 0, "must be 1 to %d whole milliseconds", MaxTimeout.Milliseconds())
	}
	if err := e.Retry.validate(what); err != nil {
		return err
	}
	if e.Auth != nil {
		return e.Auth.validate(what)
	}
	return nil
}

func (c RetryConfig) validate(what string) error {
	const p = "retry_config."
	switch {
	case c.MaxRetries < 0 || c.MaxRetries > MaxRetriesLimit:
		return errorf(what, p+"max_retries", 0, "is %d; want 0 to %d", c.MaxRetries, MaxRetriesLimit)
	case c.MaxDelay < 0 || c.MaxDelay > MaxDelayLimit || c.MaxDelay%time.Millisecond != 0:
		return errorf(what, p+"max_delay_ms", 0, "must be 0 to %d whole milliseconds", MaxDelayLimit.Milliseconds())
	case c.InitialDelay < 0 || c.InitialDelay > c.MaxDelay || c.InitialDelay%time.Millisecond != 0:
		return errorf(what, p+"initial_delay_ms", 0, "must be 0 to max_delay_ms (%d) whole milliseconds", c.MaxDelay.Milliseconds())
	case math.IsNaN(c.BackoffMultiplier) || c.BackoffMultiplier < 1 || c.BackoffMultiplier > MaxMultiplier:
		return errorf(what, p+"backoff_multiplier", 0, "must be 1 to %g", MaxMultiplier)
	}
	return nil
}

func (a *AuthConfig) validate(what string) error {
	const p = "auth_config"
	none := func(field string, set bool) error {
		if set {
			return errorf(what, join(p, field), 0, "is not a field of auth type %s", quoteShort(string(a.Type)))
		}
		return nil
	}
	var err error
	switch a.Type {
	case AuthBearer:
		if err = checkSecret(what, p+".token", a.Token); err == nil {
			err = firstErr(none("key", !a.Key.IsZero()), none("header", a.Header != ""), none("headers", a.Headers != nil))
		}
	case AuthAPIKey:
		if err = checkSecret(what, p+".key", a.Key); err == nil && a.Header != "" {
			_, err = checkHeaderName(what, p+".header", a.Header)
		}
		if err == nil {
			err = firstErr(none("token", !a.Token.IsZero()), none("headers", a.Headers != nil))
		}
	case AuthHeaders:
		if len(a.Headers) == 0 || len(a.Headers) > MaxCustomHeaders {
			return errorf(what, p+".headers", 0, "must name 1 to %d headers", MaxCustomHeaders)
		}
		seen := map[string]bool{}
		for _, name := range slices.Sorted(mapKeys(a.Headers)) {
			c, err := checkHeaderName(what, join(p+".headers", name), name)
			if err != nil {
				return err
			}
			if seen[c] {
				return errorf(what, join(p+".headers", name), 0, "names header %s twice", c)
			}
			seen[c] = true
			if err := checkSecret(what, join(p+".headers", name), a.Headers[name]); err != nil {
				return err
			}
		}
		err = firstErr(none("token", !a.Token.IsZero()), none("key", !a.Key.IsZero()), none("header", a.Header != ""))
	default:
		return errorf(what, p+".type", 0, "is %s; want bearer, apikey or headers", quoteShort(string(a.Type)))
	}
	return err
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// APIKeyHeader is the header an apikey entry sends its key in.
func (a *AuthConfig) APIKeyHeader() string {
	if a.Header == "" {
		return DefaultAPIKeyHeader
	}
	return textproto.CanonicalMIMEHeaderKey(a.Header)
}

// SecretField is one secret of an entry, for walking them.
type SecretField struct {
	Path   string // "auth_config.token", "auth_config.key", "auth_config.headers.X-Name"
	Header string // the header it is sent in ("Authorization" for bearer)
	Secret Secret // a copy: replace it with SetSecret
}

// Secrets lists the entry's secrets in a stable order (headers by name).
func (e *Entry) Secrets() []SecretField {
	a := e.Auth
	if a == nil {
		return nil
	}
	switch a.Type {
	case AuthBearer:
		return []SecretField{{Path: "auth_config.token", Header: "Authorization", Secret: a.Token}}
	case AuthAPIKey:
		return []SecretField{{Path: "auth_config.key", Header: a.APIKeyHeader(), Secret: a.Key}}
	case AuthHeaders:
		var out []SecretField
		for _, name := range slices.Sorted(mapKeys(a.Headers)) {
			out = append(out, SecretField{Path: join("auth_config.headers", name),
				Header: textproto.CanonicalMIMEHeaderKey(name), Secret: a.Headers[name]})
		}
		return out
	}
	return nil
}

// SetSecret replaces the secret at a path Secrets gave (maps hold values, so
// header secrets are set through here).
func (e *Entry) SetSecret(path string, s Secret) {
	a := e.Auth
	if a == nil {
		return
	}
	switch {
	case path == "auth_config.token":
		a.Token = s
	case path == "auth_config.key":
		a.Key = s
	default:
		for name := range a.Headers {
			if join("auth_config.headers", name) == path {
				a.Headers[name] = s
			}
		}
	}
}

// HasPlainSecrets reports whether any secret of e is still in clear.
func (e *Entry) HasPlainSecrets() bool {
	for _, f := range e.Secrets() {
		if !f.Secret.IsRef() && !f.Secret.IsZero() {
			return true
		}
	}
	return false
}

// Clone is a deep copy of e (maps included), so a caller may change secrets
// without touching the original.
func (e Entry) Clone() Entry {
	if e.Auth != nil {
		a := *e.Auth
		if a.Headers != nil {
			a.Headers = make(map[string]Secret, len(e.Auth.Headers))
			for k, v := range e.Auth.Headers {
				a.Headers[k] = v
			}
		}
		e.Auth = &a
	}
	e.ACP = e.ACP.clone()
	return e
}

type entryWire struct {
	Name     string    `json:"name"`
	URL      string    `json:"url,omitempty"`
	Protocol Protocol  `json:"protocol,omitempty"`
	ACP      *acpWire  `json:"acp,omitempty"`
	Auth     *authWire `json:"auth_config,omitempty"`
	Timeout  int64     `json:"timeout"`
	Retry    retryWire `json:"retry_config"`
}

type authWire struct {
	Type    AuthType          `json:"type"`
	Token   *Secret           `json:"token,omitempty"`
	Key     *Secret           `json:"key,omitempty"`
	Header  string            `json:"header,omitempty"`
	Headers map[string]Secret `json:"headers,omitempty"`
}

type retryWire struct {
	MaxRetries        int     `json:"max_retries"`
	InitialDelayMs    int64   `json:"initial_delay_ms"`
	MaxDelayMs        int64   `json:"max_delay_ms"`
	BackoffMultiplier float64 `json:"backoff_multiplier"`
}

func (e Entry) wire() entryWire {
	w := entryWire{Name: e.Name, URL: e.URL, Protocol: e.Protocol, ACP: e.ACP.wire(), Timeout: e.Timeout.Milliseconds(), Retry: retryWire{
		MaxRetries: e.Retry.MaxRetries, InitialDelayMs: e.Retry.InitialDelay.Milliseconds(),
		MaxDelayMs: e.Retry.MaxDelay.Milliseconds(), BackoffMultiplier: e.Retry.BackoffMultiplier}}
	if a := e.Auth; a != nil {
		aw := &authWire{Type: a.Type, Header: a.Header, Headers: a.Headers}
		if !a.Token.IsZero() {
			aw.Token = &a.Token
		}
		if !a.Key.IsZero() {
			aw.Key = &a.Key
		}
		if a.Type == AuthAPIKey && aw.Header == "" {
			aw.Header = DefaultAPIKeyHeader
		}
		w.Auth = aw
	}
	return w
}

// MarshalJSON writes the normalized entry: every field, defaults filled in,
// secrets as credentialRefs. An entry with a secret in clear is
// ErrPlainSecret: such an entry is never written anywhere.
func (e Entry) MarshalJSON() ([]byte, error) {
	if e.HasPlainSecrets() {
		return nil, ErrPlainSecret
	}
	return json.Marshal(e.wire())
}

// EncodeRegistration writes e with its plain secrets as they are: the body
// of a registration sent to the server (over TLS), which moves them into
// its vault. Nothing else may use it.
func EncodeRegistration(e Entry) ([]byte, error) {
	w := e.wire()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	type plainAuth struct {
		Type    AuthType       `json:"type"`
		Token   any            `json:"token,omitempty"`
		Key     any            `json:"key,omitempty"`
		Header  string         `json:"header,omitempty"`
		Headers map[string]any `json:"headers,omitempty"`
	}
	reveal := func(s *Secret) any {
		if s == nil || s.IsZero() {
			return nil
		}
		if s.IsRef() {
			return s
		}
		return s.plain
	}
	out := struct {
		Name     string     `json:"name"`
		URL      string     `json:"url,omitempty"`
		Protocol Protocol   `json:"protocol,omitempty"`
		ACP      *acpWire   `json:"acp,omitempty"`
		Auth     *plainAuth `json:"auth_config,omitempty"`
		Timeout  int64      `json:"timeout"`
		Retry    retryWire  `json:"retry_config"`
	}{Name: w.Name, URL: w.URL, Protocol: w.Protocol, ACP: w.ACP, Timeout: w.Timeout, Retry: w.Retry}
	if w.Auth != nil {
		pa := &plainAuth{Type: w.Auth.Type, Token: reveal(w.Auth.Token), Key: reveal(w.Auth.Key), Header: w.Auth.Header}
		if w.Auth.Headers != nil {
			pa.Headers = map[string]any{}
			for k, v := range w.Auth.Headers {
				pa.Headers[k] = reveal(&v)
			}
		}
		out.Auth = pa
	}
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
