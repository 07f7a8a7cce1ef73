package telemetry

import (
	"net"
	"net/http"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
)

// StartServer starts the server span of request r (HTTP semantic
// conventions) under the trace context of its traceparent header, when it
// has one, and returns r with the span in its context. Off, it returns r
// and a no-op span, allocating nothing. The caller serves r, then calls
// EndServer with the status it answered.
func StartServer(r *http.Request) (*http.Request, trace.Span) {
	if !Enabled() {
		return r, noSpan
	}
	ctx, span := Start(FromHeader(r.Context(), r.Header), r.Method, trace.SpanKindServer)
	return r.WithContext(ctx), span
}

// EndServer names the span of r by its route, "METHOD /route", once the
// mux has matched it (a path holds ids: one name per id would be
// unbounded), sets the HTTP attributes and the status, and ends it.
func EndServer(span trace.Span, r *http.Request, status int) {
	if !span.IsRecording() {
		span.End()
		return
	}
	defer span.End()
	// One SetAttributes: each call takes the span's lock and may grow its
	// attribute slice again.
	attrs := make([]attribute.KeyValue, 0, 10)
	route := r.Pattern // ServeMux set it: "POST /api/v1/..."
	if _, p, ok := strings.Cut(route, " "); ok {
		route = p
	}
	route = strings.TrimSuffix(route, "{$}") // the mux's end anchor is no part of the route
	if route != "" {
		span.SetName(r.Method + " " + route)
		attrs = append(attrs, semconv.HTTPRouteKey.String(route))
	}
	attrs = append(attrs,
		semconv.HTTPRequestMethodKey.String(r.Method),
		semconv.URLPathKey.String(r.URL.Path),
		semconv.URLSchemeKey.String(scheme(r)),
		semconv.HTTPResponseStatusCodeKey.Int(status),
		semconv.NetworkProtocolVersionKey.String(protocolVersion(r)),
	)
	if host, port, err := net.SplitHostPort(r.Host); err == nil {
		attrs = append(attrs, semconv.ServerAddressKey.String(host))
		if n, err := strconv.Atoi(port); err == nil {
			attrs = append(attrs, semconv.ServerPortKey.Int(n))
		}
	}
	if ip, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		attrs = append(attrs, semconv.ClientAddressKey.String(ip))
	}
	if status >= 500 {
		span.SetStatus(codes.Error, http.StatusText(status))
		attrs = append(attrs, semconv.ErrorTypeKey.String(strconv.Itoa(status)))
	}
	span.SetAttributes(attrs...)
}

// protocolVersion is network.protocol.version of r: "1.1", "2", made
// without formatting for the common ones.
func protocolVersion(r *http.Request) string {
	switch {
	case r.ProtoMajor == 1 && r.ProtoMinor == 1:
		return "1.1"
	case r.ProtoMajor == 2 && r.ProtoMinor == 0:
		return "2"
	}
	return strconv.Itoa(r.ProtoMajor) + "." + strconv.Itoa(r.ProtoMinor)
}

func scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}
