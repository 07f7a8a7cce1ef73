package op

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/sluicehq/sluice/internal/cache"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/vault/redact"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// ApiCallOp sends one HTTP request.
var ApiCallOp = Registration{
	Spec: Spec{
		Name:    a2e.OpApiCall,
		Summary: "Send an HTTP request and store the response body",
		Description: "Sends method (GET, POST, PUT, DELETE, PATCH) to url and writes the response body to " +
			"outputPath: decoded JSON when the response is JSON, otherwise the text. The scheme and host " +
			"must be written literally and be among the account's permitted hosts; {/workflow/...} and " +
			"{/input/...} references may fill the path (escaped as a segment) and the query (escaped as a " +
			"component). headers values are strings (with references) or " +
			`{"credentialRef": {"id": "..."}}, resolved from the vault at send time and never shown; ` +
			"body is any JSON, sent as JSON, whose strings may be references (a string that is exactly one " +
			"reference sends the raw value) or credentialRefs. timeout is in ms (default 30000). A non-2xx " +
			"answer is an ExecutionError with details.statusCode and the start of the response. GET results " +
			"are cached for 5 minutes per account unless the API's Cache-Control says otherwise or cache is " +
			"false; a POST, PUT, PATCH or DELETE drops cached GETs under its URL. POST and PATCH are retried " +
			"only when the request surely did not arrive, on 429 and on 503 with Retry-After, unless " +
			"idempotencyKey (sent as Idempotency-Key) or retry.unsafe is set.",
		CacheTTL:    apiCacheTTL,
		SideEffects: true,
		Remote:      true,
		MetersData:  true,
		Example: `{"type":"operationUpdate","operationId":"fetch-user","operation":{"ApiCall":{"method":"GET","url":"https://api.example.com/users/{/input/userId}","headers":{"Authorization":{"credentialRef":{"id":"api-key-123"}},"Accept":"application/json"},"outputPath":"/workflow/user"}}}
{"type":"operationUpdate","operationId":"save-note","operation":{"ApiCall":{"method":"POST","url":"https://api.example.com/users/{/input/userId}/notes","body":{"text":"seen {/workflow/user.name}","user":"{/workflow/user}"},"idempotencyKey":"note-{/input/userId}","outputPath":"/workflow/note"}}}
{"type":"beginExecution","executionId":"apicall-example","operationOrder":["fetch-user","save-note"]}
`,
	},
	New: newApiCall,
}

const (
	apiBase           = "operation.ApiCall"
	apiCacheTTL       = 5 * time.Minute
	apiDefaultTimeout = 30 * time.Second
	// apiErrorBodyRead is how much of an error response is read to quote from it.
	apiErrorBodyRead = 64 << 10
	// apiErrorQuote bounds the response text quoted in details.response.
	apiErrorQuote = 512
	// apiMaxRequestBody bounds a rendered request body.
	apiMaxRequestBody = 10 << 20
	// apiMaxRetryAfter bounds the server's Retry-After hint.
	apiMaxRetryAfter = time.Hour
)

var apiMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch}

// apiForbiddenHeaders are set by the transport, or would let a workflow tamper
// with the connection; a workflow may not set them.
var apiForbiddenHeaders = []string{"Host", "Content-Length", "Transfer-Encoding", "Connection", "Upgrade",
	"Te", "Trailer", "Keep-Alive", "Proxy-Connection", "Proxy-Authorization"}

type apiCall struct {
	method     string
	url        *urlTemplate
	headers    []apiHeader // sorted by name
	body       *bodyNode   // nil: no body
	idemKey    *textTemplate
	timeout    time.Duration
	unsafeOK   bool // POST/PATCH may retry on every retryable outcome
	cache      bool // GET results go to the cache
	credIDs    []string
	output     a2e.Path
	reads      []a2e.Path
	d          *Deps
	hostCheck  egress.HostCheck
	sensitive  egress.Sensitive // what a redirect to another origin must not carry
	jsonCTBody bool             // a Content-Type header is given and says JSON (literal headers only)
	maxResp    int64            // the operation's maxResponseBytes; 0: the server's limit
	redactors  redactorMemo
}

type apiHeader struct {
	name   string
	text   textTemplate
	credID string // set: the value is this credential
}

