package telemetry

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// The W3C trace context keys, as headers, in _meta objects and in queue
// messages.
const (
	KeyTraceparent = "traceparent"
	KeyTracestate  = "tracestate"
	KeyBaggage     = "baggage"
)

// FromHeader is ctx with the trace context of h (a request's headers)
// when tracing is on and h carries one.
func FromHeader(ctx context.Context, h http.Header) context.Context {
	if !Enabled() || h.Get(KeyTraceparent) == "" {
		return ctx
	}
	return Propagator.Extract(ctx, propagation.HeaderCarrier(h))
}

// ToHeader writes ctx's trace context into h (an outbound request's
// headers); off, it writes nothing.
func ToHeader(ctx context.Context, h http.Header) {
	if !Enabled() {
		return
	}
	Propagator.Inject(ctx, propagation.HeaderCarrier(h))
}

// FromMeta is ctx with the trace context of an MCP or ACP _meta object,
// an A2A message's metadata, or any map whose traceparent, tracestate and
// baggage are strings; ctx as it is when tracing is off, when ctx already
// continues a remote trace, or when meta has none.
func FromMeta(ctx context.Context, meta map[string]any) context.Context {
	if !Enabled() || meta == nil {
		return ctx
	}
	if _, ok := meta[KeyTraceparent].(string); !ok {
		return ctx
	}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() && sc.IsRemote() {
		return ctx
	}
	return Propagator.Extract(ctx, metaCarrier(meta))
}

// ToMeta adds ctx's trace context to meta (an outbound _meta object or A2A
// metadata), making meta when it is nil; off, or without a span, meta is
// returned as it is.
func ToMeta(ctx context.Context, meta map[string]any) map[string]any {
	if !Enabled() || !trace.SpanContextFromContext(ctx).IsValid() {
		return meta
	}
	if meta == nil {
		meta = map[string]any{}
	}
	Propagator.Inject(ctx, metaCarrier(meta))
	return meta
}

// Carrier is the trace context of a queue message: a small object the
// message carries (the queue backends keep only a payload, so the context
// travels inside it, whichever backend it crosses).
type Carrier struct {
	Traceparent string `json:"traceparent,omitempty"`
	Tracestate  string `json:"tracestate,omitempty"`
	Baggage     string `json:"baggage,omitempty"`
}

// CarrierOf is ctx's trace context for a queue message (empty when tracing
// is off or ctx has no span).
func CarrierOf(ctx context.Context) Carrier {
	if !Enabled() || !trace.SpanContextFromContext(ctx).IsValid() {
		return Carrier{} // before c exists: off, nothing escapes to the heap
	}
	c := new(Carrier)
	Propagator.Inject(ctx, c)
	return *c
}

// Context is ctx with c's trace context (ctx as it is when c is empty or
// tracing is off).
func (c Carrier) Context(ctx context.Context) context.Context {
	if !Enabled() || c.Traceparent == "" {
		return ctx
	}
	cc := c // a copy escapes, not the receiver: nothing is allocated when off
	return Propagator.Extract(ctx, &cc)
}

// Or is c when it carries a trace, else alt: a queue message's header
// context (c, the standard place, which another producer may have filled
// alone) before the one in its payload (alt).
func (c Carrier) Or(alt Carrier) Carrier {
	if c.Traceparent != "" {
		return c
	}
	return alt
}

// Get, Set and Keys make a Carrier a propagation.TextMapCarrier.
func (c *Carrier) Get(key string) string {
	switch key {
	case KeyTraceparent:
		return c.Traceparent
	case KeyTracestate:
		return c.Tracestate
	case KeyBaggage:
		return c.Baggage
	}
	return ""
}

func (c *Carrier) Set(key, value string) {
	switch key {
	case KeyTraceparent:
		c.Traceparent = value
	case KeyTracestate:
		c.Tracestate = value
	case KeyBaggage:
		c.Baggage = value
	}
}

func (c *Carrier) Keys() []string { return []string{KeyTraceparent, KeyTracestate, KeyBaggage} }

// metaCarrier reads and writes the string entries of a _meta object.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string { s, _ := m[key].(string); return s }
func (m metaCarrier) Set(key, value string) { m[key] = value }
func (m metaCarrier) Keys() []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// MessageHeaders are the trace context headers of a queue message sent
// under ctx (traceparent, then tracestate when set; baggage stays in the
// payload, it may be kilobytes): what a broker's own tools and other
// consumers read. Nil when tracing is off or ctx has no span.
func MessageHeaders(ctx context.Context) [][2]string {
	c := CarrierOf(ctx)
	c.Baggage = ""
	return c.Headers()
}

// Headers are c's entries that are set, as message headers (key, value),
// in the order traceparent, tracestate, baggage; nil when none is.
func (c Carrier) Headers() [][2]string {
	if c.Traceparent == "" {
		return nil // no trace: a tracestate or baggage alone continues nothing
	}
	h := [][2]string{{KeyTraceparent, c.Traceparent}}
	if c.Tracestate != "" {
		h = append(h, [2]string{KeyTracestate, c.Tracestate})
	}
	if c.Baggage != "" {
		h = append(h, [2]string{KeyBaggage, c.Baggage})
	}
	return h
}
