package capability

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/protocol/a2e"
	"github.com/sluicehq/sluice/protocol/a2s"
)

// A request task is the one OpenAPI operation of its request (kin-openapi
// reads the specification), sent by an ApiCall operation built for the run:
// so the account's hosts, the server's egress rule, the vault, retries and
// the GET cache are ApiCall's. Values never enter the ApiCall's configuration:
// it refers to them ({/workflow/a2s_req.p0}, a whole-reference body) and they
// are served from a private overlay of the data model, so no input can
// smuggle a reference or a credentialRef into the request.

// reqKey is the overlay's top-level key.
const reqKey = "a2s_req"

// openAPIOp is a request's operation, read once when the capability compiles.
type openAPIOp struct {
	method string // upper case
	server string // literal base URL, variables at their defaults
	path   string
	params []*openapi3.Parameter
	body   *openapi3.Schema // JSON request body schema; nil without one
	// bodyRequired says the request body is required.
	bodyRequired bool
	// apiKeyHeader is the header of an apiKey security scheme, if any.
	apiKeyHeader string
}

// loadOperation reads the single operation of a request.
func loadOperation(r *a2s.Request) (*openAPIOp, error) {
	if r.Spec == nil {
		return nil, fmt.Errorf("request %s has no specification", r.Name)
	}
	raw, err := json.Marshal(r.Spec.Interface())
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader() // external $refs stay off: a document never makes sluice fetch
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("request %s: the OpenAPI specification does not load: %v", r.Name, err)
	}
	if len(doc.Servers) == 0 || doc.Servers[0] == nil {
		return nil, fmt.Errorf("request %s names no server", r.Name)
	}
	o := &openAPIOp{method: strings.ToUpper(r.Method.Value), path: r.Path.Value, server: serverURL(doc.Servers[0])}
	if doc.Paths == nil {
		return nil, fmt.Errorf("request %s has no paths", r.Name)
	}
	item := doc.Paths.Find(o.path)
	if item == nil {
		return nil, fmt.Errorf("request %s: path %s not found", r.Name, o.path)
	}
	operation := item.GetOperation(o.method)
	if operation == nil {
		return nil, fmt.Errorf("request %s: %s %s not found", r.Name, o.method, o.path)
	}
	seen := map[string]bool{}
	for _, list := range []openapi3.Parameters{operation.Parameters, item.Parameters} {
		for _, ref := range list {
			if ref == nil || ref.Value == nil {
				continue
			}
			key := ref.Value.In + ":" + ref.Value.Name
			if !seen[key] { // an operation's parameter overrides the path's
				seen[key] = true
				o.params = append(o.params, ref.Value)
			}
		}
	}
	if rb := operation.RequestBody; rb != nil && rb.Value != nil {
		o.bodyRequired = rb.Value.Required
		if mt := rb.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil {
			o.body = mt.Schema.Value
		} else if len(rb.Value.Content) > 0 {
			return nil, fmt.Errorf("request %s: only application/json request bodies are supported", r.Name)
		}
	}
	if doc.Components != nil {
		for _, ss := range doc.Components.SecuritySchemes {
			if ss != nil && ss.Value != nil && ss.Value.Type == "apiKey" && ss.Value.In == "header" {
				o.apiKeyHeader = ss.Value.Name
			}
		}
	}
	return o, nil
}

// serverURL is a server's URL with its variables at their defaults.
func serverURL(s *openapi3.Server) string {
	u := s.URL
	for name, v := range s.Variables {
		if v != nil {
			u = strings.ReplaceAll(u, "{"+name+"}", v.Default)
		}
	}
	return strings.TrimSuffix(u, "/")
}

// requestOp runs one request task.
type requestOp struct {
	task  *a2s.Task
	meta  map[string]any
	op    *openAPIOp
	env   *op.Environment
	creds *serviceAuth // nil: the service takes no credentials
	built sync.Map     // ApiCall by the configuration's shape (see Run)
}

