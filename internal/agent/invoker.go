package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"go.opentelemetry.io/otel/trace"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/telemetry"
	"github.com/sluicehq/sluice/internal/vault/redact"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// InvokerOptions configure an Invoker.
type InvokerOptions struct {
	Registry *Registry
	// Client sends the requests. nil: an egress client over the registry's
	// rule, which checks every connection at dial time. Redirects are never
	// followed (a POST turned into a GET is no task); a 3xx fails at once.
	Client  *http.Client
	Clock   clock.Clock  // sleeps between retries; nil: the real clock
	Logger  *slog.Logger // nil: discard
	Breaker BreakerOptions
	// MaxResponseBytes bounds an answer (0: agenthttp.DefaultMaxResponseBytes).
	MaxResponseBytes int
	// MaxRetryAfter is the longest Retry-After the invoker waits for; a 429
	// asking for longer fails at once, RateLimited with its RetryAfter.
	// Default 5 minutes.
	MaxRetryAfter time.Duration
	// Jitter returns a number in [0, 1) that spreads each backoff delay over
	// ±20% (0.5 keeps it exact). nil: math/rand.
	Jitter func() float64
	// HealthTimeout bounds one health check (0: 5 s, or the agent's
	// timeout when shorter).
	HealthTimeout time.Duration
}

// Invoker sends tasks to registered agents. It is safe for concurrent use.
type Invoker struct {
	o      InvokerOptions
	client *http.Client

	acp *acpPool // the processes of protocol acp agents

	mu       sync.Mutex
	breakers map[string]*breaker
	health   map[string]Health
	cards    map[string]cachedCard // A2A agents' cards, by agent name
	recent   map[string]*recent    // each agent's latest attempts (recent.go)
}

// NewInvoker makes an Invoker.
func NewInvoker(o InvokerOptions) *Invoker {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = agenthttp.DefaultMaxResponseBytes
	}
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = 5 * time.Minute
	}
	if o.Jitter == nil {
		o.Jitter = mrand.Float64
	}
	if o.HealthTimeout <= 0 {
		o.HealthTimeout = 5 * time.Second
	}
	o.Breaker = o.Breaker.withDefaults()
	base := o.Client
	if base == nil {
		base = egress.NewClient(o.Registry.Egress())
	}
	c := *base
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &Invoker{o: o, client: &c, acp: newACPPool(o.Registry.o.ACP, o.Logger),
		breakers: map[string]*breaker{}, health: map[string]Health{}, cards: map[string]cachedCard{},
		recent: map[string]*recent{}}
}

// Close stops the processes of ACP agents the invoker runs.
func (inv *Invoker) Close() { inv.acp.close() }

// call is one invocation's fixed parts, shared by its attempts.
type call struct {
	name, taskID, corr string
	entry              agenthttp.Entry
	input              json.RawMessage // the task's input (an A2A call sends it as a data part)
	body               []byte
	header             http.Header
	sensitive          []string
	scrub              *redact.Redactor
}

