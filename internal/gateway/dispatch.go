package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/telemetry"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// Call is one request on its way through the dispatcher: the envelope every
// ingress decodes into, the key it presented (kept out of the envelope, which
// is logged and audited), and what the policy chain found.
type Call struct {
	Env       *e2a.Envelope
	Key       string // the presented API key; cleared once checked
	Transport string // rest, e2a, session
	Principal *account.Principal
	// conn is the authentication of the connection the call came on (a
	// session's handshake): the call carries no key of its own.
	conn *ConnAuth
	// Limit is the request-limit decision, for the X-RateLimit-* headers; nil
	// for calls that are not limited.
	Limit *LimitStatus

	// decodeErr is a problem the ingress codec found in the request; it is
	// reported after authentication, in place of the service's answer.
	decodeErr error
	// keyErr is why the request presents no usable key (none, two, or two
	// that differ: policy.PresentedKey); a method that needs a key refuses it.
	keyErr error
	// authErr is the refusal of an ingress that authenticated before reading
	// the request's body (Dispatcher.Preauthenticate).
	authErr error
}

// LimitStatus is the state of an account's tightest request window.
type LimitStatus struct {
	Limit      int
	Remaining  int
	Reset      time.Time
	Allowed    bool
	RetryAfter time.Duration
	// Window names the refused window ("minute", "hour", "day") and Message
	// says it in the spec's words ("Rate limit exceeded: 60 requests per minute").
	Window  string
	Message string
}

// Authenticator turns a presented key into the account it belongs to. An
// unknown, revoked or expired key, or a disabled account, is a *fault.Error of
// kind Unauthenticated whose message does not say which.
type Authenticator interface {
	Authenticate(ctx context.Context, key string) (*account.Principal, error)
}

// RequestLimiter decides whether an account may make one more request.
type RequestLimiter interface {
	AllowRequest(p *account.Principal) LimitStatus
}

// AuditSink takes audit records; it must not block the caller for long.
type AuditSink interface {
	Record(r AuditRecord)
}

// AuditRecord is one request (Operation empty) or one operation of a workflow.
type AuditRecord struct {
	Time      time.Time
	RequestID string
	AccountID string
	Method    string
	Operation string
	Decision  string // allow, deny, limited
	Latency   time.Duration
	Status    string // succeeded, failed (of the call) or the step's outcome
	ErrorCode string
}

// Audit decisions.
const (
	DecisionAllow   = "allow"
	DecisionDeny    = "deny"
	DecisionLimited = "limited"
)

// handler is a service method bound to its checked parameters
// (methodSpec.bind): it writes frames to w, ending with a final one; or it
// returns an error, which the dispatcher writes as the final e2a.error frame.
type handler func(ctx context.Context, c *Call, w *e2a.StreamWriter) error

type method struct {
	access access
	handle handler
}

// Dispatcher runs every call through one policy chain: authenticate ->
// authorize -> rate limit -> audit, then the service. No handler decides who
// may call it; ingress codecs only translate.
type Dispatcher struct {
	methods map[string]method
	auth    Authenticator
	limiter RequestLimiter
	audit   AuditSink
	metrics *metrics
	clock   clock.Clock
	logger  *slog.Logger
	// connRecheck is how long a connection's principal holds before its
	// key is checked again (ConnAuth); 0 is connRecheck.
	connRecheck time.Duration
}

// register adds a gateway method.
func (d *Dispatcher) register(name string, a access, h handler) {
	if _, dup := d.methods[name]; dup {
		panic("gateway: method registered twice: " + name)
	}
	d.methods[name] = method{access: a, handle: h}
}

