package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/log"

	"github.com/sluicehq/sluice/internal/a2aserver"
	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// The A2A ingress (docs/protocols/a2a.md): every agent of the registry is
// an A2A agent at /a2a/<agent>/, with its card beside it, and the server's
// own card at /.well-known/agent-card.json. a2a-go's transports own the
// wire (JSON-RPC 1.0, and 0.3 on the same endpoint; SSE for streams), and
// internal/a2aserver answers them from the run service.
//
// A2A is not a Codec: a2a-go's handlers decode the request and write the
// answer themselves, events and errors included, so there are no e2a
// frames to render. The policy chain is the dispatcher's all the same: the
// key is checked by Dispatcher.checkKey before the body is read, the
// account's request limit is taken once, and each call is audited and
// counted once (admitA2A, auditA2A); the agents grant is checked by
// a2aserver on every method.

// transportA2A names the A2A ingress in metrics and logs.
const transportA2A = "a2a"

// mountA2A adds the A2A routes to mux when agents and agent workflows are
// served.
func (s *Server) mountA2A(mux *http.ServeMux) {
	if s.svc.Agents == nil || s.svc.AgentFlows == nil {
		return
	}
	cfg := a2aserver.Config{Flows: s.svc.AgentFlows, Runs: s.runs, Records: s.svc.Store, Cards: s.extendedCard}
	if s.svc.Capabilities != nil {
		cfg.Capabilities, cfg.CapabilityCard = s.svc.Capabilities, s.extendedCapabilityCard
	}
	cfg.Push = s.svc.A2APush
	if cfg.Push.Logger == nil {
		cfg.Push.Logger = s.log.With("component", "a2a-push")
	}
	srv := a2aserver.New(cfg)
	s.a2a = srv
	agent := func(r *http.Request) handlerFor {
		return func(p *account.Principal) a2asrv.RequestHandler { return srv.For(p, r.PathValue("agent")) }
	}
	mux.HandleFunc("GET /.well-known/agent-card.json", s.serverCard)
	mux.HandleFunc("GET /a2a/{agent}/.well-known/agent-card.json", s.agentCard)
	for _, pattern := range []string{"/a2a/{$}", "/a2a/{agent}/{$}"} {
		mux.HandleFunc("POST "+pattern, func(w http.ResponseWriter, r *http.Request) { s.serveA2A(w, r, agent(r), jsonRPC) })
	}
	mux.HandleFunc("/a2a/{agent}/rest/", func(w http.ResponseWriter, r *http.Request) { s.serveA2A(w, r, agent(r), httpJSON) })
	if s.svc.Capabilities != nil {
		capability := func(r *http.Request) handlerFor {
			return func(p *account.Principal) a2asrv.RequestHandler { return srv.ForCapability(p, capabilityRef(r)) }
		}
		mux.HandleFunc("GET /a2a-cap/{ns}/{id}/.well-known/agent-card.json", s.capabilityCard)
		mux.HandleFunc("POST /a2a-cap/{ns}/{id}/{$}", func(w http.ResponseWriter, r *http.Request) { s.serveA2A(w, r, capability(r), jsonRPC) })
		mux.HandleFunc("/a2a-cap/{ns}/{id}/rest/", func(w http.ResponseWriter, r *http.Request) { s.serveA2A(w, r, capability(r), httpJSON) })
	}
}

// RunA2APush sends the A2A push notifications until ctx ends (at once
// when the A2A routes are not served, or push is not offered).
func (s *Server) RunA2APush(ctx context.Context) {
	if s.a2a != nil {
		s.a2a.RunPush(ctx)
	}
}

// capabilityRef is the NS/ID a capability's A2A route names.
func capabilityRef(r *http.Request) string { return r.PathValue("ns") + "/" + r.PathValue("id") }

// handlerFor is the request handler of an endpoint for a caller.
type handlerFor func(*account.Principal) a2asrv.RequestHandler

// a2aTransport is one of a2a-go's transports for a request whose body is
// read: the handler that serves it over h, and the method the audit names.
type a2aTransport func(r *http.Request, body []byte, h a2asrv.RequestHandler, opts ...a2asrv.TransportOption) (http.Handler, string)