// Invoke sends a task to agent name and returns its output. input is a
// JSON object (nil or null: {}); taskID is sent on every attempt as the task's
// idempotency key (empty: one is made up); correlationID goes in
// X-Correlation-ID (empty: the task id).
//
// Retries follow the agent's retry_config: max_retries more attempts after
// the first, waiting initial_delay_ms * backoff_multiplier^(n-1) (at most
// max_delay_ms, ±20% jitter) or, on 429, at least the Retry-After; each
// attempt is bounded by the agent's timeout. Network errors, timeouts, 429
// and 5xx are retried; other answers are not. Errors are *fault.Error:
// NotFound for an unknown agent, Upstream for the agent's failures (with its
// message, scrubbed of the agent's credentials), Timeout, Unavailable,
// RateLimited, PermissionDenied for egress refusals.
//
// An A2A agent's call also reads ctx: its updates go to the function of
// WithUpdates, WithContinuation makes input the next message of a remote
// task that asked for input, and a task that asks is an Upstream error
// whose details carry the question (op.AgentPendingOf).
func (inv *Invoker) Invoke(ctx context.Context, name, taskID string, input json.RawMessage, correlationID string) (out json.RawMessage, err error) {
	ctx, span := telemetry.StartAgent(ctx, name, taskID)
	defer func() { telemetry.End(span, err) }()
	c, err := inv.prepare(ctx, name, taskID, input, correlationID)
	if err != nil {
		return nil, err
	}
	br := inv.breaker(c.name, endpointOf(c.entry))
	seen := inv.recentOf(c.name)
	retry := c.entry.Retry
	var last *fault.Error
	for n := 0; ; n++ {
		if ok, at := br.allow(inv.o.Clock.Now()); !ok {
			wait := max(at.Sub(inv.o.Clock.Now()), 0)
			fe := fault.New(fault.Unavailable, "agent %s is failing: its circuit breaker is open; calls resume in %s",
				c.name, wait.Round(time.Millisecond)).WithDetail("agent", c.name).Retry(wait)
			if last != nil {
				fe = fe.WithCause(last)
			}
			return nil, fe
		}
		actx, aspan := telemetry.Start(ctx, "attempt", trace.SpanKindInternal)
		if aspan.IsRecording() {
			aspan.SetAttributes(telemetry.AttrAttempt.Int(n + 1))
		}
		began := inv.o.Clock.Now()
		out, res := inv.attemptOf(c)(actx, c, n+1)
		if res == nil || res.counts || res.agentAnswered {
			ended := inv.o.Clock.Now()
			seen.add(attemptSample{at: ended, took: ended.Sub(began), failed: res != nil})
		}
		if res != nil {
			telemetry.Fail(aspan, res.err)
		}
		aspan.End()
		switch {
		case res == nil:
			br.record(inv.o.Clock.Now(), false)
			return out, nil
		case res.counts:
			br.record(inv.o.Clock.Now(), true)
		case res.agentAnswered:
			br.record(inv.o.Clock.Now(), false)
		default:
			br.release()
		}
		last = res.err
		last.WithDetail("attempts", n+1)
		if !res.retry || ctx.Err() != nil {
			return nil, last
		}
		if n >= retry.MaxRetries {
			if n > 0 {
				last.Message += " (after " + itoa(n+1) + " attempts)"
			}
			return nil, last
		}
		wait := inv.backoff(retry, n+1)
		if res.retryAfter > 0 {
			if res.retryAfter > inv.o.MaxRetryAfter {
				return nil, last.Retry(res.retryAfter)
			}
			wait = max(wait, res.retryAfter)
		}
		// Deadlines are wall-clock times whatever clock sleeps.
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			last.Message += "; no time is left to retry"
			return nil, last.Retry(wait)
		}
		inv.o.Logger.InfoContext(ctx, "agent attempt failed; retrying", "agent", c.name, "taskId", c.taskID, "correlationId", c.corr,
			"attempt", n+1, "wait", wait, "reason", last.Message)
		if err := inv.o.Clock.Sleep(ctx, wait); err != nil {
			return nil, last
		}
	}
}

// prepare looks the agent up and builds what every attempt sends.
func (inv *Invoker) prepare(ctx context.Context, name, taskID string, input json.RawMessage, corr string) (*call, error) {
	if t := bytes.TrimSpace(input); len(t) == 0 || string(t) == "null" {
		input = json.RawMessage("{}")
	}
	if taskID == "" {
		taskID = ids.New(ids.Task)
	}
	if corr == "" {
		corr = taskID
	}
	if err := agenthttp.CheckTaskID("invocation", "correlation_id", corr); err != nil {
		return nil, invalidEntry(err)
	}
	body, err := agenthttp.EncodeRequest(agenthttp.Request{TaskID: taskID, Input: input})
	if err != nil {
		return nil, invalidEntry(err)
	}
	e, err := inv.o.Registry.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	if e.Protocol != agenthttp.ProtocolACP {
		if err := inv.o.Registry.CheckURL(e.URL); err != nil {
			return nil, err
		}
	}
	h, sensitive, scrub, err := inv.authHeaders(ctx, e)
	if err != nil {
		return nil, err
	}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	h.Set(agenthttp.HeaderCorrelationID, corr)
	h.Set(agenthttp.HeaderIdempotencyKey, taskID)
	return &call{name: e.Name, taskID: taskID, corr: corr, entry: e, input: input, body: body, header: h, sensitive: sensitive, scrub: scrub}, nil
}