// Dispatch runs c and writes its frames to sink. It always writes exactly one
// final frame (unless the sink fails).
func (d *Dispatcher) Dispatch(ctx context.Context, c *Call, sink e2a.FrameSink) {
	start := d.clock.Now()
	ctx, span := startCall(ctx, c)
	m, decision, refusal := d.admit(ctx, c)
	// The stream is made after authentication, so its frames carry the
	// account, not what the envelope claimed.
	rec := &recordingSink{next: sink}
	w, err := e2a.NewStreamWriter(c.Env, rec, e2a.StreamOptions{Now: d.clock.Now})
	if err != nil {
		// Ingress codecs always set a request id; this is a defect.
		d.logger.ErrorContext(ctx, "dispatch without a request id", "method", c.Env.Method, "error", err)
		endCall(span, c, decision, "internal")
		return
	}
	switch {
	case refusal != nil:
		d.fail(ctx, w, c, refusal)
	case c.decodeErr != nil:
		d.fail(ctx, w, c, c.decodeErr)
	default:
		if err := d.call(ctx, m.handle, c, w); err != nil {
			d.fail(ctx, w, c, err)
		}
	}
	if err := w.Close(); err != nil && !errors.Is(err, context.Canceled) {
		d.logger.DebugContext(ctx, "frame not delivered", "requestId", c.Env.RequestID, "error", err)
	}
	latency := d.clock.Now().Sub(start)
	r := AuditRecord{
		Time: start, RequestID: c.Env.RequestID, Method: c.Env.Method,
		Decision: decision, Latency: latency, Status: string(rec.status), ErrorCode: rec.code,
	}
	if c.Principal != nil {
		r.AccountID = c.Principal.ID
	}
	if d.audit != nil {
		d.audit.Record(r)
	}
	if d.logger.Enabled(ctx, slog.LevelDebug) {
		d.logger.DebugContext(ctx, "call", "requestId", r.RequestID, "transport", c.Transport, "method", r.Method,
			"account", r.AccountID, "decision", r.Decision, "status", r.Status, "code", r.ErrorCode, "latencyMs", latency.Milliseconds())
	}
	d.metrics.request(ctx, c.Transport, c.Env.Method, rec.code, decision, latency)
	endCall(span, c, decision, rec.code)
}

// admit is the policy chain: it returns the method, the audit decision, and
// the refusal when the call may not go on.
func (d *Dispatcher) admit(ctx context.Context, c *Call) (method, string, error) {
	key := c.Key
	c.Key = ""
	m, ok := d.methods[c.Env.Method]
	if !ok && c.decodeErr != nil {
		// An envelope that could not be read names no method to go by: a
		// caller with a valid key learns what is wrong with it.
		if _, err := d.authenticate(ctx, c, key); err != nil {
			return m, DecisionDeny, err
		}
		return m, DecisionDeny, c.decodeErr
	}
	if !ok {
		return m, DecisionDeny, unknownMethod(c.Env.Method, d.names())
	}
	if m.access == accessPublic {
		return m, DecisionAllow, nil
	}
	p, err := d.authenticate(ctx, c, key)
	if err != nil {
		return m, DecisionDeny, err
	}
	c.Principal = p
	// The key alone says who calls: whatever identity the envelope claimed
	// is replaced, and credentials it carried are dropped (RESOLUTIONS).
	c.Env.UserID = p.ID
	c.Env.IdentityOrigin = e2a.OriginAgent
	c.Env.Auth = nil
	// One span for the authorization and the rate limit: each is a lookup
	// in memory, and a sampled span costs more than both together.
	_, span := telemetry.Start(ctx, "admit", trace.SpanKindInternal)
	defer span.End()
	if m.access == accessAdmin && !p.Admin() {
		err := fault.New(fault.PermissionDenied, "%s needs an admin account", c.Env.Method).
			WithSuggestions("Use the admin key (SLUICE_ADMIN_KEY)")
		telemetry.Fail(span, err)
		return m, DecisionDeny, err
	}
	if d.limiter != nil && !p.Admin() {
		st := d.limiter.AllowRequest(p)
		if st.Limit > 0 {
			c.Limit = &st
		}
		if !st.Allowed {
			telemetry.Fail(span, fault.New(fault.RateLimited, "rate limited"))
			d.metrics.limited(c.Env.Method)
			return m, DecisionLimited, &limitError{st}
		}
	}
	return m, DecisionAllow, nil
}