// jsonRPC is the JSON-RPC binding: 1.0's methods, or 0.3's through a2a-go's
// compatibility layer, told apart by the method's name.
func jsonRPC(_ *http.Request, body []byte, h a2asrv.RequestHandler, opts ...a2asrv.TransportOption) (http.Handler, string) {
	var head struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &head) // a2a-go's transport reports a bad body
	if isA2AV03(head.Method) {
		return a2av0.NewJSONRPCHandler(h, opts...), head.Method
	}
	return a2asrv.NewJSONRPCHandler(h, opts...), head.Method
}

// httpJSON is the HTTP+JSON (REST) binding under <endpoint>rest: 1.0's
// paths, or 0.3's (under /v1) through the compatibility layer.
func httpJSON(r *http.Request, _ []byte, h a2asrv.RequestHandler, opts ...a2asrv.TransportOption) (http.Handler, string) {
	// The endpoint's prefix is as many segments of the path as its route
	// has ("/a2a/{agent}/rest/": three), whatever the agent's name.
	n := strings.Count(strings.Trim(r.Pattern, "/"), "/") + 1
	segs := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", n+1)
	prefix := "/" + strings.Join(segs[:min(n, len(segs))], "/")
	method := "rest." + r.Method
	if strings.HasPrefix(strings.TrimPrefix(r.URL.Path, prefix), a2av0.RESTPathPrefix+"/") {
		return http.StripPrefix(prefix, a2av0.NewRESTHandler(h, opts...)), method
	}
	return http.StripPrefix(prefix, a2asrv.NewRESTHandler(h, opts...)), method
}