// authHeaders resolves the entry's credentials into headers, and returns
// the header names that carry them and a redactor of their values.
func (inv *Invoker) authHeaders(ctx context.Context, e agenthttp.Entry) (http.Header, []string, *redact.Redactor, error) {
	h := http.Header{}
	var names, values []string
	for _, f := range e.Secrets() {
		if !f.Secret.IsRef() {
			return nil, nil, nil, fault.New(fault.Internal, "agent %s holds a secret that is not in the vault", e.Name)
		}
		sec, err := inv.o.Registry.o.Vault.Resolve(ctx, f.Secret.Ref())
		if err != nil {
			fe := fault.From(err)
			return nil, nil, nil, fault.New(fe.Kind, "agent %s: credential %q of %s cannot be resolved: %s", e.Name, f.Secret.Ref(), f.Path, fe.Message).
				WithDetail("agent", e.Name).WithCause(err)
		}
		if fe := checkBinding(f.Secret.Ref(), sec, e.URL); fe != nil {
			return nil, nil, nil, fe.WithDetail("agent", e.Name)
		}
		v := sec.Value
		if f.Path == "auth_config.token" && !strings.HasPrefix(strings.ToLower(v), "bearer ") {
			v = "Bearer " + v
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return nil, nil, nil, fault.New(fault.Invalid, "agent %s: credential %q of %s cannot be sent in a header", e.Name, f.Secret.Ref(), f.Path)
		}
		h.Set(f.Header, v)
		names = append(names, f.Header)
		values = append(values, sec.Value)
	}
	return h, names, redact.New(values...), nil
}

// result is a failed attempt: what to report and what to do.
type result struct {
	err        *fault.Error
	retry      bool
	retryAfter time.Duration
	// counts is a failure of the agent for the breaker; agentAnswered an
	// answer that shows the agent works (a 4xx, a status "error").
	counts, agentAnswered bool
}

// attemptOf is how one attempt of c is made: by the agent's protocol.
func (inv *Invoker) attemptOf(c *call) func(context.Context, *call, int) (json.RawMessage, *result) {
	switch c.entry.Protocol {
	case agenthttp.ProtocolA2A:
		return inv.a2aAttempt
	case agenthttp.ProtocolACP:
		return inv.acpAttempt
	}
	return inv.attempt
}

// attempt sends the task once.
func (inv *Invoker) attempt(ctx context.Context, c *call, n int) (json.RawMessage, *result) {
	actx, cancel := context.WithTimeout(ctx, c.entry.Timeout)
	defer cancel()
	actx = egress.WithSensitive(actx, egress.Sensitive{Headers: c.sensitive})
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.entry.URL, bytes.NewReader(c.body))
	if err != nil {
		return nil, &result{err: fault.New(fault.Invalid, "agent %s has a URL requests cannot be made to", c.name).WithDetail("agent", c.name)}
	}
	req.Header = c.header.Clone()
	start := time.Now()
	resp, err := inv.client.Do(req)
	if err != nil {
		return nil, inv.transportFailure(ctx, actx, c, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, int64(inv.o.MaxResponseBytes)+1))
	if err != nil {
		return nil, inv.transportFailure(ctx, actx, c, err)
	}
	inv.o.Logger.Debug("agent answered", "agent", c.name, "taskId", c.taskID, "correlationId", c.corr, "attempt", n,
		"status", resp.StatusCode, "bytes", len(raw), "elapsed", time.Since(start))
	if len(raw) > inv.o.MaxResponseBytes {
		return nil, &result{err: upstream(c.name, "answered with more than %d bytes", inv.o.MaxResponseBytes).
			WithDetail("statusCode", resp.StatusCode), counts: true}
	}
	code := resp.StatusCode
	switch agenthttp.Classify(code) {
	case agenthttp.Parse:
		return inv.parse(c, code, raw)
	case agenthttp.Retry:
		msg := c.scrub.ScrubText(agenthttp.ErrorMessage(c.scrub.ScrubJSON(raw), 0))
		if code == http.StatusTooManyRequests {
			after, _ := agenthttp.ParseRetryAfter(resp.Header.Get("Retry-After"), inv.o.Clock.Now())
			fe := fault.New(fault.RateLimited, "agent %s answered %s%s", c.name, statusText(code), suffix(msg)).
				WithDetail("agent", c.name).WithDetail("statusCode", code)
			return nil, &result{err: fe, retry: true, retryAfter: after, agentAnswered: true}
		}
		return nil, &result{err: upstream(c.name, "answered %s%s", statusText(code), suffix(msg)).WithDetail("statusCode", code),
			retry: true, counts: true}
	}
	msg := c.scrub.ScrubText(agenthttp.ErrorMessage(c.scrub.ScrubJSON(raw), 0))
	if code >= 300 && code < 400 {
		msg = "a redirect, which is not followed; register the URL it points to"
	}
	return nil, &result{err: upstream(c.name, "answered %s%s", statusText(code), suffix(msg)).WithDetail("statusCode", code),
		agentAnswered: true}
}

