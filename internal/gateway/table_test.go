package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/retention"
	"github.com/sluicehq/sluice/internal/tools"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// Each entry of the method table is whole: a name declared once, a handler,
// parameters declared once each, every path wildcard a declared parameter,
// REST routes served once, an sse route only for a method that streams, and
// admin.* names admin only.
func TestMethodTableIsWellFormed(t *testing.T) {
	names := map[string]bool{}
	served := map[string]string{}
	for _, rt := range infrastructureRoutes {
		served[rt.method+" "+rt.pattern] = "infrastructure"
	}
	for _, m := range methodTable {
		if names[m.name] {
			t.Errorf("%s is declared twice", m.name)
		}
		names[m.name] = true
		if m.handle == nil {
			t.Errorf("%s has no handler", m.name)
		}
		if m.rawParams && len(m.params) > 0 {
			t.Errorf("%s: raw params are not declared", m.name)
		}
		var pnames []string
		for _, p := range m.params {
			if slices.Contains(pnames, p.name) {
				t.Errorf("%s: parameter %s is declared twice", m.name, p.name)
			}
			pnames = append(pnames, p.name)
			if p.kind == pInt && (p.def < p.min || p.def > p.max) && p.def != 0 {
				t.Errorf("%s: %s's default %d is outside [%d, %d]", m.name, p.name, p.def, p.min, p.max)
			}
		}
		if strings.HasPrefix(m.name, "admin.") && m.access != accessAdmin {
			t.Errorf("%s is not admin only", m.name)
		}
		for _, r := range m.rest {
			key := r.verb + " " + r.pattern
			if by, dup := served[key]; dup {
				t.Errorf("%s: %s is %s's route too", m.name, key, by)
			}
			served[key] = m.name
			for _, w := range pathWildcards(r.pattern) {
				if !m.rawParams && !slices.Contains(pnames, w) && !slices.ContainsFunc(m.params, func(p param) bool { return p.restPath == w }) {
					t.Errorf("%s: %s's wildcard {%s} is not a declared parameter", m.name, r.pattern, w)
				}
			}
			if r.sse && !m.streams {
				t.Errorf("%s: %s sends events, but the method does not stream", m.name, r.pattern)
			}
		}
	}
	if len(routes) != len(served) {
		t.Errorf("the mux serves %d routes, the table declares %d", len(routes), len(served))
	}
}

// protocol/e2a's method lists are the table's: every gateway method it names
// is served, and IsGatewayMethod agrees with the table's admin methods.
func TestE2AMethodListsAgreeWithTable(t *testing.T) {
	for _, name := range e2a.GatewayMethods {
		if _, ok := methodByName(name); !ok {
			t.Errorf("protocol/e2a names %s, which the table does not declare", name)
		}
	}
	for _, name := range e2a.PublicMethods {
		if !slices.Contains(e2a.GatewayMethods, name) {
			t.Errorf("public method %s is not in GatewayMethods", name)
		}
	}
	for _, m := range methodTable {
		want := slices.Contains(e2a.GatewayMethods, m.name) || strings.HasPrefix(m.name, "admin.")
		if got := e2a.IsGatewayMethod(m.name); got != want {
			t.Errorf("IsGatewayMethod(%s) = %v", m.name, got)
		}
	}
}

// The dispatcher's registry is the table: with every service configured it
// serves every method, with the table's access (the registry's reads public
// when the config says so); with none, only the methods that need none.
func TestRegistryIsTheTable(t *testing.T) {
	all := Services{
		Capabilities: struct{ CapabilityService }{}, Registry: struct{ CapabilityRegistry }{},
		Catalog: learningCatalog{}, Agents: &Agents{}, AgentFlows: &agentflow.Runner{}, MCP: struct{ MCPService }{},
		Retention: &retention.Pruner{},
	}
	s := New(Config{PublicRegistry: true}, all, nil, nil, nil)
	if got := len(s.dispatcher.methods); got != len(methodTable) {
		t.Errorf("%d methods registered, the table has %d", got, len(methodTable))
	}
	for _, m := range methodTable {
		want := m.access
		if m.publicIf != nil {
			want = accessPublic
		}
		if got, ok := s.dispatcher.methods[m.name]; !ok || got.access != want {
			t.Errorf("%s: registered %v with access %v, want %v", m.name, ok, got.access, want)
		}
	}

	bare := New(Config{}, Services{}, nil, nil, nil)
	for _, m := range methodTable {
		_, ok := bare.dispatcher.methods[m.name]
		if ok != (m.servedIf == nil) {
			t.Errorf("%s: registered %v without its services", m.name, ok)
		}
	}
	private := New(Config{}, Services{Registry: all.Registry}, nil, nil, nil)
	if got := private.dispatcher.methods[MethodRegistryList]; got.access != accessAccount {
		t.Error("the registry's reads are public only when configured so")
	}
}

