package telemetry

import (
	"net"
	"net/http"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
)

// HTTPHandler gives each request of next a server span (HTTP semantic
// conventions: named "METHOD /route" once the mux has matched the route),
// under the trace context of its traceparent header when it has one. Off,
// it calls next and does nothing else.
func HTTPHandler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !Enabled() {
			next.ServeHTTP(w, r)
			return
		}
		ctx := FromHeader(r.Context(), r.Header)
		ctx, span := Start(ctx, r.Method, trace.SpanKindServer)
		defer span.End()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		r = r.WithContext(ctx)
		next.ServeHTTP(sw, r)
		if !span.IsRecording() {
			return
		}
		// The route, not the path: a path holds ids, one span name per id
		// would be unbounded. ServeMux set r.Pattern ("POST /api/v1/...").
		route := r.Pattern
		if _, p, ok := strings.Cut(route, " "); ok {
			route = p
		}
		route = strings.TrimSuffix(route, "{$}") // the mux's end anchor is no part of the route
		if route != "" {
			span.SetName(r.Method + " " + route)
			span.SetAttributes(semconv.HTTPRouteKey.String(route))
		}
		span.SetAttributes(
			semconv.HTTPRequestMethodKey.String(r.Method),
			semconv.URLPathKey.String(r.URL.Path),
			semconv.URLSchemeKey.String(scheme(r)),
			semconv.HTTPResponseStatusCodeKey.Int(sw.status),
			semconv.NetworkProtocolVersionKey.String(strconv.Itoa(r.ProtoMajor)+"."+strconv.Itoa(r.ProtoMinor)),
		)
		if host, port, err := net.SplitHostPort(r.Host); err == nil {
			span.SetAttributes(semconv.ServerAddressKey.String(host))
			if n, err := strconv.Atoi(port); err == nil {
				span.SetAttributes(semconv.ServerPortKey.Int(n))
			}
		}
		if ip, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
			span.SetAttributes(semconv.ClientAddressKey.String(ip))
		}
		if sw.status >= 500 {
			span.SetStatus(codes.Error, http.StatusText(sw.status))
			span.SetAttributes(semconv.ErrorTypeKey.String(strconv.Itoa(sw.status)))
		}
	})
}

func scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

// statusWriter remembers the status; Flush and Unwrap pass through (SSE,
// http.ResponseController, WebSocket upgrades).
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
