package telemetrytest

import (
	"compress/gzip"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// Receiver is an OTLP/HTTP traces endpoint in the test: it decodes each
// export (protobuf, gzip or not) and keeps its spans.
type Receiver struct {
	URL  string // the endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT (traces go to URL/v1/traces)
	mu   sync.Mutex
	got  []Received
	errs []string
}

// Received is one exported span, flattened: attribute values as text,
// the resource's service.name and sluice.role beside them.
type Received struct {
	TraceID, SpanID, ParentID string
	Name                      string
	Kind                      string
	Service, Role             string
	Attributes                map[string]string
	Resource                  map[string]string
}

// NewReceiver starts a receiver, closed when the test ends.
func NewReceiver(t testing.TB) *Receiver {
	t.Helper()
	r := &Receiver{}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
		r.fail("unexpected %s %s", req.Method, req.URL.Path)
		http.NotFound(w, req)
		return
	}
	var body io.Reader = io.LimitReader(req.Body, 64<<20)
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(body)
		if err != nil {
			r.fail("gzip: %v", err)
			http.Error(w, "bad gzip", http.StatusBadRequest)
			return
		}
		body = zr
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, "read", http.StatusBadRequest)
		return
	}
	var ex coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(raw, &ex); err != nil {
		r.fail("not an ExportTraceServiceRequest (%s): %v", req.Header.Get("Content-Type"), err)
		http.Error(w, "bad protobuf", http.StatusBadRequest)
		return
	}
	r.add(&ex)
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// add keeps the spans of one export.
func (r *Receiver) add(ex *coltracepb.ExportTraceServiceRequest) {
	var spans []Received
	for _, rs := range ex.GetResourceSpans() {
		res := text(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				spans = append(spans, Received{
					TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
					ParentID: hex.EncodeToString(s.GetParentSpanId()), Name: s.GetName(),
					Kind:    strings.ToLower(strings.TrimPrefix(s.GetKind().String(), "SPAN_KIND_")),
					Service: res["service.name"], Role: res["sluice.role"], Attributes: text(s.GetAttributes()), Resource: res,
				})
			}
		}
	}
	r.mu.Lock()
	r.got = append(r.got, spans...)
	r.mu.Unlock()
}

// NewGRPCReceiver is a receiver of OTLP over gRPC (URL is its
// http://127.0.0.1:PORT, as OTEL_EXPORTER_OTLP_ENDPOINT takes it), stopped
// when the test ends.
func NewGRPCReceiver(t testing.TB) *Receiver {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Receiver{URL: "http://" + ln.Addr().String()}
	srv := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(srv, grpcTraces{r: r})
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return r
}

type grpcTraces struct {
	coltracepb.UnimplementedTraceServiceServer
	r *Receiver
}

func (g grpcTraces) Export(_ context.Context, ex *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	g.r.add(ex)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

func (r *Receiver) fail(format string, args ...any) {
	r.mu.Lock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

// Spans are the spans received so far; it fails the test if an export
// could not be read.
func (r *Receiver) Spans(t testing.TB) []Received {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.errs) > 0 {
		t.Fatalf("the receiver could not read an export: %s", r.errs)
	}
	return append([]Received(nil), r.got...)
}

// Await is the spans of trace traceID once cond holds of them; it fails the
// test after timeout.
func (r *Receiver) Await(t testing.TB, traceID string, timeout time.Duration, cond func([]Received) bool) []Received {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var tr []Received
		for _, s := range r.Spans(t) {
			if s.TraceID == traceID {
				tr = append(tr, s)
			}
		}
		if cond(tr) {
			return tr
		}
		if time.Now().After(deadline) {
			var b strings.Builder
			for _, s := range tr {
				fmt.Fprintf(&b, "  %s [%s] %s/%s span %s parent %s\n", s.Name, s.Kind, s.Service, s.Role, s.SpanID, s.ParentID)
			}
			t.Fatalf("trace %s is not complete after %s; it holds:\n%s", traceID, timeout, b.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// AssertNoSecret fails the test when any received span's name, attribute
// or resource holds one of secrets (itself, its tail, base64 or hex).
func (r *Receiver) AssertNoSecret(t testing.TB, secrets ...string) {
	t.Helper()
	for _, s := range r.Spans(t) {
		texts := []string{s.Name}
		for _, m := range []map[string]string{s.Attributes, s.Resource} {
			for k, v := range m {
				texts = append(texts, k, v)
			}
		}
		for _, text := range texts {
			for _, secret := range secrets {
				for _, form := range forms(secret) {
					if strings.Contains(text, form) {
						t.Fatalf("span %q of %s holds a secret in %q", s.Name, s.Service, text)
					}
				}
			}
		}
	}
}

// text flattens OTLP attributes to text values.
func text(kvs []*commonpb.KeyValue) map[string]string {
	out := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		v := kv.GetValue()
		switch x := v.GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			out[kv.GetKey()] = x.StringValue
		case *commonpb.AnyValue_IntValue:
			out[kv.GetKey()] = fmt.Sprint(x.IntValue)
		case *commonpb.AnyValue_BoolValue:
			out[kv.GetKey()] = fmt.Sprint(x.BoolValue)
		case *commonpb.AnyValue_DoubleValue:
			out[kv.GetKey()] = fmt.Sprint(x.DoubleValue)
		default:
			out[kv.GetKey()] = v.String()
		}
	}
	return out
}