func (r *requestOp) Run(ctx context.Context, rc *op.RunContext) (any, error) {
	id := r.task.ID.Value
	inputs := readState(rc.Data, r.meta).taskInputs(r.task)
	for _, p := range r.task.Inputs {
		if isCredentialRef(p) {
			delete(inputs, p.Name)
		}
	}
	req := map[string]any{}
	cfg := a2e.ApiCall{Method: r.op.method, Headers: map[string]json.RawMessage{}, OutputPath: "/workflow/" + reqKey + "_out"}
	u := r.op.server + r.op.path
	var query []string
	used := map[string]bool{}
	for i, p := range r.op.params {
		v, ok := inputs[p.Name]
		if !ok || v == nil {
			if p.Required {
				return nil, fault.Typed(fault.Invalid, fault.DataError, "task %q: the %s parameter %q is required and has no value", id, p.In, p.Name).
					WithOp(id).WithSuggestions("Give it as an input of the task (a mapping, a $ref or a capability input of that name)")
			}
			continue
		}
		used[p.Name] = true
		if p.Schema != nil && p.Schema.Value != nil {
			if err := p.Schema.Value.VisitJSON(v); err != nil {
				return nil, fault.Typed(fault.Invalid, fault.DataError, "task %q: the %s parameter %q does not match its schema: %s", id, p.In, p.Name, schemaReason(err)).WithOp(id)
			}
		}
		key := fmt.Sprintf("v%d", i)
		req[key] = v
		ref := "{/workflow/" + reqKey + "." + key + "}"
		switch p.In {
		case openapi3.ParameterInPath:
			u = strings.ReplaceAll(u, "{"+p.Name+"}", ref)
		case openapi3.ParameterInQuery:
			query = append(query, url.QueryEscape(p.Name)+"="+ref)
		case openapi3.ParameterInHeader:
			cfg.Headers[p.Name] = mustJSON(ref)
		default:
			return nil, fault.Typed(fault.Invalid, fault.ValidationError, "task %q: %s parameters are not supported", id, p.In).WithOp(id)
		}
	}
	if len(query) > 0 {
		u += "?" + strings.Join(query, "&")
	}
	cfg.URL = u
	if r.op.body != nil || r.op.bodyRequired {
		body, err := r.body(inputs, used)
		if err != nil {
			return nil, err
		}
		if body != nil {
			req["body"] = body
			cfg.Body = mustJSON("{/workflow/" + reqKey + ".body}")
		}
	}
	env := r.env
	swapped := false
	if r.creds != nil {
		var err error
		base := env
		if env, err = r.creds.apply(ctx, rc, &cfg, env); err != nil {
			return nil, err
		}
		swapped = env != base
	}
	// The configuration holds references, never values, so one built ApiCall
	// serves every run with the same parameters present. One built over a
	// fetched token's environment is not kept (the token is its vault).
	key := cfg.URL
	if cfg.Body != nil {
		key += "\x00body"
	}
	for _, h := range slices.Sorted(maps.Keys(cfg.Headers)) {
		key += "\x00" + h
	}
	var call op.Operation
	if !swapped {
		if v, ok := r.built.Load(key); ok {
			call = v.(op.Operation)
		}
	}
	if call == nil {
		raw, err := json.Marshal(cfg)
		if err != nil {
			return nil, err
		}
		if call, err = env.Build(a2e.OpApiCall, raw); err != nil {
			return nil, err
		}
		if !swapped {
			r.built.Store(key, call)
		}
	}
	sub := *rc
	sub.Data = overlay{base: rc.Data, req: req}
	out, err := call.Run(ctx, &sub)
	if err != nil {
		return nil, err
	}
	return r.outputs(out), nil
}

// body is the JSON body: an input named "body", else the inputs that are
// properties of the body schema (or, with a schema without properties, all
// inputs not used as parameters). It is checked against the schema.
func (r *requestOp) body(inputs map[string]any, used map[string]bool) (any, error) {
	id := r.task.ID.Value
	var body any
	if b, ok := inputs["body"]; ok && !used["body"] {
		body = b
	} else {
		obj := map[string]any{}
		for name, v := range inputs {
			if used[name] {
				continue
			}
			if r.op.body != nil && len(r.op.body.Properties) > 0 {
				if _, ok := r.op.body.Properties[name]; !ok {
					continue
				}
			}
			obj[name] = v
		}
		if len(obj) > 0 {
			body = obj
		}
	}
	if body == nil {
		if r.op.bodyRequired {
			return nil, fault.Typed(fault.Invalid, fault.DataError, "task %q: the request body is required and no input fills it", id).WithOp(id)
		}
		return nil, nil
	}
	if r.op.body != nil {
		if err := r.op.body.VisitJSON(body); err != nil {
			return nil, fault.Typed(fault.Invalid, fault.DataError, "task %q: the request body does not match its schema: %s", id, schemaReason(err)).WithOp(id)
		}
	}
	return body, nil
}

// outputs maps a response to the task's declared outputs: each by name from
// an object response; a single output takes a response that is not an
// object whole. A task that declares none gets the response as "response".
func (r *requestOp) outputs(resp any) map[string]any {
	out := map[string]any{}
	if len(r.task.Outputs) == 0 {
		out["response"] = resp
		return out
	}
	obj, isObject := resp.(map[string]any)
	for _, p := range r.task.Outputs {
		switch {
		case isObject:
			out[p.Name] = obj[p.Name]
		case len(r.task.Outputs) == 1:
			out[p.Name] = resp
		default:
			out[p.Name] = nil
		}
	}
	return out
}

// schemaReason is the first line of a kin-openapi schema error.
func schemaReason(err error) string {
	var se *openapi3.SchemaError
	msg := err.Error()
	if errors.As(err, &se) {
		msg = se.Reason
		if p := se.JSONPointer(); len(p) > 0 {
			msg = "/" + strings.Join(p, "/") + ": " + msg
		}
	}
	msg, _, _ = strings.Cut(msg, "\n")
	return msg
}

// overlay serves the request's values under /workflow/a2s_req and everything
// else from the execution's data.
type overlay struct {
	base op.Data
	req  map[string]any
}

func (o overlay) Get(p a2e.Path) (any, error) {
	if p.Root != a2e.RootWorkflow || len(p.Segments) == 0 || p.Segments[0].Key != reqKey || p.Segments[0].IsIndex {
		return o.base.Get(p)
	}
	var v any = o.req
	for _, s := range p.Segments[1:] {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[s.Key]
			if !ok || s.IsIndex {
				return nil, fault.Typed(fault.Invalid, fault.DataError, "no value at %s", p)
			}
			v = next
		case []any:
			if !s.IsIndex || s.Index < 0 || s.Index >= len(x) {
				return nil, fault.Typed(fault.Invalid, fault.DataError, "no value at %s", p)
			}
			v = x[s.Index]
		default:
			return nil, fault.Typed(fault.Invalid, fault.DataError, "no value at %s", p)
		}
	}
	return v, nil
}

// safeMethod says a request changes nothing (for the engine's retry of a
// timed-out attempt).
func safeMethod(m string) bool {
	return slices.Contains([]string{http.MethodGet, http.MethodHead, http.MethodOptions}, m)
}