func newApiCall(raw json.RawMessage, d *Deps) (Operation, error) {
	var cfg a2e.ApiCall
	if err := decodeStrict(raw, &cfg, a2e.OpApiCall); err != nil {
		return nil, err
	}
	if err := validateCommon(cfg.Common, apiBase); err != nil {
		return nil, err
	}
	if err := oneOf(cfg.Method, apiMethods, apiBase+".method", "method"); err != nil {
		return nil, err
	}
	a := &apiCall{method: cfg.Method, timeout: apiDefaultTimeout, d: d}
	if cfg.Timeout != nil {
		a.timeout = time.Duration(*cfg.Timeout) * time.Millisecond
	}
	if err := a.setMaxResponse(cfg.MaxResponseBytes); err != nil {
		return nil, err
	}
	a.unsafeOK = cfg.IdempotencyKey != "" || (cfg.Retry != nil && cfg.Retry.Unsafe)
	a.cache = cfg.Method == http.MethodGet && (cfg.Cache == nil || *cfg.Cache)
	if cfg.Cache != nil && *cfg.Cache && cfg.Method != http.MethodGet {
		return nil, invalidConfig(apiBase+".cache", "only GET results are cached; %s with cache: true is not supported", cfg.Method).
			WithSuggestions("Remove cache, or set it to false")
	}

	var err error
	if a.url, err = parseURLTemplate(cfg.URL, apiBase+".url"); err != nil {
		return nil, err
	}
	// The host is always literal (templates may not stand there), so the grant is
	// checked here, before anything runs; Run checks again.
	if !d.Permissions.AllowsHost(a.url.host, a.url.port) {
		return nil, fault.Typed(fault.PermissionDenied, fault.PermissionError,
			"host %s is not permitted for this account", net.JoinHostPort(a.url.host, a.url.port)).
			At(0, apiBase+".url").WithDetail("host", a.url.host).
			WithSuggestions("Use a host listed in availableApis of /api/v1/capabilities, or ask for a grant")
	}
	if a.output, err = parseOutputPath(cfg.OutputPath, apiBase+".outputPath"); err != nil {
		return nil, err
	}
	if err := a.parseHeaders(cfg.Headers); err != nil {
		return nil, err
	}
	if cfg.IdempotencyKey != "" {
		if len(cfg.IdempotencyKey) > 255 {
			return nil, invalidConfig(apiBase+".idempotencyKey", "%s.idempotencyKey is over 255 characters", apiBase)
		}
		t, err := parseTextTemplate(cfg.IdempotencyKey, apiBase+".idempotencyKey")
		if err != nil {
			return nil, err
		}
		a.idemKey = &t
	}
	if len(bytes.TrimSpace(cfg.Body)) > 0 && !bytes.Equal(bytes.TrimSpace(cfg.Body), []byte("null")) {
		if a.body, err = parseBody(cfg.Body, apiBase+".body"); err != nil {
			return nil, err
		}
		a.body.visit(func(n *bodyNode) {
			switch n.kind {
			case bodyCred:
				a.credIDs = append(a.credIDs, n.credID)
				a.sensitive.Body = true
			case bodyWhole:
				a.reads = append(a.reads, n.ref)
			case bodyText:
				a.reads = append(a.reads, n.text.refs()...)
			}
		})
	}
	slices.Sort(a.credIDs)
	a.credIDs = slices.Compact(a.credIDs)
	for _, id := range a.credIDs {
		if !d.Permissions.AllowsCredential(id) {
			return nil, fault.Typed(fault.PermissionDenied, fault.PermissionError, "credential %q is not permitted for this account", id).
				At(0, a.credPath(id)).WithDetail("credentialId", id).
				WithSuggestions("Use a credential listed in availableCredentials of /api/v1/capabilities")
		}
	}
	a.reads = append(a.reads, a.url.refs()...)
	for _, h := range a.headers {
		a.reads = append(a.reads, h.text.refs()...)
	}
	if a.idemKey != nil {
		a.reads = append(a.reads, a.idemKey.refs()...)
	}
	a.hostCheck = func(host, port string) error {
		if d.Permissions.AllowsHost(host, port) {
			return nil
		}
		return &egress.DeniedError{Host: host, Port: port, Reason: "host is not permitted for this account"}
	}
	return a, nil
}