type learningCatalog struct{ Catalog }

func (learningCatalog) Learning() bool { return true }

// Parameters are checked against the spec before the handler: types with
// their lenient string forms, bounds, defaults, required ones, and unknown
// keys with a suggestion.
func TestDecodeParams(t *testing.T) {
	spec := params(reqStr("name"), boolean("async"), integer("limit", 50, 1, 200), strs("status"),
		seconds("timeout", 60), object("input"), rfc3339("since"), workflowParam,
		param{name: "answer", kind: pAny, required: true, need: "the answer"})
	base := func(kv ...any) map[string]any {
		m := map[string]any{"name": "n", "workflow": "{}\n", "answer": 1.0}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	for _, c := range []struct {
		params map[string]any
		err    string // "" when valid
	}{
		{base(), ""},
		{base("async", "true", "limit", "5", "status", "queued,running", "since", "2026-01-02T03:04:05Z"), ""},
		{base("async", true, "limit", 200.0, "status", []any{"queued"}, "timeout", 1.5, "input", map[string]any{}), ""},
		{base("workflow", []any{map[string]any{"type": "beginExecution"}}), ""},
		{base("name", nil, "async", nil), "params.name: is required"},
		{base("name", ""), "params.name: is required"},
		{base("name", 7.0), "params.name: must be a string"},
		{base("answer", nil), "params.answer: is required: the answer"},
		{base("workflow", nil), "params.workflow: is required: the JSONL document as a string, or an array of message objects"},
		{base("workflow", "  "), "params.workflow: is empty"},
		{base("workflow", []any{1.0}), "params.workflow: element 0 is not a message object"},
		{base("workflow", 1.0), "params.workflow: must be a string (JSONL) or an array of message objects"},
		{base("async", "yes"), `params.async: must be true or false, not "yes"`},
		{base("async", 1.0), "params.async: must be a boolean"},
		{base("limit", "five"), `params.limit: must be an integer, not "five"`},
		{base("limit", 0.0), "params.limit: must be an integer from 1 to 200"},
		{base("limit", 2.5), "params.limit: must be an integer from 1 to 200"},
		{base("limit", json.Number("7")), ""},
		{base("status", []any{"queued", 3.0}), "params.status[1]: must be a string"},
		{base("status", 3.0), "params.status: must be a list of strings"},
		{base("timeout", 0.0), "params.timeout: must be a number of seconds from 0 to 60"},
		{base("timeout", "5"), "params.timeout: must be a number of seconds from 0 to 60"},
		{base("input", []any{}), "params.input: must be an object"},
		{base("since", "yesterday"), "params.since: must be an RFC 3339 time, like 2027-01-31T00:00:00Z"},
		{base("limt", 5.0), "params.limt: unknown parameter (this call takes answer, async, input, limit, name, since, status, timeout, workflow)"},
		// A type error is reported before an unknown key, as before.
		{base("limt", 5.0, "async", "x"), `params.async: must be true or false, not "x"`},
	} {
		_, err := decodeParams("test.method", spec, c.params)
		var got string
		if err != nil {
			got = err.Error()
		}
		if got != c.err {
			t.Errorf("%v:\n  got  %q\n  want %q", c.params, got, c.err)
		}
		if err != nil && fault.From(err).Kind != fault.Invalid {
			t.Errorf("%v: %v is not invalid input", c.params, err)
		}
	}

	a, err := decodeParams("test.method", spec, base("async", "true", "limit", "5", "status", "a,b", "since", "2026-01-02T03:04:05Z"))
	if err != nil {
		t.Fatal(err)
	}
	if a.String("name") != "n" || !a.Bool("async") || a.Int("limit") != 5 || !slices.Equal(a.Strings("status"), []string{"a", "b"}) ||
		!a.Time("since").Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) || a.Seconds("timeout") != 0 || a.Object("input") != nil || a.Has("input") {
		t.Fatalf("typed access: %+v %+v", a.given, a.converted)
	}
	if a, _ = decodeParams("test.method", spec, base()); a.Int("limit") != 50 {
		t.Fatalf("the default limit: %d", a.Int("limit"))
	}

	_, err = decodeParams("test.method", spec, base("asinc", true))
	if fe, ok := fault.As(err); !ok || !slices.Contains(fe.Suggestions, "Did you mean async?") || fe.Details["path"] != "params.asinc" {
		t.Fatalf("a typo is named with a suggestion: %#v", err)
	}
	for _, c := range []struct {
		params map[string]any
		id     string
		err    string
	}{
		{map[string]any{"execution_id": "e"}, "e", ""},
		{map[string]any{"id": "p"}, "p", ""},
		{map[string]any{"execution_id": "e", "id": "p"}, "p", ""}, // the path wins
		{map[string]any{}, "", "params.execution_id: is required"},
		{map[string]any{"id": 5.0}, "", "params.execution_id: must be a string"},
		{map[string]any{"id": "p", "ids": "x"}, "", "params.ids: unknown parameter (this call takes execution_id, id)"},
	} {
		a, err := decodeParams(e2a.MethodExecutionGet, executionIDParams, c.params)
		if err != nil && err.Error() != c.err || err == nil && (c.err != "" || a.String("execution_id") != c.id) {
			t.Errorf("%v: %q %v", c.params, a.String("execution_id"), err)
		}
	}
	if _, err := decodeParams("test.none", nil, map[string]any{"x": 1.0}); err == nil ||
		err.Error() != "params.x: unknown parameter (this call takes no parameters)" {
		t.Fatalf("a method without parameters: %v", err)
	}
}