// serveA2A is one request to an A2A endpoint: admitted, then served by
// a2a-go's transport over the endpoint's handler, then audited.
func (s *Server) serveA2A(w http.ResponseWriter, r *http.Request, handler handlerFor, transport a2aTransport) {
	id := requestID(r)
	w.Header().Set("X-Request-ID", id)
	start := s.clock.Now()
	ctx := r.Context()
	p, limit, err := s.dispatcher.admitA2A(ctx, r)
	if limit != nil {
		setLimitHeaders(w.Header(), limit)
	}
	if err != nil {
		s.dispatcher.auditA2A(ctx, id, "a2a", p, err, start) // p is set when only the limit refused it
		writeA2ARefusal(w, err)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		if tooLarge := new(http.MaxBytesError); errors.As(err, &tooLarge) {
			err = fault.New(fault.TooLarge, "the request body is over %d bytes", s.cfg.MaxBodyBytes)
		} else {
			err = fault.New(fault.Cancelled, "the request body could not be read").WithCause(err)
		}
		s.dispatcher.auditA2A(ctx, id, "a2a", p, err, start)
		writeA2ARefusal(w, err)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	logger := s.log.With("component", "a2a", "requestId", id)
	r = r.WithContext(log.AttachLogger(context.WithValue(ctx, a2aRequestKey{}, r), logger))
	rec := &a2aOutcome{}
	h := &a2asrv.InterceptedHandler{Handler: handler(p), Interceptors: []a2asrv.CallInterceptor{rec}, Logger: logger}
	serve, method := transport(r, body, h, a2asrv.WithTransportKeepAlive(s.cfg.SSEHeartbeat),
		a2asrv.WithTransportPanicHandler(func(v any) error {
			logger.Error("A2A call panicked", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			return a2a.ErrInternalError
		}))
	serve.ServeHTTP(w, r)
	s.dispatcher.auditA2A(ctx, id, "a2a."+a2aMethodName(method), p, rec.err, start)
}

// a2aOutcome keeps the first error a2a-go's transport is answered with,
// for the audit record.
type a2aOutcome struct {
	a2asrv.PassthroughCallInterceptor
	err error
}

func (o *a2aOutcome) After(_ context.Context, _ *a2asrv.CallContext, resp *a2asrv.Response) error {
	if resp.Err != nil && o.err == nil {
		o.err = resp.Err
	}
	return nil
}

// isA2AV03 tells A2A 0.3's method names ("message/send", "tasks/get")
// from 1.0's ("SendMessage", "GetTask"): one endpoint serves both.
func isA2AV03(method string) bool { return strings.Contains(method, "/") }

// a2aMethods are the JSON-RPC methods of A2A 1.0 and 0.3: the names the
// audit and the metrics keep (any other is "unknown", so that a caller
// cannot make up label values).
var a2aMethods = map[string]bool{
	"SendMessage": true, "SendStreamingMessage": true, "GetTask": true, "ListTasks": true, "CancelTask": true,
	"SubscribeToTask": true, "GetTaskPushNotificationConfig": true, "CreateTaskPushNotificationConfig": true,
	"ListTaskPushNotificationConfigs": true, "DeleteTaskPushNotificationConfig": true, "GetExtendedAgentCard": true,
	"message/send": true, "message/stream": true, "tasks/get": true, "tasks/cancel": true, "tasks/resubscribe": true,
	"tasks/pushNotificationConfig/get": true, "tasks/pushNotificationConfig/set": true,
	"tasks/pushNotificationConfig/list": true, "tasks/pushNotificationConfig/delete": true,
	"agent/getAuthenticatedExtendedCard": true,
	"rest.GET":                           true, "rest.POST": true, "rest.DELETE": true,
}

// a2aMethodName is method as the audit names it.
func a2aMethodName(method string) string {
	if !a2aMethods[method] {
		return "unknown"
	}
	return method
}

// admitA2A authenticates an A2A request by its key (one reader of the key,
// one check: policy.PresentedKey, checkKey) and takes one request from its
// account's limit, as admit does for every other ingress.
func (d *Dispatcher) admitA2A(ctx context.Context, r *http.Request) (*account.Principal, *LimitStatus, error) {
	key, err := policy.PresentedKey(r.Header)
	if err != nil {
		return nil, nil, err
	}
	p, err := d.checkKey(ctx, key)
	if err != nil {
		return nil, nil, err
	}
	if d.limiter == nil || p.Admin() {
		return p, nil, nil
	}
	st := d.limiter.AllowRequest(p)
	var limit *LimitStatus
	if st.Limit > 0 {
		limit = &st
	}
	if !st.Allowed {
		d.metrics.limited(transportA2A)
		return p, limit, &limitError{st}
	}
	return p, limit, nil
}

// auditA2A writes the one audit record and metric of an A2A request.
func (d *Dispatcher) auditA2A(ctx context.Context, requestID, method string, p *account.Principal, err error, start time.Time) {
	latency := d.clock.Now().Sub(start)
	rec := AuditRecord{Time: start, RequestID: requestID, Method: method, Decision: DecisionAllow,
		Latency: latency, Status: string(e2a.StatusSucceeded)}
	if p != nil {
		rec.AccountID = p.ID
	}
	var le *limitError
	switch {
	case errors.As(err, &le):
		rec.Decision, rec.Status, rec.ErrorCode = DecisionLimited, string(e2a.StatusFailed), fault.RateLimited.String()
	case err != nil:
		rec.Status, rec.ErrorCode = string(e2a.StatusFailed), a2aErrorCode(err)
		if p == nil {
			rec.Decision = DecisionDeny
		}
	}
	if d.audit != nil {
		d.audit.Record(rec)
	}
	d.metrics.request(ctx, transportA2A, method, rec.ErrorCode, rec.Decision, latency)
}

// a2aErrorCode is err's code in the audit: fault's code, or A2A's reason
// for an A2A error the service answered with.
func a2aErrorCode(err error) string {
	if fe, ok := fault.As(err); ok {
		return fe.Kind.String()
	}
	if reason := a2a.ErrorReason(err); reason != "" {
		return strings.ToLower(reason)
	}
	return fault.Internal.String()
}

// writeA2ARefusal answers a request refused before a2a-go read it: the
// HTTP status of fault's table (401 with a Bearer challenge, 429 with
// Retry-After), with a JSON-RPC error body of A2A's codes.
func writeA2ARefusal(w http.ResponseWriter, err error) {
	code, message, _ := errorBody(err)
	row := fault.RowOf(code)
	rpc := row.JSONRPC
	var le *limitError
	switch {
	case fault.KindOf(err) == fault.Unauthenticated:
		rpc = a2aUnauthenticated
		w.Header().Set("WWW-Authenticate", `Bearer realm="sluice"`)
	case errors.As(err, &le):
		w.Header().Set("Retry-After", strconv.Itoa(max(int(math.Ceil(le.st.RetryAfter.Seconds())), 1)))
	}
	writeJSON(w, row.HTTPStatus, map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": rpc, "message": message}})
}

// a2aUnauthenticated is A2A's JSON-RPC code for a missing or bad
// credential (a2a-go's ErrUnauthenticated).
const a2aUnauthenticated = -31401