// parse reads a 2xx answer.
func (inv *Invoker) parse(c *call, code int, raw []byte) (json.RawMessage, *result) {
	r, err := agenthttp.DecodeResponse(raw, agenthttp.Limits{MaxBytes: inv.o.MaxResponseBytes})
	if err != nil {
		var ae *agenthttp.Error
		why := "is not JSON"
		if errors.As(err, &ae) {
			why = ae.Message
			if ae.Path != "" {
				why = "field " + ae.Path + " " + why
			}
		}
		return nil, &result{err: upstream(c.name, "answered %s with a body that is not a valid task response: %s", statusText(code), c.scrub.ScrubText(why)).
			WithDetail("statusCode", code).WithSuggestions("The agent must answer {\"task_id\", \"status\", \"output\", \"error\"} as JSON"),
			counts: true}
	}
	if r.TaskID != c.taskID {
		return nil, &result{err: upstream(c.name, "answered for task_id %s, not %s", quote(c.scrub.ScrubText(r.TaskID)), quote(c.taskID)).
			WithDetail("statusCode", code), counts: true}
	}
	if r.Failed() {
		return nil, &result{err: upstream(c.name, "reported an error: %s", clip(c.scrub.ScrubText(r.ErrorText()))).
			WithDetail("statusCode", code).WithDetail("status", "error"), agentAnswered: true}
	}
	// Decoded, so that a secret spelled with JSON \u escapes is found too.
	return c.scrub.ScrubJSON(r.Output), nil
}

// transportFailure classifies an error of sending or reading.
func (inv *Invoker) transportFailure(ctx, actx context.Context, c *call, err error) *result {
	cause := err
	var ue *url.Error
	if errors.As(err, &ue) {
		cause = ue.Err // url.Error repeats the URL, whose query is not ours to log
	}
	if d, ok := egress.IsDenied(err); ok {
		return &result{err: fault.New(fault.PermissionDenied, "agent %s cannot be reached: %s", c.name, d.Error()).
			WithDetail("agent", c.name).WithCause(cause)}
	}
	switch {
	case ctx.Err() != nil:
		kind := fault.Timeout
		if errors.Is(ctx.Err(), context.Canceled) {
			kind = fault.Unavailable
		}
		return &result{err: fault.New(kind, "the call to agent %s ended before it answered: %s", c.name, ctx.Err()).
			WithDetail("agent", c.name).WithCause(ctx.Err())}
	case actx.Err() != nil:
		return &result{err: fault.New(fault.Timeout, "agent %s did not answer within its timeout of %s", c.name, c.entry.Timeout).
			WithDetail("agent", c.name).WithCause(cause), retry: true, counts: true}
	}
	return &result{err: fault.New(fault.Unavailable, "agent %s cannot be reached: %s", c.name, c.scrub.ScrubText(cause.Error())).
		WithDetail("agent", c.name).WithCause(cause), retry: true, counts: true}
}

// backoff is the wait before retry n, jittered ±20% and capped.
func (inv *Invoker) backoff(c agenthttp.RetryConfig, n int) time.Duration {
	d := float64(c.Delay(n)) * (0.8 + 0.4*inv.o.Jitter())
	return min(time.Duration(d), c.MaxDelay)
}

// endpointOf is what an agent's breaker is for: its URL, or for an ACP
// agent its command; a new endpoint starts with a closed breaker.
func endpointOf(e agenthttp.Entry) string {
	if e.ACP != nil {
		return "acp:" + e.ACP.Command
	}
	return e.URL
}

// breaker returns the agent's breaker, a new one when its URL changed.
func (inv *Invoker) breaker(name, url string) *breaker {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	b := inv.breakers[name]
	if b == nil || b.url != url {
		b = newBreaker(inv.o.Breaker, url)
		inv.breakers[name] = b
	}
	return b
}

// Breaker shows agent name's circuit breaker (closed when it has none yet).
func (inv *Invoker) Breaker(name string) BreakerStatus {
	inv.mu.Lock()
	b := inv.breakers[name]
	inv.mu.Unlock()
	if b == nil {
		return BreakerStatus{State: BreakerClosed}
	}
	return b.status(inv.o.Clock.Now())
}

func statusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return itoa(code) + " " + t
	}
	return itoa(code)
}

func suffix(msg string) string {
	if msg == "" {
		return ""
	}
	return ": " + msg
}

// clip makes an agent's message one line of printable text, bounded.
func clip(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if len(s) > agenthttp.MaxErrorMessageBytes {
		s = strings.ToValidUTF8(s[:agenthttp.MaxErrorMessageBytes], "") + "…"
	}
	return s
}

func quote(s string) string {
	if len(s) > 64 {
		s = strings.ToValidUTF8(s[:64], "") + "…"
	}
	b, _ := json.Marshal(s)
	return string(b)
}

func itoa(n int) string { return strconv.Itoa(n) }
