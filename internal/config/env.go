package config

import (
	"reflect"
	"strconv"
	"strings"
)

// Environment variables (docs/configuration.md, "Environment").
const (
	EnvConfig   = "SLUICE_CONFIG"    // the config file, when Options.Path is empty
	EnvAdminKey = "SLUICE_ADMIN_KEY" // the admin key itself
)

// envOverrides map environment variables onto key paths; they win over the
// file. A list takes comma-separated values and replaces the file's list.
var envOverrides = []struct{ name, path string }{
	{"SLUICE_ADDR", "addr"},
	{"SLUICE_DATA", "data_dir"},
	{"SLUICE_LOG_LEVEL", "log.level"},
	{"SLUICE_LOG_FORMAT", "log.format"},
	{"SLUICE_MAX_BODY_BYTES", "max_body_bytes"},
	{"SLUICE_EGRESS_ALLOW_PRIVATE", "egress.allow_private"},
	{"SLUICE_WORKERS", "workers"},
	{"SLUICE_SESSION_TTL", "session.ttl"},
	{"SLUICE_METRICS", "metrics.enabled"},
	{"SLUICE_CONSOLE", "console.enabled"},
	{"SLUICE_CONSOLE_ADDR", "console.addr"},
	{"SLUICE_ADMIN_KEY_FILE", "admin_key_file"},
	{"SLUICE_STORE", "store.dsn"},
	{"SLUICE_RETENTION_RUNS", "retention.runs"},
	{"SLUICE_RETENTION_AUDIT", "retention.audit"},
	{"SLUICE_QUEUE", "agents.queue"},
	{"SLUICE_AGENT_WORKERS", "agents.workers"},
	// OpenTelemetry's own variables, as every OTel SDK reads them.
	{"OTEL_TRACES_EXPORTER", "telemetry.exporter"},
	{"OTEL_EXPORTER_OTLP_ENDPOINT", "telemetry.endpoint"},
	{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "telemetry.traces_endpoint"},
	{"OTEL_EXPORTER_OTLP_PROTOCOL", "telemetry.protocol"},
	{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "telemetry.protocol"},
	{"OTEL_SERVICE_NAME", "telemetry.service_name"},
	{"OTEL_TRACES_SAMPLER", "telemetry.sampler"},
	{"OTEL_TRACES_SAMPLER_ARG", "telemetry.sampler_arg"},
	{"OTEL_RESOURCE_ATTRIBUTES", "telemetry.resource_attributes"},
}

// applyEnv sets the overridden keys of cfg; an empty variable counts as unset.
func (d *decoder) applyEnv(cfg *Config, lookup func(string) (string, bool)) {
	for _, o := range envOverrides {
		text, ok := lookup(o.name)
		if !ok || strings.TrimSpace(text) == "" {
			continue
		}
		v, unit := fieldByPath(reflect.ValueOf(cfg).Elem(), o.path)
		if msg := setFromText(v, unit, strings.TrimSpace(text)); msg != "" {
			d.problems = append(d.problems, Problem{Env: o.name, Path: o.path, Message: msg})
			if d.failed == nil {
				d.failed = map[string]bool{}
			}
			d.failed[o.path] = true
			continue
		}
		d.at[o.path] = Problem{Env: o.name, Path: o.path}
	}
	if text, ok := lookup(EnvAdminKey); ok && strings.TrimSpace(text) != "" {
		cfg.AdminKey = NewSecret(strings.TrimSpace(text))
		d.at["admin_key"] = Problem{Env: EnvAdminKey}
	}
}

// fieldByPath finds the field at a dotted key path and its unit tag.
func fieldByPath(v reflect.Value, path string) (reflect.Value, string) {
	unit := ""
	for _, name := range strings.Split(path, ".") {
		f := fieldsOf(v.Type())[name]
		v, unit = v.Field(f.index), f.unit
	}
	return v, unit
}

// setFromText sets v from an environment variable's text and returns a
// problem message, or "".
func setFromText(v reflect.Value, unit, text string) string {
	switch {
	case v.Type() == durationType:
		d, err := parseDuration(text, unit)
		if err != nil {
			return err.Error()
		}
		v.SetInt(int64(d))
	case v.Kind() == reflect.String:
		v.SetString(text)
	case v.Kind() == reflect.Bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return "want true or false, got " + strconv.Quote(text)
		}
		v.SetBool(b)
	case v.Kind() == reflect.Int || v.Kind() == reflect.Int64:
		if unit == "bytes" {
			n, err := parseSize(text)
			if err != nil {
				return err.Error()
			}
			v.SetInt(n)
			return ""
		}
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil || v.OverflowInt(n) {
			return "want an integer, got " + strconv.Quote(text)
		}
		v.SetInt(n)
	case v.Kind() == reflect.Slice:
		var out []string
		for _, part := range strings.Split(text, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
		v.Set(reflect.ValueOf(out))
	}
	return ""
}
