package telemetry_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/sluicehq/sluice/internal/telemetry"
	"github.com/sluicehq/sluice/internal/telemetry/telemetrytest"
)

// Off (the default), the span sites cost no allocation: Start returns the
// caller's context, and nothing is read or written.
func TestOffAllocatesNothing(t *testing.T) {
	if telemetry.Enabled() {
		t.Fatal("tracing is on before any Setup")
	}
	ctx := context.Background()
	h := http.Header{"Traceparent": {telemetrytest.Traceparent}}
	meta := map[string]any{"traceparent": telemetrytest.Traceparent}
	req := httptest.NewRequest("GET", "/x", nil)
	req.Header.Set("traceparent", telemetrytest.Traceparent)
	allocs := testing.AllocsPerRun(100, func() {
		c, span := telemetry.Start(ctx, "x", trace.SpanKindInternal)
		c2, span2 := telemetry.StartNamed(c, "operation", "ApiCall", trace.SpanKindInternal)
		if span.IsRecording() || span2.IsRecording() || c2 != ctx {
			panic("recording while off")
		}
		span2.End()
		span.End()
		_ = telemetry.FromHeader(ctx, h)
		_ = telemetry.FromMeta(ctx, meta)
		_ = telemetry.CarrierOf(ctx).Context(ctx)
		_ = telemetry.Carrier{Traceparent: telemetrytest.Traceparent}.Context(ctx)
		telemetry.SlowWrite(ctx, "x", telemetry.WriteStart(), 1)
		_, s3 := telemetry.StartTool(ctx, "op.X", "")
		s3.End()
		r2, s4 := telemetry.StartServer(req)
		telemetry.EndServer(s4, r2, 200)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per span site with tracing off, want 0", allocs)
	}
	// And nothing travels: no header is written, no _meta is made.
	out := http.Header{}
	telemetry.ToHeader(ctx, out)
	if len(out) != 0 || telemetry.ToMeta(ctx, nil) != nil {
		t.Fatalf("trace context written while off: %v", out)
	}
}

func install(t *testing.T, slow time.Duration) *tracetest.InMemoryExporter {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	restore := telemetry.Install(tp, telemetry.Settings{SlowStoreWrite: slow})
	t.Cleanup(restore)
	return exp
}

// The trace context goes out and comes back the same through headers,
// _meta objects and queue carriers.
func TestContextRoundTrips(t *testing.T) {
	install(t, 0)
	in := telemetry.FromHeader(context.Background(), http.Header{"Traceparent": {telemetrytest.Traceparent}, "Baggage": {"tenant=a"}})
	ctx, span := telemetry.Start(in, "x", trace.SpanKindInternal)
	defer span.End()
	want := trace.SpanContextFromContext(ctx)
	if want.TraceID().String() != telemetrytest.TraceID {
		t.Fatalf("trace %s, want the header's", want.TraceID())
	}
	h := http.Header{}
	telemetry.ToHeader(ctx, h)
	meta := telemetry.ToMeta(ctx, nil)
	c := telemetry.CarrierOf(ctx)
	if !strings.Contains(h.Get("traceparent"), want.SpanID().String()) || h.Get("baggage") != "tenant=a" || c.Baggage != "tenant=a" {
		t.Fatalf("header %v, carrier %+v", h, c)
	}
	for name, got := range map[string]context.Context{
		"header":  telemetry.FromHeader(context.Background(), h),
		"meta":    telemetry.FromMeta(context.Background(), meta),
		"carrier": c.Context(context.Background()),
	} {
		sc := trace.SpanContextFromContext(got)
		if sc.TraceID() != want.TraceID() || sc.SpanID() != want.SpanID() || !sc.IsRemote() {
			t.Errorf("%s: %v, want the span %v", name, sc, want)
		}
	}
	// A _meta without a traceparent, or one that is not a string, changes nothing.
	for _, m := range []map[string]any{{}, {"traceparent": 7}, nil} {
		if got := telemetry.FromMeta(context.Background(), m); trace.SpanContextFromContext(got).IsValid() {
			t.Errorf("FromMeta(%v) made a span context", m)
		}
	}
	// A malformed traceparent is no trace, and no error.
	bad := telemetry.FromHeader(context.Background(), http.Header{"Traceparent": {"00-zz-yy-01"}})
	if trace.SpanContextFromContext(bad).IsValid() {
		t.Fatal("a malformed traceparent made a span context")
	}
}

// A queue message's headers: traceparent and tracestate as sent (baggage
// stays in the payload), all three as read back; the headers' context wins
// over the payload's, which stands in when the headers have none.
func TestMessageHeaders(t *testing.T) {
	install(t, 0)
	in := telemetry.FromHeader(context.Background(), http.Header{"Traceparent": {telemetrytest.Traceparent},
		"Tracestate": {"v=1"}, "Baggage": {"tenant=a"}})
	ctx, span := telemetry.Start(in, "send", trace.SpanKindProducer)
	defer span.End()
	h := telemetry.MessageHeaders(ctx)
	if len(h) != 2 || h[0][0] != "traceparent" || !strings.Contains(h[0][1], span.SpanContext().SpanID().String()) ||
		h[1] != [2]string{"tracestate", "v=1"} {
		t.Fatalf("MessageHeaders %v", h)
	}
	full := telemetry.Carrier{Traceparent: "tp", Tracestate: "ts", Baggage: "b"}
	if got := full.Headers(); len(got) != 3 || got[2] != [2]string{"baggage", "b"} {
		t.Fatalf("Headers %v", got)
	}
	if got := (telemetry.Carrier{Tracestate: "ts"}).Headers(); got != nil {
		t.Fatalf("Headers without a traceparent %v, want none", got)
	}
	payload := telemetry.Carrier{Traceparent: "payload"}
	if got := full.Or(payload); got != full {
		t.Errorf("headers then payload: %+v", got)
	}
	if got := (telemetry.Carrier{Baggage: "b"}).Or(payload); got != payload {
		t.Errorf("headers without a traceparent then payload: %+v", got)
	}
}

// Records logged under a span carry its trace_id and span_id; others do not.
func TestLogHandlerStampsTheSpan(t *testing.T) {
	install(t, 0)
	var buf bytes.Buffer
	log := slog.New(telemetry.LogHandler(slog.NewTextHandler(&buf, nil)))
	ctx, span := telemetry.Start(context.Background(), "x", trace.SpanKindInternal)
	log.InfoContext(ctx, "under a span")
	span.End()
	log.Info("outside")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	sc := span.SpanContext()
	if len(lines) != 2 || !strings.Contains(lines[0], "trace_id="+sc.TraceID().String()) ||
		!strings.Contains(lines[0], "span_id="+sc.SpanID().String()) || strings.Contains(lines[1], "trace_id") {
		t.Fatalf("log lines %q", lines)
	}
}

// A sampled span's trace is the exemplar of the observation.
func TestObserveKeepsTheExemplar(t *testing.T) {
	install(t, 0)
	reg := prometheus.NewRegistry()
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "x_seconds", Buckets: []float64{1}})
	reg.MustRegister(h)
	ctx, span := telemetry.Start(context.Background(), "x", trace.SpanKindInternal)
	telemetry.Observe(ctx, h, 0.5)
	span.End()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	ex := mfs[0].GetMetric()[0].GetHistogram().GetBucket()[0].GetExemplar()
	labels := map[string]string{}
	for _, l := range ex.GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	if len(labels) != 2 || labels["trace_id"] != span.SpanContext().TraceID().String() || labels["span_id"] != span.SpanContext().SpanID().String() {
		t.Fatalf("exemplar %v", ex)
	}
}