func (a *apiCall) parseHeaders(hs map[string]json.RawMessage) error {
	seen := map[string]string{}
	for name, raw := range hs {
		path := apiBase + ".headers." + name
		if !validHeaderName(name) {
			return invalidConfig(path, "%q is not a valid HTTP header name", name)
		}
		canon := http.CanonicalHeaderKey(name)
		if slices.Contains(apiForbiddenHeaders, canon) {
			return invalidConfig(path, "header %s is set by sluice and may not be given", canon)
		}
		if canon == "Idempotency-Key" {
			return invalidConfig(path, "set the Idempotency-Key header with the idempotencyKey field").
				WithSuggestions(`Write "idempotencyKey": "..." next to headers`)
		}
		if other, dup := seen[canon]; dup {
			return invalidConfig(path, "headers %q and %q are the same header", other, name)
		}
		seen[canon] = name
		h := apiHeader{name: canon}
		trimmed := bytes.TrimSpace(raw)
		switch {
		case len(trimmed) > 0 && trimmed[0] == '"':
			var s string
			if err := json.Unmarshal(trimmed, &s); err != nil {
				return invalidConfig(path, "%s is not a valid JSON string", path).WithCause(err)
			}
			if strings.ContainsAny(s, "\r\n\x00") {
				return invalidConfig(path, "%s may not hold line breaks or NUL", path)
			}
			t, err := parseTextTemplate(s, path)
			if err != nil {
				return err
			}
			h.text = t
		case len(trimmed) > 0 && trimmed[0] == '{':
			var obj map[string]any
			if err := json.Unmarshal(trimmed, &obj); err != nil || len(obj) != 1 || obj["credentialRef"] == nil {
				return invalidConfig(path, `%s must be a string or {"credentialRef": {"id": "..."}}`, path)
			}
			id, err := credentialID(obj["credentialRef"], path)
			if err != nil {
				return err
			}
			h.credID = id
			a.credIDs = append(a.credIDs, id)
			a.sensitive.Headers = append(a.sensitive.Headers, canon)
		default:
			return invalidConfig(path, `%s must be a string or {"credentialRef": {"id": "..."}}`, path).
				WithSuggestions(`Write numbers as strings, e.g. "X-Limit": "10"`)
		}
		if canon == "Content-Type" {
			if lit, ok := h.text.literal(); ok && h.credID == "" {
				a.jsonCTBody = isJSONMediaType(lit)
			}
		}
		a.headers = append(a.headers, h)
	}
	slices.SortFunc(a.headers, func(x, y apiHeader) int { return strings.Compare(x.name, y.name) })
	return nil
}

// credPath names where a credential id is used, for errors.
func (a *apiCall) credPath(id string) string {
	for _, h := range a.headers {
		if h.credID == id {
			return apiBase + ".headers." + h.name + ".credentialRef.id"
		}
	}
	return apiBase + ".body"
}

func validHeaderName(s string) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

func isJSONMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json") || mt == "text/json"
}

// Reads lists the data-model paths the URL, headers, idempotency key and body read.
func (a *apiCall) Reads() []a2e.Path { return a.reads }

// Writes is the outputPath.
func (a *apiCall) Writes() (a2e.Path, bool) { return a.output, true }

// apiRequest is one rendered request: what is sent, and what may be shown.
type apiRequest struct {
	url      *url.URL
	scope    string // scheme://host:port/path, the cache scope (no query)
	header   http.Header
	body     []byte
	cacheKey string           // "" when not cached
	redactor *redact.Redactor // of the credential values sent: scrubs anything shown
}

// Run sends the request once; the engine retries errors marked retryable.
func (a *apiCall) Run(ctx context.Context, rc *RunContext) (any, error) {
	res, err := a.run(ctx, rc)
	if err != nil {
		if fe, ok := fault.As(err); ok && fe.OperationID == "" {
			fe.WithOp(rc.OperationID)
		}
		return nil, err
	}
	return res, nil
}

