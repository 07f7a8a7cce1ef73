package telemetry

import (
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
)

// Transport gives each outbound request a client span and writes the trace
// context into its headers, so the server it calls (an API, an agent, an
// MCP server) joins the caller's trace. The span names the method and the
// server only: a URL's path and query may carry a credential the vault put
// there. Off, requests go to next untouched.
func Transport(next http.RoundTripper) http.RoundTripper { return transport{next} }

type transport struct{ next http.RoundTripper }

func (t transport) RoundTrip(r *http.Request) (*http.Response, error) {
	if !Enabled() {
		return t.next.RoundTrip(r)
	}
	ctx, span := Start(r.Context(), r.Method, trace.SpanKindClient)
	defer span.End()
	// A RoundTripper must not change the caller's request.
	r = r.Clone(ctx)
	ToHeader(ctx, r.Header)
	if span.IsRecording() {
		span.SetAttributes(semconv.HTTPRequestMethodKey.String(r.Method), semconv.ServerAddressKey.String(r.URL.Hostname()))
		if p := r.URL.Port(); p != "" {
			if n, err := strconv.Atoi(p); err == nil {
				span.SetAttributes(semconv.ServerPortKey.Int(n))
			}
		}
	}
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		span.SetStatus(codes.Error, "the request failed")
		span.SetAttributes(semconv.ErrorTypeKey.String("transport"))
		return resp, err
	}
	span.SetAttributes(semconv.HTTPResponseStatusCodeKey.Int(resp.StatusCode))
	if resp.StatusCode >= 400 {
		span.SetStatus(codes.Error, http.StatusText(resp.StatusCode))
		span.SetAttributes(semconv.ErrorTypeKey.String(strconv.Itoa(resp.StatusCode)))
	}
	return resp, nil
}

// CloseIdleConnections passes on to next, so http.Client.CloseIdleConnections
// still reaches the pool.
func (t transport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// Unwrap is the transport under the tracing one.
func (t transport) Unwrap() http.RoundTripper { return t.next }
