// Package telemetrytest records the spans a test makes in memory
// (tracetest's exporter) and asks questions of their tree: which spans a
// trace holds, who is whose parent, whether a secret is in an attribute.
package telemetrytest

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/sluicehq/sluice/internal/telemetry"
)

// TraceID is the trace of Traceparent, the parent a test's request names.
const (
	TraceID     = "4bf92f3577b34da6a3ce929d0e0e4736"
	Traceparent = "00-" + TraceID + "-00f067aa0ba902b7-01"
)

// Recorder holds the spans of tracing installed for one test.
type Recorder struct {
	exp *tracetest.InMemoryExporter
}

// Install turns tracing on for the test, every span sampled and exported
// at once to memory, and off again when the test ends. Tests that install
// it must not run in parallel with each other (tracing is process-wide).
func Install(t testing.TB) *Recorder {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	// The server's defaults: every operation has its span.
	restore := telemetry.Install(tp, telemetry.Settings{})
	t.Cleanup(func() {
		restore()
		_ = tp.Shutdown(t.Context())
	})
	return &Recorder{exp: exp}
}

// Spans are the spans ended so far.
func (r *Recorder) Spans() tracetest.SpanStubs { return r.exp.GetSpans() }

// Trace is the spans of the trace id (hex) ended so far.
func (r *Recorder) Trace(id string) Tree {
	var out Tree
	for _, s := range r.exp.GetSpans() {
		if s.SpanContext.TraceID().String() == id {
			out = append(out, s)
		}
	}
	return out
}

// Tree is the spans of one trace.
type Tree []tracetest.SpanStub

// Named is the spans named name.
func (tr Tree) Named(name string) Tree {
	var out Tree
	for _, s := range tr {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// One is the one span named name; it fails the test when there is none or
// more than one.
func (tr Tree) One(t testing.TB, name string) tracetest.SpanStub {
	t.Helper()
	got := tr.Named(name)
	if len(got) != 1 {
		t.Fatalf("%d spans named %q, want 1; the trace holds:\n%s", len(got), name, tr)
	}
	return got[0]
}

// Parent is s's parent in the tree, if it is there.
func (tr Tree) Parent(s tracetest.SpanStub) (tracetest.SpanStub, bool) {
	for _, p := range tr {
		if p.SpanContext.SpanID() == s.Parent.SpanID() {
			return p, true
		}
	}
	return tracetest.SpanStub{}, false
}

// Under fails the test unless the span named ancestor is an ancestor of s.
func (tr Tree) Under(t testing.TB, s tracetest.SpanStub, ancestor string) {
	t.Helper()
	for cur := s; ; {
		p, ok := tr.Parent(cur)
		if !ok {
			t.Fatalf("span %q is not under %q; the trace holds:\n%s", s.Name, ancestor, tr)
		}
		if p.Name == ancestor {
			return
		}
		cur = p
	}
}

// String lists the tree, a span a line: name, kind, parent.
func (tr Tree) String() string {
	var b strings.Builder
	for _, s := range tr {
		parent := "-"
		if p, ok := tr.Parent(s); ok {
			parent = p.Name
		} else if s.Parent.IsValid() {
			parent = "(remote " + s.Parent.SpanID().String() + ")"
		}
		fmt.Fprintf(&b, "  %s [%s] <- %s\n", s.Name, s.SpanKind, parent)
	}
	return b.String()
}

// Attr is the value of s's attribute key, as text ("" when absent).
func Attr(s tracetest.SpanStub, key string) string {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value.Emit()
		}
	}
	return ""
}

// Event is the one event of s named name (a quick pure step:
// telemetry.StartStep) and its attributes as text; it fails the test when
// s has none or several.
func Event(t testing.TB, s tracetest.SpanStub, name string) map[string]string {
	t.Helper()
	var found []map[string]string
	for _, e := range s.Events {
		if e.Name == name {
			m := map[string]string{}
			for _, kv := range e.Attributes {
				m[string(kv.Key)] = kv.Value.Emit()
			}
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d events named %q on span %q, want 1", len(found), name, s.Name)
	}
	return found[0]
}

// Kind is s's span kind.
func Kind(s tracetest.SpanStub) trace.SpanKind { return s.SpanKind }

// AssertNoSecret fails the test when any of secrets (itself, its last 12
// characters, base64 or hex) is in a name, attribute, event or status of any span
// recorded, or of its resource.
func (r *Recorder) AssertNoSecret(t testing.TB, secrets ...string) {
	t.Helper()
	for _, s := range r.exp.GetSpans() {
		texts := []string{s.Name, s.Status.Description}
		texts = append(texts, attrs(s.Attributes)...)
		for _, e := range s.Events {
			texts = append(texts, e.Name)
			texts = append(texts, attrs(e.Attributes)...)
		}
		if s.Resource != nil {
			texts = append(texts, attrs(s.Resource.Attributes())...)
		}
		for _, text := range texts {
			for _, secret := range secrets {
				for _, form := range forms(secret) {
					if strings.Contains(text, form) {
						t.Fatalf("span %q holds a secret in %q", s.Name, text)
					}
				}
			}
		}
	}
}

// forms are the ways a secret may show: itself, its tail, base64 and hex.
func forms(secret string) []string {
	out := []string{secret, base64.StdEncoding.EncodeToString([]byte(secret)),
		base64.RawURLEncoding.EncodeToString([]byte(secret)), hex.EncodeToString([]byte(secret))}
	if len(secret) > 12 {
		out = append(out, secret[len(secret)-12:])
	}
	return out
}

func attrs(kvs []attribute.KeyValue) []string {
	out := make([]string, 0, 2*len(kvs))
	for _, kv := range kvs {
		out = append(out, string(kv.Key), kv.Value.Emit())
	}
	return out
}

// Await is the trace once it holds a span of each of names (a call's span
// ends after its answer is sent, so a test that has the answer may not
// have the span yet); it fails the test after 10 s.
func (r *Recorder) Await(t testing.TB, traceID string, names ...string) Tree {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		tr := r.Trace(traceID)
		missing := ""
		for _, n := range names {
			if len(tr.Named(n)) == 0 {
				missing = n
				break
			}
		}
		if missing == "" {
			return tr
		}
		if time.Now().After(deadline) {
			t.Fatalf("no span %q in trace %s after 10 s; it holds:\n%s", missing, traceID, tr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