func (a *apiCall) run(ctx context.Context, rc *RunContext) (any, error) {
	if a.d.Client == nil {
		return nil, fault.Typed(fault.Unavailable, fault.ExecutionError, "HTTP calls are not configured on this server")
	}
	req, err := a.render(ctx, rc)
	if err != nil {
		return nil, err
	}
	if req.cacheKey != "" {
		if v, ok := a.d.Cache.Get(rc.Account, req.cacheKey); ok {
			a.log(rc, "api call served from cache", req, 0)
			if err := rc.Budget.ChargeValue(rc.OperationID, v); err != nil {
				return nil, err
			}
			return v, nil
		}
	}

	if a.d.Meter != nil {
		if err := a.d.Meter.AllowCall(ctx, rc.Account); err != nil {
			return nil, err
		}
	}
	reqCtx := egress.WithHostCheck(ctx, a.hostCheck)
	if a.sensitive.Body || len(a.sensitive.Headers) > 0 {
		reqCtx = egress.WithSensitive(reqCtx, a.sensitive)
	}
	// The engine bounds each attempt by this operation's timeout already; the
	// operation bounds itself too for callers without an engine, but not with a
	// second timer when its context ends sooner anyway.
	attemptCtx := reqCtx
	if d, ok := reqCtx.Deadline(); !ok || time.Until(d) > a.timeout {
		var cancel context.CancelFunc
		attemptCtx, cancel = context.WithTimeout(reqCtx, a.timeout)
		defer cancel()
	}
	hreq, err := newHTTPRequest(attemptCtx, a.method, req)
	if err != nil {
		return nil, fault.Typed(fault.Invalid, fault.DataError, "the request cannot be made: %s", err.Error()).WithCause(err)
	}
	resp, err := a.d.Client.Do(hreq)
	if a.method != http.MethodGet && a.d.Cache != nil {
		// Whatever the outcome, the write may have reached the server: cached
		// reads under its URL can no longer be trusted.
		a.d.Cache.InvalidateScope(rc.Account, req.scope)
	}
	if err != nil {
		return nil, a.transportFault(err, ctx, attemptCtx, req)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, a.statusFault(resp, req, rc)
	}
	if err := a.chargeBody(rc, resp.ContentLength); err != nil {
		return nil, err
	}
	v, err := a.decode(resp, req, ctx, attemptCtx)
	if err != nil {
		return nil, err
	}
	if err := chargeDecoded(rc, v, max(resp.ContentLength, 0)); err != nil {
		return nil, err
	}
	a.log(rc, "api call", req, resp.StatusCode)
	if req.cacheKey != "" {
		if ttl := cacheTTL(resp.Header, apiCacheTTL); ttl > 0 {
			a.d.Cache.Put(rc.Account, req.cacheKey, req.scope, v, ttl)
		}
	}
	return v, nil
}

// newHTTPRequest makes the request from the rendered URL. A request without a
// body is built directly: http.NewRequest would print the URL and parse it
// back, a cost paid on every call.
func newHTTPRequest(ctx context.Context, method string, req *apiRequest) (*http.Request, error) {
	if req.body != nil {
		r, err := http.NewRequestWithContext(ctx, method, req.url.String(), bytes.NewReader(req.body))
		if err != nil {
			return nil, err
		}
		r.Header = req.header
		return r, nil
	}
	r := &http.Request{Method: method, URL: req.url, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: req.header, Host: req.url.Host}
	return r.WithContext(ctx), nil
}