// A store write over the threshold gets a span from its start to its end;
// one under it gets none.
func TestSlowWrite(t *testing.T) {
	exp := install(t, time.Hour)
	telemetry.SlowWrite(context.Background(), "fast", time.Now(), 10)
	if n := len(exp.GetSpans()); n != 0 {
		t.Fatalf("%d spans for a write under the threshold", n)
	}
	start := time.Now().Add(-2 * time.Hour) // a write that began two hours ago
	telemetry.SlowWrite(context.Background(), "execution.update", start, 10)
	spans := exp.GetSpans()
	if len(spans) != 1 || spans[0].Name != "store execution.update" || !spans[0].StartTime.Equal(start) {
		t.Fatalf("spans %+v", spans)
	}
}

// The server span is named by the route, carries the HTTP attributes and
// continues the request's traceparent; the client transport writes the
// traceparent of its own span.
func TestHTTPServerAndClientSpans(t *testing.T) {
	exp := install(t, 0)
	var got string
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r.Header.Get("traceparent") }))
	defer upstream.Close()
	client := &http.Client{Transport: telemetry.Transport(http.DefaultTransport)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /things/{id}", func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequestWithContext(r.Context(), "GET", upstream.URL+"/secret-path?token=abc", nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		w.WriteHeader(http.StatusTeapot)
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r, span := telemetry.StartServer(r)
		mux.ServeHTTP(w, r)
		telemetry.EndServer(span, r, http.StatusTeapot) // what the handler answers
	}))
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/things/42", nil)
	req.Header.Set("traceparent", telemetrytest.Traceparent)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var server, cl tracetest.SpanStub
	for _, s := range exp.GetSpans() {
		switch s.SpanKind {
		case trace.SpanKindServer:
			server = s
		case trace.SpanKindClient:
			cl = s
		}
	}
	if server.Name != "GET /things/{id}" || telemetrytest.Attr(server, "http.route") != "/things/{id}" ||
		telemetrytest.Attr(server, "http.response.status_code") != "418" || server.Parent.TraceID().String() != telemetrytest.TraceID {
		t.Fatalf("server span %+v", server)
	}
	if cl.Name != "GET" || cl.Parent.SpanID() != server.SpanContext.SpanID() || !strings.Contains(got, cl.SpanContext.SpanID().String()) {
		t.Fatalf("client span %+v; upstream got %q", cl, got)
	}
	// The client span names the server, not the URL: a path or query may hold a credential.
	for _, kv := range cl.Attributes {
		if v := kv.Value.Emit(); strings.Contains(v, "secret-path") || strings.Contains(v, "token") {
			t.Fatalf("client span attribute %s=%s", kv.Key, v)
		}
	}
}

