package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/sluicehq/sluice/internal/telemetry"
)

// DeniedError is a refused connection or redirect. It names the host and, for a
// dial-time refusal, the address; never the URL, whose query is not ours to log.
type DeniedError struct {
	Host   string // the host the request named
	Port   string
	Addr   string // the resolved ip:port refused at dial time; "" for a grant refusal
	Reason string // why, e.g. "loopback address" or "host is not permitted"
}

func (e *DeniedError) Error() string {
	target := e.Host
	if e.Port != "" {
		target = net.JoinHostPort(e.Host, e.Port)
	}
	if e.Addr != "" && e.Addr != target {
		return fmt.Sprintf("egress to %s (%s) refused: %s", target, e.Addr, e.Reason)
	}
	return fmt.Sprintf("egress to %s refused: %s", target, e.Reason)
}

// RedirectError stops a redirect chain that is too long.
type RedirectError struct{ Max int }

func (e *RedirectError) Error() string { return fmt.Sprintf("stopped after %d redirects", e.Max) }

// HostCheck is a per-request gate on the host (name or address, no brackets) and
// port (always set: the scheme's default when the URL has none). It returns nil to
// allow; an error (ideally a *DeniedError) refuses.
type HostCheck func(host, port string) error

type hostCheckKey struct{}

// WithHostCheck returns ctx carrying check. Requests made with it are checked on
// every redirect and again when a new connection is dialled.
func WithHostCheck(ctx context.Context, check HostCheck) context.Context {
	return context.WithValue(ctx, hostCheckKey{}, check)
}

// HostCheckFrom returns the check ctx carries, or nil.
func HostCheckFrom(ctx context.Context) HostCheck {
	c, _ := ctx.Value(hostCheckKey{}).(HostCheck)
	return c
}

// Sensitive names what of a request carries credentials, so a redirect to
// another origin does not carry them along: net/http already drops
// Authorization and Cookie there, but not an "X-Api-Key" or a 307's body.
type Sensitive struct {
	Headers []string // dropped from a redirect to another scheme, host or port
	Body    bool     // a redirect to another origin that would resend the body is refused
}

type sensitiveKey struct{}

// WithSensitive returns ctx marking what of the request is secret.
func WithSensitive(ctx context.Context, s Sensitive) context.Context {
	return context.WithValue(ctx, sensitiveKey{}, s)
}

// Options bound the client's waits. Every field has a default (DefaultOptions).
type Options struct {
	DialTimeout           time.Duration // one TCP connect; default 10 s
	TLSHandshakeTimeout   time.Duration // default 10 s
	ResponseHeaderTimeout time.Duration // from request written to headers read; default 2 min
	IdleConnTimeout       time.Duration // default 90 s
	Timeout               time.Duration // whole request incl. body, a backstop behind ctx; default 10 min
	MaxRedirects          int           // default 10
	MaxIdleConnsPerHost   int           // default 32
	MaxResponseHeaderSize int64         // default 1 MiB
}

// DefaultOptions are the bounds used when none are given.
func DefaultOptions() Options {
	return Options{
		DialTimeout:           10 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 2 * time.Minute,
		IdleConnTimeout:       90 * time.Second,
		Timeout:               10 * time.Minute,
		MaxRedirects:          10,
		MaxIdleConnsPerHost:   32,
		MaxResponseHeaderSize: 1 << 20,
	}
}

// Option changes one of the Options.
type Option func(*Options)

// WithOptions replaces every option by o (zero fields take the defaults).
func WithOptions(o Options) Option { return func(dst *Options) { *dst = o } }

func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.DialTimeout <= 0 {
		o.DialTimeout = d.DialTimeout
	}
	if o.TLSHandshakeTimeout <= 0 {
		o.TLSHandshakeTimeout = d.TLSHandshakeTimeout
	}
	if o.ResponseHeaderTimeout <= 0 {
		o.ResponseHeaderTimeout = d.ResponseHeaderTimeout
	}
	if o.IdleConnTimeout <= 0 {
		o.IdleConnTimeout = d.IdleConnTimeout
	}
	if o.Timeout <= 0 {
		o.Timeout = d.Timeout
	}
	if o.MaxRedirects <= 0 {
		o.MaxRedirects = d.MaxRedirects
	}
	if o.MaxIdleConnsPerHost <= 0 {
		o.MaxIdleConnsPerHost = d.MaxIdleConnsPerHost
	}
	if o.MaxResponseHeaderSize <= 0 {
		o.MaxResponseHeaderSize = d.MaxResponseHeaderSize
	}
	return o
}