// A handler that reads a parameter its entry does not declare is a defect
// the dispatcher reports as an internal error, not a silent zero value.
func TestUndeclaredParameterIsADefect(t *testing.T) {
	m := methodSpec{name: "test.defect", params: params(str("declared")),
		handle: func(_ *Server, _ context.Context, _ *Call, a args, _ *e2a.StreamWriter) error {
			_ = a.String("undeclared")
			return nil
		}}
	d := &Dispatcher{}
	err := d.call(context.Background(), m.bind(nil), &Call{Env: &e2a.Envelope{Method: m.name}}, nil)
	if fe := fault.From(err); fe.Kind != fault.Internal || !strings.Contains(errors.Unwrap(fe).Error(), "undeclared") {
		t.Fatalf("%v", err)
	}
}

// CheckParams is the table's check for callers that build envelopes: what
// ToAgentInvoke maps onto agent.invoke is what the gateway takes.
func TestCheckParams(t *testing.T) {
	acp := e2a.EnvelopeFromACP("session/prompt", map[string]any{"sessionId": "s1", "text": "hello"}, e2a.ACPOptions{})
	got, err := e2a.ToAgentInvoke(acp, "helper")
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckParams(got.Method, got.Params); err != nil {
		t.Fatalf("mapped params must satisfy agent.invoke: %v", err)
	}
	for _, c := range []struct {
		method string
		params map[string]any
		err    string
	}{
		{e2a.MethodToolList, map[string]any{"filter_kind": "op", "filter_tags": []any{"x"}, "include_deferred": true}, ""},
		{e2a.MethodToolCall, map[string]any{"tool_name": "op.Wait", "session_id": "s", "correlation_id": "c"}, ""},
		{e2a.MethodWorkflowExecute, map[string]any{"workflow": "x", "validate": true, "session_id": "s"}, ""},
		{e2a.MethodWorkflowExecute, map[string]any{"workflow": "x", "inputs": map[string]any{}}, "params.inputs: unknown parameter"},
		{MethodAdminAgentsRegister, map[string]any{"name": "a", "url": "http://x"}, ""}, // the handler decodes the entry
		{"chat.send", nil, `unknown method "chat.send"`},
	} {
		err := CheckParams(c.method, c.params)
		if (c.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s %v: %v, want %q", c.method, c.params, err, c.err)
		}
	}
}

// docs/protocols/e2a.md lists the public methods' params as the table
// declares them: the same names, optional ones marked "?".
func TestE2ADocsListTableParams(t *testing.T) {
	b, err := os.ReadFile("../../docs/protocols/e2a.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z_.]+)` \\| (.*) \\|$")
	name := regexp.MustCompile("`([a-z_]+)(\\??)`")
	seen := 0
	for _, r := range row.FindAllStringSubmatch(string(b), -1) {
		m, ok := methodByName(r[1])
		if !ok || !slices.Contains(e2a.PublicMethods, m.name) {
			continue
		}
		seen++
		documented := map[string]bool{} // name -> optional
		for _, n := range name.FindAllStringSubmatch(r[2], -1) {
			documented[n[1]] = n[2] == "?"
		}
		for _, p := range m.params {
			if optional, ok := documented[p.name]; !ok || optional == p.required {
				t.Errorf("%s: the docs list %s as %v (optional %v), the table says required %v", m.name, p.name, ok, optional, p.required)
			}
			delete(documented, p.name)
		}
		for n := range documented {
			if !slices.Contains(tools.Kinds, n) {
				t.Errorf("%s: the docs list %s, which the table does not declare", m.name, n)
			}
		}
	}
	if want := len(e2a.PublicMethods); seen != want {
		t.Errorf("the docs list %d public methods' params, want %d", seen, want)
	}
}