// render interpolates everything, checks the host grant again and resolves the
// credentials. Nothing has been sent when it returns.
func (a *apiCall) render(ctx context.Context, rc *RunContext) (*apiRequest, error) {
	u, err := a.url.render(rc.Data)
	if err != nil {
		return nil, err
	}
	if err := a.hostCheck(a.url.host, a.url.port); err != nil {
		return nil, fault.Typed(fault.PermissionDenied, fault.PermissionError, "host %s is not permitted for this account",
			net.JoinHostPort(a.url.host, a.url.port)).WithDetail("host", a.url.host)
	}
	req := &apiRequest{url: u, header: make(http.Header, len(a.headers)+2)}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	req.scope = a.url.scheme + "://" + net.JoinHostPort(a.url.host, a.url.port) + path

	creds := map[string]string{}
	var values []string
	for _, id := range a.credIDs {
		if !a.d.Permissions.AllowsCredential(id) { // checked at build; a grant may be narrower now
			return nil, fault.Typed(fault.PermissionDenied, fault.PermissionError, "credential %q is not permitted for this account", id).
				WithDetail("credentialId", id)
		}
		if a.d.Vault == nil {
			return nil, fault.Typed(fault.PermissionDenied, fault.PermissionError, "credential %q is not available", id).
				WithDetail("credentialId", id)
		}
		s, err := a.d.Vault.Resolve(ctx, id)
		if err != nil {
			if fe, ok := fault.As(err); ok {
				return nil, fe
			}
			return nil, fault.Typed(fault.PermissionDenied, fault.PermissionError, "credential %q is not available", id).
				WithDetail("credentialId", id).WithCause(err)
		}
		// Validation refused a literal host outside the binding already; a
		// plan compiled before the binding changed is caught here, before
		// anything is sent.
		if !policy.CredentialMaySend(s.Hosts, a.url.host, a.url.port) {
			return nil, policy.CredentialHostDenied(id, s.Hosts, a.url.host, a.url.port)
		}
		val := s.Value
		if s.Type == "bearer-token" {
			val = "Bearer " + s.Value
		}
		creds[id] = val
		values = append(values, s.Value)
	}
	req.redactor = a.redactors.of(values)

	// keyParts is the request as the cache sees it: credentials by id only.
	// It is built only when the result may be cached.
	wantKey := a.cache && a.d.Cache != nil
	var keyParts []any
	if wantKey {
		keyParts = []any{a2e.OpApiCall, a.method, u.String()}
	}
	contentType := ""
	for _, h := range a.headers {
		var val string
		if h.credID != "" {
			val = creds[h.credID]
			if wantKey {
				keyParts = append(keyParts, h.name, "credentialRef:"+h.credID)
			}
		} else {
			if val, err = h.text.render(rc.Data); err != nil {
				return nil, err
			}
			if strings.ContainsAny(val, "\r\n\x00") {
				return nil, fault.Typed(fault.Invalid, fault.DataError, "header %s would hold a line break or NUL after interpolation", h.name)
			}
			if wantKey {
				keyParts = append(keyParts, h.name, val)
			}
		}
		if h.name == "Content-Type" {
			contentType = val
		}
		req.header[h.name] = []string{val}
	}
	if _, ok := req.header["User-Agent"]; !ok {
		req.header["User-Agent"] = []string{"sluice"}
	}
	if a.idemKey != nil {
		k, err := a.idemKey.render(rc.Data)
		if err != nil {
			return nil, err
		}
		if strings.ContainsAny(k, "\r\n\x00") || len(k) > 1024 {
			return nil, fault.Typed(fault.Invalid, fault.DataError, "idempotencyKey is over 1024 bytes or holds a line break after interpolation")
		}
		req.header["Idempotency-Key"] = []string{k}
		if wantKey {
			keyParts = append(keyParts, "Idempotency-Key", k)
		}
	}
	if a.body != nil {
		if err := a.renderBody(req, rc.Data, creds, contentType, &keyParts); err != nil {
			return nil, err
		}
	}
	if wantKey {
		req.cacheKey = cache.Key(keyParts...)
	}
	return req, nil
}

// renderBody sends a string body as is under a non-JSON Content-Type, and JSON
// otherwise (with Content-Type application/json unless one was given).
func (a *apiCall) renderBody(req *apiRequest, data Data, creds map[string]string, contentType string, keyParts *[]any) error {
	if contentType != "" && !isJSONMediaType(contentType) {
		s, isString, err := a.body.asString(data, creds)
		if err != nil {
			return err
		}
		if isString {
			req.body = []byte(s)
		}
	}
	if req.body == nil {
		var b bytes.Buffer
		if err := a.body.write(&b, data, creds, false); err != nil {
			return err
		}
		req.body = b.Bytes()
		if contentType == "" {
			req.header["Content-Type"] = []string{"application/json"}
		}
	}
	if len(req.body) > apiMaxRequestBody {
		return fault.Typed(fault.Invalid, fault.DataError, "the request body is %d bytes, over the limit of %d", len(req.body), apiMaxRequestBody)
	}
	if *keyParts != nil {
		var b bytes.Buffer
		if err := a.body.write(&b, data, nil, true); err != nil {
			return err
		}
		*keyParts = append(*keyParts, "body", b.String())
	}
	return nil
}