// NewTransport returns a transport that enforces p at dial time, with the default
// bounds. Invalid entries of p allow nothing (see Policy.Validate).
func NewTransport(p Policy) *http.Transport { return NewTransportWith(p, DefaultOptions()) }

// NewTransportWith is NewTransport with explicit bounds.
func NewTransportWith(p Policy, o Options) *http.Transport {
	o = o.withDefaults()
	r, _ := compile(p)
	return &http.Transport{
		Proxy:                  nil, // never from the environment: a proxy would dial for us, unchecked
		DialContext:            dialer(r, o.DialTimeout),
		ForceAttemptHTTP2:      true, // a custom DialContext turns HTTP/2 off otherwise
		TLSHandshakeTimeout:    o.TLSHandshakeTimeout,
		ResponseHeaderTimeout:  o.ResponseHeaderTimeout,
		ExpectContinueTimeout:  time.Second,
		IdleConnTimeout:        o.IdleConnTimeout,
		MaxIdleConns:           256,
		MaxIdleConnsPerHost:    o.MaxIdleConnsPerHost,
		MaxResponseHeaderBytes: o.MaxResponseHeaderSize,
	}
}

// NewClient returns a client over NewTransportWith(p, ...) whose redirects are
// re-checked: the per-request HostCheck (WithHostCheck) is applied to every hop, the
// dial-time rule applies to every new connection, and the chain stops after
// MaxRedirects hops.
func NewClient(p Policy, opts ...Option) *http.Client {
	o := DefaultOptions()
	for _, f := range opts {
		f(&o)
	}
	o = o.withDefaults()
	return &http.Client{
		// Each request gets a client span and carries the trace context
		// (nothing when tracing is off).
		Transport:     telemetry.Transport(NewTransportWith(p, o)),
		CheckRedirect: CheckRedirect(o.MaxRedirects),
		Timeout:       o.Timeout,
	}
}

// CheckRedirect returns an http.Client.CheckRedirect that stops after max hops
// and applies the request context's HostCheck to each new location.
func CheckRedirect(max int) func(req *http.Request, via []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= max {
			return &RedirectError{Max: max}
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return &DeniedError{Host: req.URL.Hostname(), Reason: "redirect to a scheme other than http or https"}
		}
		if check := HostCheckFrom(req.Context()); check != nil {
			if err := check(req.URL.Hostname(), PortOf(req.URL.Scheme, req.URL.Port())); err != nil {
				return err
			}
		}
		if s, ok := req.Context().Value(sensitiveKey{}).(Sensitive); ok && len(via) > 0 && !sameOrigin(req.URL, via[0].URL) {
			for _, h := range s.Headers {
				req.Header.Del(h)
			}
			if s.Body && req.Body != nil && req.Body != http.NoBody {
				return &DeniedError{Host: req.URL.Hostname(), Port: PortOf(req.URL.Scheme, req.URL.Port()),
					Reason: "a redirect to another origin would resend credentials in the body"}
			}
		}
		return nil
	}
}

func sameOrigin(a, b *url.URL) bool {
	return a.Scheme == b.Scheme && strings.EqualFold(a.Hostname(), b.Hostname()) &&
		PortOf(a.Scheme, a.Port()) == PortOf(b.Scheme, b.Port())
}

// PortOf is port, or the scheme's default port when port is empty.
func PortOf(scheme, port string) string {
	if port != "" {
		return port
	}
	if scheme == "https" {
		return "443"
	}
	return "80"
}

// dialer returns a DialContext that applies the request's HostCheck to the named
// host and the rule to every address the name resolves to, at connect time.
func dialer(r *rule, timeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if check := HostCheckFrom(ctx); check != nil {
			if err := check(host, port); err != nil {
				return nil, err
			}
		}
		d := &net.Dialer{
			Timeout:   timeout,
			KeepAlive: 30 * time.Second,
			// ControlContext runs after resolution with the exact address the socket
			// is about to connect to: this is where the rule is enforced.
			ControlContext: func(_ context.Context, _, address string, _ syscall.RawConn) error {
				ap, err := netip.ParseAddrPort(address)
				if err != nil {
					return &DeniedError{Host: host, Port: port, Addr: address, Reason: "unparsable address"}
				}
				if why := Classify(ap.Addr()); why != "" && !r.allows(host, ap.Addr(), ap.Port()) {
					return &DeniedError{Host: host, Port: port, Addr: address, Reason: why + " (not in egress.allow_private)"}
				}
				return nil
			},
		}
		return d.DialContext(ctx, network, addr)
	}
}

// IsDenied reports whether err is (or wraps) an egress refusal and returns it.
func IsDenied(err error) (*DeniedError, bool) {
	var d *DeniedError
	if errors.As(err, &d) {
		return d, true
	}
	return nil, false
}