// Setup of "none" leaves tracing off; of "otlp" over either protocol it
// turns it on, its spans reach the endpoint with the resource (service,
// role, version, OTEL_RESOURCE_ATTRIBUTES), and Shutdown flushes them and
// turns tracing off.
func TestSetup(t *testing.T) {
	p, err := telemetry.Setup(context.Background(), telemetry.Settings{Exporter: "none"}, "gateway", "dev")
	if err != nil || telemetry.Enabled() {
		t.Fatalf("none: %v, enabled %v", err, telemetry.Enabled())
	}
	_ = p.Shutdown(context.Background())
	for proto, rcv := range map[string]*telemetrytest.Receiver{
		"http/protobuf": telemetrytest.NewReceiver(t), "grpc": telemetrytest.NewGRPCReceiver(t),
	} {
		p, err := telemetry.Setup(context.Background(), telemetry.Settings{Exporter: "otlp", Protocol: proto, Endpoint: rcv.URL,
			ServiceName: "edge", Sampler: "always_on", Ratio: 1, ResourceAttributes: "deployment.environment=test"}, "worker", "dev")
		if err != nil || !telemetry.Enabled() {
			t.Fatalf("%s: %v", proto, err)
		}
		_, span := telemetry.Start(context.Background(), "exported", trace.SpanKindInternal)
		span.End()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = p.Shutdown(ctx) // flushes the span
		cancel()
		if err != nil || telemetry.Enabled() {
			t.Fatalf("%s: Shutdown %v, enabled %v", proto, err, telemetry.Enabled())
		}
		got := rcv.Spans(t)
		if len(got) != 1 || got[0].Name != "exported" || got[0].Service != "edge" || got[0].Role != "worker" ||
			got[0].Resource["deployment.environment"] != "test" || got[0].Resource["service.version"] != "dev" {
			t.Fatalf("%s: received %+v", proto, got)
		}
	}
}

// Each OTEL_TRACES_SAMPLER name is its sampler.
func TestSamplerNames(t *testing.T) {
	for name, want := range map[string]string{
		"always_on": "AlwaysOnSampler", "always_off": "AlwaysOffSampler", "traceidratio": "TraceIDRatioBased{0.25}",
		"parentbased_always_on":    "ParentBased{root:AlwaysOnSampler",
		"parentbased_always_off":   "ParentBased{root:AlwaysOffSampler",
		"parentbased_traceidratio": "ParentBased{root:TraceIDRatioBased{0.25}",
	} {
		if got := telemetry.Sampler(name, 0.25).Description(); !strings.HasPrefix(got, want) {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
}

// Under an unsampled span, with a sampler that follows the parent, no
// child is made (it would not be sampled either), and the context that
// travels on is still the trace's, marked unsampled.
func TestNoChildOfAnUnsampledSpan(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithSampler(telemetry.Sampler("parentbased_traceidratio", 0)))
	t.Cleanup(telemetry.Install(tp, telemetry.Settings{Sampler: "parentbased_traceidratio"}))
	ctx, root := telemetry.Start(context.Background(), "request", trace.SpanKindServer)
	defer root.End()
	child, span := telemetry.StartNamed(ctx, "operation", "FilterData", trace.SpanKindInternal)
	if child != ctx || span.SpanContext().SpanID() != root.SpanContext().SpanID() || span.IsRecording() {
		t.Fatal("a child span was made under an unsampled one")
	}
	h := http.Header{}
	telemetry.ToHeader(child, h)
	if want := "00-" + root.SpanContext().TraceID().String() + "-" + root.SpanContext().SpanID().String() + "-00"; h.Get("traceparent") != want {
		t.Fatalf("traceparent %q, want %q", h.Get("traceparent"), want)
	}
	if len(exp.GetSpans()) != 0 {
		t.Fatal("an unsampled span was exported")
	}
}