// decode reads a 2xx body: JSON when the response says so, otherwise text.
func (a *apiCall) decode(resp *http.Response, req *apiRequest, ctx, attemptCtx context.Context) (any, error) {
	max := a.maxResponse()
	if resp.ContentLength > max {
		return nil, a.tooLarge(req, max)
	}
	body, err := readBody(resp, max)
	if err != nil {
		return nil, a.transportFault(err, ctx, attemptCtx, req)
	}
	if int64(len(body)) > max {
		return nil, a.tooLarge(req, max)
	}
	if isJSONMediaType(resp.Header.Get("Content-Type")) {
		if len(bytes.TrimSpace(body)) == 0 {
			return nil, nil
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return nil, fault.Typed(fault.Upstream, fault.ExecutionError, "%s answered with invalid JSON", a.target(req)).
				WithDetail("statusCode", resp.StatusCode).WithCause(err).
				WithSuggestions("Check that the endpoint returns JSON, or that its Content-Type is right")
		}
		return req.redactor.ScrubValue(v), nil
	}
	return req.redactor.ScrubText(strings.ToValidUTF8(string(body), "\uFFFD")), nil
}

// target names the request for messages: method and URL without the query.
func (a *apiCall) target(req *apiRequest) string { return a.method + " " + req.scope }

// Safe implements SafeOperation: GET and HEAD change nothing (RFC 9110 §9.2.1).
func (a *apiCall) Safe() bool { return a.method == http.MethodGet || a.method == http.MethodHead }

// safe reports whether every retryable outcome may be retried: the method is
// idempotent, or the operation carries an idempotency key or retry.unsafe.
func (a *apiCall) safe() bool {
	return a.method != http.MethodPost && a.method != http.MethodPatch || a.unsafeOK
}

// transportFault classifies a failure to get a response (or to read it).
func (a *apiCall) transportFault(err error, ctx, attemptCtx context.Context, req *apiRequest) error {
	if d, ok := egress.IsDenied(err); ok {
		return fault.Typed(fault.PermissionDenied, fault.PermissionError, "%s refused: %s", a.target(req), deniedText(d)).
			WithDetail("host", d.Host).WithCause(err).
			WithSuggestions("Private, loopback and link-local addresses need the server's egress.allow_private")
	}
	var redir *egress.RedirectError
	if errors.As(err, &redir) {
		return fault.Typed(fault.Upstream, fault.ExecutionError, "%s: %s", a.target(req), redir.Error()).WithCause(err)
	}
	if ctx.Err() == context.Canceled {
		return fault.Typed(fault.Unavailable, fault.ExecutionError, "%s was cancelled", a.target(req)).WithCause(ctx.Err())
	}
	if errors.Is(err, context.DeadlineExceeded) || attemptCtx.Err() == context.DeadlineExceeded || isNetTimeout(err) {
		fe := fault.Typed(fault.Timeout, fault.TimeoutError, "%s timed out after %d ms", a.target(req), a.timeout.Milliseconds()).
			WithCause(err).WithSuggestions("Raise the operation's timeout, or check the API's availability")
		if a.safe() {
			fe.Retry(0)
		}
		return fe
	}
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	if errors.As(err, &certErr) || errors.As(err, &unknownCA) || errors.As(err, &hostErr) {
		return fault.Typed(fault.Upstream, fault.ExecutionError, "%s: the server's TLS certificate is not trusted", a.target(req)).WithCause(err)
	}
	fe := fault.Typed(fault.Unavailable, fault.ExecutionError, "%s failed: could not connect", a.target(req)).WithCause(err).
		WithSuggestions("Check API endpoint availability")
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.As(err, &dnsErr):
		fe.Message = fmt.Sprintf("%s failed: the host name could not be resolved", a.target(req))
		fe.Retry(0) // surely not sent
	case errors.As(err, &opErr) && opErr.Op == "dial":
		fe.Retry(0) // no connection, so nothing was sent
	default:
		fe.Message = fmt.Sprintf("%s failed: the connection broke", a.target(req))
		if a.safe() {
			fe.Retry(0)
		}
	}
	return fe
}

func deniedText(d *egress.DeniedError) string {
	if d.Addr != "" {
		return fmt.Sprintf("%s resolves to a %s", d.Host, d.Reason)
	}
	return d.Reason
}

func isNetTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func (a *apiCall) log(rc *RunContext, msg string, req *apiRequest, status int) {
	// The check comes first: the arguments below would be allocated even for
	// a disabled level.
	if rc.Logger == nil || !rc.Logger.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	rc.Logger.Debug(msg, "operationId", rc.OperationID, "method", a.method, "target", req.scope, "status", status)
}
