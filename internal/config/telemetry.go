package config

import (
	"strconv"
	"strings"
	"time"
)

// Telemetry configures OpenTelemetry traces (docs/observability.md). Each
// key has the standard OTEL_* variable as its environment override, so an
// operator's usual settings work unchanged; Exporter "none" (the default)
// keeps tracing off and costs nothing.
type Telemetry struct {
	// Exporter is "none" or "otlp" (OTEL_TRACES_EXPORTER).
	Exporter string `yaml:"exporter"`
	// Endpoint is the OTLP endpoint of every signal (OTEL_EXPORTER_OTLP_ENDPOINT):
	// traces go to its /v1/traces over HTTP. TracesEndpoint, when set, is
	// the traces' own full URL (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). Both
	// empty: the exporter's default, localhost:4318 (HTTP) or :4317 (gRPC).
	Endpoint       string `yaml:"endpoint" redact:"url"`
	TracesEndpoint string `yaml:"traces_endpoint" redact:"url"`
	// Protocol is "http/protobuf" or "grpc" (OTEL_EXPORTER_OTLP_PROTOCOL).
	Protocol string `yaml:"protocol"`
	// ServiceName is the resource's service.name (OTEL_SERVICE_NAME).
	ServiceName string `yaml:"service_name"`
	// Sampler is one of the SDK's samplers (OTEL_TRACES_SAMPLER) and
	// SamplerArg its ratio for the traceidratio ones (OTEL_TRACES_SAMPLER_ARG).
	Sampler    string `yaml:"sampler"`
	SamplerArg string `yaml:"sampler_arg"`
	// ResourceAttributes are key=value pairs, comma-separated, added to the
	// resource (OTEL_RESOURCE_ATTRIBUTES).
	ResourceAttributes string `yaml:"resource_attributes"`
	// SlowStoreWrite is how long a store write takes before it gets a span
	// of its own; faster writes are not traced.
	SlowStoreWrite time.Duration `yaml:"slow_store_write"`
	// QuickStepEvents, when set, makes a data operation that succeeds at
	// once in less time an event on its run's span rather than a span of
	// its own: fewer spans (a sampled span costs more than such a step),
	// at the price of a trace whose quick steps are not spans. 0: every
	// operation has its span.
	QuickStepEvents time.Duration `yaml:"quick_step_events"`
}

// Samplers are the values of telemetry.sampler.
var Samplers = []string{"always_on", "always_off", "traceidratio",
	"parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"}

// Enabled reports whether traces are exported.
func (t Telemetry) Enabled() bool { return t.Exporter == "otlp" }

// Ratio is SamplerArg as a ratio (1 when unset).
func (t Telemetry) Ratio() float64 {
	if strings.TrimSpace(t.SamplerArg) == "" {
		return 1
	}
	r, _ := strconv.ParseFloat(strings.TrimSpace(t.SamplerArg), 64) // validated on load
	return r
}

func (d *decoder) validateTelemetry(t Telemetry) {
	d.oneOf("telemetry.exporter", t.Exporter, "none", "otlp")
	d.oneOf("telemetry.protocol", t.Protocol, "http/protobuf", "grpc")
	d.oneOf("telemetry.sampler", t.Sampler, Samplers...)
	if s := strings.TrimSpace(t.SamplerArg); s != "" {
		if r, err := strconv.ParseFloat(s, 64); err != nil || r < 0 || r > 1 {
			d.bad("telemetry.sampler_arg", "want a ratio from 0 to 1, got %q", t.SamplerArg)
		}
	}
	for _, u := range []struct{ path, v string }{{"telemetry.endpoint", t.Endpoint}, {"telemetry.traces_endpoint", t.TracesEndpoint}} {
		if u.v != "" && !strings.HasPrefix(u.v, "http://") && !strings.HasPrefix(u.v, "https://") {
			d.bad(u.path, "want an http:// or https:// URL")
		}
	}
	for _, kv := range strings.Split(t.ResourceAttributes, ",") {
		if kv = strings.TrimSpace(kv); kv != "" && !strings.Contains(kv, "=") {
			d.bad("telemetry.resource_attributes", "want key=value pairs separated by commas")
			break
		}
	}
	d.durationIn("telemetry.slow_store_write", t.SlowStoreWrite, 0, time.Hour)
	d.durationIn("telemetry.quick_step_events", t.QuickStepEvents, 0, time.Second)
}