// Preauthenticate authenticates c's key before the ingress reads the
// request's body, so that a caller without a valid key never has a large
// body read (preAuthBodyBytes). The outcome is kept for admit, which does
// not authenticate again.
func (d *Dispatcher) Preauthenticate(ctx context.Context, c *Call) {
	if c.Principal != nil || c.authErr != nil || c.keyErr != nil || c.conn != nil {
		return
	}
	c.Principal, c.authErr = d.checkKey(ctx, c.Key)
}

// authenticate is the principal of c: the one Preauthenticate found, or
// the refusal it or the ingress's key reading met, or its connection's
// principal, or a fresh lookup of its key.
func (d *Dispatcher) authenticate(ctx context.Context, c *Call, key string) (*account.Principal, error) {
	switch {
	case c.Principal != nil:
		return c.Principal, nil
	case c.authErr != nil:
		return nil, c.authErr
	case c.keyErr != nil:
		return nil, c.keyErr
	case c.conn != nil:
		return c.conn.principal(ctx, d)
	}
	return d.checkKey(ctx, key)
}

// checkKey is the one place a presented key is checked: every ingress's
// request, and every connection's handshake, comes here.
func (d *Dispatcher) checkKey(ctx context.Context, key string) (*account.Principal, error) {
	ctx, span := telemetry.Start(ctx, "authenticate", trace.SpanKindInternal)
	p, err := d.auth.Authenticate(ctx, key)
	telemetry.End(span, err)
	return p, err
}

// call runs a handler; a panic becomes an internal error, logged with its stack.
func (d *Dispatcher) call(ctx context.Context, h handler, c *Call, w *e2a.StreamWriter) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fault.New(fault.Internal, "internal error").WithCause(fmt.Errorf("panic: %v\n%s", p, debug.Stack()))
		}
	}()
	return h(ctx, c, w)
}

// fail writes err as the final e2a.error frame, unless one was written.
func (d *Dispatcher) fail(ctx context.Context, w *e2a.StreamWriter, c *Call, err error) {
	if w.Finished() {
		if err != nil {
			d.logger.WarnContext(ctx, "error after the final frame", "requestId", c.Env.RequestID, "method", c.Env.Method, "error", fault.From(err))
		}
		return
	}
	code, message, details := errorBody(err)
	switch fe := fault.From(err); fe.Kind {
	case fault.Internal:
		d.logger.ErrorContext(ctx, "call failed", "requestId", c.Env.RequestID, "method", c.Env.Method, "error", fe)
	case fault.Cancelled: // its caller went away: nothing failed
		d.logger.DebugContext(ctx, "call cancelled", "requestId", c.Env.RequestID, "method", c.Env.Method)
	}
	_ = w.Fail(code, message, details)
}

func (d *Dispatcher) names() []string {
	out := make([]string, 0, len(d.methods))
	for n := range d.methods {
		out = append(out, n)
	}
	return out
}

func unknownMethod(name string, known []string) *fault.Error {
	fe := fault.New(fault.NotFound, "unknown method %q", name).WithDetail("method", name)
	if s := closest(name, known); s != "" {
		fe = fe.WithSuggestions(fmt.Sprintf("Did you mean %s?", s))
	}
	return fe
}

// recordingSink passes frames on and keeps the final one's status and code,
// for the audit record and the metrics.
type recordingSink struct {
	next   e2a.FrameSink
	status e2a.Status
	code   string
}

func (s *recordingSink) WriteFrame(r *e2a.Response) error {
	if r.IsFinal {
		s.status = r.Status
		if r.Kind == e2a.KindError {
			s.code, _ = r.Body["code"].(string)
		}
	}
	return s.next.WriteFrame(r)
}
