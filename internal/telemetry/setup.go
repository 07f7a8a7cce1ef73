package telemetry

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Settings say where and how traces go: config's telemetry section
// (config.Telemetry, whose keys the OTEL_* variables override).
type Settings struct {
	Exporter           string // "none" or "otlp"
	Endpoint           string // the OTLP endpoint of every signal
	TracesEndpoint     string // the traces' own full URL
	Protocol           string // "http/protobuf" or "grpc"
	ServiceName        string
	Sampler            string // an OTEL_TRACES_SAMPLER name
	Ratio              float64
	ResourceAttributes string // key=value,key=value
	SlowStoreWrite     time.Duration
	// SlowStep: when set, a pure step that succeeds at once in less time
	// is an event on the run's span instead of a span of its own
	// (StartStep); 0 gives every step its span.
	SlowStep time.Duration
}

// Provider is tracing as Setup put it in force; Shutdown flushes the spans
// not yet exported and turns tracing off.
type Provider struct {
	tp *sdktrace.TracerProvider
}

// Shutdown exports what is left (bounded by ctx) and stops tracing. A nil
// Provider, or one of tracing off, has nothing to do.
func (p *Provider) Shutdown(ctx context.Context) error {
	if p == nil || p.tp == nil {
		return nil
	}
	current.Store(nil)
	return p.tp.Shutdown(ctx)
}

// Setup puts tracing in force as t says: nothing when its exporter is
// "none"; else an OTLP exporter (HTTP/protobuf or gRPC) behind a batch
// processor, the configured sampler, a resource naming the service and
// this process's role (sluice.role: "gateway" or "worker"), and the W3C
// propagators. version is the binary's.
func Setup(ctx context.Context, t Settings, role, version string) (*Provider, error) {
	if t.Exporter != "otlp" {
		return &Provider{}, nil
	}
	exp, err := exporter(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("telemetry: the OTLP exporter: %w", err)
	}
	res, err := resourceOf(ctx, t, role, version)
	if err != nil {
		_ = exp.Shutdown(ctx)
		return nil, fmt.Errorf("telemetry: the resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(res),
		sdktrace.WithSampler(Sampler(t.Sampler, t.Ratio)),
	)
	install(tp, t)
	return &Provider{tp: tp}, nil
}

// install makes tp the tracer of Start and the global provider (for the
// libraries that trace through otel's globals), with the W3C propagators.
func install(tp *sdktrace.TracerProvider, t Settings) {
	slow := t.SlowStoreWrite
	if slow <= 0 {
		slow = DefaultSlowStoreWrite
	}
	slowStep := max(t.SlowStep, 0)
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(Propagator)
	current.Store(&state{tracer: tp.Tracer(Instrumentation), slow: slow, slowStep: slowStep,
		parentBased: t.Sampler == "" || strings.HasPrefix(t.Sampler, "parentbased_")})
}

// Propagator reads and writes traceparent, tracestate and baggage.
var Propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// exporter is the OTLP exporter of t. The endpoints of t win over the
// exporter's own reading of the environment (which still supplies
// OTEL_EXPORTER_OTLP_HEADERS, certificates and timeouts: those stay out of
// the config, where a header's token would be shown).
func exporter(ctx context.Context, t Settings) (sdktrace.SpanExporter, error) {
	if t.Protocol == "grpc" {
		var opts []otlptracegrpc.Option
		switch {
		case t.TracesEndpoint != "":
			opts = append(opts, otlptracegrpc.WithEndpointURL(t.TracesEndpoint))
		case t.Endpoint != "":
			opts = append(opts, otlptracegrpc.WithEndpointURL(t.Endpoint))
		}
		return otlptracegrpc.New(ctx, opts...)
	}
	var opts []otlptracehttp.Option
	switch {
	case t.TracesEndpoint != "":
		opts = append(opts, otlptracehttp.WithEndpointURL(t.TracesEndpoint))
	case t.Endpoint != "":
		// The spec: a signal's path is appended to the generic endpoint.
		opts = append(opts, otlptracehttp.WithEndpointURL(strings.TrimSuffix(t.Endpoint, "/")+"/v1/traces"))
	}
	return otlptracehttp.New(ctx, opts...)
}

// resourceOf describes this process: service.name, service.version, the
// role, the host and process, then OTEL_RESOURCE_ATTRIBUTES' pairs.
func resourceOf(ctx context.Context, t Settings, role, version string) (*resource.Resource, error) {
	attrs := []attribute.KeyValue{
		attribute.String("service.name", t.ServiceName),
		attribute.String("service.version", version),
		attribute.String("sluice.role", role),
	}
	for _, kv := range strings.Split(t.ResourceAttributes, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if ok && strings.TrimSpace(k) != "" {
			attrs = append(attrs, attribute.String(strings.TrimSpace(k), strings.TrimSpace(v)))
		}
	}
	return resource.New(ctx, resource.WithHost(), resource.WithProcessPID(), resource.WithAttributes(attrs...))
}

// Sampler is the SDK sampler of an OTEL_TRACES_SAMPLER name and ratio
// (config validated the name; an unknown one is the spec's default).
func Sampler(name string, ratio float64) sdktrace.Sampler {
	switch name {
	case "always_on":
		return sdktrace.AlwaysSample()
	case "always_off":
		return sdktrace.NeverSample()
	case "traceidratio":
		return sdktrace.TraceIDRatioBased(ratio)
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample())
	case "parentbased_traceidratio":
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio))
	}
	return sdktrace.ParentBased(sdktrace.AlwaysSample())
}

// Install puts tp in force, as Setup does with its own provider, with t's
// slow store write threshold and sampler name (whether tp's sampler follows
// the parent: "" or parentbased_*), and returns what turns tracing off
// again. Tests install an SDK provider over tracetest's in-memory exporter.
func Install(tp *sdktrace.TracerProvider, t Settings) (restore func()) {
	install(tp, t)
	return func() { current.Store(nil) }
}
